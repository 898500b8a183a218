import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
@_spi(Generated) import LucidTesting
import StoreTestSupport
import Testing

/// The machinery behind the generated migration tests: expected rows computed from the schema history,
/// and failures that say where to look.
@Suite struct MigrationCheckTests {
    static let owner = """
        { "name": "owner", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "name", "property_type": "string" }] }
        """

    /// 1.0 → 2.0: a rename, an int → double conversion (its loss accepted: Int64.max becomes 2^63), an added property with a default, a removed one,
    /// a to-one relationship that becomes to-many and a to-many one that becomes to-one; 3.0 renames the table.
    func versions() throws -> [Schema] {
        try resolveSchemas(
            [
                "owner.json": Self.owner,
                "item.json": """
                { "name": "item", "identifier": { "type": "int" },
                  "version_history": [{ "version": "1.0" }, { "version": "2.0" }, { "version": "3.0", "previous_name": "thing" }],
                  "properties": [
                    { "name": "name", "property_type": "string" },
                    { "name": "notes", "property_type": "string", "nullable": true, "previous_name": "remarks", "renamed_at_version": "2.0" },
                    { "name": "weight", "property_type": "double", "type_history": [{ "until_version": "2.0", "property_type": "int", "lossy_conversion": true }] },
                    { "name": "rank", "property_type": "int", "default_value": 5, "added_at_version": "2.0" },
                    { "name": "legacy", "property_type": "string", "nullable": true, "removed_at_version": "2.0" },
                    { "name": "holders", "property_type": { "entity_name": "owner", "association": "to_many" },
                      "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "owner", "association": "to_one" }, "nullable": true }] },
                    { "name": "keeper", "property_type": { "entity_name": "owner", "association": "to_one" }, "nullable": true,
                      "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "owner", "association": "to_many" } }] } ] }
                """,
            ], current: "3.0")
    }

    func seed(_ db: Database, rows: Int) throws {
        try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ann'), (2, 'Bob ✈︎')")
        try db.execute(
            sql: """
                INSERT INTO thing (id, name, remarks, weight, legacy, holders) VALUES
                  (1, '', 'first\nline', 9223372036854775807, 'x', 1), (2, 'ünï', NULL, -3, NULL, NULL), (-9223372036854775808, 'z', '', 0, 'y', 2)
                """)
        try db.execute(sql: "INSERT INTO thing_keeper (source_id, target_id) VALUES (1, 2), (-9223372036854775808, 1)")
    }

    @Test func everyInferredChangeIsPredictedValueByValue() throws {
        let harness = MigrationTestHarness(versions: try versions(), options: StoreOptions())
        let failures = harness.checkSeeded(from: SchemaVersion("1.0"), seed: seed)
        #expect(failures.isEmpty, "\(failures)")
        let fromNewest = harness.checkSeeded(from: SchemaVersion("3.0")) { db, _ in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ann')")
            try db.execute(sql: "INSERT INTO item (id, name, weight) VALUES (1, 'a', 1.5)")
        }
        #expect(fromNewest.isEmpty, "\(fromNewest)")
    }

    /// A broken migration (here: SQL run behind the migration's back in a data migration) is reported
    /// with the version, entity, row, property, expected and found value.
    @Test func aLostValueIsReportedPrecisely() throws {
        var options = StoreOptions()
        options.dataMigrations = [
            DataMigration(version: SchemaVersion("2.0"), label: "oops") { db in
                try db.execute(sql: "UPDATE item SET weight = 0 WHERE id = 2")
            }
        ]
        let harness = MigrationTestHarness(
            versions: try versions(), options: options,
            expectations: MigrationExpectations(dataMigrations: [
                DataMigrationExpectation(version: SchemaVersion("2.0"), label: "oops") { _ in }
            ]),
            naming: [EntityNaming(table: "item", entity: "Item", properties: ["weight": "weight", "name": "name"])])
        let failures = harness.checkSeeded(from: SchemaVersion("1.0"), seed: seed)
        #expect(
            failures.map(\.description) == [
                "from 1.0 (seeded rows): Item (table item), row id=2, property weight: expected -3.0, found 0.0"
            ])
        #expect(failures.first?.entity == "Item (table item)")
        #expect(failures.first?.property == "weight")
    }

    @Test func aDataMigrationWithoutExpectationFailsTheTest() throws {
        var options = StoreOptions()
        options.dataMigrations = [
            DataMigration(version: SchemaVersion("2.0"), label: "tidy names") { db in
                try db.execute(sql: "UPDATE item SET name = trim(name)")
            }
        ]
        let harness = MigrationTestHarness(versions: try versions(), options: options)
        let failures = harness.checkSeeded(from: SchemaVersion("1.0"), seed: seed)
        #expect(
            failures.map(\.description) == [
                "from 1.0 (seeded rows): the expectations are incomplete: the data migration 2.0 'tidy names' runs, but no expectation says what it does to the rows"
            ])
    }

    @Test func ignoredChecksSkipOnlyTheirRange() throws {
        var options = StoreOptions()
        options.dataMigrations = [
            DataMigration(version: SchemaVersion("2.0"), label: "oops") { db in try db.execute(sql: "UPDATE item SET weight = 0") }
        ]
        let expectations = MigrationExpectations(dataMigrations: [
            DataMigrationExpectation(version: SchemaVersion("2.0"), label: "oops") { _ in }
        ])
        let ignored = MigrationTestHarness(
            versions: try versions(), options: options, expectations: expectations,
            exclusions: [CheckExclusion(table: "item", column: "weight", from: SchemaVersion("1.0"), before: SchemaVersion("2.0"))])
        #expect(ignored.checkSeeded(from: SchemaVersion("1.0"), seed: seed).isEmpty)
        let tooEarly = MigrationTestHarness(
            versions: try versions(), options: options, expectations: expectations,
            exclusions: [CheckExclusion(table: "item", column: "weight", from: SchemaVersion("2.0"), before: SchemaVersion("3.0"))])
        #expect(tooEarly.checkSeeded(from: SchemaVersion("1.0"), seed: seed).count == 2)
        let wholeEntity = MigrationTestHarness(
            versions: try versions(), options: options, expectations: expectations,
            exclusions: [CheckExclusion(table: "item", before: SchemaVersion("2.0"))])
        #expect(wholeEntity.checkSeeded(from: SchemaVersion("1.0"), seed: seed).isEmpty)
    }

    /// Row transforms and will/did stages are checked against the app's expectations, typed with records.
    @Test func stagesAreCheckedAgainstTheAppsExpectations() throws {
        let versions = try Self.codeVersions()
        func options(lossy: Bool) -> StoreOptions {
            var options = StoreOptions()
            options.stages = [
                MigrationStage(
                    from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "parse codes",
                    transforms: [
                        .records(table: "item") { (old: OldItem) -> NewItem? in
                            Int(old.code).map { NewItem(id: old.id, name: lossy ? "" : old.name, code: $0) }
                        }
                    ],
                    didMigrate: { db in try db.execute(sql: "INSERT INTO item (id, name, code) VALUES (100, 'added', 0)") })
            ]
            return options
        }
        let expectations = MigrationExpectations(
            transforms: [
                .records(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), table: "item") { (old: OldItem) -> NewItem? in
                    Int(old.code).map { NewItem(id: old.id, name: old.name, code: $0) }
                }
            ],
            stages: [
                StageExpectation(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "parse codes") { before, after in
                    #expect(try before.rows(of: "item").count == 3)
                    try after.insert(NewItem(id: 100, name: "added", code: 0))
                }
            ])
        let seed: (Database, Int) throws -> Void = { db, _ in
            try db.execute(sql: "INSERT INTO item (id, name, code) VALUES (1, 'a', '42'), (2, 'b', 'n/a'), (3, 'c', '-7')")
        }
        let good = MigrationTestHarness(versions: versions, options: options(lossy: false), expectations: expectations)
        #expect(good.checkSeeded(from: SchemaVersion("1.0"), seed: seed).isEmpty)
        let lossy = MigrationTestHarness(versions: versions, options: options(lossy: true), expectations: expectations)
        #expect(
            lossy.checkSeeded(from: SchemaVersion("1.0"), seed: seed).map(\.description) == [
                #"from 1.0 (seeded rows): table item, row id=1, property name: expected "a", found """#,
                #"from 1.0 (seeded rows): table item, row id=3, property name: expected "c", found """#,
            ])
        let unexpected = MigrationTestHarness(
            versions: versions, options: options(lossy: false), expectations: MigrationExpectations(transforms: expectations.transforms))
        #expect(
            unexpected.checkSeeded(from: SchemaVersion("1.0"), seed: seed).map(\.description) == [
                "from 1.0 (seeded rows): the expectations are incomplete: step 1.0 → 2.0 (parse codes) runs the stage 'parse codes', but no expectation says what it does to the rows"
            ])
    }

    /// The project's sample rows: data the app's stage reacts to, which the seeded edge values
    /// never contain. A stage mutated to swap two values passes on the seeded rows alone and fails on them.
    @Test func sampleRowsCatchAStageTheSeededRowsDoNot() throws {
        let versions = try Self.codeVersions()
        /// "Artist - Title" becomes "Title (Artist)"; the mutated stage swaps the two parts the wrong way round.
        func stage(mutated: Bool) -> StoreOptions {
            var options = StoreOptions()
            options.stages = [
                MigrationStage(
                    from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "parse codes",
                    transforms: [
                        .records(table: "item") { (old: OldItem) -> NewItem? in
                            let parts = old.name.components(separatedBy: " - ")
                            let name = parts.count == 2 ? (mutated ? "\(parts[0]) (\(parts[1]))" : "\(parts[1]) (\(parts[0]))") : old.name
                            return Int(old.code).map { NewItem(id: old.id, name: name, code: $0) }
                        }
                    ])
            ]
            return options
        }
        let expectations = MigrationExpectations(transforms: [
            .records(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), table: "item") { (old: OldItem) -> NewItem? in
                let parts = old.name.components(separatedBy: " - ")
                return Int(old.code).map { NewItem(id: old.id, name: parts.count == 2 ? "\(parts[1]) (\(parts[0]))" : old.name, code: $0) }
            }
        ])
        let seed: (Database, Int) throws -> Void = { db, _ in
            try db.execute(sql: "INSERT INTO item (id, name, code) VALUES (1, 'a', '42'), (2, 'b', '-7')")
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data(
            #"{ "item": [ { "id": 1001, "name": "Nina Simone - Sinnerman", "code": "7" }, { "id": 1002, "name": "no dash", "code": "8" } ] }"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: SampleRows.file(in: folder.url.path, version: SchemaVersion("1.0"))))

        let seededOnly = MigrationTestHarness(versions: versions, options: stage(mutated: true), expectations: expectations)
        #expect(seededOnly.checkSeeded(from: SchemaVersion("1.0"), seed: seed).isEmpty, "the edge values never contain \" - \"")
        let correct = MigrationTestHarness(
            versions: versions, options: stage(mutated: false), expectations: expectations, samplesFolder: folder.url.path)
        #expect(correct.checkSeeded(from: SchemaVersion("1.0"), seed: seed).isEmpty)
        let mutated = MigrationTestHarness(
            versions: versions, options: stage(mutated: true), expectations: expectations, samplesFolder: folder.url.path)
        #expect(
            mutated.checkSeeded(from: SchemaVersion("1.0"), seed: seed).map(\.description) == [
                #"from 1.0 (seeded rows and sample rows \#(folder.url.lastPathComponent)/1.0.json): table item, row id=1001, property name: expected "Sinnerman (Nina Simone)", found "Nina Simone (Sinnerman)""#
            ])
        // A file that is not rows says so, with its path.
        try Data(#"[1, 2]"#.utf8).write(to: URL(fileURLWithPath: SampleRows.file(in: folder.url.path, version: SchemaVersion("1.0"))))
        let broken = correct.checkSeeded(from: SchemaVersion("1.0"), seed: seed).map(\.description)
        #expect(
            broken.count == 1 && broken[0].contains("cannot seed a store at 1.0: sample rows ")
                && broken[0].contains("1.0.json: expected a JSON object of tables"), "\(broken)")
    }

    /// A row a transform drops is deleted: links to it go too (ON DELETE CASCADE), in the store and in
    /// the expected rows alike.
    @Test func rowsDroppedByATransformTakeTheirLinksWithThem() throws {
        let versions = try resolveSchemas([
            "item.json": """
            { "name": "item", "identifier": { "type": "int" },
              "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [
                { "name": "code", "property_type": "int", "type_history": [{ "until_version": "2.0", "property_type": "string" }] } ] }
            """,
            "box.json": """
            { "name": "box", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
              "properties": [{ "name": "items", "property_type": { "entity_name": "item", "association": "to_many" } }] }
            """,
        ])
        struct OldItem: Codable, Sendable, FetchableRecord { var id: Int; var code: String }
        struct NewItem: Codable, Sendable, FetchableRecord, PersistableRecord {
            static let databaseTableName = "item"; var id: Int; var code: Int
        }
        let convert: @Sendable (OldItem) -> NewItem? = { old in Int(old.code).map { NewItem(id: old.id, code: $0) } }
        var options = StoreOptions()
        options.stages = [
            MigrationStage(
                from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "codes", transforms: [.records(table: "item", convert)])
        ]
        let harness = MigrationTestHarness(
            versions: versions, options: options,
            expectations: MigrationExpectations(transforms: [
                .records(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), table: "item", convert)
            ]))
        let seed: (Database, Int) throws -> Void = { db, _ in
            try db.execute(sql: "INSERT INTO item (id, code) VALUES (1, '7'), (2, 'n/a')")
            try db.execute(sql: "INSERT INTO box (id) VALUES (1)")
            try db.execute(sql: "INSERT INTO box_items (source_id, target_id) VALUES (1, 1), (1, 2)")
        }
        #expect(harness.checkSeeded(from: SchemaVersion("1.0"), seed: seed).isEmpty)

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("boxes.sqlite")
        let store = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0"))
        try store.writeWithoutTransaction { db in try seed(db, 0) }
        try store.close()
        let migrated = try LucidStore.open(atPath: path, versions: versions, options: options).database
        #expect(
            try migrated.read { db in try Row.fetchAll(db, sql: "SELECT source_id, target_id FROM box_items") } == [
                ["source_id": 1, "target_id": 1]
            ])
    }

    @Test func fixturesAreCheckedAgainstTheirChecksum() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let versions = try versions()
        let path = folder.path("Items_1_0.sqlite")
        let store = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0"))
        try store.write { db in try seed(db, rows: 0) }
        try store.close()
        try FixtureFiles.writeChecksum(forFileAt: path)
        let harness = MigrationTestHarness(versions: versions, options: StoreOptions())
        #expect(harness.checkFixture(at: path).isEmpty)
        #expect(try FixtureFiles.list(in: folder.url.path) == [path])
        #expect(FixtureFiles.version(inName: "Items_1_0.sqlite") == SchemaVersion("1.0"))

        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        let failures = harness.checkFixture(at: path)
        #expect(failures.count == 1)
        #expect(
            failures.first?.description.hasPrefix("from fixture Items_1_0.sqlite: it changed after it was written (SHA-256 ") == true,
            "\(failures)")
        try FileManager.default.removeItem(atPath: path + ".sha256")
        #expect(harness.checkFixture(at: path).first?.message?.contains("has no checksum file Items_1_0.sqlite.sha256") == true)
    }

    /// A fixture of a version whose descriptions changed after it was written: the failure says what to do
    /// in the project (the runtime's advice is for an app's store).
    @Test func aFixtureOfAVersionEditedSinceSaysWhatToDo() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("Items_1_0.sqlite")
        let store = try LucidStore.create(atPath: path, versions: try versions(), version: SchemaVersion("1.0"))
        try store.close()
        try FixtureFiles.writeChecksum(forFileAt: path)
        let edited = try resolveSchemas([
            "owner.json": Self.owner.replacingOccurrences(
                of: #"[{ "name": "name", "property_type": "string" }]"#,
                with: #"[{ "name": "name", "property_type": "string" }, { "name": "email", "property_type": "string", "nullable": true }]"#)
        ])
        let failures = MigrationTestHarness(versions: edited, options: StoreOptions()).checkFixture(at: path).map(\.description)
        #expect(
            failures == [
                "from fixture Items_1_0.sqlite: it was written for 1.0 as 1.0 was then, and 1.0's descriptions have changed since (`lucidgen check` names the difference). "
                    + "If 1.0 was released, restore its descriptions and make the change in a new version; if it never was, delete the fixture and its .sha256 "
                    + "(`lucidgen release` writes it once 1.0 is final)"
            ])
    }

    /// A store whose schema drifted from the registry's (here, an extra index) fails the schema comparison.
    @Test func seedsThatBreakForeignKeysAreReported() throws {
        let harness = MigrationTestHarness(versions: try versions(), options: StoreOptions())
        let failures = harness.checkSeeded(from: SchemaVersion("1.0")) { db, _ in
            try db.execute(sql: "INSERT INTO thing (id, name, weight, holders) VALUES (1, 'a', 1, 99)")
        }
        #expect(failures.count == 1)
        #expect(
            failures.first?.message?.hasPrefix(
                "the seeded rows break 1 foreign key(s) before migrating: thing.holders of row id=1 is 99, but ") == true, "\(failures)")
    }

    @Test func seedsCycleThroughEdgeValues() {
        let strings = (1...Seed.rows).map { String.seed(row: $0, salt: 0) }
        #expect(Set(strings).count == Seed.rows)
        #expect(strings.contains(""))
        let integers = (1...Seed.rows).map { Int64.seed(row: $0, salt: 0) }
        #expect(integers.contains(.max) && integers.contains(.min))
        #expect((1...Seed.rows).map { Optional<Int>.seed(row: $0, salt: 0) }.contains(nil))
        #expect((1...Seed.rows).map { [String].seed(row: $0, salt: 0).count }.sorted().first == 0)
        #expect(Date.seed(row: 2, salt: 0).timeIntervalSince1970.truncatingRemainder(dividingBy: 1) != 0, "dates carry milliseconds")
        #expect(Seed.links(row: 2, rows: 12, maxLinks: 1).count == 1)
        #expect(Seed.links(row: 2, rows: 12, maxLinks: 2).count == 2)
    }
}

/// `item` whose `code` is text at 1.0 and an integer at 2.0 (the step needs the app's code), and its rows.
extension MigrationCheckTests {
    static func codeVersions() throws -> [Schema] {
        try resolveSchemas([
            "item.json": """
            { "name": "item", "identifier": { "type": "int" },
              "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [
                { "name": "name", "property_type": "string" },
                { "name": "code", "property_type": "int", "type_history": [{ "until_version": "2.0", "property_type": "string" }] } ] }
            """
        ])
    }
}

private struct OldItem: Codable, Sendable, FetchableRecord { var id: Int; var name: String; var code: String }

/// A GRDB record that is also a hand-written MigrationRecord: what ExpectedRows' typed methods take.
private struct NewItem: Codable, Sendable, FetchableRecord, PersistableRecord, MigrationRecord {
    static let databaseTableName = "item"
    static let migrationColumns = ["id", "name", "code"]
    var id: Int; var name: String; var code: Int
    init(id: Int, name: String, code: Int) { (self.id, self.name, self.code) = (id, name, code) }
    init(migrationRow row: MigrationRow) throws {
        (id, name, code) = (try row.decode(Int.self, at: 0), try row.decode(String.self, at: 1), try row.decode(Int.self, at: 2))
    }
    func encode(to values: inout MigrationValues) throws {
        values.encode(id, at: 0)
        values.encode(name, at: 1)
        values.encode(code, at: 2)
    }
}

extension MigrationCheckTests {
    /// A text value in a check's message is a Swift string literal (a line break or terminal escape shows as
    /// `\n`, `\r` or `\u{1b}`), shortened to 77 characters before it is escaped, so no escape is cut in two.
    @Test func aTextValueInAMessageIsEscapedThenShortened() {
        #expect(MigrationCheckFailure.format(DatabaseValue.null) == "NULL")
        #expect(MigrationCheckFailure.format(nil) == "no value")
        #expect(MigrationCheckFailure.format("a\"b\\c\r\n\u{1B}[2J".databaseValue) == #""a\"b\\c\r\n\u{1b}[2J""#)
        let long = String(repeating: "x", count: 76) + "\n" + String(repeating: "y", count: 10)
        #expect(MigrationCheckFailure.format(long.databaseValue) == "\"" + String(repeating: "x", count: 76) + #"\n…""#)
        let eighty = String(repeating: "z", count: 80)
        #expect(MigrationCheckFailure.format(eighty.databaseValue) == "\"\(eighty)\"")
    }
}
