/// A table's declared full-text search: an FTS5 index over some of its text columns, kept in step with
/// the table by triggers (SQLite's "external content tables", FTS5 §4.4.3).
///
/// lucidgen owns every object it takes: the FTS5 table `<table>_fts` (``SchemaTable/searchTableName``),
/// FTS5's shadow tables (`<table>_fts_data`, `_idx`, `_content`, `_docsize`, `_config`) and the three
/// triggers `<table>_fts_insert`, `_delete` and `_update`. The index holds no copy of the text
/// (`content=` the table): it reads the table's rows by rowid, which every rebuild of the table keeps.
///
/// ```swift
/// SchemaTable(name: "recipe", columns: …, primaryKey: ["id"],
///             search: SchemaSearch(columns: ["title", "notes"], tokenizer: "unicode61 remove_diacritics 2"))
/// ```
package struct SchemaSearch: Sendable, Hashable, Codable {
    /// The searched columns, in the index's column order (as named at the table's version).
    package var columns: [String]
    /// FTS5's `tokenize` option (`"unicode61 remove_diacritics 2"`, `"porter unicode61"`); nil: FTS5's default (`unicode61`).
    package var tokenizer: String?

    package init(columns: [String], tokenizer: String? = nil) {
        self.columns = columns
        self.tokenizer = tokenizer
    }

    /// The suffixes FTS5 gives the shadow tables of an index `x`: `x_data`, `x_idx`, … (an external-content
    /// index has no `_content`, but the name is FTS5's all the same).
    package static let shadowSuffixes = ["_data", "_idx", "_content", "_docsize", "_config"]
    /// The suffixes of the triggers on the table, after the index's name (`recipe_fts_insert`).
    package static let triggerSuffixes = ["_insert", "_delete", "_update"]
}

extension SchemaTable {
    /// The name of the table's FTS5 index, whether or not it declares search: `<table>_fts`.
    package var searchTableName: String { Self.searchTableName(of: name) }

    /// `<table>_fts`.
    package static func searchTableName(of table: String) -> String { table + "_fts" }

    /// Every name the table's search takes in the store (the index, its shadow tables, its triggers), or
    /// none without search: what the generator checks for collisions and the runtime owns.
    package var searchObjectNames: [String] {
        guard search != nil else { return [] }
        return [searchTableName] + searchShadowTableNames + searchTriggerNames
    }

    /// FTS5's shadow tables of the index.
    package var searchShadowTableNames: [String] { SchemaSearch.shadowSuffixes.map { searchTableName + $0 } }

    /// The triggers that keep the index in step: after insert, delete and update.
    package var searchTriggerNames: [String] { Self.searchTriggerNames(of: name) }

    /// The triggers that keep the declared search of table `table` in step.
    package static func searchTriggerNames(of table: String) -> [String] {
        SchemaSearch.triggerSuffixes.map { searchTableName(of: table) + $0 }
    }

    /// `CREATE VIRTUAL TABLE … USING fts5(…)` and its three triggers; empty without search.
    package var searchStatements: [String] {
        guard let statement = createSearchTableStatement else { return [] }
        return [statement] + searchTriggerStatements
    }

    /// The FTS5 table over the searched columns, with the table as its external content.
    package var createSearchTableStatement: String? {
        guard let search else { return nil }
        var arguments = search.columns.map(quoteIdentifier)
        arguments.append("content = \(quoteLiteral(name))")
        if let tokenizer = search.tokenizer { arguments.append("tokenize = \(quoteLiteral(tokenizer))") }
        return "CREATE VIRTUAL TABLE \(quoteIdentifier(searchTableName)) USING fts5(\(arguments.joined(separator: ", ")))"
    }

    /// The triggers of FTS5 §4.4.3: an insert adds the row's text to the index, a delete removes the text the
    /// row had (FTS5's `'delete'` command needs the old values), an update does both. A rebuild drops them
    /// with the old table; the runtime creates them again on the new one.
    package var searchTriggerStatements: [String] {
        guard let search else { return [] }
        let index = quoteIdentifier(searchTableName)
        let table = quoteIdentifier(name)
        let columns = search.columns.map(quoteIdentifier).joined(separator: ", ")
        let newValues = search.columns.map { "new." + quoteIdentifier($0) }.joined(separator: ", ")
        let oldValues = search.columns.map { "old." + quoteIdentifier($0) }.joined(separator: ", ")
        let insert = "INSERT INTO \(index) (rowid, \(columns)) VALUES (new.rowid, \(newValues));"
        let delete = "INSERT INTO \(index) (\(index), rowid, \(columns)) VALUES ('delete', old.rowid, \(oldValues));"
        let names = searchTriggerNames.map(quoteIdentifier)
        return [
            "CREATE TRIGGER \(names[0]) AFTER INSERT ON \(table) BEGIN \(insert) END",
            "CREATE TRIGGER \(names[1]) AFTER DELETE ON \(table) BEGIN \(delete) END",
            "CREATE TRIGGER \(names[2]) AFTER UPDATE ON \(table) BEGIN \(delete) \(insert) END",
        ]
    }

    /// FTS5's `'rebuild'` command: the index read again from every row of the table.
    package var rebuildSearchStatement: String {
        let index = quoteIdentifier(searchTableName)
        return "INSERT INTO \(index) (\(index)) VALUES ('rebuild')"
    }
}
