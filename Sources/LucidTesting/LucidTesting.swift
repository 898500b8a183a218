// What generated migration tests link: seeds, expected rows, the migration checks. It re-exports the
// runtime (and through it GRDB and LucidSchema), so a generated test needs only `import LucidTesting`.
@_exported import LucidRuntime
