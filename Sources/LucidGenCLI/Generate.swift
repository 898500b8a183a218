import ArgumentParser
import Foundation
import LucidGenCore
import LucidGenStore

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate Swift records, schemas and snapshots from the entity descriptions.",
        discussion: """
            Reads the config (default ./.lucid.yaml) and the descriptions under its input_path, resolves the \
            shape of every entity at every version, checks released versions against their frozen snapshots, \
            and writes:
              <targets.app.output_path>/Entities/<Entity>.swift   one record type per entity per version
              <targets.app.output_path>/Subtypes/<Subtype>.swift  enum, option set and struct subtypes
              <targets.app.output_path>/<Module>Schema.swift      every version's schema and DDL checksum
              <schema_path>/<version>.json                        frozen schema snapshots
            Unchanged files are not rewritten. Nothing is written when the input has an error.

            Incremental: a successful run leaves a stamp in .build/lucidgen/ beside the config (the hash of \
            every input: the config, every file under input_path, the snapshots, the templates, the names of \
            the fixture stores, the lucidgen executable; and the size and modification time of every file it \
            wrote). When the inputs hash the same and no output was touched, generate stops there and says \
            so (its earlier warnings are repeated); --check does the same. --force runs every stage anyway; \
            --verbose says why a run was not skipped. The stamp is a cache: deleting it is always safe.

            With --module NAME --module-output FILE (what the SwiftPM build plugin runs), everything \
            module NAME needs goes into FILE and nothing else is written; a released version that still \
            needs its snapshot frozen is an error asking for `swift package lucidgen generate`.
            """
    )

    @Option(name: .shortAndLong, help: ArgumentHelp("The config file.", valueName: "path"))
    var config: String = ".lucid.yaml"

    @Flag(help: "Write nothing; exit with code 2 and list the files that are out of date.")
    var check = false

    @Flag(help: "Run every stage even when the stamp of the last run says nothing changed.")
    var force = false

    @Flag(name: .shortAndLong, help: "Also print notes (ignored keys, frozen versions) and unchanged files.")
    var verbose = false

    @Flag(
        help: ArgumentHelp(
            "Print how long each stage took (fingerprint, load, resolve and its phases, schema trial, render and its routes, write, digest and stamp), wall and CPU seconds, to standard error.",
            discussion:
                "CPU time is the process's, over every thread: rendering and snapshot loading use every core, and a phase that ran beside others (the routes, planned while the other files render) counts their work too."
        ))
    var timings = false

    @Option(
        help: ArgumentHelp(
            "The build plugin's mode: render everything the module needs (targets.app or targets.app_tests module_name) into --module-output, reading descriptions and snapshots and writing nothing else.",
            valueName: "name"))
    var module: String?

    @Option(help: ArgumentHelp("The one Swift file --module writes.", valueName: "file"))
    var moduleOutput: String?

    func validate() throws {
        if (module == nil) != (moduleOutput == nil) { throw ValidationError("--module and --module-output go together") }
        if module != nil && check {
            throw ValidationError("--check and --module contradict each other: --module writes one file, --check writes nothing")
        }
    }

    func run() throws {
        let pipeline = GeneratorPipeline(
            configPath: absolutePath(config), schemaTrial: SchemaTrial.diagnostics, seedCheckProbe: SchemaTrial.seedCheckProbe)
        if let module, let moduleOutput {
            do {
                let result = try pipeline.runModule(module, into: absolutePath(moduleOutput), force: force)
                printDiagnostics(result.diagnostics, verbose: verbose)
            } catch {
                printDiagnostics(error.diagnostics, verbose: verbose)
                throw ExitCodes.inputErrors
            }
            return
        }
        let outcome: GeneratorPipeline.Outcome
        do {
            outcome = try pipeline.runIncrementally(check: check, force: force, summary: Self.summary)
        } catch {
            printDiagnostics(error.diagnostics, verbose: verbose)
            let count = error.errors.count
            printError("lucidgen: \(count) error\(count == 1 ? "" : "s"); nothing was written\n")
            throw ExitCodes.inputErrors
        }
        let result: GeneratorPipeline.Result
        switch outcome {
        case .unchanged(let stamp):
            printDiagnostics(stamp.diagnostics, verbose: verbose)
            if check {
                print("Generated files are up to date (\(stamp.outputs.count) files; inputs unchanged since the last generate).")
            } else {
                print("\(stamp.summary) Inputs unchanged since the last run: nothing to do (--force regenerates).")
            }
            return
        case .generated(let generated, let why):
            if verbose, let why { print("generating: \(why)") }
            result = generated
        }
        if timings { printError((["timings:"] + result.times.lines.map { "  " + $0 }).joined(separator: "\n") + "\n") }
        printDiagnostics(result.diagnostics, verbose: verbose)
        let report = result.report
        if check {
            if report.isUpToDate {
                print("Generated files are up to date (\(report.unchanged.count) files).")
                return
            }
            for path in report.created { print("missing: \(displayPath(path))") }
            for path in report.updated { print("stale:   \(displayPath(path))") }
            for path in report.removed { print("extra:   \(displayPath(path))") }
            printError("lucidgen: generated files are out of date; run `lucidgen generate`\n")
            throw ExitCodes.stale
        }
        for path in report.created { print("created  \(displayPath(path))") }
        for path in report.updated { print("updated  \(displayPath(path))") }
        for path in report.removed { print("removed  \(displayPath(path))") }
        if verbose { for path in report.unchanged { print("unchanged \(displayPath(path))") } }
        print(
            "\(Self.summary(result)) \(report.created.count) created, \(report.updated.count) updated, \(report.removed.count) removed, \(report.unchanged.count) unchanged."
        )
    }

    /// `11 entities, versions 1.0, 1.1, 2.0, 3.0;` and, past a dozen versions, the first few and the newest
    /// (a long history's line would list a thousand): `60 entities, 1000 versions: 1.0, 1.1, 1.2, … 100.8, 100.9;`.
    static func summary(_ result: GeneratorPipeline.Result) -> String {
        let versions = result.model.versions.map(\.string)
        let entities = "\(result.model.entities.count) entities"
        guard versions.count > 12 else { return "\(entities), versions \(versions.joined(separator: ", "));" }
        return
            "\(entities), \(versions.count) versions: \(versions.prefix(3).joined(separator: ", ")), … \(versions.suffix(2).joined(separator: ", "));"
    }
}
