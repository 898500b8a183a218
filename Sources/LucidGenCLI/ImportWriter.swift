import ArgumentParser
import Foundation
import LucidGenCore
import LucidGenStore
@_spi(Generated) import LucidSchema

/// The options of what an import writes, shared by `import coredata` and `import swiftdata`.
struct ImportWriting: ParsableArguments {
    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The descriptions' folder (default: input_path of the config, else .entities).", valueName: "folder"))
    var output: String?

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The config file (written when it does not exist; its current_version is set to the newest version).", valueName: "path"))
    var config: String = ".lucid.yaml"

    @Option(help: ArgumentHelp("The module name of a config written from scratch.", valueName: "name"))
    var module: String = "App"

    @Option(help: ArgumentHelp("Also write the notes to this file (Markdown).", valueName: "file"))
    var report: String?

    @Flag(help: "Replace descriptions that exist already and differ.")
    var force = false

    func validate() throws {
        // Before anything is read or written: a report that cannot be written would fail the import after its descriptions.
        if let report, let problem = OutputFile.problem(writing: report) { throw ValidationError("--report \(report): \(problem)") }
    }

    var writer: ImportWriter { ImportWriter(config: config, output: output, module: module, force: force, report: report) }
}

/// What `import coredata` and `import swiftdata` write once the importer has its result: the descriptions, the
/// origin file and the config (written, or its current_version and stages updated), all or nothing; then the
/// notes, printed and in the report.
struct ImportWriter {
    var config: String
    var output: String?
    var module: String
    var force: Bool
    var report: String?
    /// Where the stages come from, for the config's comment ("the app's Core Data mapping models (lucidgen import coredata)").
    var stagesSource = "the app's Core Data mapping models (lucidgen import coredata)"
    /// The same, short, for the warning that asks to add them ("the mapping models").
    var stagesShortSource = "the mapping models"

    /// Writes `result`; `order` is the history's order as printed (its basis and one line per version).
    func write(
        _ result: CoreDataImporter.Output, stages: [CoreDataMappingStages.Stage], otherNotes: [CoreDataImporter.Note], title: String,
        order: (basis: String, lines: [String]), versions: Int, noteLocation: (String) -> String
    ) throws {
        print("order (\(order.basis)):")
        for line in order.lines { print("  \(line)") }
        let configExists = FileManager.default.fileExists(atPath: config)
        var diagnostics = DiagnosticCollector()
        let existing = configExists ? try? Config.load(from: config, diagnostics: &diagnostics) : nil
        if configExists && existing == nil {
            printDiagnostics(diagnostics.diagnostics, verbose: false)
            throw ExitCodes.inputErrors
        }
        var folder =
            output ?? existing?.inputPath
            ?? (((config as NSString).deletingLastPathComponent as NSString).appendingPathComponent(".entities"))
        if folder.hasPrefix("./") { folder.removeFirst(2) }
        let files =
            result.files.map { ((folder as NSString).appendingPathComponent("\($0.name).json"), $0.json) }
            + [((folder as NSString).appendingPathComponent(".coredata/origin.json"), result.origin)]
        // Files that already hold what the import gives are left as they are.
        let changed = files.filter { path, json in (try? String(contentsOfFile: path, encoding: .utf8)) != json }
        var writes = changed.map { FileTransaction.File(path: $0.0, text: $0.1, mayReplace: force) }
        let version = result.currentVersion.string
        var configChanges: [String] = []
        if !configExists {
            writes.append(
                FileTransaction.File(
                    path: config,
                    text: StoreDescription.newConfigText(
                        inputFolder: folder, version: version, module: module, stages: Self.stagesYAML(stages, from: stagesSource)),
                    mayReplace: false)
            )
        } else if let existing {
            var text = try String(contentsOfFile: config, encoding: .utf8)
            if existing.currentVersion != result.currentVersion {
                text = Self.setting(currentVersion: version, in: text)
                configChanges.append("current_version \(version)")
            }
            if let added = Self.addingStages(
                stages, from: stagesSource, shortly: stagesShortSource, to: &text, of: config,
                declared: Set(existing.hookStages.map(\.name)))
            {
                configChanges.append("stages \(added)")
            }
            if !configChanges.isEmpty { writes.append(FileTransaction.File(path: config, text: text, mayReplace: true)) }
        }
        do {
            try FileTransaction.write(writes, replaceReason: "a description exists already and differs (pass --force to replace it)")
        } catch {
            for (path, reason) in error.refused { printError("\(displayPath(path)): error: \(reason)\n") }
            printError("import: nothing was written\n")
            throw ExitCodes.inputErrors
        }
        for file in writes where file.path != config { print("wrote    \(displayPath(file.path))") }
        if !configExists { print("wrote    \(displayPath(config))") }
        for change in configChanges { print("updated  \(displayPath(config)): \(change)") }
        let written = writes.filter { $0.path != config }.count
        // Descriptions in the folder that the model does not have (`lucidgen init`'s example entity): kept, and said.
        let imported = Set(files.map { ($0.0 as NSString).lastPathComponent }) // origin.json is in .coredata/
        let others = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".json") && !imported.contains($0)
        }.sorted()
        for other in others {
            printError(
                "\(displayPath((folder as NSString).appendingPathComponent(other))): warning: not an entity of this model; delete it if the app does not have it (lucidgen init's example entity, say)\n"
            )
        }
        for note in result.notes { print("\(noteLocation(note.location)): note: \(note.message)") }
        for note in otherNotes { print("\(displayPath(note.location)): note: \(note.message)") } // located where they are
        if let report {
            var text = "# Import of \(title)\n\nOrder (\(order.basis)):\n\n"
            text += order.lines.map { "- \($0)" }.joined(separator: "\n") + "\n"
            text += "\n## Decisions to review (\(result.notes.count))\n\n"
            text += (result.notes + otherNotes).map { "- `\($0.location)`: \($0.message)" }.joined(separator: "\n") + "\n"
            do {
                try OutputFile.write(Data(text.utf8), to: report)
            } catch {
                printError("\(displayPath(report)): error: the report was not written: \(error)\n")
                throw ExitCodes.inputErrors
            }
        }
        let entities = result.files.filter { !$0.name.hasPrefix("Subtypes/") }.count
        let subtypes = result.files.count - entities
        let structs = subtypes == 0 ? "" : " and \(subtypes) struct\(subtypes == 1 ? "" : "s")"
        print(
            "imported \(entities) entit\(entities == 1 ? "y" : "ies")\(structs) over \(versions) model version\(versions == 1 ? "" : "s") (\(written) file\(written == 1 ? "" : "s") written, \(result.notes.count + otherNotes.count) note\(result.notes.count + otherNotes.count == 1 ? "" : "s") to review); next: `lucidgen generate`"
        )
    }

    /// Prints the notes and every refusal, each at `location(…)` of where the importer put it, and stops with
    /// nothing written.
    static func refuse(_ errors: [CoreDataImportError], notes: [CoreDataImporter.Note], location: (String) -> String) throws -> Never {
        for note in notes { print("\(location(note.location)): note: \(note.message)") }
        for error in errors { printError("\(location(error.location)): error: \(error.message)\n") }
        printError("import: nothing was written (\(errors.count) error\(errors.count == 1 ? "" : "s"))\n")
        throw ExitCodes.inputErrors
    }

    /// The `stages` block of a config for the mapping models' stages ("" when there are none).
    static func stagesYAML(_ stages: [CoreDataMappingStages.Stage], from source: String) -> String {
        guard !stages.isEmpty else { return "" }
        var text = "# Stages from \(source): write their code.\nstages:\n"
        for stage in stages {
            text += "  - name: \(stage.name)\n    from: \"\(stage.from.string)\"\n    to: \"\(stage.to.string)\"\n"
            if !stage.notes.isEmpty {
                text += "    notes:\n" + stage.notes.map { "      - \(DescriptionWriter.string($0))\n" }.joined()
            }
        }
        return text
    }

    /// `text` (a config) with `current_version` set to `version`.
    static func setting(currentVersion version: String, in text: String) -> String {
        var lines = text.components(separatedBy: "\n")
        if let index = lines.firstIndex(where: { $0.hasPrefix("current_version:") }) {
            lines[index] = "current_version: \"\(version)\""
        } else {
            lines.insert("current_version: \"\(version)\"", at: 0)
        }
        return lines.joined(separator: "\n")
    }

    /// Adds the stages an existing config does not declare yet: appended as a `stages` block when it has none
    /// (returning their names), else printed for the user to add (rewriting someone's YAML list would lose
    /// their layout and comments).
    static func addingStages(
        _ stages: [CoreDataMappingStages.Stage], from source: String, shortly: String, to text: inout String, of config: String,
        declared: Set<String>
    )
        -> String?
    {
        let missing = stages.filter { !declared.contains($0.name) }
        guard !missing.isEmpty else { return nil }
        if text.components(separatedBy: "\n").contains(where: { $0.hasPrefix("stages:") }) {
            printError("\(displayPath(config)): warning: the config has stages already; add these (from \(shortly)) to them:\n")
            printError(stagesYAML(missing, from: source).components(separatedBy: "\n").dropFirst(2).joined(separator: "\n"))
            return nil
        }
        if !text.hasSuffix("\n") { text += "\n" }
        text += stagesYAML(missing, from: source)
        return missing.map(\.name).joined(separator: ", ")
    }
}
