// LucidRuntime is what an app imports: opening and migrating stores, the app's migration code, what a
// store records. It re-exports nothing: an app that reads records with GRDB's API writes `import GRDB`
// itself (GRDB's `Table` and SwiftUI's `Table` then meet only in files that import both), and the schema
// model the generator shares with the runtime (`LucidSchema`) stays out of the app's namespace. Generated
// code imports GRDB, LucidSchema and LucidRuntime itself, with `@_spi(Generated)` for what only it calls.
@_spi(Generated) import LucidSchema

/// A schema version, `MAJOR.MINOR` or `MAJOR.MINOR.PATCH` (`"2.1"`), ordered numerically.
public typealias SchemaVersion = LucidSchema.SchemaVersion

/// The list of schema versions of an app, as `lucidgen generate` emits it (`<Module>Schema`).
public typealias SchemaRegistry = LucidSchema.SchemaRegistry

/// One step of a migration path (``StoreStatus/steps``, ``MigrationOutcome``).
public typealias MigrationStep = LucidSchema.MigrationStep

/// A step between two versions that needs the app's code (a stage): what ``SchemaRegistry`` lists and
/// ``MigrationStage`` provides.
public typealias ExplicitStage = LucidSchema.ExplicitStage

/// Why no migration path can be planned (``StoreError/planning(_:)``).
public typealias PlanningError = LucidSchema.PlanningError

/// Why the change between two versions needs the app's code (in ``PlanningError``).
public typealias NotInferable = LucidSchema.NotInferable
