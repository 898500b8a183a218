import Foundation
import LucidGenCore
import Testing

/// Golden tests: each folder in `Golden/` has an `input/` project and the `expected/` files that
/// `generate` must produce from it, byte for byte. Mustache renders an unknown name as nothing, so
/// comparing whole files is what catches a misspelled template key.
///
/// To accept a deliberate change of output: `LUCIDGEN_UPDATE_GOLDEN=1 swift test --filter GoldenTests`,
/// then review the diff of `Golden/*/expected` before committing.
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
}

extension TestProject {
    /// A temporary copy of a folder.
    static func copy(of folder: URL) throws -> TestProject {
        let project = try TestProject(config: nil)
        for file in TestProject(existing: folder).allFiles() {
            let target = project.root.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: folder.appendingPathComponent(file), to: target)
        }
        return project
    }

    /// An existing folder, for reading.
    init(existing folder: URL) {
        self.root = folder
    }
}
