import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// `generate` with nothing changed stops after the Fingerprint stage; anything that changes what a run
/// would produce (an input, an output, a stray generated file, the tool) makes it run every stage.
@Suite struct IncrementalGenerateTests {
    static let twoVersions = TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n"
    static let track = """
        {
            "name": "track",
            "identifier": { "type": "int" },
            "unknown_key": 1,
            "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
            "properties": [{ "name": "title", "property_type": "string" }]
        }
        """

    enum Kind: Equatable { case unchanged, generated(why: String?) }

    @discardableResult
    func generate(_ project: TestProject, check: Bool = false, force: Bool = false) throws -> (
        kind: Kind, diagnostics: [Diagnostic], summary: String
    ) {
        let outcome = try GeneratorPipeline(configPath: project.configPath).runIncrementally(check: check, force: force) { result in
            "\(result.model.entities.count) entities"
        }
        switch outcome {
        case .unchanged(let stamp): return (.unchanged, stamp.diagnostics, stamp.summary)
        case .generated(let result, let why): return (.generated(why: why), result.diagnostics, "")
        }
    }

    func stampPath(_ project: TestProject) -> String { project.root.appendingPathComponent(".build/lucidgen/.lucid.yaml.stamp").path }

    @Test func anUnchangedRunStopsAtTheStampAndRepeatsTheWarnings() throws {
        let project = try TestProject(files: [".entities/track.json": Self.track], config: Self.twoVersions)
        defer { project.remove() }
        let first = try generate(project)
        #expect(first.kind == .generated(why: "no stamp of an earlier run"))
        #expect(first.diagnostics.contains { $0.severity == .warning && $0.message.contains("unknown key 'unknown_key'") })
        #expect(project.exists(".entities/.schema/1.0.json"), "the run froze the released version")
        let files = project.allFiles()
        let second = try generate(project)
        #expect(second.kind == .unchanged, "the snapshot the first run wrote is its output, not a changed input")
        #expect(second.summary == "1 entities")
        #expect(second.diagnostics.map(\.description) == first.diagnostics.map(\.description))
        #expect(project.allFiles() == files)
        #expect(try generate(project, check: true).kind == .unchanged)
    }

    @Test func anEditedDescriptionRegeneratesAndNamesTheFile() throws {
        let project = try TestProject(files: [".entities/track.json": Self.track], config: Self.twoVersions)
        defer { project.remove() }
        try generate(project)
        try project.write(
            ".entities/track.json",
            Self.track.replacingOccurrences(
                of: #""property_type": "string" }"#,
                with:
                    #""property_type": "string" }, { "name": "artist", "property_type": "string", "nullable": true, "added_at_version": "2.0" }"#
            ))
        let run = try generate(project)
        guard case .generated(let why) = run.kind else { Issue.record("the edit was not noticed"); return }
        #expect(why?.hasSuffix(".entities/track.json changed since the last run") == true)
        #expect(try project.read("Sources/App/Generated/Entities/Track.swift").contains("artist"))
        #expect(try generate(project).kind == .unchanged)
    }

    /// Same size, same modification time tick: only the content hash kept for recently written files tells.
    @Test func anOutputRewrittenWithTheSameSizeRightAwayIsNoticed() throws {
        let project = try TestProject(files: [".entities/track.json": Self.track], config: Self.twoVersions)
        defer { project.remove() }
        try generate(project)
        let path = project.root.appendingPathComponent("Sources/App/Generated/Entities/Track.swift").path
        let original = try project.read("Sources/App/Generated/Entities/Track.swift")
        let before = try #require(FileState.read(path))
        // Overwritten in place (same inode), same size, then its time set back to what was recorded.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data(String(repeating: "x", count: original.utf8.count).utf8))
        try handle.close()
        var times = [
            timespec(tv_sec: Int(before.modified / 1_000_000_000), tv_nsec: Int(before.modified % 1_000_000_000)),
            timespec(tv_sec: Int(before.modified / 1_000_000_000), tv_nsec: Int(before.modified % 1_000_000_000)),
        ]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(FileState.read(path) == before, "size, time and inode all say untouched")
        let run = try generate(project)
        #expect(run.kind == .generated(why: "\(displayPath(path)) changed since the last run"))
        #expect(try project.read("Sources/App/Generated/Entities/Track.swift") == original)
    }

    @Test func racyHashesAreDroppedOnceTheOutputsAreOld() throws {
        let project = try TestProject(files: [".entities/track.json": Self.track], config: Self.twoVersions)
        defer { project.remove() }
        try generate(project)
        let stamp = try #require(GenerationStamp.read(stampPath(project)))
        #expect(stamp.outputs.values.allSatisfy { $0.hash != nil }, "just written: every output is racy")
        #expect(stamp.settled() == nil, "still racy now")
        let later = try #require(stamp.settled(now: FileState.now() + 3_000_000_000))
        #expect(later.outputs.values.allSatisfy { $0.hash == nil })
        #expect(later.outputs.keys.sorted() == stamp.outputs.keys.sorted())
    }

    @Test func deletedOrStrayGeneratedFilesAreNoticed() throws {
        let project = try TestProject(files: [".entities/track.json": Self.track], config: Self.twoVersions)
        defer { project.remove() }
        try generate(project)
        try FileManager.default.removeItem(at: project.root.appendingPathComponent("Sources/App/Generated/AppSchema.swift"))
        guard case .generated = try generate(project).kind else { Issue.record("a deleted output was not noticed"); return }
        #expect(project.exists("Sources/App/Generated/AppSchema.swift"))
        try project.write("Sources/App/Generated/Entities/Old.swift", "// Old.swift\n// Generated by lucidgen from x. Do not edit.\n")
        #expect(try generate(project).kind == .generated(why: "files were added to or removed from the generated folders"))
        #expect(!project.exists("Sources/App/Generated/Entities/Old.swift"), "the stray generated file was removed")
        #expect(try generate(project).kind == .unchanged)
    }

    @Test func forceRunsEveryStageAndCheckNeverWritesAStamp() throws {
        let project = try TestProject(files: [".entities/track.json": Self.track], config: Self.twoVersions)
        defer { project.remove() }
        #expect(try generate(project, check: true).kind == .generated(why: "no stamp of an earlier run"))
        #expect(!FileManager.default.fileExists(atPath: stampPath(project)), "--check writes nothing, no stamp either")
        try generate(project)
        #expect(try generate(project, force: true).kind == .generated(why: nil))
        #expect(try generate(project).kind == .unchanged)
    }

    @Test func aFailedRunRemovesTheStampSoRevertingTheInputRegenerates() throws {
        let project = try TestProject(files: [".entities/track.json": Self.track], config: Self.twoVersions)
        defer { project.remove() }
        try generate(project)
        try project.write(".entities/track.json", "{ \"name\": 1 }")
        #expect(throws: GenerationFailed.self) { try generate(project) }
        #expect(!FileManager.default.fileExists(atPath: stampPath(project)))
        try project.write(".entities/track.json", Self.track)
        #expect(try generate(project).kind == .generated(why: "no stamp of an earlier run"))
    }

    @Test func aTruncatedOrForeignStampIsNoStamp() throws {
        let project = try TestProject(files: [".entities/track.json": Self.track], config: Self.twoVersions)
        defer { project.remove() }
        try generate(project)
        let text = try String(contentsOfFile: stampPath(project), encoding: .utf8)
        #expect(text.hasPrefix("lucidgen-stamp 1\ncontext "))
        #expect(text.hasSuffix("\nend \n"))
        for broken in [String(text.dropLast(6)), "{\"format\": 1}", "", text.replacingOccurrences(of: "\noutput ", with: "\noutput x")] {
            try Data(broken.utf8).write(to: URL(fileURLWithPath: stampPath(project)))
            #expect(try generate(project).kind == .generated(why: "no stamp of an earlier run"))
            #expect(try generate(project).kind == .unchanged, "the run wrote a good stamp again")
        }
    }

    @Test func aSymbolicLinkLoopInTheInputsEndsAndALinkedFileCounts() throws {
        let project = try TestProject(files: [".entities/track.json": Self.track, "shared/extra.txt": "one"], config: Self.twoVersions)
        defer { project.remove() }
        let entities = project.root.appendingPathComponent(".entities").path
        try FileManager.default.createSymbolicLink(atPath: entities + "/loop", withDestinationPath: entities)
        try FileManager.default.createSymbolicLink(
            atPath: entities + "/extra.txt", withDestinationPath: project.root.appendingPathComponent("shared/extra.txt").path)
        try generate(project)
        #expect(try generate(project).kind == .unchanged)
        try project.write("shared/extra.txt", "two")
        #expect(try generate(project).kind == .generated(why: "\(displayPath(entities + "/extra.txt")) changed since the last run"))
    }

    @Test func releasingAVersionIsOneRunThenUnchanged() throws {
        let project = try TestProject(files: [".entities/track.json": Self.track], config: Self.twoVersions)
        defer { project.remove() }
        try generate(project)
        try project.write(".lucid.yaml", TestProject.defaultConfig + "\ncurrent_version: \"3.0\"\n")
        try project.write(
            ".entities/track.json",
            Self.track.replacingOccurrences(of: #"{ "version": "2.0" }"#, with: #"{ "version": "2.0" }, { "version": "3.0" }"#))
        guard case .generated = try generate(project).kind else { Issue.record("the release was not noticed"); return }
        #expect(project.exists(".entities/.schema/2.0.json"))
        #expect(try generate(project).kind == .unchanged)
        // A frozen snapshot edited by hand is an input again: the run fails on it.
        let snapshot = project.root.appendingPathComponent(".entities/.schema/1.0.json").path
        try project.write(
            ".entities/.schema/1.0.json",
            try project.read(".entities/.schema/1.0.json").replacingOccurrences(of: "\"title\"", with: "\"name\""))
        #expect(FileManager.default.fileExists(atPath: snapshot))
        #expect(throws: GenerationFailed.self) { try generate(project) }
    }

    @Test func theModuleModeKeepsItsOwnStampBesideItsFile() throws {
        let oneVersion = Self.track.replacingOccurrences(of: #", { "version": "2.0" }"#, with: "")
        let project = try TestProject(files: [".entities/track.json": oneVersion], config: TestProject.defaultConfig)
        defer { project.remove() }
        let output = project.root.appendingPathComponent("plugin/App.lucid.swift").path
        let pipeline = GeneratorPipeline(configPath: project.configPath)
        #expect(try pipeline.runModule("App", into: output).written)
        #expect(FileManager.default.fileExists(atPath: output + ".lucidgen-stamp"))
        let again = try pipeline.runModule("App", into: output)
        #expect(!again.written)
        #expect(again.diagnostics.contains { $0.message.contains("unknown key 'unknown_key'") }, "the warnings are repeated from the stamp")
        try project.write(".entities/track.json", oneVersion.replacingOccurrences(of: "\"title\"", with: "\"name\""))
        #expect(try pipeline.runModule("App", into: output).written)
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("var name"))
    }

    @Test func theCommandSaysNothingChangedAndForceRegenerates() throws {
        let project = try TestProject(files: [".entities/track.json": Self.track], config: Self.twoVersions)
        defer { project.remove() }
        let first = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(first.status == 0)
        #expect(first.output.contains("created"))
        let second = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(second.status == 0)
        #expect(
            second.output == "1 entities, versions 1.0, 2.0; Inputs unchanged since the last run: nothing to do (--force regenerates).\n")
        #expect(second.error.contains("unknown key 'unknown_key'"), "warnings are repeated")
        let check = try run(lucidgenBinary, ["generate", "--check"], in: project.root)
        #expect(check.status == 0)
        #expect(check.output.contains("up to date"))
        let forced = try run(lucidgenBinary, ["generate", "--force", "--verbose"], in: project.root)
        #expect(forced.output.contains("0 created, 0 updated, 0 removed"))
        let help = try run(lucidgenBinary, ["generate", "--help"])
        #expect(help.output.contains("--force"))
        #expect(help.output.contains(".build/lucidgen/"))
    }
}

@Suite struct XXH64Tests {
    /// Reference values from the `xxhash` Python package (the reference C implementation).
    @Test(arguments: [
        ("", 0xEF46_DB37_51D8_E999 as UInt64), ("a", 0xD24E_C4F1_A98C_6E5B), ("abc", 0x44BC_2CF5_AD77_0999),
        ("0123456789abcdef0123456789abcdef", 0x642A_9495_8E71_E6C5), ("lucidgen", 0xF97B_F6AA_6033_A91D),
    ])
    func knownValues(text: String, expected: UInt64) {
        #expect(XXH64.hash(Array(text.utf8)) == expected)
    }

    @Test func longInputAndSeed() {
        let bytes = Array((0..<3).flatMap { _ in (0...255).map { UInt8($0) } }) + Array("xyz".utf8)
        #expect(XXH64.hash(bytes) == 0xE921_A1B4_5BD7_79F8)
        #expect(XXH64.hash(Array("abc".utf8), seed: 1) == 0xBEA9_CA81_9932_8908)
    }

    @Test func theResultDoesNotDependOnHowTheInputIsSplit() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = XXH64.hash(bytes)
        for split in [1, 7, 31, 32, 33, 500, 999] {
            var hasher = XXH64()
            hasher.update(bytes[..<split])
            hasher.update(bytes[split...])
            #expect(hasher.finalize() == whole, "split at \(split)")
        }
    }
}
