import Foundation
@_spi(Generated) import LucidSchema
import Yams

/// The contents of `.lucid.yaml`, with every path made absolute against the config's folder.
package struct Config: Sendable {
    /// A generated target: the Swift module it belongs to and the folder the files go to.
    package struct Target: Sendable, Equatable {
        package var moduleName: String
        package var outputPath: String
        /// Where the config declares the target (its key under `targets`), for messages about it.
        package var location: SourceLocation?
    }

    /// The folder holding the config file; relative paths in the config are resolved against it.
    package var directory: String
    package var file: String
    /// Where the entity descriptions are (`input_path`, default `.entities`).
    package var inputPath: String
    /// Where the config sets `input_path`, for messages about the folder; nil when it is the default.
    package var inputPathLocation: SourceLocation?
    /// The app version being generated (`current_version`); defaults to the newest version in any history.
    package var currentVersion: SchemaVersion?
    /// Where the frozen per-version schema snapshots live (`schema_path`, default `<input_path>/.schema`).
    package var schemaPath: String
    /// The folder of the project's sample rows for the generated tests (`<input_path>/.samples`, one
    /// `<version>.json` each, `LucidTesting.SampleRows`), which the description loader does not read.
    package var samplesPath: String { (inputPath as NSString).appendingPathComponent(Self.samplesFolderName) }
    package static let samplesFolderName = ".samples"
    /// The generated app code (`targets.app`).
    package var app: Target
    /// The generated migration tests (`targets.app_tests`), if any.
    package var appTests: Target?
    /// The test target's type that supplies the migration tests' options and expectations
    /// (`targets.app_tests.expectations_provider`).
    package var expectationsProvider: String?
    /// A folder of `.mustache` files that replace bundled templates of the same name (`templates_path`).
    package var templatesPath: String?
    /// Used in the header of generated files (`organization_name`).
    package var organizationName: String?
    /// The app's type that provides custom migration stages (`migrations_provider`, or Lucid's `core_data_migrations_function`).
    package var migrationsProvider: String?
    /// Stages with will/did hooks declared in the config (`stages`), for changes across several entities.
    package var hookStages: [HookStage] = []
    /// The generated code is made by the SwiftPM build plugin during `swift build` (`build_plugin: true`):
    /// `lucidgen generate` then writes only what is committed (frozen snapshots, the fixture folder),
    /// never Swift files, which would duplicate the plugin's.
    package var buildPlugin = false
    /// What `lucidgen check` reports about each step (`lint`): severities per code, acknowledged findings.
    package var lint = LintSettings()
    /// `column_naming`: how a property's name becomes its column's when it has no `persisted_name`.
    package var columnNaming: ColumnNaming = .asNamed
    /// `access_level`: the access modifier of every generated declaration (`public`, or `internal` for
    /// an app target whose generated types are its own business).
    package var accessLevel: AccessLevel = .public

    /// `stages: [{ from: "2.0", to: "2.1", name: moveFlightData }]`: a step whose SQL the app's code
    /// surrounds (`<name>WillMigrate` at the old schema, `<name>DidMigrate` at the new one).
    package struct HookStage: Sendable {
        package var from: SchemaVersion
        package var to: SchemaVersion
        package var name: String
        /// Lines the generated requirements' comment lists (`notes`): what the stage must do, e.g. the entity
        /// mappings of the Core Data mapping model it replaces.
        package var notes: [String] = []
        package var location: SourceLocation
    }

    package static let defaultFileName = ".lucid.yaml"

    /// A config with every default, for a package rooted at `directory`.
    package init(directory: String, moduleName: String = "App") {
        self.directory = directory
        self.file = (directory as NSString).appendingPathComponent(Self.defaultFileName)
        self.inputPath = (directory as NSString).appendingPathComponent(".entities")
        self.schemaPath = (inputPath as NSString).appendingPathComponent(".schema")
        self.app = Target(
            moduleName: moduleName, outputPath: (directory as NSString).appendingPathComponent("Sources/\(moduleName)/Generated"))
    }
}

/// How a property's name becomes its column's name when the property has no `persisted_name`.
package enum ColumnNaming: String, Sendable {
    /// The column is named as the property (`room_id`), and indexes `<table>_<columns>_index`/`_unique`.
    case asNamed = "as_named"
    /// GRDB's convention: `room_id` is column `roomId`, and indexes `<table>_on_<columns>` (as GRDB's
    /// `belongsTo` and `indexed()` name them).
    case camelCase = "camel_case"

    /// The column of a property named `name`.
    package func column(_ name: String) -> String {
        switch self {
        case .asNamed: name
        case .camelCase: Naming.propertyName(name)
        }
    }

    /// The default name of an index over `columns` of `table`.
    package func indexName(table: String, columns: [String], unique: Bool) -> String {
        switch self {
        case .asNamed: "\(table)_\(columns.joined(separator: "_"))_\(unique ? "unique" : "index")"
        case .camelCase: "\(table)_on_\(columns.joined(separator: "_"))"
        }
    }
}

/// The access modifier of every generated declaration (`access_level`).
package enum AccessLevel: String, Sendable {
    /// The default: a library target's types, for the modules that import it.
    case `public`
    /// An app target's types: the generated migration tests import the module with `@testable`.
    case `internal`
}

/// The keys valid in the config and its sections (snake_case).
private enum ConfigKeys {
    static let root = [
        "input_path", "schema_path", "current_version", "templates_path", "organization_name", "build_plugin", "migrations_provider",
        "core_data_migrations_function", "stages", "lint", "targets", "column_naming",
        "access_level",
    ]
    static let stage = ["name", "from", "to", "notes"]
    static let targets = ["app", "app_tests"]
    static let target = ["module_name", "output_path"]
    static let testsTarget = target + ["expectations_provider"]
}

/// Keys of Lucid's config that mean nothing to lucidgen, and why.
private let ignoredConfigKeys: [String: String] = [
    "cache_path": "lucidgen reads every version from the repository's files and needs no cache",
    "git_remote": "lucidgen never uses git or the network",
    "force_build_new_db_model": "lucidgen always resolves every version and freezes released ones",
    "force_build_new_db_model_for_versions": "lucidgen always resolves every version and freezes released ones",
    "use_core_data_legacy_naming": "only meaningful to Lucid's Core Data model",
    "extensions_path": "Lucid's code generation extensions are not supported",
    "active_targets": "lucidgen generates every target that `targets` lists",
    "lexicon": "names are used as written",
    "entity_suffix": "type names are the entity names with a version suffix",
    "last_release_tag": "lucidgen does not read release tags",
    "response_handler_function": "only meaningful to Lucid's network layer",
    "platforms": "generated code is the same on every platform",
]

extension Config {
    /// Reads a config file. Every problem is collected; errors are thrown together.
    package static func load(from file: String, diagnostics: inout DiagnosticCollector) throws(GenerationFailed) -> Config {
        let displayFile = displayPath(file)
        guard let data = FileManager.default.contents(atPath: file) else {
            let exists = FileManager.default.fileExists(atPath: file)
            throw GenerationFailed(
                exists ? "cannot read the config file" : "no config file here; run `lucidgen init` to create one",
                at: SourceLocation(file: displayFile))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw GenerationFailed("the config file is not UTF-8 text", at: SourceLocation(file: displayFile))
        }
        let root = try YAMLReader.parse(text, file: displayFile)
        let directory = ((file as NSString).deletingLastPathComponent as NSString).standardizingPath
        var config = Config(directory: directory.isEmpty ? "." : directory)
        config.file = file
        if case .null = root.value { return config }
        guard
            var reader = ObjectReader(
                root, what: "the config", known: ConfigKeys.root, ignored: ignoredConfigKeys, diagnostics: &diagnostics)
        else {
            throw GenerationFailed(diagnostics: diagnostics.diagnostics)
        }
        func path(_ relative: String) -> String {
            relative.hasPrefix("/")
                ? relative : ((config.directory as NSString).appendingPathComponent(relative) as NSString).standardizingPath
        }
        if let input = reader.string("input_path", &diagnostics) {
            config.inputPath = path(input)
            config.inputPathLocation = reader.value("input_path")?.location
            config.schemaPath = (config.inputPath as NSString).appendingPathComponent(".schema")
        }
        if let schema = reader.string("schema_path", &diagnostics) { config.schemaPath = path(schema) }
        config.currentVersion = reader.version("current_version", &diagnostics)
        if let templates = reader.string("templates_path", &diagnostics) { config.templatesPath = path(templates) }
        config.organizationName = reader.singleLineString(
            "organization_name", why: "it is written into the header comment of every generated file", &diagnostics)
        config.buildPlugin = reader.bool("build_plugin", &diagnostics) ?? false
        config.migrationsProvider = reader.string(firstOf: ["migrations_provider", "core_data_migrations_function"], &diagnostics)
        for item in reader.array("stages", &diagnostics) ?? [] {
            guard var stage = ObjectReader(item, what: "a stage", known: ConfigKeys.stage, diagnostics: &diagnostics) else { continue }
            defer { stage.finish(&diagnostics) }
            let name = stage.string("name", required: true, &diagnostics)
            if let name, Naming.problem(with: name) != nil || Naming.swiftKeywords.contains(name) {
                diagnostics.error("stage name '\(name)' is not a Swift identifier", at: item.location, path: item.path + ".name")
            }
            guard let name, let from = stage.version("from", &diagnostics), let to = stage.version("to", &diagnostics) else {
                if !stage.has("from") || !stage.has("to") {
                    diagnostics.error("a stage needs 'from' and 'to' versions", at: item.location, path: item.path)
                }
                continue
            }
            let notes = stage.singleLineStrings("notes", why: "each note is a line of a generated comment", &diagnostics) ?? []
            config.hookStages.append(HookStage(from: from, to: to, name: Naming.propertyName(name), notes: notes, location: item.location))
        }
        if let lint = reader.value("lint") { config.lint = LintSettings.read(lint, &diagnostics) }
        if let naming = reader.string("column_naming", &diagnostics), let node = reader.value("column_naming") {
            if let value = ColumnNaming(rawValue: naming) {
                config.columnNaming = value
            } else {
                diagnostics.error(
                    "column_naming '\(naming)' is not a convention: use \"as_named\" (the default: a column is named as its property) or \"camel_case\" (GRDB's: room_id is roomId)",
                    at: node.location, path: node.path)
            }
        }
        if let level = reader.string("access_level", &diagnostics), let node = reader.value("access_level") {
            if let value = AccessLevel(rawValue: level) {
                config.accessLevel = value
            } else {
                diagnostics.error(
                    "access_level '\(level)' is not an access level: use \"public\" (the default: the generated types are the module's API) or \"internal\" (an app target's own types)",
                    at: node.location, path: node.path)
            }
        }
        if let provider = config.migrationsProvider, !Naming.isSwiftTypeName(provider) {
            diagnostics.error("'\(provider)' is not a Swift type name", at: root.location, path: "$.migrations_provider")
        }

        if let targetsNode = reader.value("targets"),
            var targets = ObjectReader(
                targetsNode, what: "'targets'", known: ConfigKeys.targets,
                ignored: ["app_test_support": "lucidgen generates no test-support target"],
                diagnostics: &diagnostics)
        {
            func target(_ key: String, defaultModule: String) -> Target? {
                guard let node = targets.value(key),
                    var target = ObjectReader(
                        node, what: "'targets.\(key)'", known: key == "app_tests" ? ConfigKeys.testsTarget : ConfigKeys.target,
                        diagnostics: &diagnostics)
                else { return nil }
                let module = target.string("module_name", &diagnostics) ?? defaultModule
                if !Naming.isSwiftTypeName(module) {
                    diagnostics.error(
                        "module_name '\(module)' is not a Swift module name", at: node.location, path: node.path + ".module_name")
                }
                let output = target.string("output_path", &diagnostics).map(path) ?? path("\(module)/Generated")
                if key == "app_tests", let provider = target.string("expectations_provider", &diagnostics) {
                    if Naming.isSwiftTypeName(provider) {
                        config.expectationsProvider = provider
                    } else {
                        diagnostics.error(
                            "'\(provider)' is not a Swift type name", at: node.location, path: node.path + ".expectations_provider")
                    }
                }
                target.finish(&diagnostics)
                return Target(moduleName: module, outputPath: output, location: targets.keyLocation(key) ?? node.location)
            }
            if let app = target("app", defaultModule: "App") { config.app = app }
            config.appTests = target("app_tests", defaultModule: config.app.moduleName + "Tests")
            targets.finish(&diagnostics)
        }
        reader.finish(&diagnostics)
        try diagnostics.throwIfErrors()
        return config
    }
}

/// Reads YAML into the same located tree as JSON, so one set of readers serves both.
enum YAMLReader {
    static func parse(_ text: String, file: String) throws(GenerationFailed) -> JSONNode {
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw GenerationFailed(diagnostics: [diagnostic(for: error, file: file)])
        } catch {
            throw GenerationFailed("cannot parse YAML: \(error)", at: SourceLocation(file: file))
        }
        guard let node else { return JSONNode(value: .null, location: SourceLocation(file: file, line: 1, column: 1), path: "$") }
        return try convert(node, path: "$", file: file)
    }

    private static func diagnostic(for error: YamlError, file: String) -> Diagnostic {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let detail = context.map { "\(problem) (\($0.text))" } ?? problem
            return Diagnostic(.error, "invalid YAML: \(detail)", at: SourceLocation(file: file, line: mark.line, column: mark.column))
        case .duplicatedKeysInMapping(let duplicates, let context):
            return Diagnostic(
                .error, "duplicate key\(duplicates.count > 1 ? "s" : "") \(duplicates.map { "'\($0)'" }.joined(separator: ", "))",
                at: SourceLocation(file: file, line: context.mark.line, column: context.mark.column))
        default:
            return Diagnostic(.error, "invalid YAML: \(error)", at: SourceLocation(file: file))
        }
    }

    private static func convert(_ node: Node, path: String, file: String) throws(GenerationFailed) -> JSONNode {
        let location = node.mark.map { SourceLocation(file: file, line: $0.line, column: $0.column) } ?? SourceLocation(file: file)
        switch node {
        case .scalar(let scalar):
            if scalar.style != .plain { return JSONNode(value: .string(scalar.string), location: location, path: path) }
            if node.null != nil { return JSONNode(value: .null, location: location, path: path) }
            if let flag = node.bool { return JSONNode(value: .bool(flag), location: location, path: path) }
            if node.int != nil || node.float != nil { return JSONNode(value: .number(scalar.string), location: location, path: path) }
            return JSONNode(value: .string(scalar.string), location: location, path: path)
        case .mapping(let mapping):
            var members: [JSONNode.Member] = []
            for (key, value) in mapping {
                guard let name = key.string else { throw GenerationFailed("keys must be strings", at: location, path: path) }
                let keyLocation = key.mark.map { SourceLocation(file: file, line: $0.line, column: $0.column) } ?? location
                members.append(
                    JSONNode.Member(key: name, keyLocation: keyLocation, value: try convert(value, path: path + "." + name, file: file)))
            }
            return JSONNode(value: .object(members), location: location, path: path)
        case .sequence(let sequence):
            var elements: [JSONNode] = []
            for (index, element) in sequence.enumerated() {
                elements.append(try convert(element, path: "\(path)[\(index)]", file: file))
            }
            return JSONNode(value: .array(elements), location: location, path: path)
        case .alias:
            throw GenerationFailed("YAML aliases are not supported in the config", at: location, path: path)
        }
    }
}

/// A path shown in messages: relative to the working directory when inside it, else absolute.
package func displayPath(_ path: String) -> String {
    displayPath(standardized: (path as NSString).standardizingPath)
}

/// ``displayPath(_:)`` of a path that is standardized already: standardizing resolves each component's
/// symlinks (system calls), which per description file was a noticeable part of loading thousands.
func displayPath(standardized: String) -> String {
    let cwd = FileManager.default.currentDirectoryPath
    if standardized.hasPrefix(cwd + "/") { return String(standardized.dropFirst(cwd.count + 1)) }
    return standardized
}

/// Makes a path absolute against the working directory.
package func absolutePath(_ path: String) -> String {
    let expanded = (path as NSString).expandingTildeInPath
    if expanded.hasPrefix("/") { return (expanded as NSString).standardizingPath }
    return ((FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(expanded) as NSString).standardizingPath
}

/// `path` relative to the folder `base` (both absolute), e.g. `.entities/book.json`.
package func relativePath(_ path: String, from base: String) -> String {
    let pathParts = (path as NSString).standardizingPath.split(separator: "/")
    let baseParts = (base as NSString).standardizingPath.split(separator: "/")
    var common = 0
    while common < min(pathParts.count, baseParts.count), pathParts[common] == baseParts[common] { common += 1 }
    let ups = Array(repeating: "..", count: baseParts.count - common)
    let rest = pathParts[common...].map(String.init)
    return (ups + rest).joined(separator: "/")
}
