import Foundation
import GRDB
@_spi(Generated) import LucidSchema

/// Reads a store's actual tables into the schema model, and compares them with a version's schema.
package enum StoreSchemaReader {
    /// Every table lucidgen owns (``OwnedNames``: described by the versions in question; not SQLite's
    /// `sqlite_*`, not lucidgen's `lucid_*` bookkeeping, not the app's tables), by lower-cased name, with
    /// lucidgen's indexes only. With `only`, tables outside it are listed with their name alone (no
    /// columns), which is enough to check which tables exist without reading the shape of tables a step
    /// did not touch.
    static func tables(_ db: Database, owned: OwnedNames, only: Set<String>? = nil, listing: Listing? = nil) throws -> [String: SchemaTable]
    {
        // Filtered and sorted here: the statement is compiled on every step, and LIKE … ESCAPE costs more to compile.
        let names = try
            (listing.map { $0.tables.map(\.name) } ?? String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            .filter {
                !sqlNameKey($0).hasPrefix("sqlite_") && !sqlNameKey($0).hasPrefix("lucid_") && owned.ownsTable($0)
                    && !owned.ownsSearchTable($0)
            }
            .sorted()
        let scope = only.map { Set($0.map { sqlNameKey($0) }) }
        // GRDB caches introspection per connection; a step's own DDL must be seen.
        db.clearSchemaCache()
        var result: [String: SchemaTable] = [:]
        var read: [String] = []
        for name in names {
            if let scope, !scope.contains(sqlNameKey(name)) {
                result[sqlNameKey(name)] = SchemaTable(name: name, columns: [], primaryKey: [])
            } else {
                read.append(name)
            }
        }
        let shapes = read.count >= batchThreshold ? try shapes(of: read, db) : nil
        for name in read {
            var shape = try shapes?[name] ?? table(named: name, db, sql: listing?.sql(ofTable: name))
            shape.indexes.removeAll { !owned.ownsIndex($0.name, on: name) }
            result[sqlNameKey(name)] = shape
        }
        return result
    }

    /// From how many tables ``tables(_:owned:only:)`` reads their shapes in three statements
    /// (``shapes(of:_:)``) rather than three per table: the table-valued pragmas cost more to compile.
    static let batchThreshold = 16

    /// The shapes of the tables named `names` (as ``table(named:_:)`` reads one) in three statements: each of
    /// SQLite's table-valued pragmas joined over `sqlite_master` for the tables named. A store of 2,000 tables
    /// was 6,000 PRAGMA statements, a tenth of `lucidgen plan` for it.
    static func shapes(of names: [String], _ db: Database) throws -> [String: SchemaTable] {
        // The names as one JSON argument (no limit on how many; the app's virtual tables are never asked about).
        let wanted = String(decoding: try JSONEncoder().encode(names), as: UTF8.self)
        let tables = "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?))"
        var columns: [String: [SchemaColumn]] = [:]
        var primaryKeys: [String: [(Int, String)]] = [:]
        let columnRows = try Row.fetchCursor(
            db,
            sql:
                "SELECT t.name, p.cid, p.name, p.type, p.\"notnull\", p.dflt_value, p.pk, p.hidden FROM (\(tables)) AS t, pragma_table_xinfo(t.name) AS p ORDER BY t.name, p.cid",
            arguments: [wanted])
        while let row = try columnRows.next() {
            // GRDB's `columns(in:)` leaves out the hidden columns of virtual tables (hidden = 1).
            guard (row[7] as Int?) != 1 else { continue }
            let table: String = row[0]
            let name: String = row[2]
            columns[table, default: []].append(column(name: name, declaredType: row[3], notNull: row[4], defaultSQL: row[5]))
            let key: Int = row[6]
            if key > 0 { primaryKeys[table, default: []].append((key, name)) }
        }
        var indexes: [String: [SchemaIndex]] = [:]
        var expressionIndexes: Set<[String]> = []
        let indexRows = try Row.fetchCursor(
            db,
            sql: """
                SELECT t.name, l.name, l."unique", i.name, l.partial FROM (\(tables)) AS t, pragma_index_list(t.name) AS l, pragma_index_info(l.name) AS i
                WHERE l.origin IN ('c', 'u') ORDER BY t.name, l.name, i.seqno
                """, arguments: [wanted])
        while let row = try indexRows.next() {
            let table: String = row[0]
            let index: String = row[1]
            // An index on an expression or the rowid names no column: GRDB's `indexes(on:)` leaves it out. A partial
            // index (`WHERE …`) is no description's either: both stay the app's (``partialIndexNames(of:_:)``).
            guard let column: String = row[3], (row[4] as Int? ?? 0) == 0 else {
                expressionIndexes.insert([table, index])
                continue
            }
            if let last = indexes[table]?.last, last.name == index {
                indexes[table]![indexes[table]!.count - 1].columns.append(column)
            } else {
                indexes[table, default: []].append(SchemaIndex(name: index, columns: [column], unique: row[2]))
            }
        }
        var foreignKeys: [String: ForeignKeys] = [:]
        let keyRows = try Row.fetchCursor(
            db,
            sql: """
                SELECT t.name, f.id, f."table", f."from", f."to", f.on_delete, f.on_update FROM (\(tables)) AS t, pragma_foreign_key_list(t.name) AS f
                ORDER BY t.name, f.id, f.seq
                """, arguments: [wanted])
        while let row = try keyRows.next() {
            foreignKeys[row[0], default: ForeignKeys()].add(
                id: row[1], table: row[2], from: row[3], to: row[4], onDelete: row[5], onUpdate: row[6])
        }
        // AUTOINCREMENT from each table's SQL, WITHOUT ROWID and STRICT from pragma_table_list (SQLite 3.37+), as
        // `table(named:_:)` reads them.
        var declared: [String: DeclaredInSQL] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?))",
            arguments: [wanted])
        {
            declared[row[0]] = DeclaredInSQL(row[1] as String? ?? "")
        }
        var options: [String: [String]] = [:]
        var strict: Set<String> = []
        let optionRows =
            (try? Row.fetchAll(
                db,
                sql: "SELECT name, wr, strict FROM pragma_table_list WHERE schema = 'main' AND name IN (SELECT value FROM json_each(?))",
                arguments: [wanted])) ?? []
        for row in optionRows {
            if (row[1] as Int? ?? 0) == 1 { options[row[0]] = ["WITHOUT ROWID"] }
            if (row[2] as Int? ?? 0) == 1 { strict.insert(row[0]) }
        }
        var result: [String: SchemaTable] = [:]
        for name in names {
            guard let tableColumns = columns[name] else { continue } // not a table (any more): read alone
            var table = SchemaTable(
                name: name, columns: tableColumns, primaryKey: (primaryKeys[name] ?? []).sorted { $0.0 < $1.0 }.map(\.1),
                foreignKeys: foreignKeys[name]?.declared ?? [],
                indexes: (indexes[name] ?? []).filter { !expressionIndexes.contains([name, $0.name]) }.sorted { $0.name < $1.name },
                autoincrement: declared[name]?.autoincrement == true ? true : nil)
            table.storeOptions = options[name]
            table.strict = strict.contains(name) ? true : nil
            declared[name]?.apply(to: &table)
            result[name] = table
        }
        return result
    }

    /// One table's shape: columns, primary key and indexes through SQLite's pragmas (``columns(of:_:)``,
    /// ``indexes(on:_:)``), foreign keys through ``foreignKeys(of:_:)``. Not GRDB's introspection: it quotes
    /// a name without doubling a quote inside it, so that an app index named `my"idx` made every open fail;
    /// and its `foreignKeys(on:)` has no ON DELETE action and fills an implicit referenced column in.
    package static func table(named name: String, _ db: Database, sql knownSQL: String? = nil) throws -> SchemaTable {
        var columns: [SchemaColumn] = []
        var primaryKey: [(Int, String)] = []
        let found = try Self.columns(of: name, db)
        guard !found.isEmpty else { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(name)") }
        for info in found {
            columns.append(column(name: info.name, declaredType: info.declaredType, notNull: info.notNull, defaultSQL: info.defaultSQL))
            if info.primaryKeyIndex > 0 { primaryKey.append((info.primaryKeyIndex, info.name)) }
        }
        // A UNIQUE constraint's index too (`sqlite_autoindex_…`, as GRDB's `unique()` makes one): what it
        // enforces is a unique index the description must have (``isConstraintIndex(_:)``). An index on an
        // expression or the rowid (a column without a name) and a partial index stay the app's.
        let indexes = try Self.indexes(on: name, db).compactMap { index -> SchemaIndex? in
            guard index.origin == "c" || index.origin == "u", !index.partial, let named = index.columns else { return nil }
            return SchemaIndex(name: index.name, columns: named, unique: index.unique)
        }
        // AUTOINCREMENT shows only in the table's SQL (and, once a row was inserted, in sqlite_sequence): read as
        // tokens, so that a name or a string holding the word does not count.
        let sql =
            try knownSQL
            ?? String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", arguments: [name]) ?? ""
        let declared = DeclaredInSQL(sql)
        var table = SchemaTable(
            name: name, columns: columns, primaryKey: primaryKey.sorted { $0.0 < $1.0 }.map(\.1),
            foreignKeys: try foreignKeys(of: name, db), indexes: indexes.sorted { $0.name < $1.name },
            autoincrement: declared.autoincrement ? true : nil)
        // SQLite 3.37 and later say whether a table is WITHOUT ROWID or STRICT (an older SQLite has neither).
        // Both are written at the end of the table's SQL: without their words there, the pragma is not asked.
        if declared.mayHaveTableOptions,
            let options = try? Row.fetchOne(
                db, sql: "SELECT wr, strict FROM pragma_table_list WHERE schema = 'main' AND name = ? COLLATE NOCASE", arguments: [name])
        {
            if (options["wr"] as Int? ?? 0) == 1 { table.storeOptions = ["WITHOUT ROWID"] }
            if (options["strict"] as Int? ?? 0) == 1 { table.strict = true }
        }
        declared.apply(to: &table)
        return table
    }

    /// A column as `PRAGMA table_xinfo` lists it.
    package struct ColumnInfo {
        var name: String
        var declaredType: String
        var notNull: Bool
        var defaultSQL: String?
        /// Its position in the primary key, from 1; 0 when it is not part of it.
        var primaryKeyIndex: Int
    }

    /// The columns of `table` in order (none when there is no such table), generated columns included and
    /// the hidden columns of a virtual table left out (as `SELECT *` has them). The PRAGMA statement, its
    /// name quoted by ``quoteIdentifier(_:)``: the table-valued form costs more to compile, on every step.
    package static func columns(of table: String, _ db: Database) throws -> [ColumnInfo] {
        try Row.fetchAll(db, sql: "PRAGMA main.table_xinfo(\(quoteIdentifier(table)))").compactMap { row in
            guard (row["hidden"] as Int? ?? 0) != 1 else { return nil }
            return ColumnInfo(
                name: row["name"], declaredType: row["type"] as String? ?? "", notNull: row["notnull"], defaultSQL: row["dflt_value"],
                primaryKeyIndex: row["pk"])
        }
    }

    /// The columns of `table`'s primary key in order; none for a table keyed by its hidden rowid.
    package static func primaryKey(of table: String, _ db: Database) throws -> [String] {
        try columns(of: table, db).filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }.map(\.name)
    }

    /// An index as `PRAGMA index_list` and `index_info` list it.
    package struct IndexInfo {
        var name: String
        var unique: Bool
        /// `c` (CREATE INDEX), `u` (a UNIQUE constraint) or `pk` (a PRIMARY KEY constraint).
        var origin: String
        var partial: Bool
        /// The indexed columns in order; nil when one is an expression or the rowid.
        var columns: [String]?
    }

    /// The indexes of `table`, each name quoted by ``quoteIdentifier(_:)``.
    package static func indexes(on table: String, _ db: Database) throws -> [IndexInfo] {
        try Row.fetchAll(db, sql: "PRAGMA main.index_list(\(quoteIdentifier(table)))").map { row in
            let name: String = row["name"]
            var columns: [String]? = []
            let parts = try Row.fetchAll(db, sql: "PRAGMA main.index_info(\(quoteIdentifier(name)))").sorted {
                ($0["seqno"] as Int) < ($1["seqno"] as Int)
            }
            for part in parts {
                guard let column: String = part["name"] else { columns = nil; break }
                columns?.append(column)
            }
            return IndexInfo(
                name: name, unique: row["unique"], origin: row["origin"], partial: (row["partial"] as Int? ?? 0) == 1, columns: columns)
        }
    }

    /// The table's partial indexes (`CREATE INDEX … WHERE …`): a description has no word for their condition, so
    /// they stay the app's, kept by every rebuild as the app's indexes are (describing one as a full index would
    /// make a rebuild enforce a uniqueness the app never had).
    package static func partialIndexNames(of table: String, _ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_index_list(?) WHERE partial = 1", arguments: [table]))
    }

    /// What a table's `CREATE TABLE` statement declares that SQLite's pragmas do not report (AUTOINCREMENT,
    /// collations, ON CONFLICT clauses, CHECK constraints, generated columns), read from one tokenization and
    /// at most one pass over its definitions, the same for a table read alone and for tables read together.
    struct DeclaredInSQL {
        var autoincrement: Bool
        var collations: [String: String] = [:]
        var conflicts: (notNull: [String: String], primaryKey: String?) = ([:], nil)
        var constraints = ChecksAndGenerated()
        var uniqueConflicts: [(columns: [String], resolution: String)] = []
        /// What lucidgen's DDL has no word for (``constraintsLucidgenLacks(bareKeywords:_:)``).
        var lacking: [String] = []
        /// Whether the SQL has the words of WITHOUT ROWID or STRICT, so that `pragma_table_list` must say.
        var mayHaveTableOptions = false

        /// The keywords whose clauses are read from a table's SQL (the rest of it the pragmas report).
        static let keywords: Set<String> = ["autoincrement", "collate", "conflict", "check", "as", "generated", "without", "strict"]

        init(_ sql: String) {
            // The clauses that need the definitions split are found among the bare words (a Foundation search per
            // word cost more than the rest of the table's reading on an O(1) step, and the name positions of
            // ``SQLTokens``, which nothing here reads, a third of the check after an O(1) step).
            var bare = Set<String>()
            for token in SQLLexer.significantTokens(sql) where token.kind == .word {
                let word = sqlNameKey(token.text)
                if Self.keywords.contains(word) { bare.insert(word) }
            }
            autoincrement = bare.contains("autoincrement")
            let collate = bare.contains("collate"), conflict = bare.contains("conflict")
            let constrained = bare.contains("check") || bare.contains("as") || bare.contains("generated")
            mayHaveTableOptions = bare.contains("without") || bare.contains("strict")
            let parts = collate || conflict || constrained ? definitionParts(sql) : []
            if collate { collations = columnCollations(parts) }
            if conflict {
                conflicts = conflictClauses(parts)
                uniqueConflicts = StoreSchemaReader.uniqueConflicts(parts)
            }
            if constrained { constraints = checksAndGeneratedColumns(parts) }
            lacking = constraintsLucidgenLacks(bareKeywords: bare, constraints)
        }

        /// Sets these on a table read from the store (its WITHOUT ROWID already in `storeOptions`).
        func apply(to table: inout SchemaTable) {
            for index in table.columns.indices {
                let key = sqlNameKey(table.columns[index].name)
                if let collation = collations[key] { table.columns[index].collation = collation }
                table.columns[index].notNullConflict = conflicts.notNull[key]
            }
            table.primaryKeyConflict = conflicts.primaryKey
            constraints.apply(to: &table)
            if !lacking.isEmpty { table.storeOptions = (table.storeOptions ?? []) + lacking }
            applyUniqueConflicts(uniqueConflicts, to: &table)
        }
    }

    /// What a table's SQL declares that lucidgen's DDL has no word for, so that a rebuild would drop it: a
    /// CHECK or a generated column that ``checksAndGeneratedColumns(_:)`` could not read (a CHECK or
    /// `GENERATED` keyword where it found none).
    static func constraintsLucidgenLacks(bareKeywords: Set<String>, _ read: ChecksAndGenerated) -> [String] {
        var found: [String] = []
        if bareKeywords.contains("check") && read.columnChecks.isEmpty && read.tableChecks.isEmpty { found.append("CHECK constraints") }
        if bareKeywords.contains("generated") && read.generated.isEmpty { found.append("generated columns") }
        return found
    }

    /// The CHECK constraints and generated columns of a `CREATE TABLE` statement (SQLite's pragmas report
    /// neither expression): each column's own unnamed CHECK by the column's name lower-cased, the table's
    /// CHECK constraints in order (a column's named CHECK, or its second, among them: a CHECK constrains the
    /// row wherever it is written), and each generated column's expression and whether it is STORED.
    struct ChecksAndGenerated: Equatable {
        var columnChecks: [String: String] = [:]
        var tableChecks: [SchemaCheck] = []
        var generated: [String: (expression: String, stored: Bool)] = [:]

        static func == (a: Self, b: Self) -> Bool {
            a.columnChecks == b.columnChecks && a.tableChecks == b.tableChecks
                && a.generated.mapValues { "\($0.stored) \($0.expression)" } == b.generated.mapValues { "\($0.stored) \($0.expression)" }
        }

        /// Sets these on a table read from the store.
        func apply(to table: inout SchemaTable) {
            for index in table.columns.indices {
                let key = sqlNameKey(table.columns[index].name)
                table.columns[index].check = columnChecks[key]
                if let generated = generated[key] {
                    table.columns[index].generatedSQL = generated.expression
                    table.columns[index].generatedStored = generated.stored ? true : nil
                }
            }
            table.checks = tableChecks.isEmpty ? nil : tableChecks
        }
    }

    static func checksAndGeneratedColumns(_ definitions: [[DefinitionPart]]) -> ChecksAndGenerated {
        var result = ChecksAndGenerated()
        func keyword(_ part: DefinitionPart?) -> String? {
            if case .word(let word)? = part { return word.lowercased() }
            return nil
        }
        for parts in definitions {
            guard case .word(let first)? = parts.first else { continue }
            var index = 0
            var column: String?
            if !tableConstraintWords.contains(first.lowercased()) {
                column = first
                index = 1
            }
            // The name a `CONSTRAINT name` gives the constraint that follows it.
            var pendingName: String?
            while index < parts.count {
                let word = keyword(parts[index])
                if word == "constraint", index + 1 < parts.count, case .word(let name) = parts[index + 1] {
                    pendingName = name
                    index += 2
                    continue
                }
                if word == "check", index + 1 < parts.count, case .group(let expression) = parts[index + 1] {
                    let trimmed = expression.trimmingCharacters(in: .whitespacesAndNewlines)
                    if let column, pendingName == nil, result.columnChecks[sqlNameKey(column)] == nil {
                        result.columnChecks[sqlNameKey(column)] = trimmed
                    } else {
                        result.tableChecks.append(SchemaCheck(name: pendingName, expression: trimmed))
                    }
                    pendingName = nil
                    index += 2
                    continue
                }
                if word == "as", let column, index + 1 < parts.count, case .group(let expression) = parts[index + 1] {
                    let stored = keyword(index + 2 < parts.count ? parts[index + 2] : nil) == "stored"
                    result.generated[sqlNameKey(column)] = (expression.trimmingCharacters(in: .whitespacesAndNewlines), stored)
                    index += 2
                    continue
                }
                if word != nil && word != "generated" && word != "always" { pendingName = nil }
                index += 1
            }
        }
        return result
    }

    /// The collating sequence of each column of a `CREATE TABLE` statement that declares one other than
    /// BINARY, by the column's name lower-cased (SQLite's pragmas do not report it): a `COLLATE` outside any
    /// nested parentheses of its definition (one inside a CHECK expression is not the column's). Built-in
    /// names upper-cased.
    package static func columnCollations(_ sql: String) -> [String: String] {
        guard sql.range(of: "collate", options: .caseInsensitive) != nil else { return [:] }
        return columnCollations(definitionParts(sql))
    }

    static func columnCollations(_ definitions: [[DefinitionPart]]) -> [String: String] {
        var result: [String: String] = [:]
        for words in definitions.map(words(of:)) {
            guard let name = words.first, !tableConstraintWords.contains(name.lowercased()) else { continue }
            guard let at = words.indices.dropFirst().first(where: { words[$0].lowercased() == "collate" }), at + 1 < words.count else {
                continue
            }
            let collation = words[at + 1]
            let builtIn = ["BINARY", "NOCASE", "RTRIM"].first { sameSQLName($0, collation) }
            if builtIn != "BINARY" { result[sqlNameKey(name)] = builtIn ?? collation }
        }
        return result
    }

    /// A `UNIQUE … ON CONFLICT` clause that ``uniqueConflicts(_:)`` could not tie to its index.
    static let uniqueConflictClauses = "UNIQUE ON CONFLICT clauses"

    /// The `UNIQUE … ON CONFLICT` clauses of a `CREATE TABLE` statement (SQLite's pragmas do not report them),
    /// each with its columns (a column's own `UNIQUE ON CONFLICT …`, or a table constraint's list) and its
    /// resolution upper-cased.
    static func uniqueConflicts(_ definitions: [[DefinitionPart]]) -> [(columns: [String], resolution: String)] {
        var result: [(columns: [String], resolution: String)] = []
        func word(_ part: DefinitionPart?) -> String? {
            if case .word(let text)? = part { return text.lowercased() }
            return nil
        }
        for parts in definitions {
            guard case .word(let first)? = parts.first else { continue }
            let column: String? = tableConstraintWords.contains(first.lowercased()) ? nil : first
            for index in parts.indices where word(parts[index]) == "unique" {
                var at = index + 1
                var columns: [String]
                if let column {
                    columns = [column]
                } else if at < parts.count, case .group(let list) = parts[at] {
                    // `a`, `"b" COLLATE NOCASE`, `c DESC`: each item's first word, unquoted.
                    columns = list.split(separator: ",").compactMap { item in
                        StoreSchemaReader.definitions("(\(item))").first?.first
                    }
                    at += 1
                } else {
                    continue
                }
                guard at + 2 < parts.count, word(parts[at]) == "on", word(parts[at + 1]) == "conflict",
                    let resolution = SchemaColumn.conflictResolutions.first(where: { $0.lowercased() == word(parts[at + 2]) })
                else { continue }
                if columns.isEmpty { continue }
                result.append((columns, resolution))
            }
        }
        return result
    }

    /// Ties each `UNIQUE … ON CONFLICT` to the UNIQUE constraint's index on the same columns
    /// (`sqlite_autoindex_…`); one that ties to none leaves the table to the app (``uniqueConflictClauses``).
    static func applyUniqueConflicts(_ clauses: [(columns: [String], resolution: String)], to table: inout SchemaTable) {
        var untied = false
        for clause in clauses {
            let key = clause.columns.map { sqlNameKey($0) }
            guard
                let at = table.indexes.firstIndex(where: {
                    isConstraintIndex($0) && $0.unique && $0.onConflict == nil && $0.columns.map { sqlNameKey($0) } == key
                })
            else {
                untied = true
                continue
            }
            table.indexes[at].onConflict = clause.resolution
        }
        if untied { table.storeOptions = (table.storeOptions ?? []) + [uniqueConflictClauses] }
    }

    /// The words that start a table constraint rather than a column definition.
    static let tableConstraintWords: Set<String> = ["constraint", "primary", "unique", "check", "foreign"]

    /// The `ON CONFLICT` clauses of a `CREATE TABLE` statement (SQLite's pragmas do not report them): each
    /// column's `NOT NULL ON CONFLICT …` by its name lower-cased, the primary key's (on its column or in a
    /// table constraint). Resolutions upper-cased. A `UNIQUE`'s are ``uniqueConflicts(_:)``'s.
    static func conflictClauses(_ definitions: [[DefinitionPart]]) -> (notNull: [String: String], primaryKey: String?) {
        var notNull: [String: String] = [:]
        var primaryKey: String?
        for definition in definitions.map(words(of:)) {
            var words = definition.map { $0.lowercased() }
            var column: String?
            if words.first == "constraint" { words.removeFirst(min(2, words.count)) }
            if let first = words.first, !tableConstraintWords.contains(first) { column = definition.first }
            let start = column == nil ? 0 : 1
            var index = start
            while index < words.count {
                // The constraint this clause follows: the nearest NOT NULL, PRIMARY KEY or UNIQUE before it.
                guard words[index] == "on", index + 2 < words.count, words[index + 1] == "conflict",
                    let resolution = SchemaColumn.conflictResolutions.first(where: { $0.lowercased() == words[index + 2] })
                else {
                    index += 1
                    continue
                }
                let before = words[start..<index]
                let owner = ["null", "key", "unique"].compactMap { word in before.lastIndex(of: word).map { (word, $0) } }.max {
                    $0.1 < $1.1
                }?.0
                switch owner {
                case "null": if let column { notNull[sqlNameKey(column)] = resolution }
                case "key": primaryKey = resolution
                default: break
                }
                index += 3
            }
        }
        return (notNull, primaryKey)
    }

    /// The definitions of a `CREATE TABLE` statement (its columns, then its table constraints), each as its
    /// words at the top level of the statement's parentheses, in order: identifiers (quoted ones unquoted)
    /// and keywords; string literals, comments and anything inside nested parentheses left out.
    static func definitions(_ sql: String) -> [[String]] {
        definitionParts(sql).map(words(of:))
    }

    /// A definition's words, its groups left out.
    static func words(of parts: [DefinitionPart]) -> [String] {
        parts.compactMap { part in
            if case .word(let word) = part { return word }
            return nil
        }
    }

    /// A part of a definition at the top level of a `CREATE TABLE` statement's parentheses: a word, or the
    /// text inside a parenthesised group exactly as written (a CHECK's or a generated column's expression).
    enum DefinitionPart: Equatable {
        case word(String)
        case group(String)
    }

    /// The definitions of a `CREATE TABLE` statement as ``definitions(_:)`` reads them, each nested group
    /// kept as its text (``DefinitionPart/group(_:)``) where it stands among the words.
    static func definitionParts(_ sql: String) -> [[DefinitionPart]] {
        var result: [[DefinitionPart]] = []
        var depth = 0
        // Parts of the current definition at depth 1 (the column definitions' level), in order.
        var words: [DefinitionPart] = []
        // Where the text of the group open at depth 2 starts.
        var groupStart = 0
        func finishDefinition() {
            if !words.isEmpty { result.append(words) }
            words = []
        }
        for token in SQLLexer.significantTokens(sql) {
            switch token.kind {
            // A quoted identifier is a word (a column's name); a number is kept as written, a string
            // literal or a blob is not a word.
            case .word, .quotedName, .number:
                if depth == 1 { words.append(.word(token.text)) }
            case .punctuation where token.text == "(":
                depth += 1
                if depth == 2 { groupStart = token.range.upperBound }
            case .punctuation where token.text == ")":
                if depth == 1 { finishDefinition() }
                if depth == 2 { words.append(.group(SQLLexer.text(sql, groupStart..<token.range.lowerBound))) }
                depth -= 1
            case .punctuation where token.text == ",":
                if depth == 1 { finishDefinition() }
            default:
                break
            }
        }
        return result
    }

    /// A column as the store declares it. An unknown declared type is kept visible by mapping it to BLOB
    /// (the schema check then reports the difference).
    private static func column(name: String, declaredType: String, notNull: Bool, defaultSQL: String?) -> SchemaColumn {
        let (type, declared) = SchemaColumn.storage(declared: declaredType)
        return SchemaColumn(name: name, type: type, notNull: notNull, defaultSQL: defaultSQL).declared(declared)
    }

    /// A table's foreign keys as declared: columns, referenced table and columns (empty when the
    /// declaration names none), and the ON DELETE action, which GRDB's introspection does not expose.
    static func foreignKeys(of table: String, _ db: Database) throws -> [SchemaForeignKey] {
        var keys = ForeignKeys()
        // The PRAGMA statement itself: its table-valued form compiles a virtual table and a sort, which cost
        // about a tenth of a whole O(1) migration.
        let rows = try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(quoteIdentifier(table)))")
            .sorted { ($0["id"] as Int, $0["seq"] as Int) < ($1["id"] as Int, $1["seq"] as Int) }
        for row in rows {
            keys.add(
                id: row["id"], table: row["table"], from: row["from"], to: row["to"], onDelete: row["on_delete"], onUpdate: row["on_update"]
            )
        }
        return keys.declared
    }

    /// One table's foreign keys, gathered from `foreign_key_list` rows in (id, seq) order.
    private struct ForeignKeys {
        private var keys: [Int: SchemaForeignKey] = [:]

        mutating func add(id: Int, table: String, from: String, to: String?, onDelete: String, onUpdate: String) {
            var key =
                keys[id]
                ?? SchemaForeignKey(
                    columns: [], table: table, tableColumns: [], onDelete: SchemaForeignKey.Action(rawValue: onDelete) ?? .noAction,
                    onUpdate: SchemaForeignKey.Action(rawValue: onUpdate))
            key.columns.append(from)
            key.tableColumns.append(to ?? "")
            keys[id] = key
        }

        /// In declaration order (by id).
        var declared: [SchemaForeignKey] { keys.keys.sorted().map { keys[$0]! } }
    }

    /// The `CREATE` statements of the declared search objects `owned` names (FTS5 tables and triggers, not
    /// shadow tables) that the store holds, by lower-cased name.
    static func searchObjects(_ db: Database, owned: OwnedNames, listing: Listing? = nil) throws -> [String: String] {
        let listing = try listing ?? Listing(db)
        var result: [String: String] = [:]
        for (type, objects) in [("table", listing.tables), ("trigger", listing.triggers)] {
            for (name, sql) in objects {
                guard let sql, type == "trigger" ? owned.ownsTrigger(name) : owned.ownsSearchTable(name) else { continue }
                guard type == "trigger" || sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE") else { continue }
                result[sqlNameKey(name)] = sql
            }
        }
        return result
    }

    /// The store's tables and triggers with their SQL, in one read of `sqlite_master`: what the check after a
    /// step needs for both ``tables(_:owned:only:listing:)`` and ``searchObjects(_:owned:listing:)``.
    struct Listing {
        var tables: [(name: String, sql: String?)] = []
        var triggers: [(name: String, sql: String?)] = []
        private var sqlByName: [String: String] = [:]

        init(_ db: Database) throws {
            for row in try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'trigger')") {
                let name: String = row["name"], sql: String? = row["sql"]
                if (row["type"] as String) == "table" {
                    tables.append((name, sql))
                    if let sql { sqlByName[sqlNameKey(name)] = sql }
                } else {
                    triggers.append((name, sql))
                }
            }
        }

        /// A table's `CREATE TABLE` statement (names compared as SQLite does, case-insensitively).
        func sql(ofTable name: String) -> String? { sqlByName[sqlNameKey(name)] }
    }

    /// Differences between the declared search of a version's tables and the store's search objects
    /// (``searchObjects(_:owned:)``): each FTS5 table and trigger must be there as lucidgen creates it, and
    /// none of another version's may be left.
    static func searchDifferences(expected: Schema, found: [String: String]) -> [String] {
        var lines: [String] = []
        var expectedNames: Set<String> = []
        for table in expected.tables where table.search != nil {
            let names = [table.searchTableName] + table.searchTriggerNames
            for (name, statement) in zip(names, table.searchStatements) {
                expectedNames.insert(sqlNameKey(name))
                let kind = name == table.searchTableName ? "search index" : "search trigger"
                switch found[sqlNameKey(name)] {
                case nil: lines.append("table \(table.name): expected \(kind) \(name), found none")
                case let sql? where sql != statement: lines.append("table \(table.name): expected \(kind) \(statement), found \(sql)")
                default: break
                }
            }
        }
        for name in found.keys.sorted() where !expectedNames.contains(name) {
            lines.append("search object \(name): not expected, found")
        }
        return lines
    }

    /// Table-level differences between a version's schema and a store's tables (and its declared search,
    /// `search` as ``searchObjects(_:owned:)`` reads it), as "expected …, found …" lines. Objects listed in
    /// `tolerated` (deferred cleanup) may be present.
    static func differences(
        expected: Schema, actual: [String: SchemaTable], search: [String: String], tolerated: PendingCleanup.Tolerance = .init(),
        only: Set<String>? = nil
    ) -> [String] {
        var lines = searchDifferences(expected: expected, found: search)
        let scope = only.map { Set($0.map { sqlNameKey($0) }) }
        for table in expected.tables {
            guard let found = actual[sqlNameKey(table.name)] else {
                lines.append("table \(table.name): expected, found none")
                continue
            }
            if let scope, !scope.contains(sqlNameKey(table.name)) { continue }
            lines += columnProblems(expected: table, found: found)
            let expectedNames = Set(table.columns.map { sqlNameKey($0.name) })
            for column in found.columns where !expectedNames.contains(sqlNameKey(column.name)) {
                if tolerated.columns.contains("\(sqlNameKey(table.name)).\(sqlNameKey(column.name))") { continue }
                lines.append("table \(table.name): expected no column \(column.name), found \(describe(column))")
            }
            if found.primaryKey.map({ sqlNameKey($0) }) != table.primaryKey.map({ sqlNameKey($0) }) {
                lines.append(
                    "table \(table.name): expected primary key (\(table.primaryKey.joined(separator: ", "))), found (\(found.primaryKey.joined(separator: ", ")))"
                )
            }
            if let options = found.storeOptions {
                // Every rebuild copies rows by rowid into a table of lucidgen's DDL: refused here, before any step.
                lines.append(
                    "table \(table.name): it uses \(options.joined(separator: " and ")), which lucidgen's tables do not (not describable yet: leave the table to the app, or rebuild it without)"
                )
            }
            if found.primaryKeyConflict != table.primaryKeyConflict {
                lines.append(
                    "table \(table.name): expected primary key \(table.primaryKeyConflict.map { "ON CONFLICT \($0)" } ?? "without ON CONFLICT"), found \(found.primaryKeyConflict.map { "ON CONFLICT \($0)" } ?? "none")"
                )
            }
            let expectedChecks = (table.checks ?? []).map(normalized), foundChecks = (found.checks ?? []).map(normalized)
            for check in table.checks ?? [] where !foundChecks.contains(normalized(check)) {
                lines.append("table \(table.name): expected \(check.sql), found none")
            }
            for check in found.checks ?? [] where !expectedChecks.contains(normalized(check)) {
                lines.append("table \(table.name): expected no \(check.sql), found it (describe it: a \"checks\" item of the entity)")
            }
            switch (table.strict == true, found.strict == true) {
            case (true, false): lines.append("table \(table.name): expected STRICT, found a table that is not")
            case (false, true):
                lines.append(
                    "table \(table.name): expected no STRICT, found it (describe it: \"strict\": true in the entity's description)")
            default: break
            }
            switch (table.autoincrement == true, found.autoincrement == true) {
            case (true, false): lines.append("table \(table.name): expected AUTOINCREMENT on its primary key, found none")
            case (false, true):
                lines.append(
                    "table \(table.name): expected no AUTOINCREMENT, found it on its primary key (describe it: \"autoincrement\": true in the entity's identifier)"
                )
            default: break
            }
            let expectedKeys = Set(table.foreignKeys.map(normalized))
            let foundKeys = Set(found.foreignKeys.map(normalized))
            for key in table.foreignKeys where !foundKeys.contains(normalized(key)) {
                lines.append("table \(table.name): expected foreign key \(describe(key)), found none")
            }
            for key in found.foreignKeys where !expectedKeys.contains(normalized(key)) {
                lines.append("table \(table.name): expected no foreign key \(describe(key)), found one")
            }
            let foundIndexes = Set(found.indexes.map(normalized))
            let expectedIndexes = Set(table.indexes.map(normalized))
            // A UNIQUE constraint in the table's SQL is the expected unique index on its columns, whatever that
            // index's name: a rebuild makes it the named index (each one matched once).
            var constraints = found.indexes.filter(isConstraintIndex).map(normalized)
            func matchesConstraint(_ index: SchemaIndex) -> Bool {
                guard index.unique,
                    let at = constraints.firstIndex(where: { $0.columns == normalized(index).columns && $0.onConflict == index.onConflict })
                else { return false }
                constraints.remove(at: at)
                return true
            }
            for index in table.indexes
            where (index.onConflict != nil || !foundIndexes.contains(normalized(index))) && !matchesConstraint(index) {
                if tolerated.indexes.contains(sqlNameKey(index.name)) { continue }
                let conflict = index.onConflict.map { " UNIQUE ON CONFLICT \($0)" } ?? ""
                lines.append(
                    "table \(table.name): expected index \(index.name) (\(index.columns.joined(separator: ", ")))\(conflict), found none")
            }
            for index in found.indexes where !isConstraintIndex(index) && !expectedIndexes.contains(normalized(index)) {
                lines.append(
                    "table \(table.name): expected no index \(index.name), found one on (\(index.columns.joined(separator: ", ")))")
            }
            for index in constraints {
                let conflict = index.onConflict.map { " ON CONFLICT \($0)" } ?? ""
                lines.append(
                    "table \(table.name): expected no UNIQUE constraint\(conflict), found one on (\(index.columns.joined(separator: ", "))) (describe it: \"unique\": true, or a unique indexes item\(index.onConflict.map { " with \"on_conflict\": \"\($0.lowercased())\"" } ?? ""))"
                )
            }
        }
        let expectedTables = Set(expected.tables.map { sqlNameKey($0.name) })
        for name in actual.keys.sorted() where !expectedTables.contains(name) && !tolerated.tables.contains(name) {
            lines.append("table \(actual[name]!.name): not expected, found")
        }
        return lines
    }

    /// Each column of `expected` missing from `found` or found with another type, nullability or default.
    private static func columnProblems(expected table: SchemaTable, found: SchemaTable) -> [String] {
        var lines: [String] = []
        let foundColumns = Dictionary(found.columns.map { (sqlNameKey($0.name), $0) }, uniquingKeysWith: { first, _ in first })
        for column in table.columns {
            guard let other = foundColumns[sqlNameKey(column.name)] else {
                lines.append("table \(table.name): expected column \(describe(column)), found none")
                continue
            }
            // An INTEGER PRIMARY KEY is the rowid: it is never NULL whether or not it says NOT NULL (GRDB's
            // autoIncrementedPrimaryKey does not), so that difference is none.
            let rowid = table.primaryKey.count == 1 && sameSQLName(table.primaryKey[0], column.name) && column.type == .integer
            if other.sqlType.uppercased() != column.sqlType.uppercased() || (other.notNull != column.notNull && !rowid)
                || unwrapped(other.defaultSQL) != unwrapped(column.defaultSQL)
                || !SchemaColumn.sameCollation(other.collation, column.collation)
                || (column.notNull && other.notNullConflict != column.notNullConflict)
                || normalizedSQL(other.check) != normalizedSQL(column.check)
                || normalizedSQL(other.generatedSQL) != normalizedSQL(column.generatedSQL)
                || (other.generatedStored == true) != (column.generatedStored == true)
            {
                lines.append("table \(table.name): expected column \(describe(column)), found \(describe(other))")
            }
        }
        return lines
    }

    /// What an older app at `expected` would find wrong in a newer store's tables: a table or column it
    /// expects that is missing or has another type, nullability, default or primary key, and a column it
    /// does not know that its inserts would leave NULL where NULL is refused. Tables, columns, indexes
    /// and foreign keys it does not know are otherwise accepted (the compatibility record vouches for
    /// them); this only makes sure a wrong record cannot make the older app write into the wrong shape.
    static func olderAppProblems(expected: Schema, actual: [String: SchemaTable]) -> [String] {
        var lines: [String] = []
        for table in expected.tables {
            guard let found = actual[sqlNameKey(table.name)] else {
                lines.append("table \(table.name): expected, found none")
                continue
            }
            lines += columnProblems(expected: table, found: found)
            let known = Set(table.columns.map { sqlNameKey($0.name) })
            for column in found.columns where !known.contains(sqlNameKey(column.name)) && column.notNull && column.defaultSQL == nil {
                lines.append("table \(table.name): column \(describe(column)) is required without a default")
            }
            if found.primaryKey.map({ sqlNameKey($0) }) != table.primaryKey.map({ sqlNameKey($0) }) {
                lines.append(
                    "table \(table.name): expected primary key (\(table.primaryKey.joined(separator: ", "))), found (\(found.primaryKey.joined(separator: ", ")))"
                )
            }
        }
        return lines
    }

    /// SQLite reports a parenthesised default expression without its outer parentheses. A blob literal is
    /// the same bytes in either case (`x'0aff'`, as apps write it, is lucidgen's `X'0AFF'`).
    private static func unwrapped(_ defaultSQL: String?) -> String? {
        defaultSQL.map(SchemaColumn.unwrappedDefault).map { sql in
            let tokens = SQLLexer.tokens(sql)
            guard tokens.count == 1, let blob = tokens.first, blob.kind == .blob, blob.closed,
                blob.text.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit })
            else { return sql }
            return sql.uppercased()
        }
    }

    private static func describe(_ column: SchemaColumn) -> String {
        "\(column.name) \(column.sqlType)\(column.notNull ? " NOT NULL" : "")\(column.notNull ? column.notNullConflict.map { " ON CONFLICT \($0)" } ?? "" : "")\(column.defaultSQL.map { " DEFAULT \($0)" } ?? "")\(column.collation.map { " COLLATE \($0)" } ?? "")"
            + (column.check.map { " CHECK (\($0))" } ?? "")
            + (column.generatedSQL.map { " GENERATED ALWAYS AS (\($0)) \(column.generatedStored == true ? "STORED" : "VIRTUAL")" } ?? "")
    }

    /// An expression as compared: its text without the space around it (SQLite keeps a table's SQL as written).
    private static func normalizedSQL(_ expression: String?) -> String? {
        expression?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func normalized(_ check: SchemaCheck) -> SchemaCheck {
        SchemaCheck(name: check.name.map { sqlNameKey($0) }, expression: check.expression.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private static func describe(_ key: SchemaForeignKey) -> String {
        "(\(key.columns.joined(separator: ", "))) → \(key.table)(\(key.tableColumns.joined(separator: ", ")))\(key.actionsSQL)"
    }

    private static func normalized(_ key: SchemaForeignKey) -> SchemaForeignKey {
        SchemaForeignKey(
            columns: key.columns.map { sqlNameKey($0) }, table: sqlNameKey(key.table),
            tableColumns: key.tableColumns.map { sqlNameKey($0) }, onDelete: key.onDelete, onUpdate: key.onUpdate)
    }

    /// The index of a UNIQUE constraint written in the table's SQL (SQLite names it `sqlite_autoindex_<table>_<n>`).
    package static func isConstraintIndex(_ index: SchemaIndex) -> Bool {
        sqlNameKey(index.name).hasPrefix("sqlite_autoindex_")
    }

    private static func normalized(_ index: SchemaIndex) -> SchemaIndex {
        var result = SchemaIndex(name: sqlNameKey(index.name), columns: index.columns.map { sqlNameKey($0) }, unique: index.unique)
        result.onConflict = index.onConflict
        return result
    }
}
