import Foundation
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

@testable import LucidGenCore

/// `lucidgen plan --format markdown` (and text without `--database`): the bundled example with and
/// without a store, findings, escaping, and a history whose planner jumps over a version.
@Suite struct PlanMarkdownTests {
    let config = repositoryRoot.appendingPathComponent(".lucid.yaml").path

    /// The example without a store: the path from the oldest version, its table, and the graph with the
    /// 1.0 → 2.0 jump (over 1.1), the app's stage and the path's edges (indices 1, 3, 4) highlighted.
    @Test func bundledExampleWithoutADatabase() throws {
        let result = try run(lucidgenBinary, ["plan", "--config", config, "--format", "markdown"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.components(separatedBy: "\n")
        #expect(lines.first == "## Migration plan: 1.0 → 4.0")
        #expect(lines.contains("No store given: the path from the oldest version, 1.0, to 4.0, as the planner takes it (3 steps)."))
        #expect(lines.contains("| # | from → to | kind | operations |"))
        #expect(
            lines.contains(
                "| 1 | 1.0 → 2.0 | inferred | rename table, drop index, create table, 3 × add column, rename column, create index |"))
        #expect(lines.contains("| 2 | 2.0 → 2.1 | app code (`moveFlightData`) | create table |"))
        #expect(lines.contains("| 3 | 2.1 → 4.0 | inferred | rebuild table, create search |"))
        #expect(lines.contains("1. **1.0 → 2.0** (inferred)"))
        #expect(lines.contains("   - rename table flight to log_entry"))
        // A rebuild lists what it does inside, the data it deletes marked.
        let rebuild = [
            "   - rebuild table aircraft",
            "     - drop column aircraft.flight_data (destructive: its values are deleted)",
            "     - the JSON struct in aircraft.color_scheme becomes composite columns (json_extract of each member)",
        ]
        #expect(
            lines.contains(rebuild[2].replacingOccurrences(of: "color_scheme", with: "color\\_scheme")) == false,
            "an underscore inside a word is not escaped")
        let at = try #require(lines.firstIndex(of: rebuild[0]))
        #expect(Array(lines[at..<(at + 3)]) == rebuild)
        #expect(!result.output.contains("rewrites"), "no row counts without a store")
        // The lint findings of the steps planned (as `lucidgen check` reports them), located.
        #expect(
            lines.contains {
                $0.hasPrefix("- warning: \\[BC101\\] entity flight is renamed to log_entry at 2.0")
                    && $0.hasSuffix("(.entities/log_entry.json:7:9)")
            })
        #expect(
            lines.contains(
                "- note: \\[DS102\\] property aircraft.flight\\_data is removed at 3.0 (acknowledged: the moveFlightData stage at 2.1 copies every value into flight\\_data rows first) (.entities/aircraft.json:18:9)"
            )
                || lines.contains(
                    "- note: \\[DS102\\] property aircraft.flight_data is removed at 3.0 (acknowledged: the moveFlightData stage at 2.1 copies every value into flight_data rows first) (.entities/aircraft.json:18:9)"
                ))
        #expect(!result.output.contains("No findings."))
        #expect(
            mermaidBlock(result.output) == """
                ```mermaid
                graph LR
                    v1_0["1.0"]
                    v1_1["1.1"]
                    v2_0["2.0"]
                    v2_1["2.1"]
                    v3_0["3.0"]
                    v4_0["4.0"]
                    v1_0 --> v1_1
                    v1_0 --> v2_0
                    v1_1 --> v2_0
                    v2_0 -.->|"moveFlightData"| v2_1
                    v2_1 --> v3_0
                    v2_1 --> v4_0
                    v3_0 --> v4_0
                    classDef path stroke:#2da44e,stroke-width:3px
                    class v1_0,v2_0,v2_1,v4_0 path
                    linkStyle 1,3,5 stroke-width:4px,stroke:#2da44e
                ```
                """)
        #expect(result.output.hasSuffix("```\n"))
        // Deterministic: a second run prints the same bytes.
        #expect(try run(lucidgenBinary, ["plan", "--config", config, "--format", "markdown"]).output == result.output)

        let partial = try run(lucidgenBinary, ["plan", "--config", config, "--format", "markdown", "--to", "2.0"])
        #expect(partial.status == 0, "\(partial.error)")
        #expect(partial.output.hasPrefix("## Migration plan: 1.0 → 2.0\n"))
        #expect(partial.output.contains("    linkStyle 1 stroke-width:4px,stroke:#2da44e\n"))
        #expect(!partial.output.contains("v2_1"))
    }

    /// A store made at 1.0: its path, with the rows each step rewrites (the 5 aircraft rows of the
    /// dropped column) and the stage's own work marked as the app's code.
    @Test func bundledExampleWithAFixtureStore() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-plan-md-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("old.sqlite").path
        let fixtures = try run(
            lucidgenBinary, ["fixtures", "--config", config, "--schema-version", "1.0", "--rows", "5", "--output", store])
        #expect(fixtures.status == 0, "\(fixtures.error)")

        let result = try run(lucidgenBinary, ["plan", "--config", config, "--database", store, "--format", "markdown"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.components(separatedBy: "\n")
        #expect(lines.contains("Store `\(store)` at version 1.0: its path to 4.0 (3 steps)."))
        #expect(lines.contains("| # | from → to | kind | operations | rows rewritten |"))
        #expect(
            lines.contains(
                "| 1 | 1.0 → 2.0 | inferred | rename table, drop index, create table, 3 × add column, rename column, create index | 0 |"))
        #expect(lines.contains("| 2 | 2.0 → 2.1 | app code (`moveFlightData`) | create table | app code |"))
        #expect(lines.contains("| 3 | 2.1 → 4.0 | inferred | rebuild table, create search | 5 |"))
        #expect(lines.contains("   - rebuild table aircraft: rewrites 5 rows"))
        #expect(lines.contains("     - the JSON struct in aircraft.color_scheme becomes composite columns (json_extract of each member)"))
        #expect(result.output.contains("    linkStyle 1,3,5 stroke-width:4px,stroke:#2da44e\n"))

        // The text format is today's, unchanged.
        let text = try run(lucidgenBinary, ["plan", "--config", config, "--database", store])
        #expect(text.output.contains("at version 1.0; newest is 4.0.\nPath: 3 steps.\n  1. 1.0 → 2.0 (inferred)\n"))
    }

    /// Without `--database`, the text format prints the path from the oldest version; `--to` still works.
    @Test func textWithoutADatabase() throws {
        let result = try run(lucidgenBinary, ["plan", "--config", config])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("No store given: the path from the oldest version, 1.0, to 4.0.\nPath: 3 steps.\n"))
        #expect(result.output.contains("  1. 1.0 → 2.0 (inferred)\n       - rename table flight to log_entry\n"))
        #expect(result.output.contains("  2. 2.0 → 2.1 (moveFlightData)\n"))
        #expect(
            result.output.contains(
                """
                  3. 2.1 → 4.0 (inferred)
                       - rebuild table aircraft
                           · drop column aircraft.flight_data (destructive: its values are deleted)
                           · the JSON struct in aircraft.color_scheme becomes composite columns (json_extract of each member)

                """))
        let partial = try run(lucidgenBinary, ["plan", "--config", config, "--to", "2.0"])
        #expect(partial.output == "No store given: the path from the oldest version, 1.0, to 2.0.\nPath: 1 step.\n" + stepOne)

        let help = try run(lucidgenBinary, ["plan", "--help"])
        #expect(help.output.contains("[--database <file>]"), "--database is optional")
        #expect(help.output.contains("--format markdown"))
        #expect(help.output.contains("values: text, markdown; default: text"))
        #expect(try run(lucidgenBinary, ["migrate", "--config", config]).status == 64, "migrate still needs --database")
    }

    /// A property added in 1.1 and removed in 1.2: the planner jumps 1.0 → 1.2 (nothing to do), and the
    /// diagram shows that edge, highlighted, beside the neighbouring ones.
    @Test func jumpOverAVersionWhoseChangesCancel() throws {
        let project = try TestProject(files: [
            ".entities/note.json": """
            {
                "name": "note",
                "version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "1.2" }],
                "properties": [
                    { "name": "title", "property_type": "string" },
                    { "name": "draft", "property_type": "string", "nullable": true, "added_at_version": "1.1", "removed_at_version": "1.2" }
                ]
            }
            """
        ])
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["plan", "--config", project.configPath, "--format", "markdown"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("| 1 | 1.0 → 1.2 | inferred | no table changes |\n"))
        #expect(result.output.contains("1. **1.0 → 1.2** (inferred)\n   - no change to the tables; only the version record\n"))
        #expect(
            mermaidBlock(result.output) == """
                ```mermaid
                graph LR
                    v1_0["1.0"]
                    v1_1["1.1"]
                    v1_2["1.2"]
                    v1_0 --> v1_1
                    v1_0 --> v1_2
                    v1_1 --> v1_2
                    classDef path stroke:#2da44e,stroke-width:3px
                    class v1_0,v1_2 path
                    linkStyle 1 stroke-width:4px,stroke:#2da44e
                ```
                """)

        let text = try run(lucidgenBinary, ["plan", "--config", project.configPath])
        #expect(
            text.output
                == "No store given: the path from the oldest version, 1.0, to 1.2.\nPath: 1 step.\n  1. 1.0 → 1.2 (inferred)\n       (no change to the tables; only the version record)\n"
        )
    }

    /// Mermaid draws 500 edges by default and a diagram cannot raise that: a longer graph draws each run
    /// of versions that one inferred edge enters and one leaves as one edge saying how many steps it holds,
    /// keeping the store's version, the target, stages, jumps and where the path leaves the chain (the run
    /// beside a jump becomes an edge beside it).
    @Test func aGraphOfMoreThanMermaidsEdgesCollapsesItsRuns() {
        let versions = (1...700).map { "\($0).0" }
        var edges = (0..<699).map { PlanMarkdown.Edge(from: versions[$0], to: versions[$0 + 1]) }
        edges.append(.init(from: versions[99], to: versions[199])) // a jump over 100.0 … 200.0
        edges[300] = .init(from: versions[300], to: versions[301], stage: "split names") // 301.0 → 302.0 by the app
        // The store is at 50.0: its path takes the jump, then the chain to the stage and on to 700.0.
        var steps = (49..<99).map { PlanMarkdown.Step(from: versions[$0], to: versions[$0 + 1], operations: []) }
        steps.append(.init(from: versions[99], to: versions[199], operations: []))
        steps += (199..<699).map {
            PlanMarkdown.Step(from: versions[$0], to: versions[$0 + 1], stage: $0 == 300 ? "split names" : nil, operations: [])
        }
        let plan = PlanMarkdown(
            subject: .store(path: "s.sqlite", version: "50.0", adopted: false), versions: versions, edges: edges, steps: steps)
        let lines = (mermaidBlock(plan.render()) ?? "").split(separator: "\n").map(String.init)
        let edgeLines = lines.filter { $0.contains("-->") || $0.contains("-.->") }
        #expect(
            edgeLines == [
                #"    v1_0 -->|"49 steps"| v50_0"#,
                #"    v50_0 -->|"50 steps"| v100_0"#,
                #"    v100_0 -->|"100 steps"| v200_0"#,
                "    v100_0 --> v200_0",
                #"    v200_0 -->|"101 steps"| v301_0"#,
                #"    v301_0 -.->|"split names"| v302_0"#,
                #"    v302_0 -->|"398 steps"| v700_0"#,
            ])
        #expect(
            lines.filter { $0.hasSuffix("\"]") }.map { $0.trimmingCharacters(in: .whitespaces) } == [
                #"v1_0["1.0"]"#, #"v50_0["50.0"]"#, #"v100_0["100.0"]"#, #"v200_0["200.0"]"#, #"v301_0["301.0"]"#,
                #"v302_0["302.0"]"#, #"v700_0["700.0"]"#,
            ])
        #expect(lines.contains("    class v50_0,v100_0,v200_0,v301_0,v302_0,v700_0 path"))
        #expect(lines.contains("    linkStyle 1,3,4,5,6 stroke-width:4px,stroke:#2da44e"))
    }

    /// Findings are injected, one list item each, escaped as text.
    @Test func injectedFindings() {
        let plan = PlanMarkdown(
            subject: .oldestVersion, versions: ["1.0", "2.0"], edges: [.init(from: "1.0", to: "2.0")],
            steps: [.init(from: "1.0", to: "2.0", operations: [.init(description: "add column note.body", kind: "add column")])],
            findings: ["note.body: a required column without a default", "pipes | and *stars* stay text"])
        let markdown = plan.render()
        #expect(
            markdown.contains(
                "### Findings\n\n- note.body: a required column without a default\n- pipes \\| and \\*stars\\* stay text\n\n### Version graph"
            ))
        #expect(!markdown.contains("No findings."))
    }

    /// A Core Data store's plan shows what the conversion writes, counted from its rows, before the steps.
    @Test func aCoreDataStoresConversionCountsComeFirst() {
        var plan = PlanMarkdown(
            subject: .store(path: "Shop.sqlite", version: "1.0", adopted: true), versions: ["1.0", "2.0"],
            edges: [.init(from: "1.0", to: "2.0")],
            steps: [.init(from: "1.0", to: "2.0", operations: [.init(description: "add column note.body", kind: "add column")])])
        plan.coreDataConversion = .init(
            model: "Shop", counts: ["Product → product: 4 rows", "Order.items → order_items: 2 links"],
            notes: ["ZORDER row 2: ZCUSTOMER is 77, and no Customer has that id: order.customer NULL"])
        let markdown = plan.render()
        #expect(
            markdown.contains(
                """
                ### Conversion from Core Data (model Shop)

                - Product → product: 4 rows
                - Order.items → order_items: 2 links

                Not as Core Data had it (the copy kept as `.coredata-backup` has the original):

                - ZORDER row 2: ZCUSTOMER is 77, and no Customer has that id: order.customer NULL

                | # | from → to |
                """), "\(markdown)")
    }

    /// A drifted Core Data store: each difference from the nearest model version, before the counts.
    @Test func aDriftedCoreDataStoresPlanListsEachDifference() {
        var plan = PlanMarkdown(
            subject: .store(path: "Shop.sqlite", version: "1.0", adopted: true), versions: ["1.0"], edges: [], steps: [])
        plan.coreDataConversion = .init(
            model: "Shop", counts: ["Product → product: 3 rows"], notes: [],
            drift: ["ZPRODUCT has column ZCOLOR, which model Shop does not: its 1 value is not converted (the .coredata-backup keeps them)"]
        )
        let markdown = plan.render()
        #expect(
            markdown.contains(
                """
                ### Conversion from Core Data (model Shop)

                Drifted from model Shop, the nearest imported version (each difference taken as Core Data's inferred mapping takes it):

                - ZPRODUCT has column ZCOLOR, which model Shop does not: its 1 value is not converted (the .coredata-backup keeps them)

                - Product → product: 3 rows

                """), "\(markdown)")
    }

    /// Hostile version and stage labels: Mermaid strings get entity codes, node ids stay valid and
    /// distinct, table cells escape `|`, code spans outgrow the label's backticks.
    @Test func hostileLabelsAreEscaped() {
        let versions = ["1.0", "1.0\"] --> x[\"|y|", "2.0|<b>"]
        let stage = "move`s\"[data]|#1;"
        let plan = PlanMarkdown(
            subject: .store(path: "a|b`.sqlite", version: versions[0], adopted: true), versions: versions,
            edges: [.init(from: versions[0], to: versions[1]), .init(from: versions[1], to: versions[2], stage: stage)],
            steps: [
                .init(
                    from: versions[0], to: versions[1],
                    operations: [.init(description: "rebuild table t (x|y)", kind: "rebuild table", rewritesRows: true, rows: 3)]),
                .init(from: versions[1], to: versions[2], stage: stage, operations: []),
            ],
            showsRows: true)
        let markdown = plan.render()
        let lines = markdown.components(separatedBy: "\n")
        #expect(lines.first == "## Migration plan: 1.0 → 2.0\\|\\<b\\>")
        #expect(lines.contains("Store ``a|b`.sqlite`` at version 1.0 (recognised from its tables): its path to 2.0\\|\\<b\\> (2 steps)."))
        #expect(lines.contains("| 1 | 1.0 → 1.0\"\\] --\\> x\\[\"\\|y\\| | inferred | rebuild table | 3 |"))
        #expect(
            lines.contains(
                "| 2 | 1.0\"\\] --\\> x\\[\"\\|y\\| → 2.0\\|\\<b\\> | app code (``move`s\"[data]\\|#1;``) | no table changes | app code |"))
        #expect(lines.contains("   - rebuild table t (x\\|y): rewrites 3 rows"))
        #expect(lines.contains("2. **1.0\"\\] --\\> x\\[\"\\|y\\| → 2.0\\|\\<b\\>** (app code: ``move`s\"[data]|#1;``)"))
        #expect(
            mermaidBlock(markdown) == """
                ```mermaid
                graph LR
                    v1_0["1.0"]
                    v1_0_______x___y_["1.0#quot;#93; --#gt; x#91;#quot;#124;y#124;"]
                    v2_0__b_["2.0#124;#lt;b#gt;"]
                    v1_0 --> v1_0_______x___y_
                    v1_0_______x___y_ -.->|"move#96;s#quot;#91;data#93;#124;#35;1#59;"| v2_0__b_
                    classDef path stroke:#2da44e,stroke-width:3px
                    class v1_0,v1_0_______x___y_,v2_0__b_ path
                    linkStyle 0,1 stroke-width:4px,stroke:#2da44e
                ```
                """)
        #expect(PlanMarkdown.nodeIDs(["1.0", "1_0", "1-0"]) == ["v1_0", "v1_0_1", "v1_0_2"], "ids stay distinct")
    }

    /// Row counts follow a table renamed earlier on the path; a table created on the path has none.
    @Test func rowCountsFollowRenamedTables() {
        let versions = [SchemaVersion("1.0"), SchemaVersion("2.0"), SchemaVersion("3.0")]
        let edges = [
            MigrationEdge(
                from: versions[0], to: versions[1], kind: .inferred, operations: [.renameTable(from: "flight", to: "log_entry")], cost: 1,
                spannedVersions: 0),
            MigrationEdge(
                from: versions[1], to: versions[2], kind: .inferred,
                operations: [
                    .dropColumn(table: "log_entry", column: "remarks", deferrable: false),
                    .dropColumn(table: "crew", column: "role", deferrable: false),
                ], cost: 1000, spannedVersions: 0),
        ]
        let steps = edges.map(\.step)
        let plan = PlanMarkdown(
            subject: .store(path: "s.sqlite", version: "1.0", adopted: false), versions: versions, edges: edges, steps: steps,
            rowCounts: ["flight": 7])
        #expect(plan.steps[1].operations.map { $0.rows } == [7, nil])
        let markdown = plan.render()
        #expect(markdown.contains("| 2 | 2.0 → 3.0 | inferred | 2 × drop column | ≥ 7 |\n"))
        #expect(
            markdown.contains(
                "   - drop column log_entry.remarks (destructive: its values are deleted): rewrites 7 rows\n   - drop column crew.role (destructive: its values are deleted)\n"
            ))
    }

    var stepOne: String {
        """
          1. 1.0 → 2.0 (inferred)
               - rename table flight to log_entry
               - drop index flight_aircraft_index
               - create table log_entry_crew
               - add column aircraft.flight_data
               - add column aircraft.is_favorite default 0
               - rename column log_entry.remarks to notes
               - add column log_entry.night_landings default 0
               - create index log_entry_aircraft_index on log_entry(aircraft)

        """
    }

    /// The ```mermaid block of a rendered plan.
    func mermaidBlock(_ markdown: String) -> String? {
        guard let start = markdown.range(of: "```mermaid") else { return nil }
        guard let end = markdown.range(of: "\n```", range: start.upperBound..<markdown.endIndex) else { return nil }
        return String(markdown[start.lowerBound..<end.upperBound])
    }
}
