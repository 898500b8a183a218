import LucidSchema
@_spi(Generated) import LucidSchema

/// A stage on a store's path whose code the app did not pass in ``StoreOptions/stages``, or passed
/// without a row transform the step needs: one entry of
/// ``StoreError/missingStages(path:storeVersion:target:missing:registry:)``, which is thrown before
/// the path's first step runs.
///
/// ```swift
/// } catch StoreError.missingStages(_, _, _, let missing, _) {
///     for stage in missing { logger.error("no code for \(stage.from) → \(stage.to) '\(stage.label)': \(stage.signatures)") }
/// }
/// ```
public struct MissingStage: Sendable, Hashable, CustomStringConvertible {
    /// The version the stage starts from.
    public var from: SchemaVersion
    /// The version it reaches.
    public var to: SchemaVersion
    /// The stage's label, as the registry (or ``StoreOptions/stages``) names it.
    public var label: String
    /// Whether ``StoreOptions/stages`` has a stage from ``from`` to ``to``: then only the row transforms
    /// of ``tables`` are missing from it.
    public var stageProvided: Bool
    /// The tables (named as at ``to``) whose row transform is missing.
    public var tables: [String]
    /// What the app's code must provide, in Swift. With a generated registry: the requirements of its
    /// `…Migrations` protocol, e.g. `func moveFlightDataWillMigrate(_ db: Database) throws`, and one
    /// `func migrate(_ old: /* shelf at 2.0 */) throws -> /* shelf at 3.0 */?` per table (the record
    /// types are the table's at ``from`` and at ``to``). Otherwise the `MigrationStage` and
    /// `RowTransform`s to pass.
    public var signatures: [String]

    package init(from: SchemaVersion, to: SchemaVersion, label: String, stageProvided: Bool, tables: [String], signatures: [String]) {
        self.from = from
        self.to = to
        self.label = label
        self.stageProvided = stageProvided
        self.tables = tables
        self.signatures = signatures
    }

    /// `2.0 → 2.1 'moveFlightData' needs func moveFlightDataWillMigrate(_ db: Database) throws and func
    /// moveFlightDataDidMigrate(_ db: Database) throws`.
    public var description: String {
        "\(from) → \(to) '\(label)' needs " + signatures.joined(separator: " and ")
    }

    /// The entry for a stage of `registry` (nil: a history made from versions), with its signatures.
    init(from: SchemaVersion, to: SchemaVersion, label: String, stageProvided: Bool, tables: [String], registry: GeneratedNames?) {
        var signatures: [String] = []
        if registry?.migrationsProtocol != nil {
            // The generated protocol's requirements (Templates/migrations.mustache): a declared stage's
            // hooks are named after it; each table needs a typed `migrate(_:)`.
            if !stageProvided && Self.isIdentifier(label) {
                signatures += ["func \(label)WillMigrate(_ db: Database) throws", "func \(label)DidMigrate(_ db: Database) throws"]
            }
            signatures += tables.map { "func migrate(_ old: /* \($0) at \(from) */) throws -> /* \($0) at \(to) */?" }
        } else {
            if !stageProvided {
                signatures.append(
                    "MigrationStage(from: SchemaVersion(\"\(from)\"), to: SchemaVersion(\"\(to)\"), label: \(swiftStringLiteral(label)), …)"
                )
            }
            signatures += tables.map { "RowTransform(table: \(swiftStringLiteral($0))) { row in … } in its transforms" }
        }
        // Only a registry stage without hooks or tables could name nothing above: it still needs passing.
        if signatures.isEmpty { signatures.append("its MigrationStage in StoreOptions.stages") }
        self.init(from: from, to: to, label: label, stageProvided: stageProvided, tables: tables, signatures: signatures)
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }
}

/// The names of an app's generated code, from its registry's type as `String(reflecting:)` spells it
/// (`FlightLog.FlightLogSchema`): the module (`FlightLog`), the registry (`FlightLogSchema`) and, for a
/// registry named as lucidgen names them (`<module name>Schema`), the protocol of the app's stage code
/// (`FlightLogMigrations`).
struct GeneratedNames: Sendable, Hashable {
    var module: String
    var registry: String
    var migrationsProtocol: String?

    init(reflecting name: String) {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        module = parts[0]
        // A type declared in a function reads `Module.(unknown context at $…).Name`: its own name is the last part.
        let rest = parts.count > 1 ? parts[1] : parts[0]
        registry = rest.contains("(") ? String(rest.split(separator: ".").last ?? Substring(rest)) : rest
        if registry.hasSuffix("Schema"), registry.count > "Schema".count, !registry.contains(".") {
            migrationsProtocol = registry.dropLast("Schema".count) + "Migrations"
        }
    }
}
