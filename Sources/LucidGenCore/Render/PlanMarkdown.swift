import Foundation
@_spi(Generated) import LucidSchema

/// A migration plan as Markdown, for a pull-request comment (`lucidgen plan --format markdown`): a
/// heading, what was planned, a table of the steps, each step's operations in plain words, the findings,
/// and a Mermaid diagram of the version graph with the chosen path highlighted.
///
/// Pure and deterministic (no dates, everything in version order), so the output can be compared with a
/// golden file. Every label is escaped where it lands: Markdown text and table cells, and Mermaid strings.
///
/// ```swift
/// let planner = try MigrationPlanner(versions: versions, stages: stages)
/// let markdown = PlanMarkdown(
///     subject: .oldestVersion, versions: versions.map(\.version), edges: try planner.searchedEdges(),
///     steps: try planner.plan(from: versions[0].version), findings: []
/// ).render()
/// ```
package struct PlanMarkdown: Sendable, Hashable {
    /// What was planned.
    package enum Subject: Sendable, Hashable {
        /// No store: the path from the oldest version (`steps` start there).
        case oldestVersion
        /// A store at `version` (`adopted`: recognised from its tables), whose path `steps` is.
        case store(path: String, version: String, adopted: Bool)
        /// A store without a version (`what`: "no such file", "an empty database"…): opening it would
        /// create the tables of the newest version.
        case newStore(path: String, what: String)
    }

    /// One operation of a step.
    package struct Operation: Sendable, Hashable {
        /// In plain words (`MigrationOperation.description`).
        package var description: String
        /// Its kind in a few words, for the step table ("rename column").
        package var kind: String
        /// Whether it rewrites every row of a table.
        package var rewritesRows: Bool
        /// The rows it rewrites, when known (a store was given and the table exists in it).
        package var rows: Int?
        /// What it does inside, one line each (a rebuild's columns dropped, renamed, added, converted).
        package var changes: [String]

        package init(description: String, kind: String, rewritesRows: Bool = false, rows: Int? = nil, changes: [String] = []) {
            self.description = description
            self.kind = kind
            self.rewritesRows = rewritesRows
            self.rows = rows
            self.changes = changes
        }
    }

    /// One step of the chosen path.
    package struct Step: Sendable, Hashable {
        package var from: String
        package var to: String
        /// The app's stage that runs it (nil: inferred, SQL only).
        package var stage: String?
        package var operations: [Operation]

        package init(from: String, to: String, stage: String? = nil, operations: [Operation]) {
            self.from = from
            self.to = to
            self.stage = stage
            self.operations = operations
        }
    }

    /// A Core Data store's conversion, before the steps: each entity's rows and each to-many's links
    /// (`Artwork → artwork: 63 rows`), and each row that will not be as Core Data had it.
    package struct CoreDataConversion: Sendable, Hashable {
        package var model: String
        package var counts: [String]
        package var notes: [String]
        /// The store's layout is none of the model versions': how it differs from ``model``, the nearest.
        package var drift: [String]

        package init(model: String, counts: [String], notes: [String], drift: [String] = []) {
            self.model = model
            self.counts = counts
            self.notes = notes
            self.drift = drift
        }
    }

    /// One edge of the diagram.
    package struct Edge: Sendable, Hashable {
        package var from: String
        package var to: String
        /// The app's stage (nil: inferred).
        package var stage: String?

        package init(from: String, to: String, stage: String? = nil) {
            self.from = from
            self.to = to
            self.stage = stage
        }
    }

    package var subject: Subject
    /// Every version of the graph, oldest first (one diagram node each).
    package var versions: [String]
    /// The diagram's edges (those of the chosen path are highlighted; any missing from this list are added).
    package var edges: [Edge]
    /// The chosen path, in order.
    package var steps: [Step]
    /// Where the path ends (default: the newest version).
    package var target: String
    /// Whether the step table has a column of rows rewritten (a store was inspected).
    package var showsRows: Bool
    /// One line each; an empty list prints `No findings.`
    package var findings: [String]
    /// A Core Data store's conversion (nil: not a Core Data store).
    package var coreDataConversion: CoreDataConversion?
    /// `plan --accept-drift` of a drifted store: each repair made before the path.
    package var drift: [String] = []

    package init(
        subject: Subject, versions: [String], edges: [Edge], steps: [Step], target: String? = nil, showsRows: Bool = false,
        findings: [String] = []
    ) {
        self.subject = subject
        self.versions = versions
        self.edges = edges
        self.steps = steps
        self.target = target ?? steps.last?.to ?? versions.last ?? ""
        self.showsRows = showsRows
        self.findings = findings
    }

    /// A plan from the planner's values. `edges` are those of ``MigrationPlanner/edges(from:to:)``: the
    /// diagram keeps the explicit stages, the inferred edges between neighbours, the edges of the chosen
    /// path, and the longer inferred edges that do less work than the neighbouring steps they jump over
    /// (changes that cancel) or that join versions no chain of neighbouring steps joins. `rowCounts`
    /// (rows per table of the store, named as in the store; nil without a store) gives the rows each
    /// operation rewrites, following the tables renamed on the way.
    package init(
        subject: Subject, versions: [SchemaVersion], edges: [MigrationEdge], steps: [MigrationStep], target: SchemaVersion? = nil,
        rowCounts: [String: Int]? = nil, findings: [String] = []
    ) {
        let onPath = Set(steps.map { [$0.from.string, $0.to.string, Self.stage(of: $0.kind) ?? ""] })
        var neighbourCost: [SchemaVersion: Int] = [:]
        for edge in edges where edge.spannedVersions == 0 && edge.kind == .inferred { neighbourCost[edge.from] = edge.cost }
        let position = Dictionary(versions.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let shown = edges.filter { edge in
            guard edge.kind == .inferred, edge.isJump else { return true }
            if onPath.contains([edge.from.string, edge.to.string, ""]) { return true }
            guard let start = position[edge.from], let end = position[edge.to] else { return true }
            var chain = 0
            for index in start..<end {
                guard let cost = neighbourCost[versions[index]] else { return true }
                chain += cost
            }
            return edge.cost < chain
        }
        var renderedSteps: [Step] = []
        // Along the path: the store's name of each renamed table, and the tables created on the way.
        var storeName: [String: String] = [:]
        var created: Set<String> = []
        func rows(_ table: String) -> Int? {
            guard let rowCounts, !created.contains(table) else { return nil }
            return rowCounts[storeName[table] ?? table]
        }
        func moved(_ from: String, to: String) {
            guard from != to else { return }
            if created.contains(from) {
                created.insert(to)
            } else {
                created.remove(to)
                storeName[to] = storeName[from] ?? from
            }
        }
        for step in steps {
            var operations: [Operation] = []
            for (operation, text) in zip(step.operations, MigrationOperation.planTexts(of: step.operations)) {
                var count: Int?
                switch operation {
                case .rebuildTable(let rebuild): count = rows(rebuild.sourceTable)
                case .transformTable(_, let source): count = rows(source)
                case .dropColumn(let table, _, _): count = rows(table)
                case .fillJoinTable(_, let owner, _, _): count = rows(owner)
                case .moveRows(let move): count = rows(move.source)
                default: break
                }
                operations.append(
                    Operation(
                        description: text.line, kind: Self.kind(of: operation), rewritesRows: operation.rewritesRows, rows: count,
                        changes: text.changes))
                switch operation {
                case .renameTable(let from, let to): moved(from, to: to)
                case .rebuildTable(let rebuild): moved(rebuild.sourceTable, to: rebuild.table.name)
                case .transformTable(let table, let source): moved(source, to: table.name)
                case .createTable(let table): created.insert(table.name)
                case .dropTable(let table, _): created.insert(table)
                default: break
                }
            }
            renderedSteps.append(Step(from: step.from.string, to: step.to.string, stage: Self.stage(of: step.kind), operations: operations))
        }
        self.init(
            subject: subject, versions: versions.map(\.string),
            edges: shown.map { Edge(from: $0.from.string, to: $0.to.string, stage: Self.stage(of: $0.kind)) },
            steps: renderedSteps, target: (target ?? versions.last)?.string, showsRows: rowCounts != nil, findings: findings)
    }

    static func stage(of kind: MigrationStep.Kind) -> String? {
        if case .explicit(let label) = kind { return label }
        return nil
    }

    /// An operation's kind in a few words.
    package static func kind(of operation: MigrationOperation) -> String {
        switch operation {
        case .renameTable: "rename table"
        case .createTable: "create table"
        case .fillJoinTable: "fill join table"
        case .renameColumn: "rename column"
        case .addColumn: "add column"
        case .dropColumn: "drop column"
        case .rebuildTable: "rebuild table"
        case .dropTable: "drop table"
        case .dropIndex: "drop index"
        case .transformTable: "row transform"
        case .createIndex: "create index"
        case .dropSearch: "drop search"
        case .createSearch: "create search"
        case .rewriteKinds: "rewrite kinds"
        case .moveRows: "move rows"
        }
    }

    // MARK: Rendering

    /// The Markdown, ending with a newline.
    package func render() -> String {
        var lines: [String] = []
        let from: String? =
            switch subject {
            case .oldestVersion: versions.first
            case .store(_, let version, _): version
            case .newStore: nil
            }
        if let from, from != target {
            lines.append("## Migration plan: \(Self.text(from)) → \(Self.text(target))")
        } else {
            lines.append("## Migration plan: \(Self.text(target))")
        }
        lines.append("")
        lines.append(summaryLine(from: from))
        lines.append("")
        if !drift.isEmpty {
            lines.append("### Drift repaired first (`--accept-drift`)")
            lines.append("")
            for repair in drift { lines.append("- \(Self.text(repair))") }
            lines.append("")
        }
        if let coreDataConversion {
            lines.append("### Conversion from Core Data (model \(Self.text(coreDataConversion.model)))")
            lines.append("")
            if !coreDataConversion.drift.isEmpty {
                lines.append(
                    "Drifted from model \(Self.text(coreDataConversion.model)), the nearest imported version (each difference taken as Core Data's inferred mapping takes it):"
                )
                lines.append("")
                for difference in coreDataConversion.drift { lines.append("- \(Self.text(difference))") }
                lines.append("")
            }
            for count in coreDataConversion.counts { lines.append("- \(Self.text(count))") }
            if !coreDataConversion.notes.isEmpty {
                lines.append("")
                lines.append("Not as Core Data had it (the copy kept as `.coredata-backup` has the original):")
                lines.append("")
                for note in coreDataConversion.notes { lines.append("- \(Self.text(note))") }
            }
            lines.append("")
        }
        if !steps.isEmpty {
            lines.append(showsRows ? "| # | from → to | kind | operations | rows rewritten |" : "| # | from → to | kind | operations |")
            lines.append(showsRows ? "|--:|---|---|---|--:|" : "|--:|---|---|---|")
            for (index, step) in steps.enumerated() {
                var cells = [
                    "\(index + 1)", "\(Self.text(step.from)) → \(Self.text(step.to))", kindCell(step),
                    Self.text(summary(of: step.operations)),
                ]
                if showsRows { cells.append(rowsCell(step)) }
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
            lines.append("")
            lines.append("### Steps")
            lines.append("")
            for (index, step) in steps.enumerated() {
                let kind = step.stage.map { "app code: " + Self.code($0) } ?? "inferred"
                lines.append("\(index + 1). **\(Self.text(step.from)) → \(Self.text(step.to))** (\(kind))")
                if step.operations.isEmpty { lines.append("   - no change to the tables; only the version record") }
                for operation in step.operations {
                    var line = "   - " + Self.text(operation.description)
                    if let rows = operation.rows { line += ": rewrites \(rows) row\(rows == 1 ? "" : "s")" }
                    lines.append(line)
                    for change in operation.changes { lines.append("     - " + Self.text(change)) }
                }
            }
            lines.append("")
        }
        lines.append("### Findings")
        lines.append("")
        if findings.isEmpty { lines.append("No findings.") }
        for finding in findings { lines.append("- " + Self.text(finding)) }
        lines.append("")
        lines.append("### Version graph")
        lines.append("")
        lines.append("Solid arrows are inferred steps (SQL only), dotted arrows the app's stages; the chosen path is green.")
        lines.append("")
        lines.append(contentsOf: mermaid())
        return lines.joined(separator: "\n") + "\n"
    }

    func summaryLine(from: String?) -> String {
        let count = "\(steps.count) step\(steps.count == 1 ? "" : "s")"
        switch subject {
        case .oldestVersion:
            guard let from, from != target else { return "No store given: \(Self.text(target)) is the only version; nothing to migrate." }
            return
                "No store given: the path from the oldest version, \(Self.text(from)), to \(Self.text(target)), as the planner takes it (\(count))."
        case .store(let path, let version, let adopted):
            let at = "Store \(Self.code(path)) at version \(Self.text(version))\(adopted ? " (recognised from its tables)" : "")"
            guard !steps.isEmpty else { return at + ": nothing to migrate." }
            return at + ": its path to \(Self.text(target)) (\(count))."
        case .newStore(let path, let what):
            return "Store \(Self.code(path)): \(Self.text(what)); opening it would create the tables of \(Self.text(target)) (no steps)."
        }
    }

    func kindCell(_ step: Step) -> String {
        guard let stage = step.stage else { return "inferred" }
        return "app code (\(Self.code(stage, inTable: true)))"
    }

    /// The operations by kind, in order of first appearance: `rename table, 2 × add column`.
    func summary(of operations: [Operation]) -> String {
        guard !operations.isEmpty else { return "no table changes" }
        var order: [String] = []
        var counts: [String: Int] = [:]
        for operation in operations {
            if counts[operation.kind] == nil { order.append(operation.kind) }
            counts[operation.kind, default: 0] += 1
        }
        return order.map { counts[$0]! == 1 ? $0 : "\(counts[$0]!) × \($0)" }.joined(separator: ", ")
    }

    /// The rows the step's operations rewrite: their sum, `≥ N` when some are unknown (a table created
    /// on the path), `?` when none is known; a stage adds `+ app code` (its own rows are not counted).
    func rowsCell(_ step: Step) -> String {
        let rewriting = step.operations.filter(\.rewritesRows)
        let known = rewriting.compactMap(\.rows).reduce(0, +)
        let rows = rewriting.allSatisfy({ $0.rows != nil }) ? "\(known)" : known > 0 ? "≥ \(known)" : "?"
        guard step.stage != nil else { return rows }
        return rewriting.isEmpty ? "app code" : rows + " + app code"
    }

    /// The ```mermaid block: one node per version, the edges in version order, the path's edges
    /// (`linkStyle`, by their index among the edges) and nodes (`class … path`) highlighted.
    func mermaid() -> [String] {
        var lines = ["```mermaid", "graph LR"]
        let ids = Self.nodeIDs(versions)
        var known = Set(versions)
        var nodes = versions
        // Versions an edge or step names that the list lacks (not expected): still one node each.
        for name in edges.flatMap({ [$0.from, $0.to] }) + steps.flatMap({ [$0.from, $0.to] }) where known.insert(name).inserted {
            nodes.append(name)
        }
        let allIDs = nodes.count == versions.count ? ids : Self.nodeIDs(nodes)
        let id = Dictionary(zip(nodes, allIDs), uniquingKeysWith: { first, _ in first })
        let order = Dictionary(nodes.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var all = edges
        for step in steps where !all.contains(Edge(from: step.from, to: step.to, stage: step.stage)) {
            all.append(Edge(from: step.from, to: step.to, stage: step.stage))
        }
        var seen: Set<Edge> = []
        all = all.filter { seen.insert($0).inserted }
            .sorted {
                (order[$0.from]!, order[$0.to]!, $0.stage == nil ? 1 : 0, $0.stage ?? "") < (
                    order[$1.from]!, order[$1.to]!, $1.stage == nil ? 1 : 0, $1.stage ?? ""
                )
            }
        let path = Set(steps.map { Edge(from: $0.from, to: $0.to, stage: $0.stage) })
        let chains =
            all.count > Self.maxEdges
            ? Self.collapsedChains(all, path: path, keep: [versions.first, versions.last, steps.first?.from, steps.last?.to]) : nil
        for node in nodes where chains?.hidden.contains(node) != true { lines.append("    \(id[node]!)[\"\(Self.mermaidText(node))\"]") }
        var highlighted: [Int] = []
        for (index, drawn) in (chains?.edges ?? all.map { ($0, 1, path.contains($0)) }).enumerated() {
            let edge = drawn.edge
            if let stage = edge.stage {
                lines.append("    \(id[edge.from]!) -.->|\"\(Self.mermaidText(stage))\"| \(id[edge.to]!)")
            } else if drawn.steps > 1 {
                lines.append("    \(id[edge.from]!) -->|\"\(drawn.steps) steps\"| \(id[edge.to]!)")
            } else {
                lines.append("    \(id[edge.from]!) --> \(id[edge.to]!)")
            }
            if drawn.onPath { highlighted.append(index) }
        }
        if !steps.isEmpty {
            var pathNodes: [String] = [steps[0].from]
            for step in steps where !pathNodes.contains(step.to) && chains?.hidden.contains(step.to) != true { pathNodes.append(step.to) }
            lines.append("    classDef path stroke:#2da44e,stroke-width:3px")
            lines.append("    class \(pathNodes.map { id[$0]! }.joined(separator: ",")) path")
        }
        if !highlighted.isEmpty {
            lines.append("    linkStyle \(highlighted.map(String.init).joined(separator: ",")) stroke-width:4px,stroke:#2da44e")
        }
        lines.append("```")
        return lines
    }

    /// The edges Mermaid draws by default (its `maxEdges`, which a diagram's own settings cannot raise):
    /// beyond it, GitHub shows an error instead of the diagram.
    static let maxEdges = 500

    /// For a graph of more than ``maxEdges`` edges: each run of versions that one inferred edge enters and
    /// one leaves (both on the path or both off it, and none of `keep`) drawn as one edge from the run's
    /// start to its end that says how many steps it holds (highlighted when its steps are on the path);
    /// `hidden` are the versions inside the runs.
    static func collapsedChains(_ edges: [Edge], path: Set<Edge>, keep: [String?]) -> (
        edges: [(edge: Edge, steps: Int, onPath: Bool)], hidden: Set<String>
    ) {
        var incoming: [String: [Edge]] = [:]
        var outgoing: [String: [Edge]] = [:]
        for edge in edges {
            incoming[edge.to, default: []].append(edge)
            outgoing[edge.from, default: []].append(edge)
        }
        let kept = Set(keep.compactMap { $0 })
        func inside(_ node: String) -> Edge? {
            guard !kept.contains(node), let into = incoming[node], into.count == 1, let out = outgoing[node], out.count == 1,
                into[0].stage == nil, out[0].stage == nil, path.contains(into[0]) == path.contains(out[0])
            else { return nil }
            return out[0]
        }
        var drawn: [(edge: Edge, steps: Int, onPath: Bool)] = []
        var hidden: Set<String> = []
        for edge in edges where inside(edge.from) == nil {
            var end = edge
            var count = 1
            while let next = inside(end.to) {
                hidden.insert(end.to)
                end = next
                count += 1
            }
            drawn.append((Edge(from: edge.from, to: end.to, stage: edge.stage), count, path.contains(edge)))
        }
        return (drawn, hidden)
    }

    // MARK: Escaping

    /// Mermaid node ids: `v` and the label with every character other than an ASCII letter or digit as
    /// `_` (`1.0.0` → `v1_0_0`); a label whose id is taken gets its position appended.
    static func nodeIDs(_ labels: [String]) -> [String] {
        var taken: Set<String> = []
        return labels.enumerated().map { index, label in
            let base = "v" + String(label.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
            var candidate = base
            var suffix = index
            while !taken.insert(candidate).inserted {
                candidate = "\(base)_\(suffix)"
                suffix += 1
            }
            return candidate
        }
    }

    /// Text for a Mermaid quoted string: quotes, brackets, pipes and the other characters Mermaid's
    /// parser or its HTML labels read become entity codes (`#quot;`, `#124;`…); line breaks become spaces.
    static func mermaidText(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\"": result += "#quot;"
            case "#": result += "#35;"
            case "|": result += "#124;"
            case "[": result += "#91;"
            case "]": result += "#93;"
            case "{": result += "#123;"
            case "}": result += "#125;"
            case "(": result += "#40;"
            case ")": result += "#41;"
            case "<": result += "#lt;"
            case ">": result += "#gt;"
            case "&": result += "#amp;"
            case ";": result += "#59;"
            case "`": result += "#96;"
            case "\n", "\r", "\r\n", "\t": result += " "
            default: result.append(character)
            }
        }
        return result
    }

    /// Plain Markdown text, also safe in a table cell: Markdown's punctuation is backslash-escaped
    /// (`|` as `\|`; `_` only where it could start or end emphasis), line breaks become spaces.
    static func text(_ text: String) -> String {
        var result = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            switch character {
            case "\\", "`", "*", "[", "]", "<", ">", "|", "~", "&", "#", "!":
                result += "\\" + String(character)
            case "_":
                let before = index > 0 ? characters[index - 1] : " "
                let after = index + 1 < characters.count ? characters[index + 1] : " "
                let inWord = (before.isLetter || before.isNumber) && (after.isLetter || after.isNumber)
                result += inWord ? "_" : "\\_"
            case "\n", "\r", "\r\n", "\t": result += " "
            default: result.append(character)
            }
        }
        return result
    }

    /// A code span whose fence is longer than any run of backticks in `text`; in a table cell its `|`
    /// are escaped too (GitHub splits cells on them even inside code spans).
    static func code(_ text: String, inTable: Bool = false) -> String {
        var content = String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
        if inTable { content = content.replacingOccurrences(of: "|", with: "\\|") }
        var longest = 0
        var run = 0
        for character in content {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let padded = content.hasPrefix("`") || content.hasSuffix("`") || content.isEmpty ? " \(content) " : content
        return fence + padded + fence
    }
}
