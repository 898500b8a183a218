import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `"ordered": true` on a to-many relationship in the generator: the link table's `position`, the snapshot's
/// type, the generated helpers, the key's errors, an ordering edited after a release, and `describe` of an
/// ordered link table. At run time: `OrderedToManyTests` (LucidRuntimeTests).
@Suite struct OrderedToManyGenerationTests {
    static func entry(_ crew: String, history: String = #"{ "version": "1.0" }"#) -> String {
        """
        {
            "name": "log_entry",
            "identifier": { "type": "int" },
            "version_history": [\(history)],
            "properties": [
                \(crew),
                { "name": "tags", "property_type": { "entity_name": "pilot", "association": "to_many" } }
            ]
        }
        """
    }

    static let pilot = """
        { "name": "pilot", "identifier": { "type": "string" }, "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "name", "property_type": "string" }] }
        """

    static let orderedCrew = #"{ "name": "crew", "property_type": { "entity_name": "pilot", "association": "to_many", "ordered": true } }"#

    @Test func anOrderedToManyStoresPositionsAndGetsOrderedHelpers() throws {
        let project = try TestProject(files: [".entities/log_entry.json": Self.entry(Self.orderedCrew), ".entities/pilot.json": Self.pilot])
        defer { project.remove() }
        let result = try project.generate()
        #expect(!result.diagnostics.contains { $0.severity != .note }, "\(result.diagnostics)")
        let schema = result.model.schemas[0]
        #expect(
            schema.table(named: "log_entry_crew")?.createTableStatement()
                == #"CREATE TABLE "log_entry_crew" ("source_id" INTEGER NOT NULL, "target_id" TEXT NOT NULL, "position" INTEGER NOT NULL, PRIMARY KEY ("source_id", "target_id"), FOREIGN KEY ("source_id") REFERENCES "log_entry"("id") ON DELETE CASCADE, FOREIGN KEY ("target_id") REFERENCES "pilot"("id") ON DELETE CASCADE)"#
        )
        // An unordered relationship's table is what it always was.
        #expect(
            schema.table(named: "log_entry_tags")?.createTableStatement()
                == #"CREATE TABLE "log_entry_tags" ("source_id" INTEGER NOT NULL, "target_id" TEXT NOT NULL, PRIMARY KEY ("source_id", "target_id"), FOREIGN KEY ("source_id") REFERENCES "log_entry"("id") ON DELETE CASCADE, FOREIGN KEY ("target_id") REFERENCES "pilot"("id") ON DELETE CASCADE)"#
        )
        let snapshot = try project.read(".entities/.schema/1.0.json")
        #expect(snapshot.contains(#""type" : "ordered to_many pilot""#) && snapshot.contains(#""type" : "to_many pilot""#), "\(snapshot)")
        let record = try project.read("Sources/App/Generated/Entities/LogEntry.swift")
        for line in [
            "public var position: Swift.Int",
            "public init(sourceID: Swift.Int, targetID: Swift.String, position: Swift.Int) {",
            "public func linkCrew(_ targetIDs: [Swift.String], _ db: GRDB.Database) throws {",
            "public func unlinkCrew(_ targetIDs: [Swift.String], _ db: GRDB.Database) throws {",
            "public func setCrew(_ targetIDs: [Swift.String], _ db: GRDB.Database) throws {",
            "public func crewIDs(_ db: GRDB.Database) throws -> [Swift.String] {",
            ".order(CrewLink.Columns.position)",
            #"public static let migrationColumns: [Swift.String] = ["source_id", "target_id", "position"]"#,
        ] {
            #expect(record.contains(line), "\(line)")
        }
        // The unordered relationship keeps its helpers as they were.
        #expect(!record.contains("setTags") && !record.contains("tagsIDs") && record.contains("public func linkTags("))
    }

    @Test(arguments: [
        (
            #"{ "entity_name": "pilot", "association": "to_one", "ordered": true }"#,
            "ordered applies to a to-many relationship (the order of its links); a to-one has one target"
        ),
        (
            #"{ "entity_name": "pilot", "association": "to_one", "ordered": false }"#,
            "ordered applies to a to-many relationship (the order of its links); a to-one has one target"
        ),
        (#"{ "entity_name": "pilot", "association": "to_many", "ordered": "yes" }"#, "'ordered' must be true or false, found a string"),
    ])
    func orderedIsATrueOrFalseOfAToMany(_ type: String, _ message: String) throws {
        let crew = #"{ "name": "crew", "property_type": \#(type), "nullable": true }"#
        let project = try TestProject(files: [".entities/log_entry.json": Self.entry(crew), ".entities/pilot.json": Self.pilot])
        defer { project.remove() }
        let errors = try project.errors()
        #expect(errors.map(\.message) == [message])
        #expect(errors.first?.path == "$.properties[0].property_type.ordered")
        #expect(
            errors.first?.location?.file.hasSuffix(".entities/log_entry.json") == true && errors.first?.location?.line == 6, "\(errors)")
    }

    /// An ordering edited after a release is inferred from the released snapshot (whose `to_many pilot`, written
    /// before `ordered` existed, is unordered), its `type_history` item saying `"ordered"`; writing that item by
    /// hand gives the same output.
    @Test func anOrderingEditedAfterAReleaseIsInferred() throws {
        let plain = #"{ "name": "crew", "property_type": { "entity_name": "pilot", "association": "to_many" } }"#
        let released = try ReleasedProject(
            [".entities/log_entry.json": Self.entry(plain), ".entities/pilot.json": Self.pilot], current: "1.0")
        defer { released.remove() }
        try released.release("1.0")
        let frozen = try released.project.read(".entities/.schema/1.0.json")
        let history = #"{ "version": "1.0" }, { "version": "1.1" }"#
        let result = try released.release("1.1", [".entities/log_entry.json": Self.entry(Self.orderedCrew, history: history)])
        let item = #""type_history": [{ "until_version": "1.1", "property_type": { "entity_name": "pilot", "association": "to_many" } }]"#
        #expect(
            result.diagnostics.map(\.message).filter { $0.hasPrefix("inferred") } == [
                "inferred from the released snapshots: property 'crew' of 'log_entry' changed type from to_many pilot to ordered to_many pilot at 1.1; to say so in the description, add to the property "
                    + item
            ])
        #expect(try released.project.read(".entities/.schema/1.0.json") == frozen, "the released snapshot is not rewritten")
        #expect(result.model.schemas.map { $0.table(named: "log_entry_crew")?.column(named: "position") != nil } == [false, true])
        let steps = try MigrationPlanner(versions: result.model.schemas).plan(from: SchemaVersion("1.0"))
        #expect(
            steps.flatMap(\.operations).map(\.description) == [
                "rebuild table log_entry_crew (log_entry_crew.position numbers each source's links in their rowid order (the to-many becomes ordered))"
            ])

        let handWritten =
            #"{ "name": "crew", "property_type": { "entity_name": "pilot", "association": "to_many", "ordered": true }, "# + item + " }"
        let explicit = try ReleasedProject(
            [".entities/log_entry.json": Self.entry(handWritten, history: history), ".entities/pilot.json": Self.pilot], current: "1.1")
        defer { explicit.remove() }
        let explicitResult = try explicit.release("1.1")
        #expect(explicitResult.model.schemas == result.model.schemas)

        // And back: ordered → unordered is inferred from the snapshots too, the item saying "ordered": true.
        let back = try released.release(
            "1.2", [".entities/log_entry.json": Self.entry(plain, history: history + #", { "version": "1.2" }"#)])
        #expect(
            back.diagnostics.map(\.message).contains {
                $0.contains(
                    #"{ "until_version": "1.2", "property_type": { "entity_name": "pilot", "association": "to_many", "ordered": true } }"#)
            }, "\(back.diagnostics)")
        #expect(back.model.schemas.map { $0.table(named: "log_entry_crew")?.column(named: "position") != nil } == [false, true, false])
    }

    /// `describe` of a store lucidgen made with an ordered relationship: its link table (with `position`) is the
    /// owner's ordered to-many, and the descriptions generate the store's tables exactly.
    @Test func describeRecognisesAnOrderedLinkTable() throws {
        let source = try TestProject(files: [".entities/log_entry.json": Self.entry(Self.orderedCrew), ".entities/pilot.json": Self.pilot])
        defer { source.remove() }
        let schemas = try source.generate().model.schemas
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("store.sqlite").path
        try LucidStore.create(atPath: store, versions: schemas, version: SchemaVersion("1.0")).close()
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            for name in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'lucid\\_%' ESCAPE '\\'")
            {
                try db.execute(sql: "DROP TABLE \(name)")
            }
        }
        try queue.close()
        let describe = try run(lucidgenBinary, ["describe", "--database", "store.sqlite"], in: project.root)
        #expect(describe.status == 0 && !describe.error.contains("warning:"), "\(describe.output)\(describe.error)")
        let json = try project.read(".entities/log_entry.json")
        #expect(
            json.contains(#"{ "name": "crew", "property_type": { "entity_name": "pilot", "association": "to_many", "ordered": true } }"#),
            "\(json)")
        #expect(json.contains(#"{ "name": "tags", "property_type": { "entity_name": "pilot", "association": "to_many" } }"#), "\(json)")
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let plan = try run(lucidgenBinary, ["plan", "--database", "store.sqlite"], in: project.root)
        #expect(
            plan.status == 0 && plan.output.contains("store.sqlite: at version 1.0, the newest. Nothing to do."),
            "\(plan.output)\(plan.error)")
    }
}
