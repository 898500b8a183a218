import Foundation
import GRDB
import LucidTestSupport
import Testing

/// `describe` round trip (what proves describe reads what generate writes): a store lucidgen made at any of a real history's versions (every
/// committed fixture), stripped of lucidgen's records so that it is a store of unknown origin, is described;
/// the descriptions generate a version whose tables the store has exactly (`plan` recognises it and changes
/// nothing). lucidgen's link tables become the to-many relationships they hold.
@Suite struct DescribeRoundTripTests {
    static let fixtures = [
        "Tests/FlightLogTests/Generated/Fixtures/FlightLog_1_0.sqlite", "Tests/FlightLogTests/Generated/Fixtures/FlightLog_1_1.sqlite",
        "Tests/FlightLogTests/Generated/Fixtures/FlightLog_2_0.sqlite", "Tests/FlightLogTests/Generated/Fixtures/FlightLog_2_1.sqlite",
        "Tests/FlightLogTests/Generated/Fixtures/FlightLog_3_0.sqlite", "Tests/SeedGraphs/Tests/Generated/Fixtures/SeedGraphs_1_0.sqlite",
        "Examples/Journal/Tests/JournalTests/Fixtures/Journal_1_0.sqlite",
    ]

    @Test(arguments: fixtures) func aStoreOfEveryVersionIsDescribedAsItIs(_ fixture: String) throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("store.sqlite")
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent(fixture), to: store)
        let queue = try DatabaseQueue(path: store.path)
        let described: [String] = try queue.write { db in
            for name in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'lucid\\_%' ESCAPE '\\'")
            {
                try db.execute(sql: "DROP TABLE \(name)")
            }
            return try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        }
        try queue.close()
        let before = try Data(contentsOf: store)

        let describe = try run(lucidgenBinary, ["describe", "--database", "store.sqlite"], in: project.root)
        #expect(describe.status == 0 && !describe.error.contains("warning:"), "\(describe.output)\(describe.error)")
        let generate = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generate.status == 0, "\(generate.output)\(generate.error)")
        let plan = try run(lucidgenBinary, ["plan", "--database", "store.sqlite"], in: project.root)
        #expect(
            plan.status == 0 && plan.output.contains("store.sqlite: at version 1.0, the newest. Nothing to do."),
            "\(plan.output)\(plan.error)")
        #expect(try Data(contentsOf: store) == before)
        // Every table is an entity, or lucidgen's link table of a to-many relationship of its owner: none is left to the app.
        #expect(!describe.output.contains("the app's:"), "\(describe.output)")
        let folder = project.root.appendingPathComponent(".entities")
        let entities = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.map {
            String($0.dropLast(5))
        }
        for table in described where !entities.contains(table) {
            let owner = try #require(
                entities.filter { table.hasPrefix($0 + "_") }.max { $0.count < $1.count }, "\(table): no owner among \(entities)")
            let relationship = String(table.dropFirst(owner.count + 1))
            let json = try String(contentsOf: folder.appendingPathComponent(owner + ".json"), encoding: .utf8)
            #expect(
                json.contains(#"{ "name": "\#(relationship)", "property_type": { "entity_name": "#)
                    && json.contains(#""association": "to_many" }"#), "\(table) in \(json)")
        }
    }
}
