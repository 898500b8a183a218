// LucidRuntime is what generated code and apps link: GRDB for SQLite access, swift-log for logs, and
// LucidSchema for the versioned schema model. Re-exporting GRDB and LucidSchema lets generated files
// (and apps) write a single `import LucidRuntime`.
@_exported import GRDB
@_exported import LucidSchema
