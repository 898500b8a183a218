import ArgumentParser
import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting

/// `lucidgen release`: the current version, final, as one command.
struct Release: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Release the current version: check the project, write the version's fixture store, say what to bump next.",
        discussion: """
            At each release, once the current version (current_version in .lucid.yaml) is final:
              1. runs `lucidgen check` (descriptions, generated files, snapshots, fixtures, sample rows, lint) and refuses \
            to release when it fails, with its report;
              2. writes the version's fixture store and its .sha256 (<app_tests output_path>/Fixtures/\
            <Module>_<version>.sqlite, as `lucidgen fixtures` writes them): a store as this release writes it, \
            which the generated migration tests migrate at every later release;
              3. marks the version's snapshot (.entities/.schema/<version>.json) released: from then on it is \
            frozen like any older version's, and `generate` refuses a change to the version at the description \
            that makes it, although it is still current_version;
              4. says what to commit (the fixture, its .sha256 and the snapshot) and what to bump before the next \
            change (current_version, and each changed entity's version_history).

            The snapshot's mark is written last, by renaming a complete file over it: it is the release's one \
            commit point. A version whose snapshot is marked is not released twice (exit 3); a fixture without \
            the mark (an interrupted release, `lucidgen fixtures --unreleased`) is replaced. While one release \
            runs, another of the same project refuses (exit 3). Nothing is written unless the snapshot folder and \
            the fixture folder are writable. Run it from the folder of .lucid.yaml, or pass --config.
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp("The config file.", valueName: "path"))
    var config: String = ".lucid.yaml"

    @Option(help: "Rows per entity in the fixture store.")
    var rows: Int = 40

    func validate() throws {
        guard rows >= 0 else { throw ValidationError("--rows must be 0 or more") }
    }

    func run() throws {
        // The gate first: a release of a project `check` refuses would freeze what is wrong. Its model is the
        // release's (the descriptions are loaded and resolved once).
        let model: ResolvedModel
        do {
            model = try Check.parse(["--config", config]).checkedModel()
        } catch {
            printError("release refused: `lucidgen check` does not pass (its report is above); fix what it says, then run `lucidgen release` again\n")
            throw error
        }
        let version = model.currentVersion
        let schemaFolder = model.config.schemaPath
        let snapshotPath = (schemaFolder as NSString).appendingPathComponent(SchemaSnapshot.fileName(for: version))
        let fixture = (Fixtures.defaultFolder(model) as NSString).appendingPathComponent(FixtureFiles.fileName(module: model.config.app.moduleName, version: version))
        // The snapshot's mark is the release's one commit point, written last; a lock on the snapshot file
        // keeps a second `release` of the project out meanwhile (the kernel drops it if this process dies).
        let lock = FileLock(path: snapshotPath)
        guard lock.acquired else {
            printError("error: another `lucidgen release` is releasing \(version) of this project now (it holds \(displayPath(snapshotPath))); let it finish, then run `lucidgen check`\n")
            throw ExitCode(3)
        }
        defer { lock.release() }
        guard !SchemaSnapshot.isMarkedReleased(version: version, in: schemaFolder) else {
            printError("error: \(version) is released already: \(displayPath(snapshotPath)) is marked released. To release the next version, set current_version to it first\n")
            throw ExitCode(3)
        }
        // Every folder the release writes in must be writable before the first file is written.
        for folder in [schemaFolder, (fixture as NSString).deletingLastPathComponent] where FileManager.default.fileExists(atPath: folder) {
            guard Self.canCreateFiles(in: folder) else {
                printError("error: cannot release \(version): \(displayPath(folder)) is not writable (nothing was written); make it writable and run `lucidgen release` again\n")
                throw ExitCode(3)
            }
        }
        if FileManager.default.fileExists(atPath: fixture) {
            print("replacing \(displayPath(fixture)): \(version) was never marked released (an interrupted release or `lucidgen fixtures --unreleased` wrote it)")
        }
        try Fixtures.write(model: model, version: version, rows: rows, output: nil, replacing: true)
        // Last, the commit point: the snapshot binds from now on, although the version is still current_version:
        // `generate` refuses a change to it, at the description, instead of the fixture failing the tests later.
        let snapshot: String
        do {
            snapshot = try SchemaSnapshot.markReleased(version: version, in: schemaFolder)
        } catch let error as GenerationFailed {
            printDiagnostics(error.diagnostics, verbose: false)
            printError("\(version) is not released: run `lucidgen release` again once the snapshot can be written (it rewrites the fixture)\n")
            throw ExitCodes.inputErrors
        }
        let next = Self.nextVersion(after: version)
        print("""
            Released \(version). Commit \(displayPath(fixture)), its .sha256 and \(displayPath(snapshot)) (frozen from now on).
            Next: before changing any description, set current_version to "\(next)" (or the version you release next) in \(config), \
            and add { "version": "\(next)" } to the version_history of each entity you change.
            """)
    }

    /// Whether a file can be created in `folder`, proven by creating (and removing) one: permissions, ACLs,
    /// immutable folders and read-only mounts all say so alike.
    static func canCreateFiles(in folder: String) -> Bool {
        let probe = (folder as NSString).appendingPathComponent(".lucidgen-release-probe-\(getpid())")
        guard FileManager.default.createFile(atPath: probe, contents: Data()) else { return false }
        try? FileManager.default.removeItem(atPath: probe)
        return true
    }

    /// The version after `version`: its last component plus one (`1.0` → `1.1`, `2.1.3` → `2.1.4`).
    static func nextVersion(after version: SchemaVersion) -> String {
        var parts = version.string.split(separator: ".").map(String.init)
        if let last = parts.last, let number = Int(last) { parts[parts.count - 1] = String(number + 1) }
        return parts.joined(separator: ".")
    }
}

/// An exclusive advisory lock (`flock`) on an existing file, taken without waiting; the kernel releases it
/// when the process ends, so a killed command never leaves it held.
final class FileLock {
    private let descriptor: Int32
    /// Whether this process holds the lock (false: another holds it; also true when the file does not exist,
    /// which the caller's next step reports).
    let acquired: Bool

    init(path: String) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        acquired = descriptor < 0 || flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    func release() {
        if descriptor >= 0 { close(descriptor) }
    }
}
