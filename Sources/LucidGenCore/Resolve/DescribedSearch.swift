import Foundation
@_spi(Generated) import LucidSchema

/// Search: an entity's declared full-text search (FTS5), checked at each version of its history.
extension ShapeBuilder {
    /// The versions a search names (`added_at_version`, `removed_at_version`, each history item's
    /// `until_version`) must be in the entity's `version_history`: a table changes only there.
    func checkSearchVersions(of timeline: EntityTimeline, _ diagnostics: inout DiagnosticCollector) {
        guard let search = timeline.entity.search else { return }
        let history = Set(timeline.historyVersions)
        var named: [(SchemaVersion, String, SourceLocation, String)] = []
        if let added = search.addedAtVersion { named.append((added, "added_at_version", search.location, search.path)) }
        if let removed = search.removedAtVersion { named.append((removed, "removed_at_version", search.location, search.path)) }
        for item in search.history { named.append((item.untilVersion, "until_version", item.location, item.path)) }
        // The index finds rows by rowid: only an INTEGER PRIMARY KEY keeps rowids through VACUUM.
        let entity = timeline.entity
        let integerKey: Bool =
            switch entity.identifier.kind {
            case .local, .scalar(.int): true
            case .scalar: false
            case .property(let key): entity.properties.first { $0.name == key }.map { $0.type == .scalar(.int) } ?? false
            }
        if !integerKey {
            diagnostics.warning(
                "search of '\(entity.name)': its table has no INTEGER PRIMARY KEY, so SQLite's VACUUM may renumber its rowids, which the search index refers to; after a VACUUM run INSERT INTO \(SchemaTable.searchTableName(of: entity.tableName))(\(SchemaTable.searchTableName(of: entity.tableName))) VALUES('rebuild')",
                at: search.location, path: search.path)
        }
        for (version, key, location, path) in named where !history.contains(version) {
            diagnostics.error(
                "search of '\(timeline.entity.name)': \(key) \(version) is not in its version_history; add {\"version\": \"\(version)\"} there",
                at: location, path: path + "." + key)
        }
    }

    /// The entity's declared search at `version` (a version of its history), over `columns` (its table's
    /// columns then): each searched property must exist then and be stored as text (a string, URL, color or
    /// enum). Problems are located on the search (or the history item that says what it was then).
    func describedSearch(
        of timeline: EntityTimeline, at version: SchemaVersion, columns: [SchemaColumn], _ diagnostics: inout DiagnosticCollector
    ) -> SchemaSearch? {
        let entity = timeline.entity
        guard let description = entity.search, let state = description.state(at: version) else { return nil }
        let live = timeline.properties(at: version)
        var searched: [String] = []
        // Every version of the history is shaped: a problem is reported at the first version it shows in.
        func report(_ name: String, _ message: String) {
            let prefix = "search of '\(entity.name)' names '\(name)'"
            let path = state.path + ".properties"
            guard !diagnostics.diagnostics.contains(where: { $0.path == path && $0.message.hasPrefix(prefix) }) else { return }
            diagnostics.error(prefix + message, at: state.location, path: path)
        }
        for name in state.properties {
            guard let property = live.first(where: { $0.name == name }) else {
                let renamed =
                    entity.properties.first { $0.previousName == name }.map { " (did you mean '\($0.name)', its current name?)" } ?? ""
                let known = entity.properties.contains { $0.name == name }
                report(
                    name,
                    known
                        ? ", which does not exist at \(version); add the search after the property (\"added_at_version\"), or say what it searched before in its \"history\""
                        : ", which is not one of its properties\(renamed)")
                continue
            }
            let type = property.asOf(version).type
            if case .relationship(_, true, _) = type {
                report(name, ", a to-many relationship: its links are in a join table, which holds no text to search")
                continue
            }
            let column = timeline.columnName(property, at: version)
            guard let schemaColumn = columns.first(where: { $0.name == column }), schemaColumn.type == .text,
                let valueType = schemaColumn.valueType, Self.isSearchable(valueType)
            else {
                report(
                    name,
                    ", which is \(valueType(of: type)) at \(version), not text: search covers properties of type string, url, color or an enum"
                )
                continue
            }
            searched.append(column)
        }
        guard searched.count == state.properties.count else { return nil }
        return SchemaSearch(columns: searched, tokenizer: state.tokenizer)
    }

    /// The names a declared search takes (`<table>_fts`, its shadow tables and triggers) must be free at
    /// the version: no described table or index, and no other search, may hold one.
    func checkSearchNames(
        _ tables: [SchemaTable], entities: [ResolvedEntity], at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector
    ) {
        guard tables.contains(where: { $0.search != nil }) else { return }
        var owners: [String: String] = [:]
        for table in tables {
            owners[sqlNameKey(table.name)] = "table \(table.name)"
            for index in table.indexes { owners[sqlNameKey(index.name)] = "index \(index.name) of \(table.name)" }
        }
        for table in tables where table.search != nil {
            let description = timelines.values.first { $0.exists(at: version) && $0.tableName(at: version) == table.name }?.entity.search
            for name in table.searchObjectNames {
                if let owner = owners[sqlNameKey(name)] {
                    let message =
                        "the search of table \(table.name) needs the name \(name), which \(owner) holds at \(version); rename one of them"
                    if !diagnostics.diagnostics.contains(where: { $0.message.hasPrefix(String(message.prefix(while: { $0 != "," }))) }) {
                        diagnostics.error(message, at: description?.location, path: description?.path)
                    }
                } else {
                    owners[sqlNameKey(name)] = "the search of \(table.name)"
                }
            }
        }
    }

    /// Whether a search may cover values of this type: stored as text, read as text.
    static func isSearchable(_ valueType: ValueType) -> Bool {
        switch valueType {
        case .string, .url, .color, .enumeration: true
        default: false
        }
    }
}
