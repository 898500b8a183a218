import Foundation
import PackagePlugin

/// Embeds the package's top-level `Templates/*.mustache` into the target as Swift string constants.
@main
struct EmbedTemplates: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let templates = context.package.directoryURL.appending(path: "Templates")
        let files = try FileManager.default.contentsOfDirectory(atPath: templates.path)
            .filter { $0.hasSuffix(".mustache") }.sorted().map { templates.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "BundledTemplates.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) templates",
                executable: try context.tool(named: "template-embedder").url,
                arguments: [templates.path, output.path],
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
