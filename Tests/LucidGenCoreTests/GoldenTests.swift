import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// Golden tests: each folder in `Golden/` has an `input/` project and the `expected/` files that
/// `generate` must produce from it, byte for byte. Mustache renders an unknown name as nothing, so
/// comparing whole files is what catches a misspelled template key.
///
/// To accept a deliberate change of output: `LUCIDGEN_UPDATE_GOLDEN=1 swift test --filter GoldenTests`,
/// then review the diff of `Golden/*/expected` (and of the `compiledProjects`) before committing.
@Suite struct GoldenTests {
    static let cases = ["library", "lucid-sample", "lucid-legacy-2020"]

    @Test(arguments: cases)
    func generatedFilesMatchGolden(_ name: String) throws {
        let folder = repositoryRoot.appendingPathComponent("Tests/LucidGenCoreTests/Golden/\(name)")
        let project = try TestProject.copy(of: folder.appendingPathComponent("input"))
        defer { project.remove() }
        let inputFiles = Set(project.allFiles())
        let result = try project.generate()
        #expect(result.diagnostics.allSatisfy { $0.severity != .error })
        let produced = project.allFiles().filter { !inputFiles.contains($0) }

        let expectedFolder = folder.appendingPathComponent("expected")
        if ProcessInfo.processInfo.environment["LUCIDGEN_UPDATE_GOLDEN"] == "1" {
            try? FileManager.default.removeItem(at: expectedFolder)
            for file in produced {
                let target = expectedFolder.appendingPathComponent(file)
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: project.root.appendingPathComponent(file), to: target)
            }
        }
        let expected = TestProject(existing: expectedFolder).allFiles()
        #expect(produced == expected, "the set of generated files differs from Golden/\(name)/expected")
        for file in expected where produced.contains(file) {
            let actual = try project.read(file)
            let wanted = try String(contentsOf: expectedFolder.appendingPathComponent(file), encoding: .utf8)
            #expect(actual == wanted, "\(file) differs from Golden/\(name)/expected/\(file)")
        }
    }

    /// Generated code that other test targets compile: each project's output folder, committed next to
    /// its descriptions, must be what `generate` makes of them (the same update variable rewrites it).
    static let compiledProjects = [
        "Tests/Samples", "Tests/DescribedStoreTests/UUIDs", "Tests/DescribedStoreTests/OrderedLinks",
        "Tests/DescribedStoreTests/Decimals", "Tests/SeedGraphs",
    ]
    /// Each project's output folders (committed fixture stores are not generated: left out).
    static let compiledOutputs = [
        "Tests/Samples": ["Generated"], "Tests/DescribedStoreTests/UUIDs": ["Generated"],
        "Tests/DescribedStoreTests/OrderedLinks": ["Generated"], "Tests/DescribedStoreTests/Decimals": ["Generated"],
        "Tests/SeedGraphs": ["App/Generated", "Tests/Generated"],
    ]

    @Test(arguments: compiledProjects)
    func compiledGeneratedCodeIsCurrent(_ path: String) throws {
        for output in Self.compiledOutputs[path] ?? [] {
            try checkCompiledOutput(path, output: output)
        }
    }

    func checkCompiledOutput(_ path: String, output: String) throws {
        let folder = repositoryRoot.appendingPathComponent(path)
        let project = try TestProject.copy(of: folder)
        defer { project.remove() }
        func generated(_ file: String) -> Bool { file.hasPrefix(output + "/") && !file.contains("/Fixtures/") }
        for file in project.allFiles() where generated(file) {
            try FileManager.default.removeItem(at: project.root.appendingPathComponent(file))
        }
        let result = try project.generate()
        #expect(result.diagnostics.allSatisfy { $0.severity != .error })
        let produced = project.allFiles().filter(generated)
        if ProcessInfo.processInfo.environment["LUCIDGEN_UPDATE_GOLDEN"] == "1" {
            for file in TestProject(existing: folder).allFiles() where generated(file) {
                try FileManager.default.removeItem(at: folder.appendingPathComponent(file))
            }
            for file in produced {
                let target = folder.appendingPathComponent(file)
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: project.root.appendingPathComponent(file), to: target)
            }
        }
        let committed = TestProject(existing: folder).allFiles().filter(generated)
        #expect(produced == committed, "the set of generated files differs from \(path)/\(output)")
        for file in committed where produced.contains(file) {
            let actual = try project.read(file)
            let wanted = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            #expect(actual == wanted, "\(file) differs from \(path)/\(file): run LUCIDGEN_UPDATE_GOLDEN=1 swift test --filter GoldenTests")
        }
    }
}

extension GoldenTests {
    /// The checked-in generated code outside the golden and compiled projects: the bundled example and its
    /// tests, and the server example.
    static let exampleOutputs = [
        "Sources/FlightLog/Generated", "Tests/FlightLogTests/Generated", "Examples/TenantServer/Sources/Notes/Generated",
    ]

    /// Generated code reads as written by a person: no line of the golden files or of any checked-in
    /// generated file is longer than the generator's limit (120 characters); long argument lists, arrays,
    /// SQL and JSON are wrapped.
    @Test func noGeneratedLineIsLongerThanTheLimit() throws {
        var folders = Self.cases.map { "Tests/LucidGenCoreTests/Golden/\($0)/expected" } + Self.exampleOutputs
        for (project, outputs) in Self.compiledOutputs { folders += outputs.map { "\(project)/\($0)" } }
        var files = 0
        var long: [String] = []
        for folder in folders {
            let root = repositoryRoot.appendingPathComponent(folder)
            for file in TestProject(existing: root).allFiles() where file.hasSuffix(".swift") {
                files += 1
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.count > SwiftLayout.lineLimit {
                    long.append("\(folder)/\(file):\(index + 1): \(line.count) characters")
                }
            }
        }
        #expect(files >= 60, "the check reads every generated file: \(files)")
        #expect(long.isEmpty, "\(long.joined(separator: "\n"))")
    }
}
