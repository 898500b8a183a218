import Foundation
import LucidSchema
@_spi(Generated) import LucidSchema
import Mustache

/// A file the generator produces: where it goes and what it holds.
package struct GeneratedFile: Sendable, Equatable {
    /// Absolute path.
    package var path: String
    package var contents: String
}

/// What the Render stage produces: every generated file, plus the folders whose stale generated files are removed.
package struct RenderedOutput: Sendable {
    package var files: [GeneratedFile]
    /// Folders owned by the generator: a generated `.swift` file in them that is not in `files` is stale.
    package var ownedFolders: [String]
    package var diagnostics: [Diagnostic]
}

/// The Render stage: builds a view model per file (`TemplateContexts.swift`) and renders it with the Mustache templates.
///
/// Templates are the bundled ones (embedded in the binary from `Templates/`), each replaceable by a
/// file of the same name in `templates_path`.
package struct Renderer {
    let library: MustacheLibrary

    /// The names of the bundled templates.
    package static var templateNames: [String] { BundledTemplates.all.keys.sorted() }

    /// The text of a bundled template.
    package static func bundledTemplate(named name: String) -> String? { BundledTemplates.all[name] }

    package init(templatesPath: String?) throws(GenerationFailed) {
        var library = MustacheLibrary()
        var sources = BundledTemplates.all.map { (name: $0.key, text: $0.value, file: "Templates/\($0.key).mustache") }
        var overrides: [(name: String, text: String, file: String)] = []
        if let templatesPath {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: templatesPath) else {
                throw GenerationFailed("templates_path '\(displayPath(templatesPath))' is not a readable folder")
            }
            for name in names.sorted() where name.hasSuffix(".mustache") {
                let path = (templatesPath as NSString).appendingPathComponent(name)
                let key = String(name.dropLast(".mustache".count))
                guard BundledTemplates.all[key] != nil else {
                    throw GenerationFailed(
                        "'\(name)' replaces no bundled template (\(Self.templateNames.map { "\($0).mustache" }.joined(separator: ", ")))",
                        at: SourceLocation(file: displayPath(path)))
                }
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw GenerationFailed("cannot read this template", at: SourceLocation(file: displayPath(path)))
                }
                sources.removeAll { $0.name == key }
                sources.append((key, text, displayPath(path)))
                overrides.append((key, text, displayPath(path)))
            }
        }
        for source in sources {
            do {
                try library.register(source.text, named: source.name)
            } catch let error as MustacheTemplate.ParserError {
                throw GenerationFailed(
                    "template syntax error: \(error.error)",
                    at: SourceLocation(file: source.file, line: error.context.lineNumber, column: error.context.columnNumber))
            } catch {
                throw GenerationFailed("template syntax error: \(error)", at: SourceLocation(file: source.file))
            }
        }
        if !overrides.isEmpty {
            try Self.checkNames(of: overrides, partials: Dictionary(uniqueKeysWithValues: sources.map { ($0.name, $0.text) }))
        }
        self.library = library
    }

    /// An app's templates (`templates_path`) name only keys of the context each is rendered with
    /// (`Templates.md`): swift-mustache renders any other name as nothing, which would leave the generated
    /// code silently short of what the template meant. Each finding is an error at its line.
    static func checkNames(of overrides: [(name: String, text: String, file: String)], partials: [String: String]) throws(GenerationFailed)
    {
        let contract = TemplateContract(partials: partials)
        let files = Dictionary(uniqueKeysWithValues: overrides.map { ($0.name, $0.file) })
        var seen = Set<String>()
        var diagnostics: [Diagnostic] = []
        for override in overrides {
            for finding in contract.check(override.name, text: override.text, frames: TemplateContract.frames(override.name))
            where seen.insert(finding.description).inserted {
                // A finding in a bundled partial cannot happen (the tests check them); one in an app's partial is its own.
                guard let file = files[finding.template] else { continue }
                diagnostics.append(
                    Diagnostic(
                        .error,
                        finding.message
                            + " (the keys each template is rendered with: the Templates article of LucidRuntime's documentation)",
                        at: SourceLocation(file: file, line: finding.line, column: finding.column)))
            }
        }
        if !diagnostics.isEmpty { throw GenerationFailed(diagnostics: diagnostics) }
    }

    /// Renders every file of the resolved model.
    ///
    /// `fixturesFolder` is where the generated tests find the committed fixture stores: nil for the
    /// `Fixtures` folder beside the generated tests file (written into the test target), or an absolute
    /// path when the file is generated elsewhere (the build plugin's work directory).
    package func render(_ model: ResolvedModel, fixturesFolder: String? = nil) throws(GenerationFailed) -> RenderedOutput {
        let config = model.config
        let viewModels = ViewModels(model: model)
        var files: [GeneratedFile] = []
        // Each file is a job: its view model is built and rendered later, all jobs on every core at once
        // (rendering is most of a large project's first run, and the files are independent).
        var jobs: [() -> GeneratedFile?] = []
        func emit(
            _ template: String, _ relativePath: String, in folder: String, source: String,
            _ makeContext: @escaping @autoclosure () -> any TemplateContext
        ) throws(GenerationFailed) {
            guard library.getTemplate(named: template) != nil else { throw GenerationFailed("missing template '\(template)'") }
            let header = HeaderContext(
                // Comment text: the loader refuses control characters in organization_name, and paths are escaped too.
                fileName: swiftCommentText((relativePath as NSString).lastPathComponent), source: swiftCommentText(source),
                organization: config.organizationName.map(swiftCommentText),
                // `access_level`: every generated declaration's modifier; `internal` types reach the generated
                // tests through `@testable import`.
                access: config.accessLevel.rawValue, testable: config.accessLevel == .internal,
                // In plugin mode `lucidgen generate` writes no Swift: the header says what remakes the file.
                regenerate: config.buildPlugin ? "`swift build` remakes it (the build plugin)" : "then run `lucidgen generate`")
            jobs.append { [library] in
                let context = TemplateValue.dictionary(header: header, makeContext())
                guard let text = library.render(context, withTemplate: template) else { return nil }
                return GeneratedFile(
                    path: (folder as NSString).appendingPathComponent(relativePath), contents: Self.tidy(SwiftLayout.wrappingComments(text))
                )
            }
        }
        let appFolder = config.app.outputPath
        // Headers name sources relative to the config's folder, so output does not depend on the working directory.
        func source(_ path: String) -> String { relativePath(absolutePath(path), from: config.directory) }
        let inputFolder = source(config.inputPath)
        for entity in model.entities {
            try emit(
                "entity", "Entities/\(Naming.typeName(entity.name)).swift", in: appFolder, source: source(entity.file),
                viewModels.entity(entity))
        }
        for subtype in model.subtypes {
            try emit(
                "subtype", "Subtypes/\(Naming.typeName(subtype.name)).swift", in: appFolder, source: source(subtype.location.file),
                viewModels.subtype(subtype))
        }
        try emit("schema", "\(viewModels.registryName).swift", in: appFolder, source: inputFolder, viewModels.schema())
        // With a migrations_provider, always: its conformance (to a protocol without requirements while no step
        // needs the app's code) and `stages(using:)` exist from the start, so the first such step is a build error.
        if !model.customSteps.isEmpty || config.migrationsProvider != nil {
            try emit("migrations", "\(config.app.moduleName)Migrations.swift", in: appFolder, source: inputFolder, viewModels.migrations())
        }
        var ownedFolders = [appFolder]
        var diagnostics = model.diagnostics
        if let tests = config.appTests {
            guard let provider = config.expectationsProvider else {
                throw GenerationFailed(
                    "targets.app_tests needs 'expectations_provider': the test target's type that gives the generated migration tests the app's store options and expectations (see \"Generated migration tests\" in LucidTesting's documentation)",
                    at: tests.location ?? SourceLocation(file: displayPath(config.file)), path: "$.targets.app_tests")
            }
            // Each the value of a `static let <name> = ` 4 spaces in, wrapped when it is too long for one line.
            func call(_ head: String, _ arguments: [String], name: String) -> String {
                SwiftLayout.fittingCall(head, arguments, indent: "    ", prefix: "static let \(name) = ".count)
            }
            let fixturesLiteral =
                fixturesFolder.map(swiftStringLiteral)
                ?? call("LucidTesting.FixtureFiles.folder", ["besideFile: #filePath"], name: "fixturesFolder")
            // The sample rows: `.samples` in the descriptions' folder, found from the generated file (or by its
            // absolute path when the file is generated elsewhere, as the build plugin does).
            let samples = absolutePath(config.samplesPath)
            let samplesLiteral =
                fixturesFolder != nil
                ? swiftStringLiteral(samples)
                : call(
                    "LucidTesting.SampleRows.folder",
                    [
                        "besideFile: #filePath",
                        "relativePath: \(swiftStringLiteral(relativePath(samples, from: absolutePath(tests.outputPath))))",
                    ],
                    name: "samplesFolder")
            // The current version's snapshot: `lucidgen release` marks it released, and the tests then want its fixture.
            let snapshot = (absolutePath(config.schemaPath) as NSString).appendingPathComponent(
                SchemaSnapshot.fileName(for: model.currentVersion))
            let snapshotLiteral =
                fixturesFolder != nil
                ? swiftStringLiteral(snapshot)
                : call(
                    "LucidTesting.FixtureFiles.path",
                    [
                        "besideFile: #filePath",
                        "relativePath: \(swiftStringLiteral(relativePath(snapshot, from: absolutePath(tests.outputPath))))",
                    ],
                    name: "currentSnapshot")
            try emit(
                "tests", "\(config.app.moduleName)MigrationTests.swift", in: tests.outputPath, source: inputFolder,
                viewModels.migrationTests(
                    provider: provider,
                    files: ViewModels.TestFiles(
                        samplesFolder: samplesLiteral, fixturesFolder: fixturesLiteral, currentSnapshot: snapshotLiteral)))
            ownedFolders.append(tests.outputPath)
            // The name `lucidgen fixtures` gives it (LucidTesting.FixtureFiles.fileName).
            let fixture = (tests.outputPath as NSString).appendingPathComponent(
                "Fixtures/\(config.app.moduleName)_\(model.currentVersion.identifierSuffix).sqlite")
            if !FileManager.default.fileExists(atPath: fixture) {
                diagnostics.append(
                    Diagnostic(
                        .note,
                        "no fixture store for \(model.currentVersion) yet: when it is final, `lucidgen release` writes \(displayPath(fixture)) and its .sha256; commit them"
                    ))
            }
            // Keeps the fixture folder in git (and in the test target's `exclude`) before the first fixture.
            files.append(
                GeneratedFile(
                    path: (tests.outputPath as NSString).appendingPathComponent("Fixtures/.gitkeep"),
                    contents:
                        "# Fixture stores: `lucidgen release` at each release writes <Module>_<version>.sqlite and its .sha256 here. Commit both.\n"
                ))
        }
        // Snapshots are jobs too: encoding a long history's snapshots is a third of a first run.
        let templateJobs = jobs.count
        for (index, snapshot) in model.snapshots.enumerated() {
            let path = (config.schemaPath as NSString).appendingPathComponent(SchemaSnapshot.fileName(for: snapshot.version))
            let base = index < model.snapshotBases.count ? model.snapshotBases[index] : nil
            jobs.append { GeneratedFile(path: path, contents: SnapshotFile(snapshot, continuing: base).encoded()) }
        }
        // The one-per-module files (schema, migrations, tests) and the snapshots grow with the whole
        // history and are started first, so that no core waits for the longest job at the end.
        let perEntity = model.entities.count + model.subtypes.count
        let order = Array(perEntity..<jobs.count) + Array(0..<perEntity)
        var rendered = [GeneratedFile?](repeating: nil, count: jobs.count)
        for (index, file) in zip(order, Parallel.map(count: jobs.count) { [jobs] in jobs[order[$0]]() }) { rendered[index] = file }
        // A template that exists renders (swift-mustache returns nil only for a missing one).
        let templates = rendered[..<templateJobs].compactMap { $0 }
        let snapshots = rendered[templateJobs...].compactMap { $0 }
        return RenderedOutput(files: templates + files + snapshots, ownedFolders: ownedFolders, diagnostics: diagnostics)
    }

    /// Removes trailing spaces and collapses runs of blank lines, so templates can stay readable.
    ///
    /// Works on the UTF-8 bytes: splitting the text into `Character`s was a tenth of a large project's
    /// first run. A line ends at each `\n` that is not the second half of a `\r\n` (which, as one
    /// `Character`, never ended a line), so the result is what the `Character`-wise tidying gave.
    static func tidy(_ text: String) -> String {
        let space = UInt8(ascii: " "), newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        var output: [UInt8] = []
        // The output up to its last line that is not blank: trailing blank lines are dropped.
        var keptCount = 0
        var text = text
        text.withUTF8 { bytes in
            output.reserveCapacity(bytes.count + 1)
            var lineStart = 0
            var previousWasBlank = false
            for position in 0...bytes.count {
                let atEnd = position == bytes.count
                guard atEnd || (bytes[position] == newline && (position == 0 || bytes[position - 1] != carriageReturn)) else { continue }
                let line = lineStart
                lineStart = position + 1
                var lineEnd = position
                while lineEnd > line, bytes[lineEnd - 1] == space { lineEnd -= 1 }
                let blank = lineEnd == line
                // Leading blank lines go, and a run of blank lines becomes one.
                if blank && (previousWasBlank || output.isEmpty) { continue }
                previousWasBlank = blank
                output.append(contentsOf: bytes[line..<lineEnd])
                output.append(newline)
                if !blank { keptCount = output.count }
            }
        }
        output.removeSubrange(keptCount...)
        if output.isEmpty { output.append(newline) }
        return String(decoding: output, as: UTF8.self)
    }
}
