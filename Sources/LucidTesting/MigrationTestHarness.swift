import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// Runs one migration test: a store at an old version (seeded from that version's record types, or a
/// committed fixture file) is migrated with the app's real registry and options, then every row and
/// every value of the newest version is compared with what `ExpectedMigration` computed from the
/// rows before, the schema with a freshly created store, and `foreign_key_check`/`integrity_check`
/// (and FTS5's `integrity-check` of every declared search index) are run. The generated test suites call it once per historical version and per fixture file and
/// record each ``MigrationCheckFailure`` as an issue.
public struct MigrationTestHarness: Sendable {
    /// Every version, oldest first.
    public let versions: [Schema]
    /// The registry's steps that need the app's code.
    public let registryStages: [ExplicitStage]
    /// The options the app opens its store with.
    public let options: StoreOptions
    /// What the app's code does, as the app states it.
    public let expectations: MigrationExpectations
    /// Entity and property names of the newest tables, for messages.
    public let naming: [EntityNaming]
    /// Lucid's `ignore_migration_checks` and `ignore_property_migration_checks_on`.
    public let exclusions: [CheckExclusion]
    /// Each newest entity's rows, decoded with its generated record type.
    public let recordChecks: [RecordCheck]
    /// The project's sample rows (`.entities/.samples/<version>.json`): each seeded store also gets its version's, if any.
    public var samplesFolder: String?

    /// A harness for a generated registry (the generated tests make one).
    ///
    /// ```swift
    /// static let harness = MigrationTestHarness(registry: FlightLogSchema.self, options: FlightLogExpectations().storeOptions(), expectations: expectations, naming: naming)
    /// ```
    public init<Registry: SchemaRegistry>(
        registry: Registry.Type, options: StoreOptions, expectations: MigrationExpectations = MigrationExpectations(),
        naming: [EntityNaming] = [], exclusions: [CheckExclusion] = [], recordChecks: [RecordCheck] = [], samplesFolder: String? = nil
    ) {
        self.init(
            versions: registry.versions, stages: registry.stages, options: options, expectations: expectations,
            naming: naming, exclusions: exclusions, recordChecks: recordChecks, samplesFolder: samplesFolder)
    }

    /// For a list of versions (oldest first) and the stages the registry declares.
    package init(
        versions: [Schema], stages: [ExplicitStage] = [], options: StoreOptions,
        expectations: MigrationExpectations = MigrationExpectations(),
        naming: [EntityNaming] = [], exclusions: [CheckExclusion] = [], recordChecks: [RecordCheck] = [], samplesFolder: String? = nil
    ) {
        self.samplesFolder = samplesFolder
        self.versions = versions
        self.registryStages = stages
        self.options = options
        self.expectations = expectations
        self.naming = naming
        self.exclusions = exclusions
        self.recordChecks = recordChecks
    }

    var newest: Schema { versions[versions.count - 1] }

    /// Creates a store at `version`, seeds it with `seed(db, rows)` (rows: 12 unless given; foreign keys off,
    /// one transaction, `foreign_key_check` before committing), migrates it and checks it.
    public func checkSeeded(from version: SchemaVersion, rows: Int? = nil, seed: (Database, Int) throws -> Void) -> [MigrationCheckFailure]
    {
        // A failure in a row the project keeps says where that row came from.
        let samples = samplesFolder.map { SampleRows.file(in: $0, version: version) }.flatMap {
            FileManager.default.fileExists(atPath: $0) ? $0 : nil
        }
        let source =
            samples.map {
                "from \(version) (seeded rows and sample rows \((($0 as NSString).deletingLastPathComponent as NSString).lastPathComponent)/\(($0 as NSString).lastPathComponent))"
            } ?? "from \(version) (seeded rows)"
        return withTemporaryFolder(source) { folder in
            let path = (folder as NSString).appendingPathComponent("store-\(version).sqlite")
            do {
                let database = try LucidStore.create(
                    atPath: path, versions: versions, version: version, dataMigrations: options.dataMigrations,
                    stages: options.stages.map(\.explicit) + registryStages)
                defer { try? database.close() }
                do {
                    try SeedWriter.write(database) { db in
                        try seed(db, rows ?? Seed.rows)
                        if let samplesFolder {
                            try SampleRows.insert(
                                from: samplesFolder, version: version, schema: versions.first { $0.version == version }, db)
                        }
                    }
                } catch let error as SeedError {
                    return [
                        MigrationCheckFailure(
                            source: source,
                            message: "the seeded rows break \(error.count) foreign key(s) before migrating: \(error.located)")
                    ]
                }
                try database.close()
            } catch {
                return [MigrationCheckFailure(source: source, message: "cannot seed a store at \(version): \(error)")]
            }
            return check(path: path, source: source, folder: folder)
        }
    }

    /// Copies a committed fixture store (after checking it against its `.sha256` file), migrates the copy
    /// and checks it.
    public func checkFixture(at path: String) -> [MigrationCheckFailure] {
        let name = (path as NSString).lastPathComponent
        let source = "from fixture \(name)"
        if let problem = FixtureFiles.namingProblem(at: path) ?? FixtureFiles.checksumProblem(at: path) {
            return [MigrationCheckFailure(source: source, message: problem)]
        }
        return withTemporaryFolder(source) { folder in
            let copy = (folder as NSString).appendingPathComponent(name)
            do {
                try FileManager.default.copyItem(atPath: path, toPath: copy)
            } catch {
                return [MigrationCheckFailure(source: source, message: "cannot copy the fixture: \(error)")]
            }
            return check(path: copy, source: source, folder: folder, namingVersion: true)
        }
    }

    private func withTemporaryFolder(_ source: String, _ body: (String) -> [MigrationCheckFailure]) -> [MigrationCheckFailure] {
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("lucid-migration-test-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            return [MigrationCheckFailure(source: source, message: "cannot create a temporary folder: \(error)")]
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return body(folder)
    }

    private var migrationOptions: StoreOptions {
        var options = options
        options.declaredStages += registryStages
        options.newerStorePolicy = .refuse
        options.unknownStorePolicy = .refuse
        // The tests report what they find; the runtime's step log would only bury it.
        options.logger = Logger(label: "lucidgen.migration-test") { _ in SwiftLogNoOpLogHandler() }
        return options
    }

    /// The common part: plan, compute the expected rows, migrate, compare. With `namingVersion`, the
    /// messages' source names the store's version (for fixtures, whose name is all the caller knows).
    func check(path: String, source: String, folder: String, namingVersion: Bool = false) -> [MigrationCheckFailure] {
        var source = source
        func failure(_ message: String) -> [MigrationCheckFailure] { [MigrationCheckFailure(source: source, message: message)] }
        let options = migrationOptions
        let expected: ExpectedRows
        let sourceVersion: SchemaVersion
        var sequences: [String: Int64] = [:]
        do {
            let status = try LucidStore.inspect(atPath: path, versions: versions, stages: options.stages.map(\.explicit) + registryStages)
            guard let version = status.version, let schema = versions.first(where: { $0.version == version }) else {
                return failure("the store has no version this registry knows")
            }
            sourceVersion = version
            if namingVersion { source += " (version \(version))" }
            let database = try DatabaseQueue(path: path)
            let (before, recorded) = try database.read { db in
                let rows = try ExpectedMigration.read(db, at: schema)
                sequences = try SchemaShape.sequences(db)
                var recorded: Set<ExpectedMigration.DataMigrationKey> = []
                for (version, label) in try DataMigrationRecords.recorded(db) { recorded.insert(.init(version: version, label: label)) }
                return (rows, recorded)
            }
            try database.close()
            let oracle = ExpectedMigration(versions: versions, options: options, expectations: expectations)
            // `before` holds stored values already: it needs no normalizing.
            expected = try oracle.run(before, steps: status.steps, recorded: recorded)
        } catch let error as ExpectationError {
            return failure("the expectations are incomplete: \(error)")
        } catch StoreError.checksumMismatch(let version, _, _) where namingVersion {
            // A committed fixture of a version whose descriptions changed since it was written: what to do
            // is in the project, not in the app (the runtime's advice is for an app's store).
            return failure(
                "it was written for \(version) as \(version) was then, and \(version)'s descriptions have changed since (`lucidgen check` names "
                    + "the difference). If \(version) was released, restore its descriptions and make the change in a new version; if it never was, "
                    + "delete the fixture and its .sha256 (`lucidgen release` writes it once \(version) is final)")
        } catch {
            return failure("cannot read the store before migrating: \(error)")
        }

        var failures: [MigrationCheckFailure] = []
        do {
            let database = try LucidStore.open(atPath: path, versions: versions, options: options).database
            defer { try? database.close() }
            try database.read { db in
                let actual = try ExpectedMigration.read(db, at: newest)
                failures += compare(expected: expected, actual: actual, from: sourceVersion, source: source)
                for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                    failures.append(
                        MigrationCheckFailure(
                            source: source, entity: entityName(row["table"]), row: "rowid \(row["rowid"] as DatabaseValue)",
                            message: "foreign key to \(row["parent"] as String? ?? "?") is broken after the migration"))
                }
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                if integrity != ["ok"] {
                    failures.append(
                        MigrationCheckFailure(source: source, message: "integrity_check: \(integrity.prefix(5).joined(separator: "; "))"))
                }
                for check in recordChecks {
                    do {
                        try check.check(db)
                    } catch {
                        failures.append(
                            MigrationCheckFailure(
                                source: source, entity: check.entity, message: "its rows do not decode as the generated record: \(error)"))
                    }
                }
                failures += try schemaDifferences(db, folder: folder, source: source)
                // AUTOINCREMENT: no id handed out before the migration is handed out again after it.
                let after = try SchemaShape.sequences(db)
                for (table, highest) in sequences.sorted(by: { $0.key < $1.key })
                where try db.tableExists(table) && (after[table] ?? 0) < highest {
                    failures.append(
                        MigrationCheckFailure(
                            source: source, entity: entityName(table) ?? table, expected: "sqlite_sequence \(highest) or more",
                            found: after[table].map(String.init) ?? "no row",
                            message: "the migration lost AUTOINCREMENT's highest id: an id already handed out would be handed out again"))
                }
            }
            failures += try searchIndexProblems(database, source: source)
        } catch {
            return failures + failure("the migration failed: \(error)")
        }
        return failures
    }

    /// FTS5's `integrity-check` of every declared search index of the newest version against its table:
    /// after the migration, the index must hold exactly the searched text of every row (rowids kept
    /// through rebuilds, triggers recreated, the index rebuilt where searched values changed). The check
    /// is written as an `INSERT` (FTS5's special commands are) and changes nothing.
    func searchIndexProblems(_ database: DatabaseQueue, source: String) throws -> [MigrationCheckFailure] {
        var failures: [MigrationCheckFailure] = []
        for table in newest.tables where table.search != nil {
            let index = quoteIdentifier(table.searchTableName)
            do {
                try database.write { try $0.execute(sql: "INSERT INTO \(index) (\(index), rank) VALUES ('integrity-check', 1)") }
            } catch {
                failures.append(
                    MigrationCheckFailure(
                        source: source, entity: entityName(table.name),
                        message: "its search index \(table.searchTableName) does not match the table after the migration: \(error)"))
            }
        }
        return failures
    }

    // MARK: Comparing

    static let maximumFailuresPerTable = 25

    func compare(expected: ExpectedRows, actual: ExpectedRows, from version: SchemaVersion, source: String) -> [MigrationCheckFailure] {
        var failures: [MigrationCheckFailure] = []
        for table in newest.tables {
            if excluded(table: table.name, column: nil, from: version) { continue }
            let names = naming.first { $0.table == table.name }
            let entity = names.map { "\($0.entity) (table \(table.name))" } ?? "table \(table.name)"
            let keyColumns = table.primaryKey.isEmpty ? table.columns.map(\.name) : table.primaryKey
            func key(_ row: [String: DatabaseValue]) -> String {
                keyColumns.map { "\($0)=\(MigrationCheckFailure.format(row[$0]))" }.joined(separator: ", ")
            }
            let expectedRows = expected.tables[table.name] ?? []
            let actualRows = actual.tables[table.name] ?? []
            var actualByKey: [String: [String: DatabaseValue]] = [:]
            for row in actualRows { actualByKey[key(row)] = row }
            let volatile = expected.volatile[table.name] ?? []
            var tableFailures: [MigrationCheckFailure] = []
            var expectedKeys: Set<String> = []
            for row in expectedRows {
                let rowKey = key(row)
                expectedKeys.insert(rowKey)
                guard let found = actualByKey[rowKey] else {
                    tableFailures.append(
                        MigrationCheckFailure(
                            source: source, entity: entity, row: rowKey, message: "the row is missing after the migration"))
                    continue
                }
                for column in table.columns where !excluded(table: table.name, column: column.name, from: version) {
                    let property =
                        names?.properties[column.name].map { $0 == column.name ? $0 : "\($0) (column \(column.name))" } ?? column.name
                    let expectedValue = row[column.name] ?? .null
                    let foundValue = found[column.name] ?? .null
                    if volatile.contains(column.name) {
                        if foundValue.isNull {
                            tableFailures.append(
                                MigrationCheckFailure(
                                    source: source, entity: entity, row: rowKey, property: property,
                                    expected: "a value (its default is not constant)", found: "NULL"))
                        }
                    } else if expectedValue != foundValue {
                        tableFailures.append(
                            MigrationCheckFailure(
                                source: source, entity: entity, row: rowKey, property: property,
                                expected: MigrationCheckFailure.format(expectedValue), found: MigrationCheckFailure.format(foundValue)))
                    }
                }
            }
            for row in actualRows where !expectedKeys.contains(key(row)) {
                tableFailures.append(
                    MigrationCheckFailure(
                        source: source, entity: entity, row: key(row), message: "the migration left a row that was not expected"))
            }
            if tableFailures.count > Self.maximumFailuresPerTable {
                let more = tableFailures.count - Self.maximumFailuresPerTable
                tableFailures = Array(tableFailures.prefix(Self.maximumFailuresPerTable))
                tableFailures.append(
                    MigrationCheckFailure(source: source, entity: entity, message: "\(more) more difference(s) not listed"))
            }
            failures += tableFailures
        }
        return failures
    }

    func excluded(table: String, column: String?, from version: SchemaVersion) -> Bool {
        exclusions.contains { exclusion in
            exclusion.table == table && (exclusion.column == nil || exclusion.column == column)
                && version < exclusion.before && exclusion.from.map { version >= $0 } ?? true
        }
    }

    func entityName(_ table: String?) -> String? {
        guard let table else { return nil }
        return naming.first { $0.table == table }.map { "\($0.entity) (table \(table))" } ?? "table \(table)"
    }

    /// The migrated store's tables, columns, keys and indexes against those of a store created fresh at
    /// the newest version (from SQLite's pragmas, so the `CREATE` text may differ).
    func schemaDifferences(_ db: Database, folder: String, source: String) throws -> [MigrationCheckFailure] {
        let freshPath = (folder as NSString).appendingPathComponent("fresh.sqlite")
        if !FileManager.default.fileExists(atPath: freshPath) {
            var quiet = StoreOptions()
            quiet.logger = migrationOptions.logger
            try LucidStore.open(atPath: freshPath, versions: versions, options: quiet).database.close()
        }
        let fresh = try DatabaseQueue(path: freshPath)
        defer { try? fresh.close() }
        let freshShape = try fresh.read(SchemaShape.read)
        let migratedShape = try SchemaShape.read(db)
        var failures: [MigrationCheckFailure] = []
        for name in Set(freshShape.keys).union(migratedShape.keys).sorted() where freshShape[name] != migratedShape[name] {
            failures.append(
                MigrationCheckFailure(
                    source: source, entity: entityName(name) ?? name,
                    expected: freshShape[name]?.joined(separator: "; ") ?? "no such table",
                    found: migratedShape[name]?.joined(separator: "; ") ?? "no such table",
                    message: "the schema differs from a store created at \(newest.version)"))
        }
        return failures
    }
}

/// A table's columns, keys and indexes as lines, per table (lucidgen's own tables left out).
enum SchemaShape {
    static func read(_ db: Database) throws -> [String: [String]] {
        var shape: [String: [String]] = [:]
        let tables = try String.fetchAll(
            db,
            sql:
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'lucid\\_%' ESCAPE '\\'"
        )
        for table in tables {
            let quoted = quoteLiteral(table)
            var lines = try Row.fetchAll(
                db, sql: "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(\(quoted)) ORDER BY name"
            ).map { row in
                "column \(row["name"] as String) \(row["type"] as String)\((row["notnull"] as Int) == 1 ? " NOT NULL" : "")\((row["dflt_value"] as String?).map { " DEFAULT \($0)" } ?? "")\((row["pk"] as Int) > 0 ? " PRIMARY KEY \(row["pk"] as Int)" : "")"
            }
            lines += try Row.fetchAll(
                db, sql: "SELECT \"from\", \"table\", \"to\", on_delete FROM pragma_foreign_key_list(\(quoted)) ORDER BY \"from\""
            ).map { row in
                "foreign key \(row["from"] as String) → \(row["table"] as String).\(row["to"] as String? ?? "") ON DELETE \(row["on_delete"] as String)"
            }
            for index in try Row.fetchAll(
                db, sql: "SELECT name, \"unique\" FROM pragma_index_list(\(quoted)) WHERE origin = 'c' ORDER BY name")
            {
                let name: String = index["name"]
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(\(quoteLiteral(name))) ORDER BY seqno")
                lines.append("\((index["unique"] as Int) == 1 ? "unique " : "")index \(name) (\(columns.joined(separator: ", ")))")
            }
            let sql =
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table]) ?? ""
            if SQLTokens(sql).contains(keyword: "autoincrement") { lines.append("AUTOINCREMENT") }
            shape[table] = lines
        }
        return shape
    }

    /// AUTOINCREMENT's highest id handed out, by table (`sqlite_sequence`; empty when no table has one).
    static func sequences(_ db: Database) throws -> [String: Int64] {
        guard try db.tableExists("sqlite_sequence") else { return [:] }
        return Dictionary(
            try Row.fetchAll(db, sql: "SELECT name, seq FROM sqlite_sequence").map { ($0["name"] as String, $0["seq"] as Int64) },
            uniquingKeysWith: max)
    }
}

/// A newest table's entity and property names, for messages.
public struct EntityNaming: Sendable {
    /// The table.
    public var table: String
    /// `Aircraft`, or `Aircraft.pilots` for a to-many relationship's join table.
    public var entity: String
    /// Column name → property name.
    public var properties: [String: String]

    /// How failures name a table's entity and columns' properties.
    ///
    /// ```swift
    /// EntityNaming(table: "aircraft", entity: "Aircraft", properties: ["is_favorite": "isFavorite"])
    /// ```
    @_spi(Generated) public init(table: String, entity: String, properties: [String: String]) {
        self.table = table
        self.entity = entity
        self.properties = properties
    }
}

/// Values not checked for stores from some versions (Lucid's `ignore_migration_checks`, whole entity,
/// and `ignore_property_migration_checks_on`, one column): for source versions in `from ..< before`.
public struct CheckExclusion: Sendable {
    /// The table excluded.
    public var table: String
    /// nil: the whole table.
    public var column: String?
    /// The first store version excluded (nil: from the first).
    public var from: SchemaVersion?
    /// Stores from this version on are checked again.
    public var before: SchemaVersion

    /// A check left out (Lucid's ignore keys), for stores from `from` up to, not including, `before`.
    ///
    /// ```swift
    /// CheckExclusion(table: "aircraft", column: "photo", before: SchemaVersion("2.0"))
    /// ```
    @_spi(Generated) public init(table: String, column: String? = nil, from: SchemaVersion? = nil, before: SchemaVersion) {
        self.table = table
        self.column = column
        self.from = from
        self.before = before
    }
}

/// Decodes the newest rows of one entity with its generated record type.
public struct RecordCheck: Sendable {
    /// The entity whose rows are decoded.
    public var entity: String
    let check: @Sendable (Database) throws -> Void

    /// A check run on the migrated store.
    ///
    /// ```swift
    /// RecordCheck(entity: "Aircraft") { db in _ = try Aircraft.fetchAll(db) }
    /// ```
    @_spi(Generated) public init(entity: String, check: @escaping @Sendable (Database) throws -> Void) {
        self.entity = entity
        self.check = check
    }

    /// Fetches every row as `Record`; a row that does not decode is named by its primary key
    /// (`row id=1007: …`), not by its position. `kinds`: for an entity of a hierarchy, only the rows whose
    /// `kind` is one of them (a subentity's record reads its own kinds' rows).
    @_spi(Generated) public static func records<Record: FetchableRecord & TableRecord>(
        _ type: Record.Type, entity: String, kinds: Set<String>? = nil
    ) -> RecordCheck {
        RecordCheck(entity: entity) { db in
            let key = try db.primaryKey(Record.databaseTableName).columns
            let request = kinds.map { Record.all().filter($0.contains(Column("kind"))) } ?? Record.all()
            let rows = try Row.fetchCursor(db, request.asRequest(of: Row.self))
            while let row = try rows.next() {
                do {
                    _ = try Record(row: row)
                } catch {
                    let named = key.map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: ", ")
                    throw RowDecodingFailure(row: named.isEmpty ? "?" : named, underlying: "\(error)")
                }
            }
        }
    }
}

/// A row of the migrated store that its generated record cannot decode, named by its primary key.
struct RowDecodingFailure: Error, CustomStringConvertible {
    var row: String
    var underlying: String
    var description: String { "row \(row): \(underlying)" }
}
