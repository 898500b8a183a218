import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// The SwiftPM plugins in a real consumer: `Examples/Journal` commits descriptions,
/// snapshots and a fixture store but no generated code; `swift build` runs the LucidGenPlugin build
/// plugin, `swift test` runs the generated migration tests; a release that was never frozen fails the
/// build until `swift package lucidgen generate` (the command plugin) freezes it. Then a package made
/// by `lucidgen init --plugin` and nothing else builds and passes its tests.
///
/// Built under `.build/e2e-plugin` with a fixed scratch folder (a first build compiles GRDB and the
/// generator's dependencies for the build tool, about three minutes on 2 cores; later runs reuse it).
@Suite(.serialized) struct PluginConsumerTests {
    static let base = repositoryRoot.appendingPathComponent(".build/e2e-plugin")
    static let scratch = base.appendingPathComponent("scratch").path

    /// A copy of the example whose lucidgen dependency is this checkout.
    func copyExample() throws -> URL {
        let copy = Self.base.appendingPathComponent("Journal")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.createDirectory(at: Self.base, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("Examples/Journal"), to: copy)
        try? FileManager.default.removeItem(at: copy.appendingPathComponent(".build"))
        let manifest = copy.appendingPathComponent("Package.swift")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        #expect(text.contains("path: \"../..\""))
        try text.replacingOccurrences(of: "path: \"../..\"", with: "path: \(String(reflecting: repositoryRoot.path))")
            .write(to: manifest, atomically: true, encoding: .utf8)
        return copy
    }

    func warnings(_ result: ProcessResult, in folder: String) -> [Substring] {
        (result.output + result.error).split(separator: "\n").filter { $0.contains("warning:") && $0.contains("/\(folder)/") }
    }

    @Test func theExampleBuildsWithTheBuildPluginAndPassesItsGeneratedTests() throws {
        let journal = try copyExample()
        // Nothing generated is committed.
        let swiftFiles = FileManager.default.subpaths(atPath: journal.path)?.filter { $0.hasSuffix(".swift") && $0 != "Package.swift" }
            .sorted()
        #expect(
            swiftFiles == [
                "Sources/Journal/JournalStages.swift", "Tests/JournalTests/JournalExpectations.swift",
                "Tests/JournalTests/JournalTests.swift",
            ])

        let build = try run(swiftExecutable, ["build", "--build-tests", "--scratch-path", Self.scratch], in: journal)
        #expect(build.status == 0, "swift build failed:\n\(build.output.suffix(3000))\n\(build.error.suffix(3000))")
        #expect(warnings(build, in: "Journal").isEmpty, "\(warnings(build, in: "Journal"))")
        // The app and its tests link none of the generator's dependencies (they only build the host tool).
        let links = try String(contentsOfFile: Self.scratch + "/debug/JournalPackageTests.product/Objects.LinkFileList", encoding: .utf8)
        #expect(!links.isEmpty)
        for name in ["Yams", "Mustache", "ArgumentParser", "LucidGenCore", "LucidGenCLI"] {
            #expect(!links.contains("/\(name).build/"), "the app's test product links \(name)")
        }

        let test = try run(swiftExecutable, ["test", "--scratch-path", Self.scratch], in: journal)
        #expect(test.status == 0, "swift test failed:\n\(test.output.suffix(3000))\n\(test.error.suffix(2000))")
        #expect(
            test.output.contains(
                "\"a store seeded at each version migrates to 1.1 with every value as expected\" with 2 test cases passed"),
            "\(test.output.suffix(3000))")
        #expect(
            test.output.contains("\"each committed fixture store migrates to 1.1 with every value as expected\" with 1 test case passed"),
            "\(test.output.suffix(3000))")
        #expect(test.output.contains("entriesRoundTripThroughAStoreOpenedWithTheRegistry() passed"), "\(test.output.suffix(3000))")

        // A release never frozen: 1.1 was released (current is now 1.2) but its snapshot was not committed.
        try FileManager.default.removeItem(at: journal.appendingPathComponent(".entities/.schema/1.1.json"))
        let entry = journal.appendingPathComponent(".entities/entry.json")
        try String(contentsOf: entry, encoding: .utf8)
            .replacingOccurrences(of: "{ \"version\": \"1.1\" }]", with: "{ \"version\": \"1.1\" }, { \"version\": \"1.2\" }]")
            .replacingOccurrences(
                of: "\"added_at_version\": \"1.1\" }",
                with:
                    "\"added_at_version\": \"1.1\" },\n        { \"name\": \"place\", \"property_type\": \"string\", \"nullable\": true, \"added_at_version\": \"1.2\" }"
            )
            .write(to: entry, atomically: true, encoding: .utf8)
        let config = journal.appendingPathComponent(".lucid.yaml")
        try String(contentsOf: config, encoding: .utf8).replacingOccurrences(
            of: "current_version: \"1.1\"", with: "current_version: \"1.2\""
        )
        .write(to: config, atomically: true, encoding: .utf8)
        let unfrozen = try run(swiftExecutable, ["build", "--scratch-path", Self.scratch], in: journal)
        #expect(unfrozen.status != 0)
        #expect(
            (unfrozen.output + unfrozen.error).contains(
                "released version 1.1 must be frozen into .entities/.schema before building: run `swift package lucidgen generate`"),
            "\((unfrozen.output + unfrozen.error).suffix(3000))")
        #expect(
            !FileManager.default.fileExists(atPath: journal.appendingPathComponent(".entities/.schema/1.1.json").path),
            "the build wrote nothing into the package")

        // The command plugin freezes it (with permission to write), and the build passes.
        let generate = try run(
            swiftExecutable, ["package", "--scratch-path", Self.scratch, "--allow-writing-to-package-directory", "lucidgen", "generate"],
            in: journal)
        #expect(generate.status == 0, "\(generate.output)\n\(generate.error)")
        #expect(FileManager.default.fileExists(atPath: journal.appendingPathComponent(".entities/.schema/1.1.json").path))
        // 1.1 was released without its fixture store: `check` says which file, and `fixtures` writes it.
        let unfixtured = try run(
            swiftExecutable, ["package", "--scratch-path", Self.scratch, "--allow-writing-to-package-directory", "lucidgen", "check"],
            in: journal)
        #expect(unfixtured.status != 0)
        #expect(
            (unfixtured.output + unfixtured.error).contains(
                "Tests/JournalTests/Fixtures/Journal_1_1.sqlite: error: fixture missing: version 1.1 was released, but its fixture store"),
            "\(unfixtured.output)\n\(unfixtured.error)")
        let fixtures = try run(
            swiftExecutable,
            [
                "package", "--scratch-path", Self.scratch, "--allow-writing-to-package-directory", "lucidgen", "fixtures",
                "--schema-version", "1.1",
            ], in: journal)
        #expect(fixtures.status == 0, "\(fixtures.output)\n\(fixtures.error)")
        let check = try run(
            swiftExecutable, ["package", "--scratch-path", Self.scratch, "--allow-writing-to-package-directory", "lucidgen", "check"],
            in: journal)
        #expect(check.status == 0, "\(check.output)\n\(check.error)")
        let rebuilt = try run(swiftExecutable, ["build", "--scratch-path", Self.scratch], in: journal)
        #expect(rebuilt.status == 0, "\(rebuilt.output.suffix(2000))\n\(rebuilt.error.suffix(2000))")
    }

    @Test func aPackageMadeByInitWithPluginBuildsAndPassesItsTests() throws {
        let package = Self.base.appendingPathComponent("Fresh")
        try? FileManager.default.removeItem(at: package)
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let initResult = try run(
            lucidgenBinary, ["init", "--plugin", "--package-path", repositoryRoot.path, "--module", "Fresh"], in: package)
        #expect(initResult.status == 0, "\(initResult.error)")
        let manifest = try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains("plugins: [.plugin(name: \"LucidGenPlugin\", package: \"lucidgen\")]"))
        #expect(try String(contentsOf: package.appendingPathComponent(".lucid.yaml"), encoding: .utf8).contains("build_plugin: true"))
        let written = FileManager.default.subpaths(atPath: package.path)?.filter { $0.hasSuffix(".swift") && $0 != "Package.swift" }
            .sorted()
        #expect(
            written == [
                "Sources/Fresh/FreshStages.swift", "Tests/FreshTests/FreshExpectations.swift", "Tests/FreshTests/FreshTests.swift",
            ], "no generated code is written")
        let test = try run(swiftExecutable, ["test", "--scratch-path", Self.scratch], in: package)
        #expect(test.status == 0, "swift test failed:\n\(test.output.suffix(3000))\n\(test.error.suffix(2000))")
        #expect(test.output.contains("notesRoundTripThroughTheNewestSchema() passed"), "\(test.output.suffix(2000))")
    }
}
