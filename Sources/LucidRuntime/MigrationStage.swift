import GRDB
import LucidSchema

/// An app-provided step between two versions, with code that runs around the step's SQL (Core Data's
/// `NSCustomMigrationStage`): `willMigrate` sees the database at the old schema, `didMigrate` at the new
/// one, both inside the step's transaction. The planner takes a stage wherever it applies and never
/// skips it with an inferred step; a stage may also jump over versions (e.g. 2.0 → 6.0 for a large user
/// base), in which case stores at 2.0 take it and others do not.
///
/// ```swift
/// var options = StoreOptions()
/// options.stages = [
///     MigrationStage(from: SchemaVersion("1.1"), to: SchemaVersion("2.0"), label: "merge duplicate pilots",
///                    willMigrate: { db in try db.execute(sql: "DELETE FROM pilot WHERE id NOT IN (SELECT min(id) FROM pilot GROUP BY name)") }),
/// ]
/// ```
///
/// The schema change between `from` and `to` must itself be inferable (the hooks fix the data around it).
/// A failing hook rolls the whole step back: the store stays at `from`.
public struct MigrationStage: Sendable {
    public var from: SchemaVersion
    public var to: SchemaVersion
    public var label: String
    public var willMigrate: (@Sendable (Database) throws -> Void)?
    public var didMigrate: (@Sendable (Database) throws -> Void)?

    public init(
        from: SchemaVersion, to: SchemaVersion, label: String, willMigrate: (@Sendable (Database) throws -> Void)? = nil,
        didMigrate: (@Sendable (Database) throws -> Void)? = nil
    ) {
        self.from = from
        self.to = to
        self.label = label
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
    }

    var explicit: ExplicitStage { ExplicitStage(from: from, to: to, label: label) }
}
