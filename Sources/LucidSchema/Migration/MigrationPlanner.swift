/// An app-provided step between two versions (a custom stage): the planner must take it where it
/// applies and may not skip it with an inferred step.
public struct ExplicitStage: Sendable, Hashable {
    public var from: SchemaVersion
    public var to: SchemaVersion
    public var label: String
    /// Tables (named as at `to`) whose rows the stage's code transforms one by one.
    package var transformedTables: [String]

    @_spi(Generated) public init(from: SchemaVersion, to: SchemaVersion, label: String, transformedTables: [String] = []) {
        self.from = from
        self.to = to
        self.label = label
        self.transformedTables = transformedTables
    }
}

/// One step of a migration path.
public struct MigrationStep: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Runs as SQL only.
        case inferred
        /// Runs the app's stage with this label.
        case explicit(String)
    }

    public var from: SchemaVersion
    public var to: SchemaVersion
    public var kind: Kind
    /// The SQL operations of the schema change (for an explicit stage: those that can be inferred around it).
    package var operations: [MigrationOperation]

    public var label: String {
        switch kind {
        case .inferred: "\(from) → \(to) (inferred)"
        case .explicit(let label): "\(from) → \(to) (\(label))"
        }
    }

    public var description: String { label }
}

/// Why no migration path can be planned.
public enum PlanningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The version is not in the registry.
    case unknownVersion(SchemaVersion, known: [SchemaVersion])
    /// An explicit stage goes backwards or to itself, which would make a cycle.
    case cyclicStage(from: SchemaVersion, to: SchemaVersion)
    /// Two explicit stages between the same versions.
    case duplicateStage(from: SchemaVersion, to: SchemaVersion)
    /// The target cannot be reached; `blocked` says which steps need the app's code.
    case noRoute(from: SchemaVersion, to: SchemaVersion, blocked: [NotInferable])

    public var description: String {
        switch self {
        case .unknownVersion(let version, let known):
            "version \(version) is not in the schema registry (known: \(known.map(\.string).joined(separator: ", ")))"
        case .cyclicStage(let from, let to): "the stage \(from) → \(to) does not go forward, which would make a cycle"
        case .duplicateStage(let from, let to): "two stages are registered for \(from) → \(to)"
        case .noRoute(let from, let to, let blocked):
            "no migration path from \(from) to \(to)" + (blocked.isEmpty ? "" : ": " + blocked.map(\.description).joined(separator: "; "))
        }
    }
}

/// Chooses the path a store takes from its version to another (normally the newest).
///
/// Versions form a graph: an inferred edge between any two versions whose combined change is
/// inferable (not only neighbours), plus the explicit stages. The chosen path never skips an
/// explicit stage (an inferred edge may not span one), and otherwise does the least work: it
/// minimises the rows rewritten, then the number of steps. So a property added in 1.1 and removed
/// in 1.3 costs nothing for a store at 1.0, and a store at 1.0 jumps straight to 1.3.
///
/// ```swift
/// let planner = try MigrationPlanner(versions: FlightLogSchema.versions)
/// let steps = try planner.plan(from: SchemaVersion("1.0"))
/// ```
package struct MigrationPlanner: Sendable {
    package let versions: [Schema]
    package let stages: [ExplicitStage]
    let inference: StepInference

    package init(versions: [Schema], stages: [ExplicitStage] = []) throws(PlanningError) {
        self.versions = versions
        self.stages = stages
        self.inference = StepInference(versions: versions)
        var seen: Set<[SchemaVersion]> = []
        for stage in stages {
            guard let from = index(of: stage.from) else { throw .unknownVersion(stage.from, known: versions.map(\.version)) }
            guard let to = index(of: stage.to) else { throw .unknownVersion(stage.to, known: versions.map(\.version)) }
            guard from < to else { throw .cyclicStage(from: stage.from, to: stage.to) }
            guard seen.insert([stage.from, stage.to]).inserted else { throw .duplicateStage(from: stage.from, to: stage.to) }
        }
    }

    func index(of version: SchemaVersion) -> Int? { versions.firstIndex { $0.version == version } }

    /// The steps from `source` to `target` (default: the newest version). Empty when they are equal.
    package func plan(from source: SchemaVersion, to target: SchemaVersion? = nil) throws(PlanningError) -> [MigrationStep] {
        let known = versions.map(\.version)
        guard let start = index(of: source) else { throw .unknownVersion(source, known: known) }
        let targetVersion = target ?? versions[versions.count - 1].version
        guard let end = index(of: targetVersion) else { throw .unknownVersion(targetVersion, known: known) }
        if start == end { return [] }
        guard start < end else { throw .noRoute(from: source, to: targetVersion, blocked: []) }

        let graph = pathGraph(from: start, to: end)
        guard let path = PathFinder.shortestPath(from: start, to: end, edges: graph.edges) else {
            throw .noRoute(from: source, to: targetVersion, blocked: graph.blocked)
        }
        return path.map { step(for: $0, in: graph) }
    }

    /// Every version's path to the newest, as ``plan(from:to:)`` takes it from there: the versions it
    /// passes through, the start first and the newest last (none for the newest itself, or a version with
    /// no route). Computed together, each inference once for all starts: what `lucidgen generate` writes
    /// into the registry (`routes`), so that a migration infers only the steps of its own path
    /// (``plan(along:from:)``) instead of every consecutive step of the history.
    package func routes() -> [[SchemaVersion]] {
        guard versions.count > 1 else { return [] }
        let end = versions.count - 1
        let cache = InferenceCache()
        // Every start jumps to the newest: the starts within one of a table's runs of identical versions ask the
        // same question of that table, answered once (without it, the jumps cost time quadratic in the history).
        let remembering = StepInference(versions: versions, remembersTableSteps: true)
        var result: [[SchemaVersion]] = []
        for start in 0..<end {
            let graph = pathGraph(from: start, to: end, cache: cache, inference: remembering)
            guard let path = PathFinder.shortestPath(from: start, to: end, edges: graph.edges) else { continue }
            result.append([versions[start].version] + path.map { versions[$0.to].version })
        }
        return result
    }

    /// The steps along `route` (versions from `source` to the newest, as ``routes()`` lists them),
    /// inferring only those steps: what ``plan(from:to:)`` returns for `source` when the route was computed
    /// from these versions and stages. Nil when the route does not go from `source` to the newest version
    /// forwards, or one of its steps is no edge of the version graph (a step SQL cannot make, one that
    /// jumps over a stage): then plan with ``plan(from:to:)``.
    package func plan(along route: [SchemaVersion], from source: SchemaVersion) -> [MigrationStep]? {
        guard route.count >= 2, route.first == source, route.last == versions.last?.version else { return nil }
        let positions = route.compactMap(index(of:))
        guard positions.count == route.count, zip(positions, positions.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        let spans = stages.compactMap { stage in index(of: stage.from).flatMap { from in index(of: stage.to).map { (from, $0) } } }
        var steps: [MigrationStep] = []
        for (from, to) in zip(positions, positions.dropFirst()) {
            if let stage = stages.first(where: { $0.from == versions[from].version && $0.to == versions[to].version }) {
                steps.append(explicitStep(from: from, to: to, label: stage.label, transformed: Set(stage.transformedTables)))
                continue
            }
            guard !PathFinder.spansExplicit(from: from, to: to, explicit: spans),
                case .success(let operations) = inference.operations(from: from, to: to)
            else { return nil }
            steps.append(MigrationStep(from: versions[from].version, to: versions[to].version, kind: .inferred, operations: operations))
        }
        return steps
    }

    /// The step an edge of `graph` is: an explicit stage with the operations inferable around it, or an
    /// inferred edge with its operations.
    private func step(for edge: PathFinder.Edge, in graph: PlannerGraph) -> MigrationStep {
        let from = versions[edge.from].version
        let to = versions[edge.to].version
        if edge.explicit {
            let stage = graph.explicitEdges.first { $0.from == edge.from && $0.to == edge.to }!
            return explicitStep(from: edge.from, to: edge.to, label: stage.label, transformed: stage.transformed)
        }
        return MigrationStep(from: from, to: to, kind: .inferred, operations: graph.inferred[edge.from]![edge.to]!)
    }

    /// An app stage's step: the operations SQL makes around it (its transformed tables are the app's).
    private func explicitStep(from: Int, to: Int, label: String, transformed: Set<String>) -> MigrationStep {
        let operations = (try? inference.operations(from: from, to: to, transformedTables: transformed).get()) ?? []
        return MigrationStep(from: versions[from].version, to: versions[to].version, kind: .explicit(label), operations: operations)
    }

    /// The edges of the version graph that ``plan(from:to:)`` searches between `source` (default: the
    /// oldest version) and `target` (default: the newest): every explicit stage within that range, and an
    /// inferred edge between any two versions in it whose combined change is inferable and that does not
    /// span an explicit stage (neighbours, and longer jumps such as over a version whose changes cancel).
    /// Sorted by source version, then target version, explicit stages before inferred edges between the
    /// same versions. Listing them does not change which path `plan` chooses.
    ///
    /// ```swift
    /// let planner = try MigrationPlanner(versions: FlightLogSchema.versions, stages: stages)
    /// for edge in try planner.edges() where edge.isJump { print("\(edge.from) → \(edge.to) skips a version") }
    /// ```
    package func edges(from source: SchemaVersion? = nil, to target: SchemaVersion? = nil) throws(PlanningError) -> [MigrationEdge] {
        guard let (start, end) = try range(from: source, to: target) else { return [] }
        return listed(graph(from: start, to: end), from: start, to: end)
    }

    /// The edges ``plan(from:to:)`` searches from `source` (default: the oldest version) to `target`
    /// (default: the newest): every consecutive step, the stages, and the jumps a path from `source` can
    /// take (see ``pathGraph(from:to:)``), sorted like ``edges(from:to:)``. Linear in the versions where
    /// ``edges(from:to:)`` is quadratic: what `plan --format markdown` draws (a diagram of every pair of
    /// 150 versions has over 11,000 edges, more than Mermaid draws and more text than a pull-request
    /// comment holds).
    package func searchedEdges(from source: SchemaVersion? = nil, to target: SchemaVersion? = nil) throws(PlanningError) -> [MigrationEdge]
    {
        guard let (start, end) = try range(from: source, to: target) else { return [] }
        return listed(pathGraph(from: start, to: end), from: start, to: end)
    }

    /// The positions of `source` (default: the oldest) and `target` (default: the newest), nil when there
    /// is nothing between them.
    private func range(from source: SchemaVersion?, to target: SchemaVersion?) throws(PlanningError) -> (Int, Int)? {
        let known = versions.map(\.version)
        guard !versions.isEmpty else { return nil }
        let sourceVersion = source ?? versions[0].version
        let targetVersion = target ?? versions[versions.count - 1].version
        guard let start = index(of: sourceVersion) else { throw .unknownVersion(sourceVersion, known: known) }
        guard let end = index(of: targetVersion) else { throw .unknownVersion(targetVersion, known: known) }
        return start < end ? (start, end) : nil
    }

    private func listed(_ graph: PlannerGraph, from start: Int, to end: Int) -> [MigrationEdge] {
        graph.edges.filter { $0.from >= start && $0.to <= end }
            .sorted { ($0.from, $0.to, $0.explicit ? 0 : 1) < ($1.from, $1.to, $1.explicit ? 0 : 1) }
            .map { edge in
                let step = step(for: edge, in: graph)
                return MigrationEdge(
                    from: step.from, to: step.to, kind: step.kind, operations: step.operations, cost: edge.cost,
                    spannedVersions: edge.to - edge.from - 1)
            }
    }

    /// The edges a path from `start` to `end` can take, inferring only what such a path needs, so that
    /// planning costs time linear in the path (a store 150 versions behind plans in milliseconds; the
    /// full graph of every pair, ``graph(from:to:)``, is cubic): every consecutive step, the stages in the
    /// range, and the longest jumps a path can take, from the start and from each stage's end, to the
    /// end, to each stage's start and as far as the stages allow, so that versions whose changes cancel
    /// are jumped over. A consecutive step SQL cannot make is crossed by the shortest jump that can.
    /// `cache` (for ``routes()``, which builds the graph from every start) keeps each inference for the
    /// next graph; the graph is the same with or without it, and with or without an `inference` that
    /// remembers each table's steps.
    func pathGraph(from start: Int, to end: Int, cache: InferenceCache? = nil, inference: StepInference? = nil) -> PlannerGraph {
        let inference = inference ?? self.inference
        var blocked: [NotInferable] = []
        var inferred: [Int: [Int: [MigrationOperation]]] = [:]
        var inferences = 0
        let explicitEdges = stages.map {
            (from: index(of: $0.from)!, to: index(of: $0.to)!, label: $0.label, transformed: Set($0.transformedTables))
        }
        .filter { $0.from >= start && $0.to <= end }
        let spans = explicitEdges.map { ($0.from, $0.to) }
        func operations(_ from: Int, _ to: Int, transformed: Set<String> = []) -> Result<[MigrationOperation], NotInferable> {
            let key = InferenceCache.Key(from: from, to: to, transformed: transformed)
            if let known = cache?.results[key] { return known }
            inferences += 1
            let result = inference.operations(from: from, to: to, transformedTables: transformed)
            cache?.results[key] = result
            return result
        }
        var edges: [PathFinder.Edge] = explicitEdges.map { edge in
            let operations = (try? operations(edge.from, edge.to, transformed: edge.transformed).get()) ?? []
            return PathFinder.Edge(from: edge.from, to: edge.to, explicit: true, cost: 1000 + operations.reduce(0) { $0 + $1.cost })
        }
        @discardableResult
        func infer(_ from: Int, _ to: Int) -> Bool {
            guard inferred[from]?[to] == nil else { return true }
            guard !PathFinder.spansExplicit(from: from, to: to, explicit: spans) else { return false }
            switch operations(from, to) {
            case .success(let operations):
                inferred[from, default: [:]][to] = operations
                edges.append(PathFinder.Edge(from: from, to: to, explicit: false, cost: operations.reduce(0) { $0 + $1.cost }))
                return true
            case .failure(let reason):
                if to == from + 1 { blocked.append(reason) }
                return false
            }
        }
        for from in start..<end where !infer(from, from + 1) {
            // A change SQL cannot make alone may cancel with a later one: the shortest jump that can.
            for to in (from + 2)...max(from + 2, end) where to <= end && !PathFinder.spansExplicit(from: from, to: to, explicit: spans) {
                if infer(from, to) { break }
            }
        }
        // Rows that move between tables at a version are moved by the step that ends there: no jump goes over
        // it, so jumps start again from it, and reach to just before it (then the step into it).
        let moving = end > start + 1 ? inference.versionsWithMovingRows(in: (start + 1)...end) : []
        let restarts = Set([start] + explicitEdges.map(\.to) + moving).filter { $0 < end }
        for from in restarts.sorted() {
            // As far as no stage is jumped over whole: up to just before the end of the nearest stage ahead.
            let farthest = min(end, explicitEdges.filter { $0.from >= from }.map { $0.to - 1 }.min() ?? end)
            let targets = Set([end, farthest] + explicitEdges.map(\.from) + moving.map { $0 - 1 }).filter { $0 > from + 1 }
            for to in targets.sorted() { infer(from, to) }
        }
        return PlannerGraph(edges: edges, inferred: inferred, blocked: blocked, explicitEdges: explicitEdges, inferences: inferences)
    }

    /// Every edge between `start` and `end`: each pair of versions inferred (what `plan --format markdown`
    /// draws, and ``edges(from:to:)`` lists); a path needs only ``pathGraph(from:to:)``. `blocked` holds why
    /// neighbouring versions cannot be joined by inference.
    func graph(from start: Int, to end: Int) -> PlannerGraph {
        // Every pair asks the same few questions of each table many times: remembered.
        let inference = StepInference(versions: versions, remembersTableSteps: true)
        var blocked: [NotInferable] = []
        var inferred: [Int: [Int: [MigrationOperation]]] = [:]
        let explicitEdges = stages.map {
            (from: index(of: $0.from)!, to: index(of: $0.to)!, label: $0.label, transformed: Set($0.transformedTables))
        }
        var edges: [PathFinder.Edge] = explicitEdges.map { edge in
            let operations = (try? inference.operations(from: edge.from, to: edge.to, transformedTables: edge.transformed).get()) ?? []
            return PathFinder.Edge(from: edge.from, to: edge.to, explicit: true, cost: 1000 + operations.reduce(0) { $0 + $1.cost })
        }
        for from in start..<end {
            for to in (from + 1)...end where !PathFinder.spansExplicit(from: from, to: to, explicit: explicitEdges.map { ($0.from, $0.to) })
            {
                switch inference.operations(from: from, to: to) {
                case .success(let operations):
                    inferred[from, default: [:]][to] = operations
                    edges.append(PathFinder.Edge(from: from, to: to, explicit: false, cost: operations.reduce(0) { $0 + $1.cost }))
                case .failure(let reason):
                    if to == from + 1 { blocked.append(reason) }
                }
            }
        }
        return PlannerGraph(edges: edges, inferred: inferred, blocked: blocked, explicitEdges: explicitEdges, inferences: 0)
    }

    /// The operations from one version straight to another (with `transformedTables` rebuilt through the
    /// app's row transform), or why they need the app's code.
    package func inferredOperations(from: SchemaVersion, to: SchemaVersion, transformedTables: Set<String> = []) throws(PlanningError)
        -> Result<[MigrationOperation], NotInferable>
    {
        let known = versions.map(\.version)
        guard let start = index(of: from) else { throw .unknownVersion(from, known: known) }
        guard let end = index(of: to) else { throw .unknownVersion(to, known: known) }
        return inference.operations(from: start, to: end, transformedTables: transformedTables)
    }
}

/// One edge of the version graph the planner searches (see ``MigrationPlanner/edges(from:to:)``).
package struct MigrationEdge: Sendable, Hashable, CustomStringConvertible {
    package var from: SchemaVersion
    package var to: SchemaVersion
    /// Inferred (SQL only) or an explicit stage (the app's code).
    package var kind: MigrationStep.Kind
    /// What taking the edge does, as the step it would become.
    package var operations: [MigrationOperation]
    /// The work the planner counts for the edge (rows rewritten, roughly; an explicit stage costs 1000
    /// more than its operations). The chosen path minimises the sum, then the number of steps.
    package var cost: Int
    /// How many versions the edge jumps over (0 between neighbours).
    package var spannedVersions: Int

    package init(
        from: SchemaVersion, to: SchemaVersion, kind: MigrationStep.Kind, operations: [MigrationOperation], cost: Int, spannedVersions: Int
    ) {
        self.from = from
        self.to = to
        self.kind = kind
        self.operations = operations
        self.cost = cost
        self.spannedVersions = spannedVersions
    }

    /// Whether the edge jumps over at least one version.
    package var isJump: Bool { spannedVersions > 0 }

    /// The step this edge would be on a path.
    package var step: MigrationStep { MigrationStep(from: from, to: to, kind: kind, operations: operations) }

    package var description: String { step.label }
}

/// Inferences kept between the path graphs of several starts (``MigrationPlanner/routes()``).
final class InferenceCache {
    struct Key: Hashable {
        var from: Int
        var to: Int
        var transformed: Set<String>
    }

    var results: [Key: Result<[MigrationOperation], NotInferable>] = [:]
}

/// The version graph between two indexes, as ``MigrationPlanner`` builds it for a search.
struct PlannerGraph {
    var edges: [PathFinder.Edge]
    var inferred: [Int: [Int: [MigrationOperation]]]
    var blocked: [NotInferable]
    var explicitEdges: [(from: Int, to: Int, label: String, transformed: Set<String>)]
    /// How many times the step inference ran to build it (for tests: planning a path infers only what it needs).
    var inferences: Int
}

/// Shortest paths in the forward-only version graph.
enum PathFinder {
    struct Edge: Hashable {
        var from: Int
        var to: Int
        var explicit: Bool
        /// Work done by the edge (rows rewritten, roughly).
        var cost: Int
    }

    /// Whether an inferred edge from `from` to `to` would jump over an explicit stage.
    static func spansExplicit(from: Int, to: Int, explicit: [(Int, Int)]) -> Bool {
        explicit.contains { $0.0 >= from && $0.1 <= to }
    }

    /// The cheapest path: least work, then fewest steps. Edges only go forward, so one pass in version
    /// order settles every node.
    static func shortestPath(from start: Int, to end: Int, edges: [Edge]) -> [Edge]? {
        var best: [Int: (cost: Int, steps: Int, edge: Edge?)] = [start: (0, 0, nil)]
        let incoming = Dictionary(grouping: edges.filter { $0.from >= start && $0.to <= end && $0.from < $0.to }, by: \.to)
        for node in (start + 1)...end {
            for edge in (incoming[node] ?? []).sorted(by: { ($0.from, $0.explicit ? 0 : 1) < ($1.from, $1.explicit ? 0 : 1) }) {
                guard let previous = best[edge.from] else { continue }
                let candidate = (cost: previous.cost + edge.cost, steps: previous.steps + 1, edge: Optional(edge))
                if let current = best[node], (current.cost, current.steps) <= (candidate.cost, candidate.steps) { continue }
                best[node] = candidate
            }
        }
        guard best[end] != nil else { return nil }
        var path: [Edge] = []
        var node = end
        while let edge = best[node]?.edge {
            path.append(edge)
            node = edge.from
        }
        return path.reversed()
    }
}
