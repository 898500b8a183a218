import Foundation

/// The generator, one screen: Load → Resolve → Render → Write.
///
/// Each stage has a named output type that can be printed and tested on its own:
/// ``LoadedInput`` (config + descriptions as written), ``ResolvedModel`` (every entity at every
/// version, one schema per version, checked against the frozen snapshots), ``RenderedOutput``
/// (file paths and contents) and ``WriteReport`` (what changed on disk). Every stage collects
/// diagnostics instead of printing; nothing is written unless every earlier stage succeeded.
public struct GeneratorPipeline {
    public var configPath: String

    public init(configPath: String) {
        self.configPath = configPath
    }

    public struct Result: Sendable {
        public var report: WriteReport
        /// Warnings and notes from every stage.
        public var diagnostics: [Diagnostic]
        public var model: ResolvedModel
    }

    public func load() throws(GenerationFailed) -> LoadedInput {
        var diagnostics = DiagnosticCollector()
        let config = try Config.load(from: configPath, diagnostics: &diagnostics)
        var input = try DescriptionLoader.load(config: config)
        input.diagnostics.insert(contentsOf: diagnostics.diagnostics, at: 0)
        return input
    }

    /// Runs every stage. With `check`, nothing is written and the report says what would change.
    public func run(check: Bool) throws(GenerationFailed) -> Result {
        let input = try load()
        let model = try Resolver.resolve(input)
        let output = try Renderer(templatesPath: model.config.templatesPath).render(model)
        let report = try OutputWriter.write(output, dryRun: check)
        return Result(report: report, diagnostics: output.diagnostics, model: model)
    }
}

/// The version of lucidgen.
public enum LucidGenVersion {
    public static let current = "0.1.0"
}
