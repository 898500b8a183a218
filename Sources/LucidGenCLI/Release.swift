import ArgumentParser
import Foundation
import LucidGenCore
import LucidGenStore
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
            printError(
                "release refused: `lucidgen check` does not pass (its report is above); fix what it says, then run `lucidgen release` again\n"
            )
            throw error
        }
        let release: ProjectRelease.Release
        do {
            release = try ProjectRelease.begin(model: model)
        } catch {
            printError("error: \(error)\n")
            throw ExitCode(3)
        }
        defer { release.end() }
        let version = release.version
        if release.replacesFixture {
            print(
                "replacing \(displayPath(release.fixture)): \(version) was never marked released (an interrupted release or `lucidgen fixtures --unreleased` wrote it)"
            )
        }
        try Fixtures.write(model: model, version: version, rows: rows, output: nil, replacing: true)
        // Last, the commit point: the snapshot binds from now on, although the version is still current_version:
        // `generate` refuses a change to it, at the description, instead of the fixture failing the tests later.
        let snapshot: String
        do {
            snapshot = try release.markReleased()
        } catch let error as GenerationFailed {
            printDiagnostics(error.diagnostics, verbose: false)
            printError(
                "\(version) is not released: run `lucidgen release` again once the snapshot can be written (it rewrites the fixture)\n")
            throw ExitCodes.inputErrors
        }
        let next = ProjectRelease.nextVersion(after: version)
        print(
            """
            Released \(version). Commit \(displayPath(release.fixture)), its .sha256 and \(displayPath(snapshot)) (frozen from now on).
            Next: before changing any description, set current_version to "\(next)" (or the version you release next) in \(config), \
            and add { "version": "\(next)" } to the version_history of each entity you change.
            """)
    }
}
