import Foundation
import LucidGenCore
import Testing

/// The `lucidgen` binary as a user runs it: installed elsewhere, from any working directory.
@Suite struct CLITests {
    /// A copy of the built binary in a folder of its own, as an installed tool would be: no build folder,
    /// no resource bundle beside it.
    static func installedBinary() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = folder.appendingPathComponent("lucidgen").path
        try FileManager.default.copyItem(atPath: lucidgenBinary, toPath: target)
        return target
    }

    @Test func installedBinaryFindsItsTemplatesFromAnyDirectory() throws {
        let binary = try Self.installedBinary()
        let project = try TestProject(files: [".entities/a.json": entityJSON("a")])
        defer { project.remove() }
        let result = try run(binary, ["generate", "--config", project.configPath], in: FileManager.default.temporaryDirectory)
        #expect(result.status == 0, "\(result.error)")
        #expect(try project.read("Sources/App/Generated/Entities/A.swift").contains("public struct A_1_0:"))
    }

    @Test func helpAndVersion() throws {
        let help = try run(lucidgenBinary, ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("EXIT CODES"))
        #expect(help.output.contains("generate"))
        #expect(help.output.contains("init"))
        let generateHelp = try run(lucidgenBinary, ["generate", "--help"])
        #expect(generateHelp.output.contains("--check"))
        let version = try run(lucidgenBinary, ["--version"])
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == LucidGenVersion.current)
    }

    @Test func errorsGoToStandardErrorWithExitCode1() throws {
        let project = try TestProject(files: [".entities/a.json": "{ \"name\": 1 }"])
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(result.status == 1)
        #expect(result.error.contains(".entities/a.json:1:11: error: 'name' must be a string, found a number (at $.name)"))
        #expect(result.error.contains("nothing was written"))
        #expect(!project.exists("Sources"))
    }

    @Test func checkExitsWith2WhenStale() throws {
        let project = try TestProject(files: [".entities/a.json": entityJSON("a")])
        defer { project.remove() }
        let stale = try run(lucidgenBinary, ["generate", "--check"], in: project.root)
        #expect(stale.status == 2)
        #expect(stale.output.contains("missing: Sources/App/Generated/Entities/A.swift"))
        #expect(!project.exists("Sources"))
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let fresh = try run(lucidgenBinary, ["generate", "--check"], in: project.root)
        #expect(fresh.status == 0)
    }

    @Test func usageErrorsExitWith64() throws {
        #expect(try run(lucidgenBinary, ["generate", "--no-such-flag"]).status == 64)
    }

    @Test func initInAnExistingPackageAddsOnlyConfigAndEntities() throws {
        let project = try TestProject(files: ["Package.swift": "// swift-tools-version:6.1\n", "Sources/Mine/Mine.swift": ""], config: nil)
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["init", "--module", "Mine"], in: project.root)
        #expect(result.status == 0, "\(result.error)")
        #expect(try project.read("Package.swift") == "// swift-tools-version:6.1\n")
        #expect(project.exists(".lucid.yaml"))
        #expect(project.exists(".entities/note.json"))
        #expect(project.exists("Sources/Mine/Generated/Entities/Note.swift"))
        #expect(!project.exists("Tests"))
        #expect(result.output.contains("Add to your Package.swift"))
        let again = try run(lucidgenBinary, ["init", "--module", "Mine"], in: project.root)
        #expect(again.status == 1)
        #expect(again.error.contains("already exists"))
    }

    @Test func initRefusesAFolderThatIsNeitherEmptyNorAPackage() throws {
        let project = try TestProject(files: ["notes.txt": "mine"], config: nil)
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["init"], in: project.root)
        #expect(result.status == 1)
        #expect(result.error.contains("is neither empty nor a Swift package"))
        #expect(project.allFiles() == ["notes.txt"])
    }
}
