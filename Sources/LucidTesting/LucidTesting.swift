// What generated migration tests link: the migration checks, expected rows, what the app's expectations
// state. It re-exports nothing: generated tests import GRDB, LucidRuntime and LucidTesting themselves
// (with `@_spi(Generated)` for the seeding and fixture machinery only they call); a test an app writes
// imports what it names.
