import Foundation
import Testing

/// Explored histories compiled for real: each is played into a consumer package (descriptions, every
/// release generated, every release's fixture written), which `swift build` compiles and whose generated
/// migration tests `swift test` runs, so that odd shapes (keywords as names, renamed relationship targets,
/// self-references) are proven to compile, and record decoding and typed seeding are exercised.
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

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("explored histories compile and pass their generated tests", arguments: seeds)
    func compiled(seed: UInt64) throws {
        var generator = HistoryGenerator(seed: seed, codeChanges: false)
        let history = generator.history()
        let base = Self.repositoryRoot.appendingPathComponent(".build/e2e-explorer")
        let consumer = base.appendingPathComponent("Explored")
        try? FileManager.default.removeItem(at: consumer)
        try FileManager.default.createDirectory(at: consumer, withIntermediateDirectories: true)

        var outcome = Explorer.Outcome()
        let played = try Explorer(history: history).playReleases(in: consumer, &outcome)
        guard played != nil, outcome.failures.isEmpty else {
            Issue.record("seed \(seed): the history does not play:\n\(outcome.failures.joined(separator: "\n"))\n\(history)")
            return
        }
        try Self.writePackage(at: consumer)

        let scratch = base.appendingPathComponent("scratch").path
        let test = try Self.run(["test", "--scratch-path", scratch], in: consumer)
        let log = test.output + test.error
        #expect(test.status == 0, "seed \(seed): swift test of the consumer failed:\n\(log.suffix(6000))\nHistory:\n\(history)")
        let warnings = log.split(separator: "\n").filter { $0.contains("warning:") && $0.contains("/Explored/") }
        #expect(warnings.isEmpty, "seed \(seed): generated code must compile without warnings: \(warnings.prefix(5))")
        // One case per historical version, and one per release's fixture.
        #expect(log.contains("\"a store seeded at each version migrates to"), "seed \(seed): the generated tests did not run:\n\(log.suffix(3000))")
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

    static func run(_ arguments: [String], in directory: URL) throws -> (status: Int32, output: String, error: String) {
        let swift = (environment["PATH"] ?? "").split(separator: ":").map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/swift"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: swift)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("explore-out-\(UUID().uuidString)")
        let error = FileManager.default.temporaryDirectory.appendingPathComponent("explore-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: error.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: error)
        }
        let outputHandle = try FileHandle(forWritingTo: output)
        let errorHandle = try FileHandle(forWritingTo: error)
        process.standardOutput = outputHandle
        process.standardError = errorHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try outputHandle.close()
        try errorHandle.close()
        return (process.terminationStatus, (try? String(contentsOf: output, encoding: .utf8)) ?? "", (try? String(contentsOf: error, encoding: .utf8)) ?? "")
    }
}
