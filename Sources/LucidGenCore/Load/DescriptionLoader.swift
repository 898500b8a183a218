import Foundation
import LucidSchema
@_spi(Generated) import LucidSchema

/// Entity and property keys that only mean something to Lucid's network layer or Core Data code.
private let ignoredEntityKeys: [String: String] = [
    "uid": "only meaningful to Lucid's network layer",
    "remote": "only meaningful to Lucid's network layer",
    "query_context": "only meaningful to Lucid's network layer",
    "client_queue_name": "only meaningful to Lucid's network layer",
    "cache_size": "only meaningful to Lucid's in-memory cache",
    "platforms": "generated code is the same on every platform",
    "metadata": "metadata is parsed from payloads and never stored",
    "system_properties": "only meaningful to Lucid's network layer",
    "sendable": "generated records are always Sendable",
    "last_remote_read": "only meaningful to Lucid's network layer",
    "legacy_previous_name": "Lucid's pre-2020 Core Data renaming; use version_history's previous_name",
]

private let ignoredPropertyKeys: [String: String] = [
    "key": "only meaningful to Lucid's JSON payloads",
    "match_exact_key": "only meaningful to Lucid's JSON payloads",
    "log_error": "only meaningful to Lucid's JSON payloads",
    "use_for_equality": "generated records compare every stored property",
    "mutable": "generated records have `var` properties",
    "objc": "generated records are Swift only",
    "platforms": "generated code is the same on every platform",
]

private let ignoredIdentifierKeys: [String: String] = [
    "key": "only meaningful to Lucid's JSON payloads",
    "equivalent_to_identifier_of": "only meaningful to Lucid's network layer",
    "objc": "generated records are Swift only",
    "atomic": "only meaningful to Lucid's network layer",
    "derived_from_relationships": "the identifier is stored as its scalar type",
]

/// The keys valid in each kind of object (snake_case): an unknown key close to one of them is taken for
/// its typo (``KeySuggestion``), one of them left unread after an earlier error is not reported.
private enum KnownKeys {
    static let entity = [
        "name", "properties", "version_history", "identifier", "persisted_name", "persist", "removed_at_version", "added_at_version",
        "previous_name", "search", "indexes", "swift_name", "parent", "abstract", "takes_name_of", "strict", "parent_history",
        "checks",
    ]
    static let parentHistoryItem = ["until_version", "parent"]
    static let check = ["name", "expression", "added_at_version", "removed_at_version"]
    static let generated = ["expression", "stored"]
    static let versionHistoryItem = ["version", "previous_name", "ignore_migration_checks", "ignore_property_migration_checks_on"]
    static let search = ["properties", "tokenizer", "added_at_version", "removed_at_version", "history"]
    static let searchHistoryItem = ["until_version", "properties", "tokenizer"]
    static let index = ["properties", "unique", "name", "on_conflict"]
    static let identifier = ["type", "property_name", "autoincrement", "on_conflict"]
    static let property = [
        "name", "property_type", "nullable", "optional", "default_value", "added_at_version", "removed_at_version", "type_history",
        "previous_name",
        "renamed_at_version", "persisted_name", "unused", "lazy", "extra", "indexed", "unique", "composite", "elements_from", "swift_name",
        "on_delete", "on_update",
        "column_type", "collation", "takes_name_of", "moved_from", "on_conflict",
        "check", "generated",
    ]
    static let memberTypeHistoryItem = ["until_version", "property_type", "nullable", "optional", "default_value"]
    static let typeHistoryItem = memberTypeHistoryItem + ["lossy_conversion", "persisted_name"]
    static let relationship = ["entity_name", "association", "ordered", "link_table"]
    static let linkTable = ["name", "source_column", "target_column", "target_index", "strict", "source_on_update", "target_on_update"]
    static let enumCase = [
        "name", "previous_name", "renamed_at_version", "added_at_version", "removed_at_version", "fallback", "swift_name",
    ]
    static let subtype = ["name", "cases", "options", "properties", "swift_name", "added_at_version"]
    static let member = [
        "name", "property_type", "nullable", "optional", "default_value", "added_at_version", "removed_at_version", "previous_name",
        "renamed_at_version",
        "type_history", "unused", "swift_name",
    ]
}

private let ignoredRelationshipKeys: [String: String] = [
    "id_only": "only meaningful to Lucid's JSON payloads",
    "failable_items": "only meaningful to Lucid's JSON payloads",
    "platforms": "generated code is the same on every platform",
]

private let ignoredSubtypeKeys: [String: String] = [
    "manual_implementations": "generated subtypes are always Codable",
    "platforms": "generated code is the same on every platform",
    "objc": "generated subtypes are Swift only",
    "objc_none_case": "generated subtypes are Swift only",
    "sendable": "generated subtypes are always Sendable",
    "unused_cases": "unused cases are not generated",
    "unused_options": "unused options are not generated",
]

/// The Load stage: reads `.lucid.yaml` and every description file.
package enum DescriptionLoader {
    /// Reads the descriptions under `config.inputPath`.
    ///
    /// Files in a folder named `Subtypes` are subtype descriptions, files in `EndpointPayloads` are
    /// Lucid network descriptions (skipped with a note), and every other `.json` file is one entity.
    /// The schema snapshot folder is skipped.
    package static func load(config: Config) throws(GenerationFailed) -> LoadedInput {
        var diagnostics = DiagnosticCollector()
        let input = config.inputPath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw GenerationFailed(
                "input_path '\(displayPath(input))' is not a folder of entity descriptions",
                at: config.inputPathLocation ?? SourceLocation(file: displayPath(config.file)),
                path: "$.input_path")
        }
        var entityFiles: [String] = []
        var subtypeFiles: [String] = []
        var payloadFiles = 0
        let schemaFolder = (config.schemaPath as NSString).standardizingPath
        if let enumerator = FileManager.default.enumerator(atPath: input) {
            while let relative = enumerator.nextObject() as? String {
                // `input` is standardized already (symlinks resolved: Config), and the enumerator names
                // plain components, so only a symlink the enumerator met needs resolving. Standardizing
                // every path resolved each of its components' symlinks: ~6 % of `plan` for 2,000 files.
                let joined = (input as NSString).appendingPathComponent(relative)
                let full = isSymbolicLink(joined) ? (joined as NSString).standardizingPath : joined
                if full == schemaFolder || full.hasPrefix(schemaFolder + "/") { continue }
                guard relative.hasSuffix(".json") else { continue }
                let components = relative.split(separator: "/")
                // `.samples/<version>.json`: the generated tests' sample rows (LucidTesting.SampleRows), not descriptions.
                if components.first.map(String.init) == Config.samplesFolderName { continue }
                // `.coredata/origin.json`: what `lucidgen import coredata` says of the Core Data stores it came from.
                if components.first == ".coredata" { continue }
                if components.contains("EndpointPayloads") {
                    payloadFiles += 1
                } else if components.contains("Subtypes") {
                    subtypeFiles.append(full)
                } else {
                    entityFiles.append(full)
                }
            }
        }
        entityFiles.sort()
        subtypeFiles.sort()
        if payloadFiles > 0 {
            diagnostics.note("skipped \(payloadFiles) endpoint payload description(s): only meaningful to Lucid's network layer")
        }
        if entityFiles.isEmpty {
            diagnostics.error(
                "no entity descriptions (*.json) in '\(displayPath(input))'",
                at: config.inputPathLocation ?? SourceLocation(file: displayPath(config.file)),
                path: "$.input_path")
        }

        // Each file is read, parsed and decoded on its own (thousands of them in a large model): every core
        // takes a share; the diagnostics are then reported in file order, as one core would.
        let decoded = Parallel.map(count: entityFiles.count) { index -> (EntityDescription?, [Diagnostic]) in
            var fileDiagnostics = DiagnosticCollector()
            guard let root = parseFile(entityFiles[index], &fileDiagnostics) else { return (nil, fileDiagnostics.diagnostics) }
            return (decodeEntity(root, &fileDiagnostics), fileDiagnostics.diagnostics)
        }
        var entities: [EntityDescription] = []
        for (entity, fileDiagnostics) in decoded {
            diagnostics.append(contentsOf: fileDiagnostics)
            if let entity { entities.append(entity) }
        }
        var subtypes: [SubtypeDescription] = []
        for file in subtypeFiles {
            guard let root = parseFile(file, &diagnostics) else { continue }
            if let subtype = decodeSubtype(root, &diagnostics) { subtypes.append(subtype) }
        }
        try diagnostics.throwIfErrors()
        return LoadedInput(
            config: config, entities: entities.sorted { $0.name < $1.name }, subtypes: subtypes.sorted { $0.name < $1.name },
            diagnostics: diagnostics.diagnostics)
    }

    /// Whether `path` itself is a symbolic link: one `lstat` (`FileManager`'s attributes also look up
    /// the owner's name).
    static func isSymbolicLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    /// `file` is a standardized path (``load(config:)`` makes it so).
    static func parseFile(_ file: String, _ diagnostics: inout DiagnosticCollector) -> JSONNode? {
        let shown = displayPath(standardized: file)
        guard let data = FileManager.default.contents(atPath: file) else {
            diagnostics.error("cannot read this file", at: SourceLocation(file: shown))
            return nil
        }
        do {
            return try JSONParser.parse(Array(data), file: shown)
        } catch {
            diagnostics.error("malformed JSON: \(error.message)", at: error.location)
            return nil
        }
    }

    static func checkName(_ name: String, at node: JSONNode, _ diagnostics: inout DiagnosticCollector) {
        if let problem = Naming.problem(with: name) { diagnostics.error("invalid name: \(problem)", at: node.location, path: node.path) }
    }

    /// The name of an entity or subtype, which is also a file's name (``Naming/fileNameProblem(with:)``).
    static func checkFileName(_ name: String, at node: JSONNode, _ diagnostics: inout DiagnosticCollector) {
        if let problem = Naming.fileNameProblem(with: name) {
            diagnostics.error("invalid name: \(problem)", at: node.location, path: node.path)
        }
    }

    /// A name that becomes a column (a property's `name` without `persisted_name`, a `persisted_name`, a
    /// `previous_name`): besides ``checkName(_:at:_:)``, not one of the names of SQLite's rowid.
    static func checkColumnName(_ name: String, at node: JSONNode, _ diagnostics: inout DiagnosticCollector) {
        checkName(name, at: node, &diagnostics)
        if Naming.problem(with: name) == nil, let problem = Naming.columnProblem(with: name) {
            diagnostics.error("invalid column name: \(problem)", at: node.location, path: node.path)
        }
    }

    /// `swift_name`: the Swift name to use instead of the one derived from `name` (`type`: of a type,
    /// else of a member); nil when absent or invalid (reported).
    static func readSwiftName(_ reader: inout ObjectReader, type: Bool, _ diagnostics: inout DiagnosticCollector) -> String? {
        guard let name = reader.string("swift_name", &diagnostics), let node = reader.value("swift_name") else { return nil }
        if let problem = Naming.swiftNameProblem(name, type: type) {
            diagnostics.error("invalid swift_name: \(problem)", at: node.location, path: node.path)
            return nil
        }
        return name
    }

    // MARK: Entities

    static func decodeEntity(_ root: JSONNode, _ diagnostics: inout DiagnosticCollector) -> EntityDescription? {
        guard
            var reader = ObjectReader(
                root, what: "an entity description", known: KnownKeys.entity, ignored: ignoredEntityKeys, diagnostics: &diagnostics)
        else { return nil }
        let errorsBefore = diagnostics.diagnostics.count
        let name = reader.string("name", required: true, &diagnostics) ?? ""
        if let node = reader.value("name") {
            // An empty name too: it would name a hidden `.swift` file and a type of no name.
            checkFileName(name, at: node, &diagnostics)
            if !name.isEmpty { reader.what = "entity '\(name)'" }
        }
        let persistedName = reader.string("persisted_name", &diagnostics)
        if let persistedName, let node = reader.value("persisted_name") { checkName(persistedName, at: node, &diagnostics) }
        let persist = reader.bool("persist", &diagnostics) ?? true

        var history: [VersionHistoryItem] = []
        if let items = reader.array("version_history", &diagnostics) {
            for item in items {
                guard
                    var itemReader = ObjectReader(
                        item, what: "a version_history item", known: KnownKeys.versionHistoryItem, diagnostics: &diagnostics)
                else { continue }
                defer { itemReader.finish(&diagnostics) }
                guard let version = itemReader.version("version", &diagnostics) else {
                    if !itemReader.has("version") {
                        diagnostics.error("missing required key 'version'", at: item.location, path: item.path)
                    }
                    continue
                }
                let previousName = itemReader.string("previous_name", &diagnostics)
                if let previousName, let node = itemReader.value("previous_name") { checkName(previousName, at: node, &diagnostics) }
                history.append(
                    VersionHistoryItem(
                        version: version, previousName: previousName,
                        ignoreMigrationChecks: itemReader.bool("ignore_migration_checks", &diagnostics) ?? false,
                        ignorePropertyMigrationChecksOn: itemReader.strings("ignore_property_migration_checks_on", &diagnostics) ?? [],
                        location: item.location))
            }
        }
        // Lucid's legacy syntax: an entity-level added_at_version, used only without a history.
        let legacyAdded = reader.version("added_at_version", &diagnostics)
        if history.isEmpty, let legacyAdded {
            history = [
                VersionHistoryItem(
                    version: legacyAdded, previousName: nil, ignoreMigrationChecks: false, ignorePropertyMigrationChecksOn: [],
                    location: root.location)
            ]
        }
        let legacyPreviousName = reader.value("previous_name")
        if let legacyPreviousName {
            diagnostics.error(
                "an entity-level 'previous_name' does not say at which version the rename happened; move it into the version_history item of that version",
                at: legacyPreviousName.location, path: legacyPreviousName.path)
        }
        if persist && history.isEmpty && diagnostics.diagnostics.count == errorsBefore {
            diagnostics.error(
                "entity '\(name)' has no version_history: add \"version_history\": [{\"version\": \"1.0\"}] (or the legacy \"added_at_version\")",
                at: root.location, path: root.path)
        }
        let removedAtVersion = reader.version("removed_at_version", &diagnostics)
        let identifier = decodeIdentifier(reader.value("identifier"), at: root, &diagnostics)

        var properties: [PropertyDescription] = []
        if let items = reader.array("properties", &diagnostics) {
            for item in items {
                if let property = decodeProperty(item, &diagnostics) { properties.append(property) }
            }
        } else if !reader.has("properties") {
            diagnostics.error("missing required key 'properties'", at: root.location, path: root.path)
        }
        var indexes: [IndexDescription] = []
        if let items = reader.array("indexes", &diagnostics) {
            if items.isEmpty, let node = reader.value("indexes") {
                diagnostics.error(
                    "'indexes' is empty: list at least one index ({\"properties\": [\"a\", \"b\"]}) or remove the key", at: node.location,
                    path: node.path)
            }
            for item in items {
                if let index = decodeIndex(item, &diagnostics) { indexes.append(index) }
            }
        }
        let search = reader.value("search").flatMap { decodeSearch($0, &diagnostics) }
        let swiftName = readSwiftName(&reader, type: true, &diagnostics)
        // Entity inheritance (Core Data's): `"parent": "vehicle"` and `"abstract": true`.
        let parent = reader.string("parent", &diagnostics)
        let parentNode = reader.value("parent")
        // `parent_history`: the parents it had before, each until a version, oldest first.
        var parentHistory: [ParentHistoryItem] = []
        for item in reader.array("parent_history", &diagnostics) ?? [] {
            guard
                var itemReader = ObjectReader(
                    item, what: "a parent_history item", known: KnownKeys.parentHistoryItem, diagnostics: &diagnostics)
            else { continue }
            defer { itemReader.finish(&diagnostics) }
            guard let until = itemReader.version("until_version", &diagnostics) else {
                if !itemReader.has("until_version") {
                    diagnostics.error("missing required key 'until_version'", at: item.location, path: item.path)
                }
                continue
            }
            guard let node = itemReader.value("parent") else {
                diagnostics.error(
                    "missing required key 'parent' (the entity's parent before \(until), or null for none)", at: item.location,
                    path: item.path)
                continue
            }
            var earlier: String?
            if !node.value.isNull {
                guard let text = itemReader.string("parent", &diagnostics) else { continue }
                checkName(text, at: node, &diagnostics)
                earlier = text
            }
            if let last = parentHistory.last, last.untilVersion >= until {
                diagnostics.error(
                    "parent_history items go in version order: \(until) comes after \(last.untilVersion)", at: item.location,
                    path: item.path + ".until_version")
                continue
            }
            parentHistory.append(ParentHistoryItem(untilVersion: until, parent: earlier, location: item.location, path: item.path))
        }
        let everRoot = parentHistory.contains { $0.parent == nil }
        if let parent, let parentNode {
            checkName(parent, at: parentNode, &diagnostics)
            if !everRoot, let node = reader.value("persisted_name") {
                diagnostics.error(
                    "subentity '\(name)' has no table of its own (its rows are in the table of its root entity, with its kind in column 'kind'): remove 'persisted_name'",
                    at: node.location, path: node.path)
            }
            if let node = reader.value("search") {
                diagnostics.error(
                    "subentity '\(name)' cannot declare 'search' yet (its rows are in its root entity's table): declare the search on the root entity, or remove it",
                    at: node.location, path: node.path)
            }
        }
        let abstract = reader.bool("abstract", &diagnostics) ?? false
        let takesNameOf = reader.string("takes_name_of", &diagnostics)
        let strict = reader.bool("strict", &diagnostics) ?? false
        if strict, let parent, let node = reader.value("strict") {
            diagnostics.error(
                "subentity '\(name)' has no table of its own (its rows are in the table of its root entity '\(parent)'): say \"strict\" on the root entity",
                at: node.location, path: node.path)
        }
        let checks = decodeChecks(&reader, &diagnostics)
        if case .property(let key) = identifier.kind, let property = properties.first(where: { $0.name == key }), property.generated != nil
        {
            diagnostics.error(
                "'\(key)' is the identifier, which SQLite cannot generate: remove its 'generated'", at: property.location,
                path: property.path)
        }
        reader.finish(&diagnostics)
        var entity = EntityDescription(
            name: name, persistedName: persistedName, identifier: identifier, properties: properties, versionHistory: history,
            persist: persist, removedAtVersion: removedAtVersion, indexes: indexes, search: search, swiftName: swiftName,
            location: root.location)
        entity.parent = parent
        entity.parentLocation = parentNode?.location
        entity.parentHistory = parentHistory
        entity.abstract = abstract
        entity.strict = strict && parent == nil
        entity.strictLocation = reader.value("strict")?.location
        entity.declaresIdentifier = reader.has("identifier")
        entity.takesNameOf = takesNameOf
        entity.checks = checks
        return entity
    }

    /// An entity's `checks`: its table's CHECK constraints, each an expression (`"price >= 0"`, at every
    /// version) or an object with its `expression`, and its constraint `name`, `added_at_version` and
    /// `removed_at_version` when it has them.
    static func decodeChecks(_ reader: inout ObjectReader, _ diagnostics: inout DiagnosticCollector) -> [CheckDescription] {
        guard let items = reader.array("checks", &diagnostics) else { return [] }
        var checks: [CheckDescription] = []
        for item in items {
            if case .string(let text) = item.value {
                if let expression = sqlExpression(text, key: "checks", at: item, &diagnostics) {
                    checks.append(CheckDescription(check: SchemaCheck(expression: expression)))
                }
                continue
            }
            guard
                var itemReader = ObjectReader(
                    item, what: "an item of 'checks'", known: KnownKeys.check, strict: true, diagnostics: &diagnostics)
            else { continue }
            defer { itemReader.finish(&diagnostics) }
            let name = itemReader.string("name", &diagnostics)
            if let name, let node = itemReader.value("name"),
                name.isEmpty
                    || !ObjectReader.checkSingleLine(
                        name, key: "name", why: "it is the constraint's name in the DDL", at: node, &diagnostics)
            {
                if name.isEmpty {
                    diagnostics.error(
                        "a CHECK constraint's 'name' is empty: give one or remove the key", at: node.location, path: node.path)
                }
                continue
            }
            guard let text = itemReader.string("expression", required: true, &diagnostics), let node = itemReader.value("expression"),
                let expression = sqlExpression(text, key: "expression", at: node, &diagnostics)
            else { continue }
            checks.append(
                CheckDescription(
                    check: SchemaCheck(name: name, expression: expression),
                    addedAtVersion: itemReader.version("added_at_version", &diagnostics),
                    removedAtVersion: itemReader.version("removed_at_version", &diagnostics)))
        }
        return checks
    }

    /// An SQL expression a description gives for the DDL (a CHECK's, a generated column's), trimmed: it must
    /// stay one expression inside the parentheses lucidgen writes around it (its parentheses balanced, its
    /// quotes closed, no `;`, no comment), else it is a located error and nil.
    static func sqlExpression(_ text: String, key: String, at node: JSONNode, _ diagnostics: inout DiagnosticCollector) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        var depth = 0
        var problem: String? = trimmed.isEmpty ? "it is empty" : nil
        for token in SQLLexer.tokens(trimmed) where problem == nil {
            switch token.kind {
            case .comment: problem = "it holds a comment"
            case .string, .quotedName, .blob: if !token.closed { problem = "a quote is not closed" }
            case .punctuation:
                switch token.text {
                case "(": depth += 1
                case ")":
                    depth -= 1
                    if depth < 0 { problem = "a ')' closes a parenthesis it did not open" }
                case ";": problem = "it holds a ';'"
                default: break
                }
            default: break
            }
        }
        if problem == nil, depth > 0 { problem = "a '(' is not closed" }
        if let problem {
            diagnostics.error(
                "'\(key)' must be one SQL expression, as in CHECK (…) or AS (…): \(problem)", at: node.location, path: node.path)
            return nil
        }
        return trimmed
    }

    /// Why a tokenizer stays on one line.
    static let tokenizerUse = "the tokenizer is FTS5 arguments, written into the generated schema and its documentation"

    /// An entity's `search`: `{"properties": ["title", "notes"], "tokenizer": "…", "added_at_version": "2.0",
    /// "removed_at_version": "4.0", "history": [{"until_version": "3.0", "properties": ["title"], "tokenizer": null}]}`.
    /// Every key matters: an unknown one is an error.
    static func decodeSearch(_ node: JSONNode, _ diagnostics: inout DiagnosticCollector) -> SearchDescription? {
        guard var reader = ObjectReader(node, what: "'search'", known: KnownKeys.search, strict: true, diagnostics: &diagnostics) else {
            return nil
        }
        let properties = decodeSearchProperties(&reader, required: true, &diagnostics)
        let tokenizer = reader.singleLineString("tokenizer", why: tokenizerUse, &diagnostics)
        let added = reader.version("added_at_version", &diagnostics)
        let removed = reader.version("removed_at_version", &diagnostics)
        var history: [SearchHistoryItem] = []
        for item in reader.array("history", &diagnostics) ?? [] {
            guard
                var itemReader = ObjectReader(
                    item, what: "an item of a search's 'history'", known: KnownKeys.searchHistoryItem, strict: true,
                    diagnostics: &diagnostics)
            else { continue }
            defer { itemReader.finish(&diagnostics) }
            guard let until = itemReader.version("until_version", &diagnostics) else {
                if !itemReader.has("until_version") {
                    diagnostics.error(
                        "an item of a search's 'history' needs 'until_version': the version from which the next item (or the search itself) holds",
                        at: item.location, path: item.path)
                }
                continue
            }
            let itemProperties = decodeSearchProperties(&itemReader, required: false, &diagnostics)
            var itemTokenizer: String?? = nil
            if let value = itemReader.value("tokenizer") {
                switch value.value {
                case .null: itemTokenizer = .some(nil)
                case .string(let text):
                    if ObjectReader.checkSingleLine(text, key: "tokenizer", why: tokenizerUse, at: value, &diagnostics) {
                        itemTokenizer = .some(text)
                    }
                default:
                    diagnostics.error("'tokenizer' must be a string or null, found \(value.kindName)", at: value.location, path: value.path)
                }
            }
            history.append(
                SearchHistoryItem(
                    untilVersion: until, properties: itemProperties, tokenizer: itemTokenizer, location: item.location, path: item.path))
        }
        for (earlier, later) in zip(history, history.dropFirst()) where !(earlier.untilVersion < later.untilVersion) {
            diagnostics.error(
                "a search's 'history' lists its items oldest first: \(later.untilVersion) comes after \(earlier.untilVersion)",
                at: later.location, path: later.path)
        }
        reader.finish(&diagnostics)
        guard let properties else { return nil }
        return SearchDescription(
            properties: properties, tokenizer: tokenizer, addedAtVersion: added, removedAtVersion: removed, history: history,
            location: node.location, path: node.path)
    }

    /// A search's (or a history item's) `properties`: a non-empty list of distinct names.
    private static func decodeSearchProperties(_ reader: inout ObjectReader, required: Bool, _ diagnostics: inout DiagnosticCollector)
        -> [String]?
    {
        propertyList(
            &reader, of: "a search",
            missing: required ? "'search' needs 'properties': the text properties it searches, e.g. [\"title\", \"notes\"]" : nil,
            empty: "a search's 'properties' is empty: name at least one text property, or remove 'search'", &diagnostics)
    }

    /// The `properties` of an index or a search: a non-empty list of distinct names, or nil after saying
    /// what is wrong (`missing`: the message when there is none; nil when it may be left out).
    private static func propertyList(
        _ reader: inout ObjectReader, of what: String, missing: String?, empty: String, _ diagnostics: inout DiagnosticCollector
    ) -> [String]? {
        guard let node = reader.value("properties") else {
            if let missing { diagnostics.error(missing, at: reader.node.location, path: reader.node.path) }
            return nil
        }
        guard let properties = reader.strings("properties", &diagnostics) else { return nil }
        if properties.isEmpty {
            diagnostics.error(empty, at: node.location, path: node.path)
            return nil
        }
        var seen: Set<String> = []
        for property in properties where !seen.insert(property).inserted {
            diagnostics.error("\(what) lists property '\(property)' twice", at: node.location, path: node.path)
            return nil
        }
        return properties
    }

    /// One item of an entity's `indexes`: `{"properties": ["a", "b"], "unique": true, "name": "by_name"}`.
    static func decodeIndex(_ node: JSONNode, _ diagnostics: inout DiagnosticCollector) -> IndexDescription? {
        guard var reader = ObjectReader(node, what: "an index", known: KnownKeys.index, diagnostics: &diagnostics) else { return nil }
        defer { reader.finish(&diagnostics) }
        guard
            let properties = propertyList(
                &reader, of: "an index", missing: "an index needs 'properties': the names of the properties it covers, in order",
                empty: "an index's 'properties' is empty: name at least one property", &diagnostics)
        else { return nil }
        let unique = reader.bool("unique", &diagnostics) ?? false
        let name = reader.string("name", &diagnostics)
        if let name, let nameNode = reader.value("name") {
            // An index's name is SQL's only (always quoted), never a Swift name or a file's: any text SQLite takes.
            if let problem = Naming.indexNameProblem(with: name) {
                diagnostics.error("invalid index name: \(problem)", at: nameNode.location, path: nameNode.path)
            }
            if sqlNameKey(name).hasPrefix("sqlite_") {
                diagnostics.error(
                    "index name '\(name)' is reserved by SQLite (names starting with sqlite_)", at: nameNode.location, path: nameNode.path)
            }
        }
        var index = IndexDescription(properties: properties, unique: unique, name: name, location: node.location, path: node.path)
        index.onConflict = conflictResolution(&reader, what: "a UNIQUE constraint", &diagnostics)
        if index.onConflict != nil, let node = reader.value("on_conflict") {
            if !unique {
                diagnostics.error(
                    "on_conflict is the ON CONFLICT of a UNIQUE constraint: this index is not \"unique\": true", at: node.location,
                    path: node.path)
                index.onConflict = nil
            } else if let nameNode = reader.value("name") {
                diagnostics.error(
                    "an index with on_conflict is the table's UNIQUE constraint, which SQLite names itself: remove 'name'",
                    at: nameNode.location, path: nameNode.path)
            }
        }
        return index
    }

    static func decodeIdentifier(_ node: JSONNode?, at entity: JSONNode, _ diagnostics: inout DiagnosticCollector) -> IdentifierDescription
    {
        guard let node else { return IdentifierDescription(kind: .local, location: entity.location) }
        guard
            var reader = ObjectReader(
                node, what: "'identifier'", known: KnownKeys.identifier, ignored: ignoredIdentifierKeys, diagnostics: &diagnostics)
        else {
            return IdentifierDescription(kind: .local, location: node.location)
        }
        defer { reader.finish(&diagnostics) }
        let onConflict = conflictResolution(&reader, what: "the primary key", &diagnostics)
        var identifier = decodeIdentifierKind(&reader, at: node, &diagnostics)
        identifier.onConflict = onConflict
        return identifier
    }

    static func decodeIdentifierKind(_ reader: inout ObjectReader, at node: JSONNode, _ diagnostics: inout DiagnosticCollector)
        -> IdentifierDescription
    {
        guard let type = reader.string("type", &diagnostics) else {
            // No type: the local key SQLite assigns (`id: Int64?`), with AUTOINCREMENT when asked.
            var identifier = IdentifierDescription(kind: .local, location: node.location)
            identifier.autoincrement = reader.bool("autoincrement", &diagnostics) == true
            return identifier
        }
        if type == "property" {
            guard let property = reader.string("property_name", required: true, &diagnostics) else {
                return IdentifierDescription(kind: .local, location: node.location)
            }
            var identifier = IdentifierDescription(kind: .property(property), location: node.location)
            // Whether the property is an int is the Resolve stage's to check (it knows the property's type).
            identifier.autoincrement = reader.bool("autoincrement", &diagnostics) == true
            identifier.autoincrementLocation = reader.value("autoincrement")?.location
            return identifier
        }
        guard let scalar = ScalarType(name: type), [.int, .string, .uuid].contains(scalar) else {
            diagnostics.error(
                "identifier type '\(type)' is not supported: use \"int\", \"string\", \"uuid\" or \"property\"", at: node.location,
                path: node.path + ".type")
            return IdentifierDescription(kind: .local, location: node.location)
        }
        var identifier = IdentifierDescription(kind: .scalar(scalar), location: node.location)
        if reader.bool("autoincrement", &diagnostics) == true {
            if scalar == .int {
                identifier.autoincrement = true
            } else {
                diagnostics.error(
                    "\"autoincrement\" needs an \"int\" identifier (SQLite's INTEGER PRIMARY KEY AUTOINCREMENT); this one is \"\(type)\"",
                    at: reader.value("autoincrement")?.location ?? node.location, path: node.path + ".autoincrement")
            }
        }
        return identifier
    }

    // MARK: Properties

    /// The foreign-key actions a description names (`on_delete`, `on_update`), by their description spelling.
    static let foreignKeyActions = Dictionary(uniqueKeysWithValues: SchemaForeignKey.Action.allCases.map { ($0.descriptionName, $0) })

    /// A collating sequence's name as `collation` takes it (it lands in the DDL unquoted): an identifier.
    static func isCollationName(_ name: String) -> Bool {
        name.range(of: #"^[A-Za-z_][A-Za-z0-9_]*$"#, options: .regularExpression) != nil
    }

    static func decodeProperty(_ node: JSONNode, _ diagnostics: inout DiagnosticCollector) -> PropertyDescription? {
        guard
            var reader = ObjectReader(
                node, what: "a property", known: KnownKeys.property, ignored: ignoredPropertyKeys, diagnostics: &diagnostics)
        else { return nil }
        defer { reader.finish(&diagnostics) }
        guard let name = reader.string("name", required: true, &diagnostics) else { return nil }
        let namesColumn = reader.value("persisted_name") == nil
        if let nameNode = reader.value("name") {
            if namesColumn { checkColumnName(name, at: nameNode, &diagnostics) } else { checkName(name, at: nameNode, &diagnostics) }
        }
        reader.what = "property '\(name)'"
        guard let typeNode = reader.value("property_type") else {
            diagnostics.error("property '\(name)' has no 'property_type'", at: node.location, path: node.path)
            return nil
        }
        guard var type = decodeType(typeNode, allowRelationship: true, &diagnostics) else { return nil }
        if reader.bool("composite", &diagnostics) == true {
            guard case .subtype(let name) = type else {
                diagnostics.error(
                    "\"composite\": true needs a struct subtype as property_type (its members become the columns), found \(type)",
                    at: reader.value("composite")?.location ?? node.location, path: node.path + ".composite")
                return nil
            }
            type = .composite(name)
        }
        let persistedName = reader.string("persisted_name", &diagnostics)
        if let persistedName, let persistedNode = reader.value("persisted_name") {
            checkColumnName(persistedName, at: persistedNode, &diagnostics)
        }
        let previousName = reader.string("previous_name", &diagnostics)
        if let previousName, let previousNode = reader.value("previous_name") {
            if namesColumn {
                checkColumnName(previousName, at: previousNode, &diagnostics)
            } else {
                checkName(previousName, at: previousNode, &diagnostics)
            }
        }
        let nullable = reader.bool(firstOf: ["nullable", "optional"], &diagnostics) ?? false
        var defaultValue: DefaultValue?
        if let defaultNode = reader.value("default_value") { defaultValue = decodeDefault(defaultNode, &diagnostics) }
        let typeHistory = (reader.array("type_history", &diagnostics) ?? []).compactMap {
            decodeTypeHistoryItem($0, member: false, &diagnostics)
        }
        var elementsFrom: [(element: String, property: String)] = []
        var elementsFromLocation: SourceLocation?
        if let node = reader.value("elements_from") {
            elementsFromLocation = node.location
            if case .object(let members) = node.value {
                for member in members {
                    guard case .string(let property) = member.value.value else {
                        diagnostics.error(
                            "elements_from maps an element to the name of a property, found \(member.value.kindName)",
                            at: member.value.location, path: member.value.path)
                        continue
                    }
                    elementsFrom.append((member.key, property))
                }
            } else {
                diagnostics.error(
                    "elements_from must be an object: { \"<element>\": \"<property it was>\" }, found \(node.kindName)", at: node.location,
                    path: node.path)
            }
        }
        let unique = reader.bool("unique", &diagnostics) ?? false
        let indexed = reader.bool("indexed", &diagnostics) ?? false
        /// `on_delete` / `on_update`: one of the actions, on a to-one relationship only.
        func action(_ key: String) -> (SchemaForeignKey.Action, JSONNode)? {
            guard let text = reader.string(key, &diagnostics), let node = reader.value(key) else { return nil }
            guard case .relationship(_, false, _) = type else {
                diagnostics.error(
                    "\(key) applies to a to-one relationship (its foreign key); '\(name)' is none", at: node.location, path: node.path)
                return nil
            }
            guard let action = foreignKeyActions[ObjectReader.normalize(text)] else {
                diagnostics.error(
                    "\(key) '\(text)' is not an action: use one of \(foreignKeyActions.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", "))",
                    at: node.location, path: node.path)
                return nil
            }
            return (action, node)
        }
        var onDelete: SchemaForeignKey.Action?
        if let (action, node) = action("on_delete") {
            if action == .setNull && !nullable {
                diagnostics.error(
                    "on_delete \"set_null\" needs a nullable relationship: '\(name)' is required, and SQLite would refuse to delete the row it points at",
                    at: node.location, path: node.path)
            } else {
                onDelete = action
            }
        }
        // NO ACTION is the default: the DDL then says none.
        let onUpdate = action("on_update").flatMap { $0.0 == .noAction ? nil : $0.0 }
        var columnType: String?
        if let text = reader.string("column_type", &diagnostics), let node = reader.value("column_type") {
            // It lands in the DDL: a type name, with an optional size, and nothing else.
            if text.range(of: #"^[A-Za-z][A-Za-z0-9_ ]{0,40}(\([0-9]{1,9}( *, *[0-9]{1,9})?\))?$"#, options: .regularExpression) != nil {
                let upper = text.uppercased()
                // A storage class's own name is the default: nothing to declare.
                if !["INTEGER", "REAL", "TEXT", "BLOB"].contains(upper) { columnType = upper }
            } else {
                diagnostics.error(
                    "column_type '\(text)' is not a SQL type name (letters, digits, spaces, and an optional size such as VARCHAR(10))",
                    at: node.location, path: node.path)
            }
            if case .relationship(_, true, _) = type {
                diagnostics.error(
                    "column_type applies to a property with a column; '\(name)' is a to-many relationship", at: node.location,
                    path: node.path)
            }
        }
        var collation: String?
        if let text = reader.string("collation", &diagnostics), let node = reader.value("collation") {
            // It lands in the DDL: an identifier, nothing else.
            if isCollationName(text) {
                let builtIn = ["BINARY", "NOCASE", "RTRIM"].first { sameSQLName($0, text) }
                // BINARY is the default: nothing to declare.
                if builtIn != "BINARY" { collation = builtIn ?? text }
            } else {
                diagnostics.error(
                    "collation '\(text)' is not a collating sequence's name (letters, digits and '_': NOCASE, RTRIM, or one the app registers)",
                    at: node.location, path: node.path)
            }
            if case .relationship(_, true, _) = type {
                diagnostics.error(
                    "collation applies to a property with a column; '\(name)' is a to-many relationship", at: node.location, path: node.path
                )
            }
        }
        let onConflict = conflictResolution(&reader, what: "a required property's NOT NULL", &diagnostics)
        if onConflict != nil, let node = reader.value("on_conflict") {
            if nullable {
                diagnostics.error(
                    "on_conflict is the ON CONFLICT of a required column's NOT NULL; '\(name)' is nullable", at: node.location,
                    path: node.path)
            } else if case .relationship(_, true, _) = type {
                diagnostics.error(
                    "on_conflict applies to a property with a column; '\(name)' is a to-many relationship", at: node.location,
                    path: node.path)
            }
        }
        var property = PropertyDescription(
            name: name, type: type, nullable: nullable, defaultValue: defaultValue, previousName: previousName,
            renamedAtVersion: reader.version("renamed_at_version", &diagnostics),
            addedAtVersion: reader.version("added_at_version", &diagnostics),
            removedAtVersion: reader.version("removed_at_version", &diagnostics),
            persistedName: persistedName, unused: reader.bool("unused", &diagnostics) ?? false,
            lazy: reader.bool(firstOf: ["lazy", "extra"], &diagnostics) ?? false,
            indexed: indexed || unique, unique: unique, onDelete: onDelete, onUpdate: onUpdate, columnType: columnType,
            collation: collation,
            typeHistory: typeHistory, elementsFrom: elementsFrom, elementsFromLocation: elementsFromLocation,
            swiftName: readSwiftName(&reader, type: false, &diagnostics), takesNameOf: reader.string("takes_name_of", &diagnostics),
            movedFrom: reader.string("moved_from", &diagnostics), location: node.location, typeLocation: typeNode.location, path: node.path)
        property.onConflict = onConflict
        property.linkTable = decodeLinkTable(typeNode, type: type, &diagnostics)
        if let text = reader.string("check", &diagnostics), let node = reader.value("check") {
            property.check = sqlExpression(text, key: "check", at: node, &diagnostics)
            if case .relationship(_, true, _) = type {
                diagnostics.error(
                    "check applies to a property with a column; '\(name)' is a to-many relationship", at: node.location, path: node.path)
            }
        }
        if let node = reader.value("generated") {
            property.generated = decodeGenerated(node, property: property, &diagnostics)
        }
        return property
    }

    /// A to-many relationship's `link_table` (in its relationship object): the app's own join table, its
    /// columns and its index on the target column; nil when absent or invalid (reported).
    static func decodeLinkTable(_ typeNode: JSONNode, type: PropertyType, _ diagnostics: inout DiagnosticCollector) -> LinkTableDescription?
    {
        guard case .object(let members) = typeNode.value, let node = members.first(where: { $0.key == "link_table" })?.value else {
            return nil
        }
        guard case .relationship(_, true, let ordered) = type else {
            diagnostics.error(
                "link_table names a to-many relationship's join table; a to-one is a column", at: node.location, path: node.path)
            return nil
        }
        if ordered {
            diagnostics.error(
                "link_table names the app's own join table of two keys; an ordered relationship's links are lucidgen's (with their position): leave out link_table or ordered",
                at: node.location, path: node.path)
            return nil
        }
        guard var reader = ObjectReader(node, what: "'link_table'", known: KnownKeys.linkTable, strict: true, diagnostics: &diagnostics)
        else { return nil }
        defer { reader.finish(&diagnostics) }
        guard let name = reader.string("name", required: true, &diagnostics),
            let source = reader.string("source_column", required: true, &diagnostics),
            let target = reader.string("target_column", required: true, &diagnostics)
        else { return nil }
        let index = reader.string("target_index", &diagnostics)
        var valid = true
        for (key, text) in [("name", name), ("source_column", source), ("target_column", target), ("target_index", index)] {
            guard let text, let valueNode = reader.value(key) else { continue }
            var found = DiagnosticCollector()
            checkColumnName(text, at: valueNode, &found)
            if found.hasErrors { valid = false }
            diagnostics.append(contentsOf: found.diagnostics)
        }
        if sameSQLName(source, target) {
            diagnostics.error("link_table's source_column and target_column are both '\(source)'", at: node.location, path: node.path)
            valid = false
        }
        let strict = reader.bool("strict", &diagnostics) ?? false
        /// `source_on_update` / `target_on_update`: one of the actions (NO ACTION, the default, is none).
        func onUpdate(_ key: String) -> SchemaForeignKey.Action? {
            guard let text = reader.string(key, &diagnostics), let valueNode = reader.value(key) else { return nil }
            guard let action = foreignKeyActions[ObjectReader.normalize(text)] else {
                diagnostics.error(
                    "\(key) '\(text)' is not an action: use one of \(foreignKeyActions.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", "))",
                    at: valueNode.location, path: valueNode.path)
                valid = false
                return nil
            }
            return action == .noAction ? nil : action
        }
        let sourceOnUpdate = onUpdate("source_on_update")
        let targetOnUpdate = onUpdate("target_on_update")
        return valid
            ? LinkTableDescription(
                name: name,
                columns: LinkTable.Columns(
                    source: source, target: target, targetIndex: index, strict: strict, sourceOnUpdate: sourceOnUpdate,
                    targetOnUpdate: targetOnUpdate),
                location: node.location) : nil
    }

    /// A property's `generated`: `{ "expression": "…", "stored": true }`, a column SQLite computes
    /// (`GENERATED ALWAYS AS (…) STORED`, or `VIRTUAL` without `stored`). It has no default, and is no
    /// relationship, composite or identifier.
    static func decodeGenerated(_ node: JSONNode, property: PropertyDescription, _ diagnostics: inout DiagnosticCollector)
        -> GeneratedColumn?
    {
        guard var reader = ObjectReader(node, what: "'generated'", known: KnownKeys.generated, strict: true, diagnostics: &diagnostics)
        else { return nil }
        defer { reader.finish(&diagnostics) }
        let stored = reader.bool("stored", &diagnostics) ?? false
        guard let text = reader.string("expression", required: true, &diagnostics), let expressionNode = reader.value("expression"),
            let expression = sqlExpression(text, key: "expression", at: expressionNode, &diagnostics)
        else { return nil }
        if property.defaultValue != nil && property.defaultValue != .null {
            diagnostics.error(
                "'\(property.name)' is generated: SQLite computes its values, so it has no default_value", at: node.location,
                path: node.path)
            return nil
        }
        if case .relationship = property.type {
            diagnostics.error(
                "generated applies to a value property; '\(property.name)' is a relationship", at: node.location, path: node.path)
            return nil
        }
        return GeneratedColumn(expression: expression, stored: stored)
    }

    /// `on_conflict`: an `ON CONFLICT` resolution (`rollback`, `abort`, `fail`, `ignore`, `replace`),
    /// upper-cased as the DDL writes it; nil when absent or invalid (reported).
    static func conflictResolution(_ reader: inout ObjectReader, what: String, _ diagnostics: inout DiagnosticCollector) -> String? {
        guard let text = reader.string("on_conflict", &diagnostics), let node = reader.value("on_conflict") else { return nil }
        guard let resolution = SchemaColumn.conflictResolutions.first(where: { sameSQLName($0, text) }) else {
            diagnostics.error(
                "on_conflict '\(text)' is not a resolution of \(what): write \(SchemaColumn.conflictResolutions.map { "\"\($0.lowercased())\"" }.joined(separator: ", "))",
                at: node.location, path: node.path)
            return nil
        }
        return resolution
    }

    /// One `type_history` item: `until_version` and what the property (or struct member) was before it. A
    /// struct member's type cannot change (only its nullability and default).
    static func decodeTypeHistoryItem(_ item: JSONNode, member: Bool, _ diagnostics: inout DiagnosticCollector) -> PropertyTypeHistoryItem?
    {
        guard
            var itemReader = ObjectReader(
                item, what: "a type_history item", known: member ? KnownKeys.memberTypeHistoryItem : KnownKeys.typeHistoryItem,
                diagnostics: &diagnostics)
        else { return nil }
        defer { itemReader.finish(&diagnostics) }
        guard let until = itemReader.version("until_version", &diagnostics) else {
            if !itemReader.has("until_version") {
                diagnostics.error("missing required key 'until_version'", at: item.location, path: item.path)
            }
            return nil
        }
        var entry = PropertyTypeHistoryItem(
            untilVersion: until, type: nil, nullable: nil, defaultValue: nil, location: item.location, path: item.path)
        if let typeNode = itemReader.value("property_type") {
            if member {
                diagnostics.error(
                    "a struct member's type cannot change yet (only its nullable and default_value): add a member of the new type and remove this one",
                    at: item.location, path: item.path + ".property_type")
            } else {
                entry.type = decodeType(typeNode, allowRelationship: true, &diagnostics)
                if let type = entry.type { entry.linkTable = decodeLinkTable(typeNode, type: type, &diagnostics) }
            }
        }
        entry.nullable = itemReader.bool(firstOf: ["nullable", "optional"], &diagnostics)
        if let defaultNode = itemReader.value("default_value") {
            entry.defaultValue = .some(defaultNode.value.isNull ? nil : decodeDefault(defaultNode, &diagnostics))
        }
        if !member {
            entry.lossyConversion = itemReader.bool("lossy_conversion", &diagnostics) ?? false
            if let node = itemReader.value("persisted_name") {
                if node.value.isNull {
                    entry.persistedName = .some(nil)
                } else if let name = itemReader.string("persisted_name", &diagnostics) {
                    checkColumnName(name, at: node, &diagnostics)
                    entry.persistedName = .some(name)
                }
            }
        }
        return entry
    }

    static func decodeType(_ node: JSONNode, allowRelationship: Bool, _ diagnostics: inout DiagnosticCollector) -> PropertyType? {
        switch node.value {
        case .string(let text):
            return parseTypeName(text, at: node, &diagnostics)
        case .object where allowRelationship:
            guard
                var reader = ObjectReader(
                    node, what: "a relationship", known: KnownKeys.relationship, ignored: ignoredRelationshipKeys, diagnostics: &diagnostics
                )
            else { return nil }
            defer { reader.finish(&diagnostics) }
            guard let entity = reader.string("entity_name", required: true, &diagnostics) else { return nil }
            guard let association = reader.string("association", required: true, &diagnostics) else { return nil }
            let ordered = reader.bool("ordered", &diagnostics) ?? false
            switch association {
            case "to_one":
                if let orderedNode = reader.value("ordered") {
                    diagnostics.error(
                        "ordered applies to a to-many relationship (the order of its links); a to-one has one target",
                        at: orderedNode.location, path: orderedNode.path)
                    return nil
                }
                return .relationship(entity: entity, toMany: false)
            case "to_many": return .relationship(entity: entity, toMany: true, ordered: ordered)
            default:
                diagnostics.error(
                    "association '\(association)' is not \"to_one\" or \"to_many\"", at: node.location, path: node.path + ".association")
                return nil
            }
        default:
            diagnostics.error(
                "property_type must be a type name\(allowRelationship ? " or a relationship object" : ""), found \(node.kindName)",
                at: node.location, path: node.path)
            return nil
        }
    }

    static func parseTypeName(_ text: String, at node: JSONNode, _ diagnostics: inout DiagnosticCollector) -> PropertyType? {
        if text.hasPrefix("[") {
            guard text.hasSuffix("]"), text.count > 2 else {
                diagnostics.error("malformed array type '\(text)'; write e.g. \"[string]\"", at: node.location, path: node.path)
                return nil
            }
            let inner = String(text.dropFirst().dropLast())
            if inner.hasPrefix("[") || inner.hasPrefix("{") {
                diagnostics.error(
                    "nested collection type '\(text)' is not supported for entity properties", at: node.location, path: node.path)
                return nil
            }
            return parseTypeName(inner, at: node, &diagnostics).map { .array($0) }
        }
        if let scalar = ScalarType(name: text) { return .scalar(scalar) }
        if let problem = Naming.problem(with: text) {
            diagnostics.error("unknown property type '\(text)': \(problem)", at: node.location, path: node.path)
            return nil
        }
        // Any other name is a subtype; the Resolve stage checks that it exists.
        return .subtype(text)
    }

    /// Classifies a `default_value` as Lucid does, except that `"100ms"` is milliseconds.
    static func decodeDefault(_ node: JSONNode, _ diagnostics: inout DiagnosticCollector) -> DefaultValue? {
        switch node.value {
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        case .number(let text):
            if let integer = Int64(text) { return .int(integer) }
            if let double = Double(text), double.isFinite { return .number(text) }
            diagnostics.error("default_value \(text) is out of range", at: node.location, path: node.path)
            return nil
        case .string(let text):
            if text == "current_date" { return .currentDate }
            if text == "nil" { return .null }
            if text.hasPrefix("."), text.count > 1 { return .enumCase(String(text.dropFirst())) }
            if text.hasSuffix("ms"), let value = Double(text.dropLast(2)), value.isFinite { return .milliseconds(value) }
            if text.hasSuffix("s"), let value = Double(text.dropLast()), value.isFinite { return .seconds(value) }
            return .string(text)
        case .object(let members):
            guard members.count == 1, members[0].key == "sql" else {
                diagnostics.error(
                    "default_value as an object is an SQL expression: { \"sql\": \"CURRENT_TIMESTAMP\" } (one key, \"sql\")",
                    at: node.location, path: node.path)
                return nil
            }
            guard case .string(let text) = members[0].value.value else {
                diagnostics.error(
                    "default_value's sql must be a string, found \(members[0].value.kindName)", at: members[0].value.location,
                    path: members[0].value.path)
                return nil
            }
            if let problem = SQLDefaultExpression.problem(with: text) {
                diagnostics.error(
                    "default_value's sql \(swiftStringLiteral(text)) is refused: \(problem)", at: members[0].value.location,
                    path: members[0].value.path)
                return nil
            }
            return .sqlExpression(text.trimmingCharacters(in: .whitespaces))
        default:
            diagnostics.error(
                "default_value must be a scalar or { \"sql\": … }, found \(node.kindName)", at: node.location, path: node.path)
            return nil
        }
    }

    // MARK: Subtypes

    /// One item of an enum's `cases`: a name, or an object with the case's history.
    static func decodeEnumCase(_ node: JSONNode, _ diagnostics: inout DiagnosticCollector) -> EnumCaseDescription? {
        func checkCase(_ name: String, at node: JSONNode) {
            if let problem = Naming.problem(with: name) {
                diagnostics.error("invalid case: \(problem)", at: node.location, path: node.path)
            }
        }
        if case .string(let name) = node.value {
            checkCase(name, at: node)
            return EnumCaseDescription(name: name, location: node.location, path: node.path)
        }
        guard case .object = node.value else {
            diagnostics.error(
                "an enum case must be a name or an object such as {\"name\": \"glider\", \"added_at_version\": \"2.0\"}, found \(node.kindName)",
                at: node.location, path: node.path)
            return nil
        }
        guard var reader = ObjectReader(node, what: "an enum case", known: KnownKeys.enumCase, diagnostics: &diagnostics) else {
            return nil
        }
        defer { reader.finish(&diagnostics) }
        guard let name = reader.string("name", required: true, &diagnostics) else { return nil }
        if let nameNode = reader.value("name") { checkCase(name, at: nameNode) }
        reader.what = "case '\(name)'"
        var item = EnumCaseDescription(name: name, location: node.location, path: node.path)
        item.previousName = reader.string("previous_name", &diagnostics)
        if let previous = item.previousName, let previousNode = reader.value("previous_name") { checkCase(previous, at: previousNode) }
        item.renamedAtVersion = reader.version("renamed_at_version", &diagnostics)
        item.addedAtVersion = reader.version("added_at_version", &diagnostics)
        item.removedAtVersion = reader.version("removed_at_version", &diagnostics)
        item.swiftName = readSwiftName(&reader, type: false, &diagnostics)
        if let fallbackNode = reader.value("fallback") {
            switch fallbackNode.value {
            case .null: item.fallback = .some(nil)
            case .string(let fallback): item.fallback = .some(fallback.hasPrefix(".") ? String(fallback.dropFirst()) : fallback)
            default:
                diagnostics.error(
                    "'fallback' must be a case name or null, found \(fallbackNode.kindName)", at: fallbackNode.location,
                    path: fallbackNode.path)
            }
            if item.removedAtVersion == nil {
                diagnostics.error(
                    "'fallback' only applies to a removed case: add \"removed_at_version\"", at: fallbackNode.location,
                    path: fallbackNode.path)
            }
        }
        if item.previousName != nil, item.renamedAtVersion == nil {
            diagnostics.error(
                "case '\(name)' has previous_name but no renamed_at_version: say at which version it was renamed", at: node.location,
                path: node.path + ".previous_name")
        } else if item.previousName == nil, item.renamedAtVersion != nil {
            diagnostics.error(
                "renamed_at_version needs previous_name (the case's name before the rename)", at: node.location,
                path: node.path + ".renamed_at_version")
        }
        return item
    }

    static func decodeSubtype(_ root: JSONNode, _ diagnostics: inout DiagnosticCollector) -> SubtypeDescription? {
        guard
            var reader = ObjectReader(
                root, what: "a subtype description", known: KnownKeys.subtype, ignored: ignoredSubtypeKeys, diagnostics: &diagnostics)
        else { return nil }
        defer { reader.finish(&diagnostics) }
        guard let name = reader.string("name", required: true, &diagnostics) else { return nil }
        if let node = reader.value("name") { checkFileName(name, at: node, &diagnostics) }
        reader.what = "subtype '\(name)'"
        let swiftName = readSwiftName(&reader, type: true, &diagnostics)
        let added = reader.version("added_at_version", &diagnostics)
        let addedLocation = reader.value("added_at_version")?.location
        func dated(_ subtype: SubtypeDescription) -> SubtypeDescription {
            var subtype = subtype
            subtype.addedAtVersion = added
            subtype.addedAtLocation = addedLocation
            return subtype
        }
        let kind = reader.firstPresent(
            of: ["cases", "options", "properties"], why: "a subtype is an enum (cases), an option set (options) or a struct (properties)",
            &diagnostics)
        if kind == "cases", let items = reader.array("cases", &diagnostics) {
            let history = items.compactMap { decodeEnumCase($0, &diagnostics) }
            let cases = history.filter { $0.removedAtVersion == nil }.map(\.name)
            return dated(
                SubtypeDescription(
                    name: name, kind: .enumeration(cases: cases.sorted()), location: root.location, caseHistory: history,
                    swiftName: swiftName))
        }
        if kind == "options", let options = reader.strings("options", &diagnostics) {
            for item in options {
                if let problem = Naming.problem(with: item) {
                    diagnostics.error("invalid option: \(problem)", at: root.location, path: root.path + ".options")
                }
            }
            return dated(SubtypeDescription(name: name, kind: .optionSet(options: options), location: root.location, swiftName: swiftName))
        }
        if kind == "properties", let items = reader.array("properties", &diagnostics) {
            var properties: [SubtypeProperty] = []
            for item in items {
                guard
                    var propertyReader = ObjectReader(
                        item, what: "a subtype property", known: KnownKeys.member, ignored: ignoredPropertyKeys, diagnostics: &diagnostics)
                else { continue }
                defer { propertyReader.finish(&diagnostics) }
                guard let propertyName = propertyReader.string("name", required: true, &diagnostics) else { continue }
                if let node = propertyReader.value("name") { checkName(propertyName, at: node, &diagnostics) }
                propertyReader.what = "member '\(propertyName)' of '\(name)'"
                if propertyReader.bool("unused", &diagnostics) == true { continue }
                guard let typeNode = propertyReader.value("property_type") else {
                    diagnostics.error("subtype property '\(propertyName)' has no 'property_type'", at: item.location, path: item.path)
                    continue
                }
                guard let type = decodeType(typeNode, allowRelationship: false, &diagnostics) else { continue }
                let nullable = propertyReader.bool(firstOf: ["nullable", "optional"], &diagnostics) ?? false
                var defaultValue: DefaultValue?
                if let defaultNode = propertyReader.value("default_value") { defaultValue = decodeDefault(defaultNode, &diagnostics) }
                var member = SubtypeProperty(
                    name: propertyName, type: type, nullable: nullable, defaultValue: defaultValue, location: item.location, path: item.path
                )
                // Its history, as for an entity's property.
                member.addedAtVersion = propertyReader.version("added_at_version", &diagnostics)
                member.removedAtVersion = propertyReader.version("removed_at_version", &diagnostics)
                member.previousName = propertyReader.string("previous_name", &diagnostics)
                if let previous = member.previousName, let node = propertyReader.value("previous_name") {
                    checkName(previous, at: node, &diagnostics)
                }
                member.renamedAtVersion = propertyReader.version("renamed_at_version", &diagnostics)
                if member.previousName != nil, member.renamedAtVersion == nil {
                    diagnostics.error(
                        "member '\(propertyName)' of '\(name)' has previous_name but no renamed_at_version: say at which version it was renamed",
                        at: item.location, path: item.path + ".previous_name")
                } else if member.previousName == nil, member.renamedAtVersion != nil {
                    diagnostics.error(
                        "renamed_at_version needs previous_name (the member's name before the rename)", at: item.location,
                        path: item.path + ".renamed_at_version")
                }
                member.typeHistory = (propertyReader.array("type_history", &diagnostics) ?? []).compactMap {
                    decodeTypeHistoryItem($0, member: true, &diagnostics)
                }
                member.swiftName = readSwiftName(&propertyReader, type: false, &diagnostics)
                properties.append(member)
            }
            return dated(
                SubtypeDescription(name: name, kind: .structure(properties: properties), location: root.location, swiftName: swiftName))
        }
        if kind == nil {
            diagnostics.error(
                "a subtype needs one of 'cases' (enum), 'options' (option set) or 'properties' (struct)", at: root.location, path: root.path
            )
        }
        return nil
    }
}
