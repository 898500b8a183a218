import FlightLog
import Foundation
import GRDB
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// Never half a path: an app that opens a store without the code of a stage on its
/// path gets one typed error naming every such stage before the first step, and the store unchanged.
@Suite struct MissingStageTests {
    /// FlightLog's path from 1.0: 1.0 → 2.0 (inferred), then the app's stage 2.0 → 2.1 (moveFlightData).
    static let moveFlightData = MissingStage(
        from: SchemaVersion("2.0"), to: SchemaVersion("2.1"), label: "moveFlightData", stageProvided: false, tables: [],
        signatures: ["func moveFlightDataWillMigrate(_ db: Database) throws", "func moveFlightDataDidMigrate(_ db: Database) throws"])

    /// A FlightLog store at `version` with a pilot, in `folder`.
    static func flightLogStore(at version: String, _ folder: TemporaryFolder, name: String = "store.sqlite") throws -> String {
        let path = folder.path(name)
        let database = try LucidStore.create(atPath: path, versions: FlightLogSchema.versions, version: try SchemaVersion(parsing: version))
        try database.write { db in try db.execute(sql: "INSERT INTO pilot (id, name, ratings) VALUES (1, 'Ann', '[]')") }
        try database.close()
        return path
    }

    /// The error's parts, checked as an app sees them: the generated names of its module, no placeholder,
    /// no word of the CLI.
    static func expectFlightLogError(_ error: StoreError?, path: String, from: SchemaVersion) {
        guard case .missingStages(let errorPath, let store, let target, let missing, let registry)? = error else {
            Issue.record("expected missingStages, got \(String(describing: error))")
            return
        }
        #expect(errorPath == path)
        #expect(store == from && target == SchemaVersion("4.0"))
        #expect(missing == [moveFlightData])
        #expect(registry == "FlightLog.FlightLogSchema")
        let text = error!.description
        #expect(
            text == """
                the migration from \(from) to 4.0 needs the app's code for a stage it was not given, so no step ran and the store stays at \(from), unchanged: \
                2.0 → 2.1 'moveFlightData' needs func moveFlightDataWillMigrate(_ db: Database) throws and func moveFlightDataDidMigrate(_ db: Database) throws. \
                Pass every stage's code before opening the store: options.stages = FlightLogSchema.stages(using: migrations), where migrations is a value of \
                the app's type conforming to FlightLogMigrations (both generated in module FlightLog), which implements each function named above
                """)
        #expect(!text.contains("<Module>") && !text.contains("lucidgen migrate"))
    }

    @Test func openRefusesBeforeTheFirstStepAndLeavesTheFileByteIdentical() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.flightLogStore(at: "1.0", folder)
        let before = try folder.files()
        for atomicity in [StoreOptions.Atomicity.perStep, .wholePath] {
            var options = StoreOptions()
            options.atomicity = atomicity
            let error = #expect(throws: StoreError.self) {
                try LucidStore.open(atPath: path, registry: FlightLogSchema.self, options: options).database
            }
            Self.expectFlightLogError(error, path: path, from: SchemaVersion("1.0"))
            #expect(try folder.files() == before, "\(atomicity): no step committed, no bookkeeping, no journal left")
        }
        // With the app's code the same store takes the whole path.
        let opened = try LucidStore.open(atPath: path, registry: FlightLogSchema.self, options: FlightLogStages.storeOptions())
        let (database, outcome) = (opened.database, opened.outcome)
        #expect(outcome.steps.map(\.to) == [SchemaVersion("2.0"), SchemaVersion("2.1"), SchemaVersion("4.0")])
        #expect(try database.read { db in try String.fetchOne(db, sql: "SELECT name FROM pilot") } == "Ann")
        try database.close()
    }

    /// A store without lucidgen's record, recognised from its tables: not even its record is written.
    @Test func anAdoptableStoreIsNotAdoptedWhenItsPathLacksTheAppsCode() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("plain.sqlite")
        try withDatabase(path) { db in
            for statement in FlightLogSchema.versions[0].ddl { try db.execute(sql: statement) }
            try db.execute(sql: "INSERT INTO pilot (id, name, ratings) VALUES (1, 'Ann', '[]')")
        }
        let before = try folder.files()
        let error = #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, registry: FlightLogSchema.self).database }
        Self.expectFlightLogError(error, path: path, from: SchemaVersion("1.0"))
        #expect(try folder.files() == before)
        #expect(try withDatabase(path) { db in try db.tableExists("lucid_store") } == false)
    }

    @Test func lucidMigratorRefusesBeforeTheFirstStepOnTheAppsConnection() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.flightLogStore(at: "1.0", folder)
        let before = try folder.files()
        let queue = try DatabaseQueue(path: path)
        let error = #expect(throws: StoreError.self) { try LucidMigrator(registry: FlightLogSchema.self).migrate(queue) }
        Self.expectFlightLogError(error, path: path, from: SchemaVersion("1.0"))
        try queue.read { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") == "1.0")
            #expect(try String.fetchAll(db, sql: "SELECT kind FROM lucid_migration_log") == ["create"])
            #expect(try db.tableExists("flight") && !db.tableExists("log_entry"), "1.0's tables")
        }
        try queue.close()
        #expect(try folder.files() == before)
    }

    @Test func openTogetherChecksEveryStoreBeforeCopyingAny() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The first store's path needs no code (3.0 → 4.0); the second's crosses the stage.
        let ready = try Self.flightLogStore(at: "3.0", folder, name: "ready.sqlite")
        let behind = try Self.flightLogStore(at: "1.0", folder, name: "behind.sqlite")
        let before = try folder.files()
        let error = #expect(throws: StoreError.self) {
            try LucidStore.openTogether([
                StoreSpec(path: ready, registry: FlightLogSchema.self), StoreSpec(path: behind, registry: FlightLogSchema.self),
            ]).map(\.database)
        }
        Self.expectFlightLogError(error, path: behind, from: SchemaVersion("1.0"))
        #expect(try folder.files() == before, "both stores byte-identical, no migrated copy left beside them")

        var options = StoreOptions()
        options.stages = FlightLogSchema.stages(using: FlightLogStages())
        let queues = try LucidStore.openTogether(
            [StoreSpec(path: ready, registry: FlightLogSchema.self), StoreSpec(path: behind, registry: FlightLogSchema.self)],
            options: options
        ).map(\.database)
        for queue in queues {
            #expect(try queue.read { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") } == "4.0")
            try queue.close()
        }
    }

    /// 1.0: item(name, code TEXT). 1.1: adds `note`. 2.0: `code` becomes an int, which needs a row transform.
    static func itemVersions() throws -> [Schema] {
        try resolveSchemas([
            "item.json": """
            { "name": "item", "identifier": { "type": "int" },
              "version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "2.0" }],
              "properties": [
                { "name": "name", "property_type": "string" },
                { "name": "note", "property_type": "string", "optional": true, "added_at_version": "1.1" },
                { "name": "code", "property_type": "int", "type_history": [{ "until_version": "2.0", "property_type": "string" }] } ] }
            """
        ])
    }

    static let parseCodes = ExplicitStage(
        from: SchemaVersion("1.1"), to: SchemaVersion("2.0"), label: "parse codes", transformedTables: ["item"])

    /// A history made by hand (no generated registry): the message names the `MigrationStage` and the
    /// `RowTransform` to pass; a stage passed without its transform is refused the same way.
    @Test(arguments: [false, true]) func aHistoryWithoutRegistryNamesTheStageAndTransformToPass(stagePassed: Bool) throws {
        let versions = try Self.itemVersions()
        let (path, folder) = try storeAtFirstVersion(versions, rows: "INSERT INTO item (id, name, code) VALUES (1, 'a', '42')")
        defer { folder.remove() }
        let history = SchemaHistory(versions: versions, stages: [Self.parseCodes])
        var options = StoreOptions()
        if stagePassed {
            options.stages = [
                MigrationStage(from: SchemaVersion("1.1"), to: SchemaVersion("2.0"), label: "parse codes", didMigrate: { _ in })
            ]
        }
        let before = try folder.files()
        let error = #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, history: history, options: options).database }
        guard case .missingStages(_, let store, let target, let missing, let registry)? = error else {
            Issue.record("expected missingStages, got \(String(describing: error))")
            return
        }
        #expect(store == SchemaVersion("1.0") && target == SchemaVersion("2.0") && registry == nil)
        let transform = #"RowTransform(table: "item") { row in … } in its transforms"#
        #expect(
            missing == [
                MissingStage(
                    from: SchemaVersion("1.1"), to: SchemaVersion("2.0"), label: "parse codes", stageProvided: stagePassed,
                    tables: ["item"],
                    signatures: stagePassed
                        ? [transform]
                        : [#"MigrationStage(from: SchemaVersion("1.1"), to: SchemaVersion("2.0"), label: "parse codes", …)"#, transform])
            ])
        #expect(
            error?.nextStep == "Pass each stage named above in StoreOptions.stages, with the row transforms named, before opening the store"
        )
        #expect(try folder.files() == before, "the inferred step 1.0 → 1.1 did not run")
    }

    /// Stages declared without code (what `lucidgen migrate` does) keep their meaning: the path runs up to
    /// the stage and stops there.
    @Test func aDeclaredStageStillRunsThePathUpToIt() throws {
        let versions = try Self.itemVersions()
        let (path, folder) = try storeAtFirstVersion(versions, rows: "INSERT INTO item (id, name, code) VALUES (1, 'a', '42')")
        defer { folder.remove() }
        var options = StoreOptions()
        options.declaredStages = [Self.parseCodes]
        let error = #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, versions: versions, options: options).database }
        guard case .missingStage(let label)? = error else {
            Issue.record("expected missingStage, got \(String(describing: error))")
            return
        }
        #expect(label == "1.1 → 2.0 (parse codes)")
        #expect(try withDatabase(path) { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") } == "1.1")
        #expect(error?.description.contains("<Module>") == false)
    }
}

extension MissingStageTests {
    /// A label or table name is written as a Swift string literal in the signatures an error shows: a quote,
    /// backslash, line break or terminal escape in it cannot end the literal or reach a terminal raw.
    @Test func aLabelOrTableNameIsWrittenAsASwiftStringLiteral() {
        let stage = MissingStage(
            from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "say \"hi\"\\\n\u{1B}[2J", stageProvided: false,
            tables: ["it\"em"], registry: nil)
        #expect(
            stage.signatures == [
                #"MigrationStage(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "say \"hi\"\\\n\u{1b}[2J", …)"#,
                #"RowTransform(table: "it\"em") { row in … } in its transforms"#,
            ])
    }
}
