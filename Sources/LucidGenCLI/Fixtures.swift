import ArgumentParser
import Foundation
import LucidGenCore
import LucidGenStore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting

struct Fixtures: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a fixture store: a single-file SQLite database at a version, with deterministic rows.",
        discussion: """
            The store is created at --schema-version (default: current_version) with its lucidgen version record, \
            and every entity gets --rows rows of edge values (empty and unicode strings, integer extremes, \
            dates with milliseconds, NULL where allowed, arrays, subtypes) and relationships in both \
            directions (self-references and cycles included). --rows 0 writes an empty store at the version. The same descriptions always give the same rows.

            The default file is <app_tests output_path>/Fixtures/<Module>_<version>.sqlite, beside the \
            generated migration tests, which migrate every committed fixture and check every value. A \
            <file>.sha256 (sha256sum format) is written with it; the tests refuse a fixture that no longer \
            matches it. `lucidgen release` writes the current version's fixture once that version is final; \
            this command writes it only with --unreleased (the current version can still change) or once \
            `lucidgen release` marked it (to write a lost fixture of it again), and any other version's (e.g. one released before lucidgen was adopted). Commit both files: they are \
            stores as that release wrote them. An existing file is never replaced.
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp("The config file.", valueName: "path"))
    var config: String = ".lucid.yaml"

    @Option(
        name: .customLong("schema-version"),
        help: ArgumentHelp("The schema version the store is written at (default: current_version).", valueName: "version"))
    var version: String?

    @Option(help: "Rows per entity (0: an empty store at the version).")
    var rows: Int = 40

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The file to write (default: <app_tests output_path>/Fixtures/<Module>_<version>.sqlite, or fixtures/ beside the config without app_tests).",
            valueName: "file"))
    var output: String?

    @Flag(
        help:
            "Write the current version's committed fixture although the version can still change (`lucidgen release` writes it once the version is final)."
    )
    var unreleased = false

    func validate() throws {
        guard rows >= 0 else { throw ValidationError("--rows must be 0 or more") }
    }

    func run() throws {
        let model = try storeWork { try FixtureStore.model(config: config) }
        let target = try storeWork { try FixtureStore.version(version, of: model, output: output, unreleased: unreleased) }
        try Self.write(model: model, version: target, rows: rows, output: output.map(absolutePath))
    }

    /// Writes the fixture (``FixtureStore/write(model:version:rows:output:replacing:)``) and prints what was written.
    static func write(model: ResolvedModel, version: SchemaVersion, rows: Int, output: String?, replacing: Bool = false) throws {
        do {
            let written = try FixtureStore.write(model: model, version: version, rows: rows, output: output, replacing: replacing)
            print(
                "wrote \(displayPath(written.path)) and its .sha256: version \(written.version), \(written.rows) rows\(written.committed ? "; commit both" : "")"
            )
        } catch let error as StoreError {
            throw fail(error)
        } catch let error as FixtureStore.NotWritten {
            printError("error: \(displayPath(error.path)) is not written: \(error.refused)\n")
            throw ExitCodes.storeError
        }
    }
}
