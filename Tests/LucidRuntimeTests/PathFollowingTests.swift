import FlightLog
import Foundation
import GRDB
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// A migration takes the path `inspect` (and `lucidgen plan`) shows, step after step: the planner searches
/// the jumps a path from its start can take, so planning again from a version on the way could choose
/// another path (found by the history explorer, seed 83091).
@Suite struct PathFollowingTests {
    /// 1.0 and 1.1: `item` with a self-referencing `size`; 1.2 drops it (a rebuild: it is a key); 1.3 changes
    /// nothing; 1.4 renames the table. From 1.0 the path is the four neighbouring steps; from 1.2 alone the
    /// planner would jump straight to 1.4.
    static let versions: [Schema] = {
        let id = SchemaColumn(name: "id", type: .integer, notNull: true)
        let size = SchemaColumn(name: "size", type: .integer, notNull: false)
        let withSize = SchemaTable(
            name: "item", columns: [id, size], primaryKey: ["id"],
            foreignKeys: [SchemaForeignKey(columns: ["size"], table: "item", tableColumns: ["id"], onDelete: .setNull)],
            indexes: [SchemaIndex(name: "item_size_index", columns: ["size"])])
        let plain = SchemaTable(name: "item", columns: [id], primaryKey: ["id"])
        let renamed = SchemaTable(name: "node", columns: [id], primaryKey: ["id"], renamedFrom: "item")
        return [("1.0", withSize), ("1.1", withSize), ("1.2", plain), ("1.3", plain), ("1.4", renamed)].map { version, table in
            Schema(version: SchemaVersion(version), tables: [table])
        }
    }()

    @Test func theMigrationTakesThePathInspectShows() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try LucidStore.create(atPath: path, versions: Self.versions, version: SchemaVersion("1.0")).close()
        try withDatabase(path) { db in
            try db.execute(sql: "INSERT INTO item (id, size) VALUES (1, NULL), (2, 1)")
        }
        let shown = try LucidStore.inspect(atPath: path, versions: Self.versions).steps.map { "\($0.from) → \($0.to)" }
        #expect(shown == ["1.0 → 1.1", "1.1 → 1.2", "1.2 → 1.3", "1.3 → 1.4"])
        // Planned from 1.2 alone, the path differs: what a migration must not switch to on the way.
        let fromTheMiddle = try MigrationPlanner(versions: Self.versions).plan(from: SchemaVersion("1.2")).map { "\($0.from) → \($0.to)" }
        #expect(fromTheMiddle == ["1.2 → 1.4"])

        let opened = try LucidStore.open(atPath: path, versions: Self.versions)

        let (database, outcome) = (opened.database, opened.outcome)
        defer { try? database.close() }
        #expect(outcome.steps.map { "\($0.from) → \($0.to)" } == shown)
        #expect(try database.read { try Int.fetchAll($0, sql: "SELECT id FROM node ORDER BY id") } == [1, 2])
    }

    /// A registry's routes (what `lucidgen generate` computes): every version's path as the planner takes it.
    @Test func routesAreThePlannersPathsFromEveryVersion() throws {
        let planner = try MigrationPlanner(versions: Self.versions)
        let routes = planner.routes()
        #expect(
            routes.map { $0.map(\.string) } == [
                ["1.0", "1.1", "1.2", "1.3", "1.4"], ["1.1", "1.2", "1.3", "1.4"], ["1.2", "1.4"], ["1.3", "1.4"],
            ])
        for route in routes {
            #expect(planner.plan(along: route, from: route[0]) == (try planner.plan(from: route[0])))
        }
        // A route that does not start at the store's version, does not end at the newest, or takes a step
        // SQL cannot make, is not followed.
        #expect(planner.plan(along: [SchemaVersion("1.0"), SchemaVersion("1.4")], from: SchemaVersion("1.1")) == nil)
        #expect(planner.plan(along: [SchemaVersion("1.0"), SchemaVersion("1.3")], from: SchemaVersion("1.0")) == nil)
    }

    /// The runtime follows the registry's route for the store's version (here one a little longer than the
    /// planner's, to see it taken) and plans when there is none or it does not hold.
    @Test func aMigrationFollowsTheRegistrysRoute() throws {
        func migrate(routes: [SchemaVersion: [SchemaVersion]], from version: String, options: StoreOptions = StoreOptions()) throws
            -> [String]
        {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let path = folder.path("store.sqlite")
            try LucidStore.create(atPath: path, versions: Self.versions, version: try SchemaVersion(parsing: version)).close()
            var history = SchemaHistory(versions: Self.versions)
            history.routes = routes
            let opened = try LucidStore.open(atPath: path, history: history, options: options)
            let (database, outcome) = (opened.database, opened.outcome)
            try database.close()
            return outcome.steps.map { "\($0.from) → \($0.to)" }
        }
        let longer = [SchemaVersion("1.2"), SchemaVersion("1.3"), SchemaVersion("1.4")]
        #expect(try migrate(routes: [:], from: "1.2") == ["1.2 → 1.4"])
        #expect(try migrate(routes: [SchemaVersion("1.2"): longer], from: "1.2") == ["1.2 → 1.3", "1.3 → 1.4"])
        // A route that does not hold (here it stops short of the newest version): planned instead.
        let broken = [SchemaVersion("1.0"), SchemaVersion("1.3")]
        #expect(try MigrationPlanner(versions: Self.versions).plan(along: broken, from: SchemaVersion("1.0")) == nil)
        #expect(try migrate(routes: [SchemaVersion("1.0"): broken], from: "1.0") == ["1.0 → 1.1", "1.1 → 1.2", "1.2 → 1.3", "1.3 → 1.4"])
        // Stages the registry does not list change the graph: its routes are not used.
        var options = StoreOptions()
        options.declaredStages = [ExplicitStage(from: SchemaVersion("1.2"), to: SchemaVersion("1.3"), label: "check")]
        #expect(throws: StoreError.self) { try migrate(routes: [SchemaVersion("1.2"): longer], from: "1.2", options: options) }
    }

    /// The generated registry carries its routes, and the history reads them.
    @Test func aGeneratedRegistryCarriesItsRoutes() throws {
        let history = SchemaHistory(registry: FlightLogSchema.self)
        #expect(history.routes[SchemaVersion("1.0")]?.map(\.string) == ["1.0", "2.0", "2.1", "4.0"])
        let planner = try MigrationPlanner(versions: history.versions, stages: history.stages)
        for (start, route) in history.routes {
            #expect(planner.plan(along: route, from: start) == (try planner.plan(from: start)), "\(start)")
        }
    }
}
