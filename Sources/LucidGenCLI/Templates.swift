import ArgumentParser
import Foundation
import LucidGenCore

/// `lucidgen templates`: the bundled templates, to start an app's own (`templates_path`) from.
struct Templates: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the bundled Mustache templates into a folder, to start your own (templates_path) from.",
        discussion: """
            Writes the templates this lucidgen renders with (entity, subtype, schema, migrations, tests, header), \
            each as <name>.mustache, into --output (default: templates). Point templates_path in .lucid.yaml at \
            the folder and edit what you need: a file there replaces the bundled template of its name, and a \
            template you do not change can be deleted. The names a template can use are the keys in the \
            "Custom templates" article of LucidRuntime's documentation; `lucidgen generate` reports any other \
            name at its file and line (Mustache would render it as nothing).

            Nothing is written when a file to write exists, unless --force. Templates written by an older \
            lucidgen may use keys this one no longer has: its changelog lists them, and `generate` reports them.
            """)

    @Argument(help: ArgumentHelp("The templates to write; all when none is named.", valueName: "name"))
    var names: [String] = []

    @Option(name: .shortAndLong, help: ArgumentHelp("The folder to write them into (made if missing).", valueName: "path"))
    var output: String = "templates"

    @Flag(help: "Replace template files that exist.")
    var force = false

    /// The templates to write, by name (`entity.mustache` is `entity`).
    var chosen: [String] {
        names.isEmpty ? Renderer.templateNames : names.map { $0.hasSuffix(".mustache") ? String($0.dropLast(".mustache".count)) : $0 }
    }

    func validate() throws {
        for (name, template) in zip(names, chosen) where Renderer.bundledTemplate(named: template) == nil {
            throw ValidationError("'\(name)' is no bundled template (\(Renderer.templateNames.joined(separator: ", ")))")
        }
    }

    func run() throws {
        let files = chosen.map { (name: $0, path: (output as NSString).appendingPathComponent("\($0).mustache")) }
        do {
            try FileTransaction.write(
                files.map { FileTransaction.File(path: $0.path, text: Renderer.bundledTemplate(named: $0.name)!, mayReplace: force) },
                replaceReason: "exists; nothing was written (--force replaces it)")
        } catch {
            printError(error.refused.map { "\($0.path): error: \($0.reason)\n" }.joined())
            throw ExitCodes.inputErrors
        }
        for file in files { print("wrote \(file.path)") }
        print("Next: set `templates_path: \(output)` in .lucid.yaml (relative to it), edit the templates, run `lucidgen generate`.")
    }
}
