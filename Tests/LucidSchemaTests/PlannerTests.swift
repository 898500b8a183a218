import Testing

@_spi(Generated) @testable import LucidSchema

/// The path finder and the step inference, on hand-built version histories.
@Suite struct PlannerTests {
    // MARK: Seed 001: TMLPersistentContainer's user guide, both graphs, every starting version.

    /// V1…V6 are indices 0…5. Graph 1: explicit V1→V2, V2→V3; inferred V2→V3, V3→V4, V4→V5, V2→V5, V3→V5.
    static let graph1Explicit = [(0, 1), (1, 2)]
    static let graph1Inferred = [(1, 2), (2, 3), (3, 4), (1, 4), (2, 4)]
    /// Graph 2 adds explicit V5→V6 and V2→V6 (and an inferred V3→V6, which would skip V5→V6).
    static let graph2Explicit = graph1Explicit + [(4, 5), (1, 5)]
    static let graph2Inferred = graph1Inferred + [(2, 5)]

    func path(from start: Int, to end: Int, explicit: [(Int, Int)], inferred: [(Int, Int)]) -> String? {
        var edges = explicit.map { PathFinder.Edge(from: $0.0, to: $0.1, explicit: true, cost: 1) }
        edges += inferred.filter { !PathFinder.spansExplicit(from: $0.0, to: $0.1, explicit: explicit) }
            .map { PathFinder.Edge(from: $0.0, to: $0.1, explicit: false, cost: 1) }
        return PathFinder.shortestPath(from: start, to: end, edges: edges)?
            .map { "V\($0.from + 1)-\($0.explicit ? "ex" : "inf")-V\($0.to + 1)" }.joined(separator: ", ")
    }

    @Test func seed001FirstGraph() {
        let e = Self.graph1Explicit, i = Self.graph1Inferred
        #expect(path(from: 0, to: 4, explicit: e, inferred: i) == "V1-ex-V2, V2-ex-V3, V3-inf-V5")
        #expect(path(from: 1, to: 4, explicit: e, inferred: i) == "V2-ex-V3, V3-inf-V5")
        #expect(path(from: 2, to: 4, explicit: e, inferred: i) == "V3-inf-V5")
        #expect(path(from: 3, to: 4, explicit: e, inferred: i) == "V4-inf-V5")
    }

    @Test func seed001SecondGraph() {
        let e = Self.graph2Explicit, i = Self.graph2Inferred
        #expect(path(from: 0, to: 5, explicit: e, inferred: i) == "V1-ex-V2, V2-ex-V6")
        #expect(path(from: 1, to: 5, explicit: e, inferred: i) == "V2-ex-V6")
        #expect(path(from: 2, to: 5, explicit: e, inferred: i) == "V3-inf-V5, V5-ex-V6")
        #expect(path(from: 3, to: 5, explicit: e, inferred: i) == "V4-inf-V5, V5-ex-V6")
        #expect(path(from: 4, to: 5, explicit: e, inferred: i) == "V5-ex-V6")
    }

    @Test func noRouteWithoutEdges() {
        #expect(path(from: 0, to: 2, explicit: [], inferred: [(1, 2)]) == nil)
    }

    // MARK: Step inference on real schemas

    static func table(_ name: String, _ columns: [SchemaColumn], renamedFrom: String? = nil) -> SchemaTable {
        SchemaTable(
            name: name, columns: [SchemaColumn(name: "id", type: .integer, notNull: true)] + columns, primaryKey: ["id"],
            renamedFrom: renamedFrom)
    }

    @Test func changesThatCancelCostNothing() throws {
        let versions = [
            Schema(version: SchemaVersion("1.0"), tables: [Self.table("t", [SchemaColumn(name: "a", type: .text, notNull: false)])]),
            Schema(
                version: SchemaVersion("1.1"),
                tables: [
                    Self.table(
                        "t",
                        [
                            SchemaColumn(name: "a", type: .text, notNull: false),
                            SchemaColumn(name: "b", type: .integer, notNull: true, defaultSQL: "0"),
                        ])
                ]),
            Schema(
                version: SchemaVersion("1.2"),
                tables: [
                    Self.table(
                        "t",
                        [
                            SchemaColumn(name: "a", type: .text, notNull: false),
                            SchemaColumn(name: "b", type: .integer, notNull: true, defaultSQL: "0"),
                        ])
                ]),
            Schema(version: SchemaVersion("1.3"), tables: [Self.table("t", [SchemaColumn(name: "a", type: .text, notNull: false)])]),
        ]
        let steps = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        #expect(steps.count == 1)
        #expect(steps[0].from == SchemaVersion("1.0") && steps[0].to == SchemaVersion("1.3"))
        #expect(steps[0].operations.isEmpty)
        let fromMiddle = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.1"))
        #expect(fromMiddle.map(\.operations) == [[.dropColumn(table: "t", column: "b", deferrable: true)]])
    }

    @Test func renamesComposeAcrossVersions() throws {
        let versions = [
            Schema(version: SchemaVersion("1.0"), tables: [Self.table("a", [SchemaColumn(name: "x", type: .text, notNull: true)])]),
            Schema(
                version: SchemaVersion("2.0"),
                tables: [Self.table("b", [SchemaColumn(name: "y", type: .text, notNull: true, renamedFrom: "x")], renamedFrom: "a")]),
            Schema(
                version: SchemaVersion("3.0"),
                tables: [Self.table("c", [SchemaColumn(name: "z", type: .text, notNull: true, renamedFrom: "y")], renamedFrom: "b")]),
        ]
        let steps = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        #expect(steps.map(\.operations) == [[.renameTable(from: "a", to: "c"), .renameColumn(table: "c", from: "x", to: "z")]])
    }

    @Test func lossyTypeChangeIsNotInferable() throws {
        let versions = [
            Schema(version: SchemaVersion("1.0"), tables: [Self.table("t", [SchemaColumn(name: "n", type: .text, notNull: true)])]),
            Schema(version: SchemaVersion("2.0"), tables: [Self.table("t", [SchemaColumn(name: "n", type: .integer, notNull: true)])]),
        ]
        #expect(
            throws: PlanningError.noRoute(
                from: SchemaVersion("1.0"), to: SchemaVersion("2.0"),
                blocked: [
                    NotInferable(
                        from: SchemaVersion("1.0"), to: SchemaVersion("2.0"),
                        reasons: ["t.n: TEXT → INTEGER cannot convert every value exactly"], tables: ["t"])
                ])
        ) {
            try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        }
        // With an explicit stage the path exists.
        let planner = try MigrationPlanner(
            versions: versions, stages: [ExplicitStage(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "parse numbers")])
        #expect(try planner.plan(from: SchemaVersion("1.0")).map(\.kind) == [.explicit("parse numbers")])
    }

    @Test func conversionAndRequiredWithDefaultRebuildOnce() throws {
        let versions = [
            Schema(
                version: SchemaVersion("1.0"),
                tables: [
                    Self.table(
                        "t", [SchemaColumn(name: "n", type: .integer, notNull: true), SchemaColumn(name: "s", type: .text, notNull: false)])
                ]),
            Schema(
                version: SchemaVersion("2.0"),
                tables: [
                    Self.table(
                        "t",
                        [
                            SchemaColumn(name: "n", type: .text, notNull: true),
                            SchemaColumn(name: "s", type: .text, notNull: true, defaultSQL: "''"),
                        ])
                ]),
        ]
        let steps = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        guard case .rebuildTable(let rebuild) = try #require(steps.first?.operations.first) else {
            Issue.record("expected a rebuild")
            return
        }
        #expect(steps[0].operations.count == 1)
        #expect(rebuild.sources == [#"src."id""#, #"CAST(src."n" AS TEXT)"#, #"COALESCE(src."s", '')"#])
    }

    @Test func explicitStagesAreNeverSkipped() throws {
        let column = SchemaColumn(name: "a", type: .text, notNull: false)
        let versions = ["1.0", "2.0", "3.0"].map { Schema(version: try! SchemaVersion(parsing: $0), tables: [Self.table("t", [column])]) }
        let planner = try MigrationPlanner(
            versions: versions, stages: [ExplicitStage(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "fix data")])
        let steps = try planner.plan(from: SchemaVersion("1.0"))
        #expect(steps.map(\.label) == ["1.0 → 2.0 (fix data)", "2.0 → 3.0 (inferred)"])
        #expect(try planner.plan(from: SchemaVersion("2.0")).map(\.label) == ["2.0 → 3.0 (inferred)"])
    }

    /// `edges()` lists the graph `plan` searches: explicit stages, inferred neighbours and jumps, never an
    /// inferred edge over a stage; the chosen path is made of its edges.
    @Test func edgesListTheGraphThePlannerSearches() throws {
        let a = SchemaColumn(name: "a", type: .text, notNull: false)
        let b = SchemaColumn(name: "b", type: .integer, notNull: true, defaultSQL: "0")
        let versions = [
            Schema(version: SchemaVersion("1.0"), tables: [Self.table("t", [a])]),
            Schema(version: SchemaVersion("1.1"), tables: [Self.table("t", [a, b])]),
            Schema(version: SchemaVersion("1.2"), tables: [Self.table("t", [a])]),
            Schema(version: SchemaVersion("2.0"), tables: [Self.table("t", [a])]),
        ]
        let planner = try MigrationPlanner(
            versions: versions, stages: [ExplicitStage(from: SchemaVersion("1.2"), to: SchemaVersion("2.0"), label: "fix data")])
        let edges = try planner.edges()
        #expect(
            edges.map(\.description) == [
                "1.0 → 1.1 (inferred)", "1.0 → 1.2 (inferred)", "1.1 → 1.2 (inferred)", "1.2 → 2.0 (fix data)",
            ])
        #expect(edges.map(\.spannedVersions) == [0, 1, 0, 0])
        #expect(edges[1].operations.isEmpty && edges[1].cost == 0 && edges[1].isJump)
        #expect(edges[2].operations == [.dropColumn(table: "t", column: "b", deferrable: true)])
        let path = try planner.plan(from: SchemaVersion("1.0"))
        #expect(path == [edges[1].step, edges[3].step])
        #expect(try planner.edges(from: SchemaVersion("1.1")).map(\.description) == ["1.1 → 1.2 (inferred)", "1.2 → 2.0 (fix data)"])
        #expect(try planner.edges(to: SchemaVersion("1.1")).map(\.description) == ["1.0 → 1.1 (inferred)"])
        #expect(throws: PlanningError.unknownVersion(SchemaVersion("9.0"), known: versions.map(\.version))) {
            try planner.edges(to: SchemaVersion("9.0"))
        }
    }

    @Test func planningErrorsNameTheVersions() throws {
        let versions = [Schema(version: SchemaVersion("1.0"), tables: []), Schema(version: SchemaVersion("2.0"), tables: [])]
        #expect(throws: PlanningError.unknownVersion(SchemaVersion("1.5"), known: [SchemaVersion("1.0"), SchemaVersion("2.0")])) {
            try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.5"))
        }
        #expect(throws: PlanningError.cyclicStage(from: SchemaVersion("2.0"), to: SchemaVersion("1.0"))) {
            try MigrationPlanner(
                versions: versions, stages: [ExplicitStage(from: SchemaVersion("2.0"), to: SchemaVersion("1.0"), label: "down")])
        }
    }
}
