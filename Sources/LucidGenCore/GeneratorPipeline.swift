import Foundation

/// The generator, one screen: (Fingerprint →) Load → Resolve → Render → Write.
///
/// ``runIncrementally(check:force:)``, what `lucidgen generate` runs, first hashes the inputs and
/// compares them and the outputs with the ``GenerationStamp`` of the last successful run; when nothing
/// changed it stops there. Each stage has a named output type that can be printed and tested on its own:
/// ``LoadedInput`` (config + descriptions as written), ``ResolvedModel`` (every entity at every
/// version, one schema per version, checked against the frozen snapshots), ``RenderedOutput``
/// (file paths and contents) and ``WriteReport`` (what changed on disk). Every stage collects
/// diagnostics instead of printing; nothing is written unless every earlier stage succeeded.
package struct GeneratorPipeline {
    package var configPath: String
    /// Tries the resolved model in SQLite before anything is rendered or written (the CLI's `SchemaTrial`:
    /// each unreleased version's DDL in an in-memory database); an error it finds stops the run. This module
    /// does not link SQLite, so the CLI supplies it.
    package var schemaTrial: (@Sendable (LoadedInput, ResolvedModel) -> [Diagnostic])?

    /// Tries the seeds of the generated migration tests against the tables' CHECK constraints (``ResolvedModel/seedCheckProbe``).
    package var seedCheckProbe: SeedCheckProbe?

    package init(
        configPath: String, schemaTrial: (@Sendable (LoadedInput, ResolvedModel) -> [Diagnostic])? = nil,
        seedCheckProbe: SeedCheckProbe? = nil
    ) {
        self.seedCheckProbe = seedCheckProbe
        self.configPath = configPath
        self.schemaTrial = schemaTrial
    }

    package struct Result: Sendable {
        package var report: WriteReport
        /// Warnings and notes from every stage.
        package var diagnostics: [Diagnostic]
        package var model: ResolvedModel
        /// How long each stage took (`generate --timings`).
        package var times = StageTimes()
    }

    package func load() throws(GenerationFailed) -> LoadedInput {
        var diagnostics = DiagnosticCollector()
        let config = try Config.load(from: configPath, diagnostics: &diagnostics)
        return try load(config, configDiagnostics: diagnostics.diagnostics)
    }

    func load(_ config: Config, configDiagnostics: [Diagnostic]) throws(GenerationFailed) -> LoadedInput {
        var input = try DescriptionLoader.load(config: config)
        input.diagnostics.insert(contentsOf: configDiagnostics, at: 0)
        return input
    }

    /// Runs every stage. With `check`, nothing is written and the report says what would change.
    package func run(check: Bool) throws(GenerationFailed) -> Result {
        try run(try load(), check: check)
    }

    /// `lucidgen check`: every stage with nothing written, and the descriptions as loaded (the lint
    /// stage locates its findings in them).
    package func check() throws(GenerationFailed) -> (input: LoadedInput, result: Result) {
        let input = try load()
        return (input, try run(input, check: true))
    }

    func run(_ input: LoadedInput, check: Bool) throws(GenerationFailed) -> Result {
        var times = StageTimes()
        var model = try times.measure("resolve") { () throws(GenerationFailed) in try Resolver.resolve(input) }
        times.nest(model.times)
        model.seedCheckProbe = seedCheckProbe
        if let schemaTrial {
            let refused = times.measure("schema trial") { schemaTrial(input, model) }
            if refused.contains(where: { $0.severity == .error }) { throw GenerationFailed(diagnostics: model.diagnostics + refused) }
        }
        var output = try times.measure("render") { () throws(GenerationFailed) in
            try Renderer(templatesPath: model.config.templatesPath).render(model)
        }
        times.nest(model.routesTimes)
        if model.config.buildPlugin {
            // The build plugin makes the Swift files during `swift build`; only what is committed is written here.
            output.files.removeAll { $0.path.hasSuffix(".swift") }
            output.ownedFolders = []
        }
        let report = try times.measure("write") { () throws(GenerationFailed) in try OutputWriter.write(output, dryRun: check) }
        return Result(report: report, diagnostics: output.diagnostics, model: model, times: times)
    }
}

extension GeneratorPipeline {
    /// What ``runIncrementally(check:force:)`` did.
    package enum Outcome: Sendable {
        /// The inputs hash as they did in the last successful run and its outputs are as it left them:
        /// nothing was parsed, rendered or written. The stamp holds that run's warnings and summary.
        case unchanged(GenerationStamp)
        /// The whole pipeline ran; `why` says what made the stamp stale (nil with `force` or no stamp).
        case generated(Result, why: String?)
    }

    /// The folders whose generated Swift files a run owns (it removes the ones it no longer produces).
    static func ownedFolders(_ config: Config) -> [String] {
        if config.buildPlugin { return [] }
        return [config.app.outputPath] + (config.appTests.map { [$0.outputPath] } ?? [])
    }

    /// `lucidgen generate`: the Fingerprint stage, then, unless it finds nothing changed, every stage;
    /// a successful run (not a check) leaves a ``GenerationStamp`` in `.build/lucidgen/`. `force` runs
    /// every stage whatever the stamp says. `summary` makes the one-line summary stored with the stamp.
    package func runIncrementally(check: Bool, force: Bool, summary: (Result) -> String) throws(GenerationFailed) -> Outcome {
        var configDiagnostics = DiagnosticCollector()
        let config = try Config.load(from: configPath, diagnostics: &configDiagnostics)
        let stampPath = GenerationStamp.path(forConfig: config)
        let owned = Self.ownedFolders(config)
        let previous = force ? nil : GenerationStamp.read(stampPath)
        // The last run's outputs among the inputs (its snapshots) are checked by their state, not read again.
        var times = StageTimes()
        let fingerprint = times.measure("fingerprint") {
            InputFingerprint.compute(config: config, mode: "generate", outputs: Set(previous.map { Array($0.outputs.keys) } ?? []))
        }
        var why: String?
        if !force {
            if let stamp = previous {
                why = stamp.staleness(inputs: fingerprint, ownedFolders: owned)
                if why == nil {
                    stamp.settled()?.write(to: stampPath)
                    if !check { HistoryDigest.refresh(config: config, stamp: stamp) }
                    return .unchanged(stamp)
                }
            } else {
                why = "no stamp of an earlier run"
            }
        }
        var result: Result
        do {
            let input = try times.measure("load") { () throws(GenerationFailed) in
                try load(config, configDiagnostics: configDiagnostics.diagnostics)
            }
            result = try run(input, check: check)
        } catch {
            if !check {
                GenerationStamp.remove(stampPath)
                HistoryDigest.remove(HistoryDigest.path(forConfig: config))
            }
            throw error
        }
        var after = StageTimes()
        if !check {
            let report = result.report
            let outputs = report.created + report.updated + report.unchanged
            // An input the last run wrote and this one did not (a snapshot frozen since) is read now: the stamp holds its hash.
            var inputs = fingerprint
            let produced = Set(outputs)
            for (path, hash) in fingerprint.files where hash == "output" && !produced.contains(path) {
                inputs.files[path] = FileState.contentHash(path) ?? "unreadable"
            }
            let stamp = GenerationStamp(
                inputs: inputs, outputs: outputs, ownedFolders: owned, diagnostics: result.diagnostics, summary: summary(result))
            // After the snapshots are written: the digest records the inputs as this run leaves them.
            after.measure("digest and stamp") {
                HistoryDigest.write(result.model, config: config, stamp: stamp)
                stamp.write(to: stampPath)
            }
        }
        result.times = times + result.times + after
        return .generated(result, why: why)
    }

    /// What ``runModule(_:into:)`` did.
    package struct ModuleResult: Sendable {
        /// Whether the output file changed (an unchanged file is not rewritten, so builds stay incremental).
        package var written: Bool
        package var diagnostics: [Diagnostic]
    }

    /// The build plugin's mode: renders everything one module needs into one Swift file, reading the
    /// descriptions and snapshots and writing nothing else. `module` is `targets.app.module_name` or
    /// `targets.app_tests.module_name`; the generated tests then find the committed fixture stores in
    /// the `Fixtures` folder of `targets.app_tests.output_path`, which stays in the package.
    ///
    /// A released version whose snapshot is missing or would change cannot be frozen from here (a build
    /// may not write into the package): that is an error telling the user to run
    /// `swift package lucidgen generate`. The current version's snapshot is not needed to build and is
    /// left to `generate`.
    package func runModule(_ module: String, into outputFile: String, force: Bool = false) throws(GenerationFailed) -> ModuleResult {
        var configDiagnostics = DiagnosticCollector()
        let loadedConfig = try Config.load(from: configPath, diagnostics: &configDiagnostics)
        let stampPath = GenerationStamp.path(forModuleOutput: outputFile)
        let fingerprint = InputFingerprint.compute(config: loadedConfig, mode: "module \(module) -> \(outputFile)")
        if !force, let stamp = GenerationStamp.read(stampPath), stamp.staleness(inputs: fingerprint, ownedFolders: []) == nil {
            stamp.settled()?.write(to: stampPath)
            return ModuleResult(written: false, diagnostics: stamp.diagnostics)
        }
        GenerationStamp.remove(stampPath)
        let result = try renderModule(
            module, into: outputFile, input: try load(loadedConfig, configDiagnostics: configDiagnostics.diagnostics))
        GenerationStamp(inputs: fingerprint, outputs: [outputFile], ownedFolders: [], diagnostics: result.diagnostics, summary: "").write(
            to: stampPath)
        return result
    }

    private func renderModule(_ module: String, into outputFile: String, input: LoadedInput) throws(GenerationFailed) -> ModuleResult {
        // The requirements rendered here are compiled by this very build: one the app lacks is its build error.
        let model = try Resolver.resolve(input, requirements: .renderedIntoTheBuild)
        let config = model.config
        let folder: String
        var fixtures: String?
        if module == config.app.moduleName {
            folder = config.app.outputPath
        } else if let tests = config.appTests, module == tests.moduleName {
            folder = tests.outputPath
            fixtures = (tests.outputPath as NSString).appendingPathComponent("Fixtures")
        } else {
            let known = [config.app.moduleName] + (config.appTests.map { [$0.moduleName] } ?? [])
            throw GenerationFailed(
                "the target '\(module)' is neither targets.app.module_name nor targets.app_tests.module_name (\(known.joined(separator: ", "))): apply the lucidgen build plugin to those targets only, or name them so in the config",
                at: SourceLocation(file: displayPath(config.file)))
        }
        let unfrozen = model.snapshots.filter { $0.version < model.currentVersion }
        if !unfrozen.isEmpty {
            throw GenerationFailed(
                "released version\(unfrozen.count == 1 ? "" : "s") \(unfrozen.map(\.version.string).joined(separator: ", ")) must be frozen into \(displayPath(config.schemaPath)) before building: run `swift package lucidgen generate` (or `lucidgen generate`) and commit the snapshot; the build plugin only reads snapshots",
                at: SourceLocation(file: displayPath(config.file)))
        }
        let output = try Renderer(templatesPath: config.templatesPath).render(model, fixturesFolder: fixtures)
        let prefix = (folder as NSString).standardizingPath + "/"
        let files = output.files.filter { $0.path.hasSuffix(".swift") && ($0.path as NSString).standardizingPath.hasPrefix(prefix) }.sorted
        { $0.path < $1.path }
        let header = "// Generated by lucidgen \(LucidGenVersion.current) (build plugin) for module \(module). Do not edit.\n"
        let text = header + files.map { "\n// MARK: - \(($0.path as NSString).lastPathComponent)\n\n" + $0.contents }.joined()
        if FileKind.at(outputFile) == .regular, FileManager.default.contents(atPath: outputFile) == Data(text.utf8) {
            return ModuleResult(written: false, diagnostics: output.diagnostics)
        }
        do {
            try FileManager.default.createDirectory(
                atPath: (outputFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try OutputFile.write(Data(text.utf8), to: outputFile)
        } catch {
            throw GenerationFailed("cannot write '\(outputFile)': \(error.localizedDescription)")
        }
        return ModuleResult(written: true, diagnostics: output.diagnostics)
    }
}
