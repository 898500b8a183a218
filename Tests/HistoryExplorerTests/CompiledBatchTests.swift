import Foundation
import LucidTestSupport
import Testing

/// Explored histories compiled for real: each is played into a consumer package (descriptions, every
/// release generated, every release's fixture written), which `swift build` compiles and whose generated
/// migration tests `swift test` runs, so that odd shapes (keywords as names, renamed relationship targets,
/// self-references) are proven to compile, and record decoding and typed seeding are exercised. The app
/// code each release's records allowed (``writeAppCode(of:in:)``) is compiled against the last release's
/// output: code written for release N compiles at N+1 and later.
///
/// CI compiles a small fixed batch; `LUCIDGEN_EXPLORE_COMPILED=<n>` compiles n histories from
/// `LUCIDGEN_EXPLORE_SEED` on (with only `LUCIDGEN_EXPLORE_SEED`, a soak, none are compiled). The consumer and its build folder stay under `.build/e2e-explorer`, so GRDB
/// is compiled once.
@Suite("HistoryExplorer compiled batch", .serialized)
struct CompiledBatchTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seeds: [UInt64] = {
        guard let count = environment["LUCIDGEN_EXPLORE_COMPILED"].flatMap(Int.init) else {
            // A soak of in-process histories (a seed given, no compiled count) compiles nothing.
            // Seeds 88, 168 and 132 draw composites (point and nested frame), struct member history (a point
            // member renamed inside frame composites; frame members added, required with a default, and
            // removed) and a status case change.
            return environment["LUCIDGEN_EXPLORE_SEED"] == nil ? [88, 168, 132] : []
        }
        let first = environment["LUCIDGEN_EXPLORE_SEED"].flatMap(UInt64.init) ?? 1
        return Array(first..<(first + UInt64(count)))
    }()

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("explored histories compile and pass their generated tests", arguments: seeds)
    func compiled(seed: UInt64) throws {
        var generator = HistoryGenerator(seed: seed, codeChanges: false)
        let history = generator.history()
        let base = Self.repositoryRoot.appendingPathComponent(".build/e2e-explorer")
        let consumer = base.appendingPathComponent("Explored")
        try? FileManager.default.removeItem(at: consumer)
        try FileManager.default.createDirectory(at: consumer, withIntermediateDirectories: true)

        var outcome = Explorer.Outcome()
        // The newest records' initializers by entity alias, at the previous release.
        var previous: [String: [(label: String, hasDefault: Bool)]] = [:]
        var orderProblems: [String] = []
        let played = try Explorer(history: history).playReleases(in: consumer, &outcome) { release in
            let initializers = try Self.writeAppCode(of: release.version, in: consumer)
            // A call written for the previous release compiles: the parameters both releases have keep their
            // order, and a new one has a default.
            for (alias, parameters) in initializers {
                guard let before = previous[alias] else { continue }
                let kept = Set(before.map(\.label))
                let now = parameters.map(\.label).filter { kept.contains($0) }
                let then = before.map(\.label).filter { now.contains($0) }
                if now != then { orderProblems.append("\(release.version): \(alias)'s initializer reorders \(then) as \(now)") }
                // (A property renamed or removed changes the call anyway: the rename is the app's to follow.)
                let gone = kept.subtracting(parameters.map(\.label))
                for parameter in parameters where gone.isEmpty && !kept.contains(parameter.label) && !parameter.hasDefault {
                    orderProblems.append("\(release.version): \(alias)'s new parameter \(parameter.label) has no default")
                }
            }
            previous = initializers
        }
        #expect(orderProblems.isEmpty, "seed \(seed): \(orderProblems)")
        guard played != nil, outcome.failures.isEmpty else {
            Issue.record("seed \(seed): the history does not play:\n\(outcome.failures.joined(separator: "\n"))\n\(history)")
            return
        }
        try Self.writePackage(at: consumer)

        let scratch = base.appendingPathComponent("scratch").path
        let test = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: consumer)
        let log = test.output + test.error
        #expect(test.status == 0, "seed \(seed): swift test of the consumer failed:\n\(log.suffix(6000))\nHistory:\n\(history)")
        let warnings = log.split(separator: "\n").filter { $0.contains("warning:") && $0.contains("/Explored/") }
        #expect(warnings.isEmpty, "seed \(seed): generated code must compile without warnings: \(warnings.prefix(5))")
        // One case per historical version, and one per release's fixture.
        #expect(
            log.contains("\"a store seeded at each version migrates to"),
            "seed \(seed): the generated tests did not run:\n\(log.suffix(3000))")
    }

    /// The code an app could write against `version`'s generated records (it must keep compiling
    /// at every later release): each newest record's initializer referenced by its full name (labels in
    /// order), each of its `Columns`, and GRDB's record API (fetch, filter, fetch one, insert, update,
    /// delete). Read from the generated files as the app saw them; the consumer compiles every release's
    /// file against the last release's output.
    /// Returns each newest record's initializer parameters by entity alias (`Tag`).
    @discardableResult
    static func writeAppCode(of version: String, in consumer: URL) throws -> [String: [(label: String, hasDefault: Bool)]] {
        var initializers: [String: [(label: String, hasDefault: Bool)]] = [:]
        let generated = consumer.appendingPathComponent("Sources/Explored/Generated/Entities")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: generated.path))?.filter { $0.hasSuffix(".swift") }.sorted() ?? []
        let name = "Release_" + version.map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
        var lines = [
            "// The app code release \(version)'s generated records allowed: it must compile at every later release.",
            "import GRDB", "import LucidRuntime", "", "enum \(name) {", "    static func use(_ db: Database) throws {",
        ]
        for file in files {
            let text = try String(contentsOf: generated.appendingPathComponent(file), encoding: .utf8)
            for record in newestRecords(in: text) {
                if let alias = text.split(separator: "\n").first(where: {
                    $0.hasPrefix("public typealias ") && $0.hasSuffix(" = \(record.type)")
                }) {
                    initializers[String(alias.dropFirst("public typealias ".count).prefix { $0 != " " })] = zip(
                        record.labels, record.defaults
                    ).map { ($0, $1) }
                }
                lines.append("        _ = \(record.type).init(\(record.labels.map { $0.trimmingCharacters(in: ["`"]) + ":" }.joined()))")
                for column in record.columns { lines.append("        _ = \(record.type).Columns.\(column)") }
                lines.append("        _ = try \(record.type).filter(sql: \"1\").fetchAll(db)")
                lines.append("        if let record = try \(record.type).fetchOne(db) {")
                lines.append("            try record.update(db)")
                lines.append("            _ = try record.delete(db)")
                lines.append("            _ = try record.inserted(db)")
                lines.append("        }")
            }
        }
        lines += ["    }", "}", ""]
        let folder = consumer.appendingPathComponent("Sources/Explored/AppCode")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(lines.joined(separator: "\n").utf8).write(to: folder.appendingPathComponent(name + ".swift"))
        return initializers
    }

    /// The newest records of a generated entity file: type name, initializer labels in order, `Columns` names.
    static func newestRecords(in text: String) -> [(type: String, labels: [String], defaults: [Bool], columns: [String])] {
        var records: [(type: String, labels: [String], defaults: [Bool], columns: [String])] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        while index < lines.count {
            let line = lines[index]
            guard line.hasPrefix("public struct "), line.contains(": Codable") else { index += 1; continue }
            let type = String(line.dropFirst("public struct ".count).prefix { $0 != ":" })
            var labels: [String] = []
            var defaults: [Bool] = []
            var columns: [String] = []
            var inInit = false
            var inColumns = false
            index += 1
            while index < lines.count, lines[index] != "}" {
                let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
                if lines[index] == "    public init(" {
                    inInit = true
                } else if inInit, trimmed == ") {" {
                    inInit = false
                } else if inInit, let colon = trimmed.firstIndex(of: ":") {
                    labels.append(String(trimmed[..<colon]))
                    defaults.append(trimmed.contains(" = "))
                }
                if lines[index] == "    public enum Columns {" {
                    inColumns = true
                } else if inColumns, trimmed == "}" {
                    inColumns = false
                } else if inColumns, trimmed.hasPrefix("public static let ") {
                    columns.append(String(trimmed.dropFirst("public static let ".count).prefix { $0 != " " }))
                }
                index += 1
            }
            records.append((type, labels, defaults, columns))
        }
        return records
    }

    static func writePackage(at consumer: URL) throws {
        let manifest = """
            // swift-tools-version:6.1
            import PackageDescription

            let package = Package(
                name: "Explored",
                platforms: [.macOS(.v13)],
                dependencies: [.package(name: "lucidgen", path: \(swiftLiteral(repositoryRoot.path)))],
                targets: [
                    .target(name: "Explored", dependencies: [.product(name: "LucidRuntime", package: "lucidgen")]),
                    .testTarget(
                        name: "ExploredTests", dependencies: ["Explored", .product(name: "LucidTesting", package: "lucidgen")],
                        exclude: ["Generated/Fixtures"]),
                ],
                swiftLanguageModes: [.v6]
            )

            """
        let expectations = """
            import GRDB
            import LucidRuntime
            import LucidTesting

            struct ExploredExpectations {
                func storeOptions() -> StoreOptions { StoreOptions() }
            }

            """
        try Data(manifest.utf8).write(to: consumer.appendingPathComponent("Package.swift"))
        try Data(expectations.utf8).write(to: consumer.appendingPathComponent("Tests/ExploredTests/ExploredExpectations.swift"))
    }

    static func swiftLiteral(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
