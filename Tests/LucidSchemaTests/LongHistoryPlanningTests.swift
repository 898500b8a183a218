import Testing

@_spi(Generated) @testable import LucidSchema

/// Planning along a long history infers only what the path needs: never every pair of
/// versions. Counted in inferences, not in time.
@Suite struct LongHistoryPlanningTests {
    /// `count` versions of `tables` tables; version i adds a column to two tables (i % tables and
    /// (i + 1) % tables), and every tenth version drops the column the version before added to the first.
    static func history(versions count: Int, tables: Int) -> [Schema] {
        var columns = (0..<tables).map { _ in [SchemaColumn(name: "id", type: .integer, notNull: true)] }
        var result: [Schema] = []
        for version in 0..<count {
            if version > 0 {
                for table in [version % tables, (version + 1) % tables] {
                    columns[table].append(SchemaColumn(name: "c\(version)_\(table)", type: .text, notNull: false))
                }
                if version % 10 == 0 {
                    let table = (version - 1) % tables
                    columns[table].removeAll { $0.name == "c\(version - 1)_\(table)" }
                }
            }
            result.append(
                Schema(
                    version: try! SchemaVersion(parsing: "\(version + 1).0"),
                    tables: (0..<tables).map { SchemaTable(name: "t\($0)", columns: columns[$0], primaryKey: ["id"]) }))
        }
        return result
    }

    /// A column's changes list the versions where it differs, not every change of its table, and a walk kept
    /// from one question answers the next (asked in any order) as a walk made for it would.
    @Test func aColumnsChangesAreTheVersionsWhereItDiffers() throws {
        // t gains a column at every version; its column `a` becomes INTEGER at 4.0 and is renamed `b` at 6.0.
        var versions: [Schema] = []
        for version in 0..<8 {
            var columns = [SchemaColumn(name: "id", type: .integer, notNull: true)]
            columns.append(
                SchemaColumn(
                    name: version >= 5 ? "b" : "a", type: version >= 3 ? .integer : .text, notNull: false,
                    renamedFrom: version == 5 ? "a" : nil))
            columns += (0..<version).map { SchemaColumn(name: "c\($0)", type: .text, notNull: false) }
            versions.append(
                Schema(
                    version: try SchemaVersion(parsing: "\(version + 1).0"),
                    tables: [SchemaTable(name: "t", columns: columns, primaryKey: ["id"])]))
        }
        func changes(_ lineage: Lineage, from earlier: Int) -> [String]? {
            lineage.columnChanges(ofColumn: "b", table: "t", at: 7, in: earlier)?.map {
                "\(versions[$0.version].version) \($0.column.name) \($0.column.type.rawValue)"
            }
        }
        let walked = Lineage(versions: versions)
        // The column at `earlier`, then at 4.0 (a type change), 6.0 (the rename), 7.0 (no longer "renamed from").
        #expect(changes(walked, from: 0) == ["1.0 a TEXT", "4.0 a INTEGER", "6.0 b INTEGER", "7.0 b INTEGER"])
        #expect(changes(walked, from: 3) == ["4.0 a INTEGER", "6.0 b INTEGER", "7.0 b INTEGER"])
        #expect(changes(walked, from: 4) == ["5.0 a INTEGER", "6.0 b INTEGER", "7.0 b INTEGER"])
        #expect(changes(walked, from: 6) == ["7.0 b INTEGER"])
        // Fresh walks, the other way round: the same answers.
        for earlier in [6, 4, 3, 0] {
            #expect(changes(Lineage(versions: versions), from: earlier) == changes(walked, from: earlier), "from \(earlier)")
        }
        // A column that did not exist at `earlier` has no changes from there.
        #expect(Lineage(versions: versions).columnChanges(ofColumn: "c3", table: "t", at: 7, in: 2) == nil)
        #expect(walked.columnChanges(ofColumn: "c3", table: "t", at: 7, in: 4)?.map(\.version) == [4])
    }

    @Test func oneVersionBehindInfersOneStep() throws {
        let versions = Self.history(versions: 150, tables: 60)
        let planner = try MigrationPlanner(versions: versions)
        let graph = planner.pathGraph(from: 148, to: 149)
        #expect(graph.inferences == 1)
        #expect(try planner.plan(from: versions[148].version).map(\.label) == ["149.0 → 150.0 (inferred)"])
    }

    @Test func theOldestStoreInfersLinearlyInThePath() throws {
        let versions = Self.history(versions: 150, tables: 60)
        let planner = try MigrationPlanner(versions: versions)
        let graph = planner.pathGraph(from: 0, to: 149)
        // Every consecutive step, and one jump from the start to the end.
        #expect(graph.inferences == 149 + 1)
        let steps = try planner.plan(from: versions[0].version)
        // The jump: one step, without the columns added and dropped on the way.
        #expect(steps.map(\.label) == ["1.0 → 150.0 (inferred)"])
        let added = steps[0].operations.filter { if case .addColumn = $0 { true } else { false } }.count
        #expect(added == 2 * 149 - 14)
        #expect(!steps[0].operations.contains { if case .dropColumn = $0 { true } else { false } })
    }

    /// The routes the generator writes into the registry are the planner's paths, from every version; a
    /// migration along one infers only its steps (one for the oldest store: the jump).
    @Test func routesAreThePathsFromEveryVersion() throws {
        let versions = Self.history(versions: 150, tables: 60)
        let planner = try MigrationPlanner(versions: versions)
        let routes = planner.routes()
        #expect(routes.count == 149)
        #expect(routes[0].map(\.string) == ["1.0", "150.0"])
        for start in stride(from: 0, to: 149, by: 37) {
            #expect(planner.plan(along: routes[start], from: versions[start].version) == (try planner.plan(from: versions[start].version)))
        }
    }

    /// `plan --format markdown` draws the searched edges: linear in the versions (every pair of 150 is
    /// 11,175 edges), the path among them.
    @Test func theMarkdownDiagramDrawsTheSearchedEdges() throws {
        let versions = Self.history(versions: 150, tables: 60)
        let planner = try MigrationPlanner(versions: versions)
        let edges = try planner.searchedEdges()
        #expect(edges.count == 149 + 1)
        #expect(edges.filter { !$0.isJump }.map(\.from) == versions.dropLast().map(\.version))
        #expect(edges.filter(\.isJump).map(\.description) == ["1.0 → 150.0 (inferred)"])
        let path = try planner.plan(from: versions[0].version)
        #expect(path.allSatisfy { step in edges.contains { $0.step == step } })
        #expect(try planner.searchedEdges(from: versions[148].version).map(\.description) == ["149.0 → 150.0 (inferred)"])
    }

    /// On a short history the path is as cheap as the one the full graph of every pair finds.
    /// ``history(versions:tables:)`` as a generated registry states it: each distinct table once, as a
    /// deferred constant (its JSON), and every version after the first by the tables it replaces.
    static func deferredHistory(versions count: Int, tables: Int) -> (versions: [Schema], constants: [SchemaTable.Deferred]) {
        var constants: [SchemaTable.Deferred] = []
        var current: [String: SchemaTable] = [:]
        var result: [Schema] = []
        for schema in history(versions: count, tables: tables) {
            let changed = schema.tables.filter { current[$0.name] != $0 }.map { table in
                SchemaTable.Deferred(name: table.name, json: table.json(indent: ""))
            }
            constants += changed
            for table in schema.tables { current[table.name] = table }
            result.append(
                result.last.map { Schema(version: schema.version, basedOn: $0, replacing: changed) }
                    ?? Schema(version: schema.version, tables: changed))
        }
        return (result, constants)
    }

    @Test func oneVersionBehindBuildsOnlyTheTablesOfItsStep() throws {
        let (versions, constants) = Self.deferredHistory(versions: 150, tables: 60)
        let planner = try MigrationPlanner(versions: versions)
        let steps = try planner.plan(from: versions[148].version)
        #expect(steps.count == 1)
        #expect(
            steps.first?.operations == [
                .addColumn(table: "t29", column: SchemaColumn(name: "c149_29", type: .text, notNull: false)),
                .addColumn(table: "t30", column: SchemaColumn(name: "c149_30", type: .text, notNull: false)),
            ])
        // The two tables the step changes, as 1.48 and as 1.49 state them: none of the other 58, nor any
        // table of the 148 versions before.
        let built = constants.filter(\.isBuilt).map(\.name).sorted()
        #expect(built == ["t29", "t29", "t30", "t30"])
        // The deferred history plans every start as the built one does.
        let plain = try MigrationPlanner(versions: Self.history(versions: 150, tables: 60))
        for start in [0, 1, 74, 139, 148] {
            #expect(
                try planner.plan(from: versions[start].version) == plain.plan(from: versions[start].version),
                "from \(versions[start].version)")
        }
    }

    @Test func thePathCostsWhatTheFullGraphsPathCosts() throws {
        let versions = Self.history(versions: 24, tables: 5)
        let planner = try MigrationPlanner(versions: versions)
        for start in 0..<23 {
            let full = planner.graph(from: start, to: 23)
            let fullPath = try #require(PathFinder.shortestPath(from: start, to: 23, edges: full.edges))
            let path = try planner.plan(from: versions[start].version)
            let cost = path.flatMap(\.operations).reduce(0) { $0 + $1.cost }
            #expect(cost == fullPath.reduce(0) { $0 + $1.cost }, "from \(versions[start].version)")
        }
    }
}
