import Foundation

/// The storage shape of one schema version: the SQLite tables a store at that version has.
///
/// A `Schema` is what the generator freezes for every released version and what the runtime
/// compares a store with. Its ``checksum`` is a SHA-256 of the canonical DDL, so two versions
/// whose tables are identical share a checksum.
public struct Schema: Sendable, Hashable, Codable {
    public var version: SchemaVersion

    /// The tables, sorted by name. A version a generated registry states with deferred tables
    /// (``SchemaTable/Deferred``) builds them the first time they are read: a registry of 150 versions
    /// lists them all, and a store one version behind reads two.
    package var tables: [SchemaTable] {
        get { storage.tables }
        set { storage = TableList(newValue.map(TableList.Entry.table)) }
    }

    /// The tables' names, sorted, without building a deferred table.
    package var tableNames: [String] { storage.entries.map(\.name) }

    private var storage: TableList

    /// A version stated by all its tables (in any order: they are sorted by name).
    @_spi(Generated) public init(version: SchemaVersion, tables: [any SchemaTableSource]) {
        self.version = version
        self.storage = TableList(tables.map(TableList.Entry.init).sorted { $0.name < $1.name })
    }

    /// A version stated by what changed since `previous`: its tables are `previous`'s, with each table of
    /// `changed` replacing the one of the same name (or added), and the tables named in `removed` gone.
    ///
    /// Generated registries state every version after the first this way, so that a long history
    /// (hundreds of versions, most tables unchanged in each) costs lines for its changes only, with
    /// deferred tables, so that building every version of the list builds no table.
    ///
    /// ```swift
    /// static let version1_1 = Schema(version: SchemaVersion("1.1"), basedOn: version1_0,
    ///                                replacing: [table_aircraft_2], removing: ["old_notes"])
    /// ```
    @_spi(Generated) public init(
        version: SchemaVersion, basedOn previous: Schema, replacing changed: [any SchemaTableSource], removing removed: [String] = []
    ) {
        self.version = version
        self.storage = TableList(
            Self.entries(of: previous.storage.entries, replacing: changed.map(TableList.Entry.init), removing: removed))
    }

    /// `previous` (sorted by name, as every schema's tables are) with each change replacing, inserting or
    /// removing one table in place: a registry builds every version when a store migrates, and sorting and
    /// filtering each whole list was a third of building a 150-version history.
    private static func entries(of previous: [TableList.Entry], replacing changed: [TableList.Entry], removing removed: [String])
        -> [TableList.Entry]
    {
        var entries = previous
        guard entries.indices.dropFirst().allSatisfy({ entries[$0 - 1].name < entries[$0].name }) else {
            // A schema whose tables were set out of order (the property is settable): filter and sort.
            let gone = Set(changed.map(\.name)).union(removed)
            return (entries.filter { !gone.contains($0.name) } + changed).sorted { $0.name < $1.name }
        }
        for name in removed {
            let place = position(of: name, in: entries)
            if place.found { entries.remove(at: place.index) }
        }
        for entry in changed {
            let place = position(of: entry.name, in: entries)
            if place.found { entries[place.index] = entry } else { entries.insert(entry, at: place.index) }
        }
        return entries
    }

    /// Where the table named `name` is, or would go, in `entries` (sorted by name): a binary search.
    private static func position(of name: String, in entries: [TableList.Entry]) -> (index: Int, found: Bool) {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].name < name { low = middle + 1 } else { high = middle }
        }
        return (low, low < entries.count && entries[low].name == name)
    }

    /// The deferred constant this version states its table `name` with (nil for a built table, or none
    /// of that name): two versions that state a table with the same constant have the same table.
    func deferredTable(named name: String) -> SchemaTable.Deferred? {
        let place = Self.position(of: name, in: storage.entries)
        guard place.found, case .deferred(let deferred) = storage.entries[place.index] else { return nil }
        return deferred
    }

    /// The deferred table at `position` of ``tables`` (``tableNames``), or nil when that table is built.
    func deferredTable(at position: Int) -> SchemaTable.Deferred? {
        guard case .deferred(let deferred) = storage.entries[position] else { return nil }
        return deferred
    }

    /// The name of the table at `position` of ``tables`` (``tableNames`` makes them all).
    func tableName(at position: Int) -> String {
        storage.entries[position].name
    }

    /// The table at `position` of ``tables`` (``tableNames``), built alone if it is deferred.
    func table(at position: Int) -> SchemaTable {
        storage.entries[position].table
    }

    /// The tables, sorted by name, without those named in `skipped` (which are not built).
    func tables(skipping skipped: Set<String>) -> [SchemaTable] {
        guard !skipped.isEmpty else { return tables }
        return storage.entries.compactMap { skipped.contains($0.name) ? nil : $0.table }
    }

    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.version == rhs.version && (lhs.storage === rhs.storage || lhs.tables == rhs.tables)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(tables)
    }

    private enum CodingKeys: String, CodingKey {
        case version, tables
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(SchemaVersion.self, forKey: .version)
        storage = TableList(try container.decode([SchemaTable].self, forKey: .tables).map(TableList.Entry.table))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(tables, forKey: .tables)
    }

    /// A version's tables as stated (built or deferred), and, once read, built.
    private final class TableList: Sendable {
        enum Entry: Sendable {
            case table(SchemaTable)
            case deferred(SchemaTable.Deferred)

            init(_ source: any SchemaTableSource) {
                if let deferred = source as? SchemaTable.Deferred { self = .deferred(deferred) } else { self = .table(source.builtTable) }
            }

            var name: String {
                switch self {
                case .table(let table): table.name
                case .deferred(let deferred): deferred.name
                }
            }

            /// The table (built, if it is deferred and was not yet).
            var table: SchemaTable {
                switch self {
                case .table(let table): table
                case .deferred(let deferred): deferred.table
                }
            }
        }

        let entries: [Entry]
        /// The tables when none is deferred (read without a lock).
        private let given: [SchemaTable]?
        private let built: BuiltOnce<[SchemaTable]>

        init(_ entries: [Entry]) {
            self.entries = entries
            var given: [SchemaTable]? = []
            for entry in entries {
                guard case .table(let table) = entry else {
                    given = nil
                    break
                }
                given?.append(table)
            }
            self.given = given
            built = BuiltOnce { entries.map(\.table) }
        }

        var tables: [SchemaTable] { given ?? built.value }
    }

    /// The table with this name (SQLite compares names case-insensitively).
    package func table(named name: String) -> SchemaTable? {
        tables.first { sameSQLName($0.name, name) }
    }

    /// Every table under its ``sqlNameKey(_:)``, for looking up many: ``table(named:)`` searches the
    /// tables one by one, which inside a loop over tables is quadratic in a schema of thousands of them.
    /// Where two names are the same to SQLite (never in a valid schema), the first table wins, as
    /// ``table(named:)`` finds it.
    package func tablesByNameKey() -> [String: SchemaTable] {
        Dictionary(tables.map { (sqlNameKey($0.name), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// `CREATE TABLE` and `CREATE INDEX` statements, in a deterministic order.
    package var ddl: [String] { tables.flatMap(\.createStatements) }

    /// SHA-256 of the DDL, hex-encoded.
    package var checksum: String { SHA256.hex(of: ddl.joined(separator: ";\n")) }

    /// ``checksum``, reusing the statements of every table that is as `cache` last saw it under its
    /// name (the generator checksums every version of a long history, whose tables mostly repeat).
    package func checksum(cache: inout [String: (table: SchemaTable, statements: [String])]) -> String {
        var ddl: [String] = []
        for table in tables {
            if let cached = cache[table.name], cached.table == table {
                ddl += cached.statements
            } else {
                let statements = table.createStatements
                cache[table.name] = (table, statements)
                ddl += statements
            }
        }
        return SHA256.hex(of: ddl.joined(separator: ";\n"))
    }
}

/// Rows of one table of the previous version that move into a table at this version (see
/// ``SchemaTable/movedRows``): the rows of some kinds of a hierarchy's table, or every row of a table
/// without a kind column. Each keeps its id; its columns are copied by name.
@_spi(Generated) public struct MovedRows: Sendable, Hashable, Codable {
    /// The table the rows come from, as named at the previous version.
    package var table: String
    /// The kinds of the rows that move (as the source's kind column holds them), each with its kind in
    /// this table; nil when the source has no kind column (every row moves).
    package var kinds: [KindRewrite.Rename]?
    /// The kind the rows take when the source has no kind column (nil when this table has none either).
    package var kind: String?

    package init(table: String, kinds: [KindRewrite.Rename]?, kind: String?) {
        self.table = table
        self.kinds = kinds
        self.kind = kind
    }
}

/// A table of a schema version.
@_spi(Generated) public struct SchemaTable: Sendable, Hashable, Codable {
    package enum Kind: String, Sendable, Codable {
        /// Holds the rows of an entity.
        case entity
        /// Links the rows of a to-many relationship.
        case join
    }

    package var name: String
    package var kind: Kind
    package var columns: [SchemaColumn]
    /// Primary key columns, in order.
    package var primaryKey: [String]
    package var foreignKeys: [SchemaForeignKey]
    package var indexes: [SchemaIndex]
    /// The table's name in the previous schema version when it was renamed at this version.
    package var renamedFrom: String?
    /// For a join table that replaces a to-one relationship at this version: the foreign key column of
    /// the owner table (at the previous version) whose values become this table's links.
    package var convertedFromColumn: String?
    /// True when the table is new at this version although the previous version had a table of the same
    /// name (renamed or removed at this version): it is not that table, and no row comes from it.
    package var reusesName: Bool?
    /// The table's declared full-text search (an FTS5 index over some of its text columns), if any. Its
    /// statements join the table's DDL (and so the checksum) only when present.
    package var search: SchemaSearch?
    /// True when the integer primary key is `AUTOINCREMENT` (GRDB's `autoIncrementedPrimaryKey`): SQLite
    /// never hands out an id again, keeping the highest in `sqlite_sequence`, which every rebuild carries over.
    /// Nil otherwise, so that the DDL, JSON and checksum of every other table are what they were before.
    package var autoincrement: Bool?
    /// True when the table is `STRICT` (SQLite 3.37+): every value must be of its column's declared type
    /// (`INTEGER`, `INT`, `REAL`, `TEXT`, `BLOB` or `ANY`), or the insert fails. Every rebuild creates it
    /// `STRICT` again. Nil otherwise, so that the DDL, JSON and checksum of every other table are what they were.
    package var strict: Bool? = nil
    /// The primary key's `ON CONFLICT` resolution when the app declared one (`ROLLBACK`, `ABORT`, `FAIL`,
    /// `IGNORE`, `REPLACE`): the DDL says it and every rebuild keeps it. Nil otherwise (the DDL, JSON and
    /// checksum of every other table are what they were).
    package var primaryKeyConflict: String? = nil
    /// The table's CHECK constraints (a table constraint each, or a column's named one), in the order the
    /// table declares them: the DDL says them after the foreign keys and every rebuild keeps them. Nil when
    /// it has none (the DDL, JSON and checksum of every other table are what they were).
    package var checks: [SchemaCheck]? = nil
    /// A store's table only: what it has that lucidgen's tables never have (`WITHOUT ROWID`, CHECK
    /// constraints, generated columns), which make it no version's table (nil for every described table).
    package var storeOptions: [String]? = nil
    /// Rows that come into this table at this version from tables of the previous version: an entity that
    /// gains a parent, loses it or moves to another parent takes its rows (and its subentities') to the
    /// table of its new root. Nil for every other table (its DDL, JSON and checksum are what they were).
    package var movedRows: [MovedRows]? = nil

    package init(
        name: String, kind: Kind = .entity, columns: [SchemaColumn], primaryKey: [String],
        foreignKeys: [SchemaForeignKey] = [], indexes: [SchemaIndex] = [], renamedFrom: String? = nil,
        convertedFromColumn: String? = nil, reusesName: Bool? = nil, search: SchemaSearch? = nil, autoincrement: Bool? = nil
    ) {
        self.search = search
        self.autoincrement = autoincrement
        self.name = name
        self.kind = kind
        self.columns = columns
        self.primaryKey = primaryKey
        self.foreignKeys = foreignKeys
        self.indexes = indexes
        self.renamedFrom = renamedFrom
        self.convertedFromColumn = convertedFromColumn
        self.reusesName = reusesName
    }

    package func column(named name: String) -> SchemaColumn? {
        columns.first { sameSQLName($0.name, name) }
    }

    /// The statement that creates this table, with the given name (the rebuild creates it under a temporary name).
    package func createTableStatement(named tableName: String? = nil) -> String {
        var parts = columns.map { column -> String in
            let conflict = primaryKeyConflict.map { " ON CONFLICT \($0)" } ?? ""
            let key = primaryKey == [column.name] ? " PRIMARY KEY\(conflict)\(autoincrement == true ? " AUTOINCREMENT" : "")" : ""
            return "\(quoteIdentifier(column.name)) \(column.constraintsSQL(primaryKey: key))"
        }
        if primaryKey.count > 1 {
            parts.append(
                "PRIMARY KEY (\(primaryKey.map(quoteIdentifier).joined(separator: ", ")))\(primaryKeyConflict.map { " ON CONFLICT \($0)" } ?? "")"
            )
        }
        for key in foreignKeys {
            parts.append(
                "FOREIGN KEY (\(key.columns.map(quoteIdentifier).joined(separator: ", "))) REFERENCES "
                    + "\(quoteIdentifier(key.table))(\(key.tableColumns.map(quoteIdentifier).joined(separator: ", ")))"
                    + key.actionsSQL)
        }
        for index in indexes where index.onConflict != nil {
            parts.append("UNIQUE (\(index.columns.map(quoteIdentifier).joined(separator: ", "))) ON CONFLICT \(index.onConflict!)")
        }
        for check in checks ?? [] { parts.append(check.sql) }
        return "CREATE TABLE \(quoteIdentifier(tableName ?? name)) (\(parts.joined(separator: ", ")))\(strict == true ? " STRICT" : "")"
    }

    /// The indexes a `CREATE INDEX` makes: not a `UNIQUE … ON CONFLICT` constraint, which the table's statement makes.
    package var createdIndexes: [SchemaIndex] { indexes.filter { $0.onConflict == nil } }

    package var createIndexStatements: [String] {
        createdIndexes.map { index in
            "CREATE \(index.unique ? "UNIQUE " : "")INDEX \(quoteIdentifier(index.name)) ON \(quoteIdentifier(name)) "
                + "(\(index.columns.map(quoteIdentifier).joined(separator: ", ")))"
        }
    }

    /// The table, its indexes, then its search index and the triggers that keep it in step.
    package var createStatements: [String] { [createTableStatement()] + createIndexStatements + searchStatements }
}

/// A CHECK constraint of a table: its expression as the app wrote it (between the parentheses), and its name
/// when it has one (`CONSTRAINT name CHECK (…)`, which SQLite's error names).
package struct SchemaCheck: Sendable, Hashable, Codable {
    package var name: String?
    package var expression: String

    package init(name: String? = nil, expression: String) {
        self.name = name
        self.expression = expression
    }

    /// The table constraint in a `CREATE TABLE` statement.
    package var sql: String { (name.map { "CONSTRAINT \(quoteIdentifier($0)) " } ?? "") + "CHECK (\(expression))" }
}

/// A column of a table.
package struct SchemaColumn: Sendable, Hashable, Codable {
    /// SQLite storage classes, used as column type affinities.
    package enum StorageType: String, Sendable, Codable {
        case integer = "INTEGER"
        case real = "REAL"
        case text = "TEXT"
        case blob = "BLOB"
    }

    package var name: String
    package var type: StorageType
    package var notNull: Bool
    /// The SQL of the `DEFAULT` clause (a literal or a parenthesized expression), if any.
    package var defaultSQL: String?
    /// The column's name in the previous schema version when it was renamed at this version.
    package var renamedFrom: String?
    /// For a to-one foreign key column that replaces a to-many relationship at this version: the join
    /// table (at the previous version) whose single link per row becomes this column's value.
    package var convertedFromJoinTable: String?
    /// The description's logical type of the column's values (``ValueType``: `int`, `double`, `date`,
    /// `enum Category`, `[string]`, `to_one`…), which decides which conversions keep every value.
    /// Not part of the DDL or the checksum; nil for join-table columns and in registries and snapshots
    /// written by an older lucidgen (then only the storage class is known).
    package var valueType: ValueType?
    /// The value type at the previous version when the description accepts the loss of converting it to
    /// this column's type at this version (`"lossy_conversion": true` in its `type_history`): the change is
    /// inferred as SQLite's `CAST` even though some values change.
    package var lossyConversionFrom: ValueType?
    /// True when the column is new at this version although the table's previous version had a column of
    /// the same name (renamed or removed at this version): it is not that column.
    package var reusesName: Bool?
    /// For an element of a composite that replaces a struct stored as JSON at this version: the JSON text
    /// column (at the previous version) whose member at ``jsonPath`` becomes this column's value.
    package var extractedFrom: String?
    /// The SQLite JSON path of the member in ``extractedFrom`` (`$.primary`, `$.accent.red`).
    package var jsonPath: String?
    /// For a column holding JSON (a struct subtype, or an array of them) whose struct's members changed at
    /// this version (added, removed, renamed, optional ↔ required): the Swift types before and after
    /// (`Point_1_0 → Point`). The stored JSON is converted by the app's code, never guessed. Not part of
    /// the DDL or the checksum; nil when nothing changed.
    package var jsonStructChange: String?
    /// For an element of an optional composite (or of an optional nested one): the columns of that
    /// composite at this version, all NULL exactly when it is nil. A default then fills only rows where it
    /// is present: its `DEFAULT` alone would give nil composites a value.
    package var compositeGroup: [String]?
    /// The element is required whenever its optional composite is present (its column is nullable for
    /// the rows where it is nil).
    package var requiredWhenPresent: Bool?
    /// For an enum column whose enum renamed or removed cases at this version: what each stored value of
    /// such a case becomes (relative to the previous version, like ``renamedFrom``). Not part of the DDL
    /// or the checksum; nil when no case changed (registries and snapshots then omit it).
    package var caseChanges: [EnumCaseChange]?
    /// The column's declared type when it is not its storage class's name (`BOOLEAN`, `DATETIME`, `DOUBLE`, as
    /// GRDB writes them): its DDL says it and every rebuild keeps it. Nil otherwise, so that every other
    /// column's DDL and checksum are what they were.
    package var declaredType: String?
    /// The column's collating sequence when it is not BINARY (`NOCASE`, `RTRIM`, or an app's, such as GRDB's
    /// `swift_localized_case_insensitive_compare`): its DDL says `COLLATE` it and every rebuild keeps it. Nil
    /// otherwise, so that every other column's DDL and checksum are what they were.
    package var collation: String?
    /// The `ON CONFLICT` resolution of the column's `NOT NULL` when the app declared one (SQLiteData's
    /// `NOT NULL ON CONFLICT REPLACE DEFAULT …`: an insert of NULL takes the default): its DDL says it and
    /// every rebuild keeps it. Nil otherwise, so that every other column's DDL and checksum are what they were.
    package var notNullConflict: String?
    /// The expression of the column's own (unnamed) `CHECK (…)` constraint, as the app wrote it: its DDL says
    /// it and every rebuild keeps it (a rebuild whose rows break it fails with the row). Nil otherwise.
    package var check: String?
    /// The expression of a generated column (`GENERATED ALWAYS AS (…)`), as the app wrote it: SQLite computes
    /// its value, which no insert or update writes. Nil for every other column.
    package var generatedSQL: String?
    /// True when the generated column is `STORED` (its value written in the row, which `ADD COLUMN` cannot
    /// add: such a column added later rebuilds the table); nil when it is `VIRTUAL` (computed when read).
    package var generatedStored: Bool?

    /// Whether SQLite computes the column's values (a generated column): rebuilds and records never write it.
    package var isGenerated: Bool { generatedSQL != nil }

    /// The resolutions an `ON CONFLICT` clause names (https://sqlite.org/lang_conflict.html).
    package static let conflictResolutions: [String] = ["ROLLBACK", "ABORT", "FAIL", "IGNORE", "REPLACE"]

    /// The column's definition after its name: type, `NOT NULL` (and its `ON CONFLICT`), `DEFAULT`, `COLLATE`
    /// (no key or reference).
    package func constraintsSQL(primaryKey: String = "") -> String {
        var sql = sqlType + primaryKey
        if notNull { sql += " NOT NULL" + (notNullConflict.map { " ON CONFLICT \($0)" } ?? "") }
        if let defaultSQL { sql += " DEFAULT \(defaultSQL)" }
        if let collation { sql += " COLLATE \(collation)" }
        if let check { sql += " CHECK (\(check))" }
        if let generatedSQL { sql += " GENERATED ALWAYS AS (\(generatedSQL)) \(generatedStored == true ? "STORED" : "VIRTUAL")" }
        return sql
    }

    /// Whether two collation names are the same sequence (nil is BINARY; names are case-insensitive).
    package static func sameCollation(_ a: String?, _ b: String?) -> Bool {
        sameSQLName(a ?? "BINARY", b ?? "BINARY")
    }

    /// Whether SQLite's `ALTER TABLE … ADD COLUMN` accepts the column's default: it refuses `CURRENT_TIME`,
    /// `CURRENT_DATE`, `CURRENT_TIMESTAMP` and any expression in parentheses (https://sqlite.org/lang_altertable.html).
    package var hasConstantDefault: Bool { defaultSQL.map(Self.isConstantDefault) ?? true }

    /// SQL's time keywords, a default whose value is the moment of the insert.
    package static let timeKeywords: Set<String> = ["CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME"]

    /// Whether `defaultSQL` is a constant for SQLite's `ADD COLUMN` (neither a time keyword nor in parentheses).
    package static func isConstantDefault(_ defaultSQL: String) -> Bool {
        let text = defaultSQL.trimmingCharacters(in: .whitespaces)
        return !text.hasPrefix("(") && !timeKeywords.contains(text.uppercased())
    }

    /// A default's text without the one pair of parentheses around all of it, if it has one: SQLite reports
    /// `DEFAULT (expr)` as `expr`, so two defaults are the same when their unwrapped texts are. `(1)+(2)`
    /// has no such pair (its first parenthesis closes before the end); string literals and quoted names are
    /// skipped, so a `)` inside `')'` counts for nothing.
    package static func unwrappedDefault(_ defaultSQL: String) -> String {
        let tokens = SQLLexer.tokens(defaultSQL)
        guard let first = tokens.first, first.isPunctuation("("), let last = tokens.last, last.isPunctuation(")"), tokens.count > 1,
            tokens.allSatisfy(\.closed)
        else { return defaultSQL }
        var depth = 0
        for (index, token) in tokens.enumerated() where token.kind == .punctuation {
            if token.text == "(" { depth += 1 }
            if token.text == ")" {
                depth -= 1
                if depth == 0 && index != tokens.count - 1 { return defaultSQL }
            }
        }
        guard depth == 0 else { return defaultSQL }
        return SQLLexer.text(defaultSQL, first.range.upperBound..<last.range.lowerBound)
    }

    /// The type the DDL declares.
    package var sqlType: String { declaredType ?? type.rawValue }

    /// The declared types a `STRICT` table accepts (https://sqlite.org/stricttables.html).
    package static let strictTypes: Set<String> = ["INT", "INTEGER", "REAL", "TEXT", "BLOB", "ANY"]

    /// Whether this is an entity hierarchy's kind column (``ValueType/kind``): its ``caseChanges`` are
    /// entities renamed (`UPDATE … SET kind`) and removed (their rows are deleted), not enum values rewritten.
    package var isKindColumn: Bool { valueType == .kind }

    /// This column declared `declaredType` (nil: its storage class's name).
    package func declared(_ declaredType: String?) -> SchemaColumn {
        var column = self
        column.declaredType = declaredType
        return column
    }

    /// The storage class SQLite gives a declared type (its affinity, https://sqlite.org/datatype3.html 3.1;
    /// NUMERIC affinity, which stores what it can as numbers, counts as INTEGER), and the declared type itself
    /// when it is not one of the four names.
    package static func storage(declared: String) -> (StorageType, declared: String?) {
        let upper = declared.uppercased()
        if let exact = StorageType(rawValue: upper) { return (exact, nil) }
        if upper.isEmpty { return (.blob, nil) } // no declared type: BLOB affinity, and nothing to declare
        let type: StorageType =
            if upper.contains("INT") { .integer } else if upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT") {
                .text
            } else if upper.isEmpty || upper.contains("BLOB") {
                .blob
            } else if upper.contains("REAL") || upper.contains("FLOA") || upper.contains("DOUB") { .real } else { .integer }
        return (type, upper)
    }

    package init(
        name: String, type: StorageType, notNull: Bool, defaultSQL: String? = nil, renamedFrom: String? = nil,
        convertedFromJoinTable: String? = nil, valueType: ValueType? = nil, lossyConversionFrom: ValueType? = nil,
        reusesName: Bool? = nil, extractedFrom: String? = nil, jsonPath: String? = nil, caseChanges: [EnumCaseChange]? = nil,
        jsonStructChange: String? = nil, compositeGroup: [String]? = nil, requiredWhenPresent: Bool? = nil
    ) {
        self.jsonStructChange = jsonStructChange
        self.compositeGroup = compositeGroup
        self.requiredWhenPresent = requiredWhenPresent
        self.extractedFrom = extractedFrom
        self.jsonPath = jsonPath
        self.name = name
        self.type = type
        self.notNull = notNull
        self.defaultSQL = defaultSQL
        self.renamedFrom = renamedFrom
        self.convertedFromJoinTable = convertedFromJoinTable
        self.valueType = valueType
        self.lossyConversionFrom = lossyConversionFrom
        self.reusesName = reusesName
        self.caseChanges = caseChanges
    }
}

/// What a stored value of an enum case that was renamed or removed at a version becomes at that version.
///
/// ```swift
/// EnumCaseChange(from: "lighter_than_air", to: "balloon")       // renamed: SQL rewrites the values
/// EnumCaseChange(from: "seaplane", to: "airplane", removed: true) // removed with a fallback
/// EnumCaseChange(from: "seaplane", to: nil, removed: true)        // removed, NULL as its fallback
/// EnumCaseChange(from: "seaplane", byApp: true)                   // removed: the app's code decides
/// ```
package struct EnumCaseChange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The case's raw value at the previous version.
    package var from: String
    /// The raw value it becomes (the new name, or the fallback); nil: NULL, or the app's code decides.
    package var to: String?
    /// True for a removed case (with its fallback in ``to``), false or nil for a rename.
    package var removed: Bool?
    /// True when a removed case has no fallback: rows holding it need the app's code (a typed stage).
    package var byApp: Bool?

    package init(from: String, to: String?, removed: Bool = false) {
        self.from = from
        self.to = to
        self.removed = removed ? true : nil
        self.byApp = nil
    }

    package init(from: String, byApp: Bool) {
        self.from = from
        self.to = nil
        self.removed = true
        self.byApp = byApp ? true : nil
    }

    /// Whether SQL can rewrite the stored values (a rename, or a removal with a fallback).
    package var isInferable: Bool { byApp != true }

    /// `case lighter_than_air → balloon`, `case seaplane removed (→ airplane)`, `case seaplane removed (app code)`.
    package var description: String {
        if byApp == true { return "case \(from) removed without a fallback" }
        if removed == true { return "case \(from) removed (its rows take \(to.map { "'\($0)'" } ?? "NULL"))" }
        return "case \(from) renamed to \(to ?? "NULL")"
    }
}

/// A foreign key: `columns` reference `tableColumns` of `table`.
package struct SchemaForeignKey: Sendable, Hashable, Codable {
    package enum Action: String, Sendable, Codable, CaseIterable {
        case cascade = "CASCADE"
        case setNull = "SET NULL"
        case setDefault = "SET DEFAULT"
        case restrict = "RESTRICT"
        case noAction = "NO ACTION"

        /// How a description spells it (`on_delete`, `on_update`, a link table's `source_on_update`): the one
        /// spelling the loader reads and describe and `import coredata` write.
        package var descriptionName: String {
            switch self {
            case .cascade: "cascade"
            case .setNull: "set_null"
            case .setDefault: "set_default"
            case .restrict: "restrict"
            case .noAction: "no_action"
            }
        }
    }

    package var columns: [String]
    package var table: String
    package var tableColumns: [String]
    package var onDelete: Action
    /// The ON UPDATE action when it is not NO ACTION (nil: the DDL says none, and the JSON and checksum are
    /// what they were before the key existed).
    package var onUpdate: Action?

    package init(columns: [String], table: String, tableColumns: [String], onDelete: Action, onUpdate: Action? = nil) {
        self.columns = columns
        self.table = table
        self.tableColumns = tableColumns
        self.onDelete = onDelete
        self.onUpdate = onUpdate == .noAction ? nil : onUpdate
    }

    /// ` ON DELETE …` and, when it is not NO ACTION, ` ON UPDATE …`.
    package var actionsSQL: String {
        " ON DELETE \(onDelete.rawValue)" + (onUpdate.map { " ON UPDATE \($0.rawValue)" } ?? "")
    }
}

/// A secondary index.
package struct SchemaIndex: Sendable, Hashable, Codable {
    package var name: String
    package var columns: [String]
    package var unique: Bool
    /// A unique index's `ON CONFLICT` resolution when the app declared `UNIQUE (…) ON CONFLICT …` (an index has
    /// none, so this one is a constraint of the table: its `CREATE TABLE` says it and every rebuild keeps it,
    /// and SQLite names its index `sqlite_autoindex_…`). Nil for every other index (JSON and checksum as they were).
    package var onConflict: String? = nil

    package init(name: String, columns: [String], unique: Bool = false) {
        self.name = name
        self.columns = columns
        self.unique = unique
    }
}

/// Whether SQLite takes `a` and `b` for the same identifier: ASCII letters compared case-insensitively,
/// every other byte exactly (SQLite folds ASCII only: `Abc` and `aBC` are one table, `Été` and `été` two).
/// With ``sqlNameKey(_:)`` (the same rule as a key for sets and dictionaries), the only way lucidgen
/// compares SQL names: never `lowercased()`, `uppercased()` or `caseInsensitiveCompare`, which fold
/// non-ASCII letters too. Allocates nothing: the planner compares names for every table of every version
/// it walks.
package func sameSQLName(_ a: String, _ b: String) -> Bool {
    if a == b { return true }
    var left = a.utf8.makeIterator()
    var right = b.utf8.makeIterator()
    while true {
        switch (left.next(), right.next()) {
        case (nil, nil): return true
        case (let x?, let y?):
            if x != y, foldASCII(x) != foldASCII(y) { return false }
        default: return false
        }
    }
}

private func foldASCII(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }

/// The key under which SQLite finds the identifier `name`: ASCII letters lower-cased, nothing else
/// changed (two names are ``sameSQLName(_:_:)`` exactly when their keys are equal).
package func sqlNameKey(_ name: String) -> String {
    // Most names have no capital letter: the name itself, without a copy (lineage walks make millions of keys).
    guard name.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return name }
    return String(decoding: name.utf8.map(foldASCII), as: UTF8.self)
}

/// Quotes an SQL identifier: `a"b` → `"a""b"`.
package func quoteIdentifier(_ name: String) -> String {
    // Most names hold no quote: no split and join (this runs for every column of every step).
    if !name.utf8.contains(UInt8(ascii: "\"")) { return "\"" + name + "\"" }
    return "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
}

/// Quotes an SQL string literal: `it's` → `'it''s'`.
package func quoteLiteral(_ text: String) -> String {
    if !text.utf8.contains(UInt8(ascii: "'")) { return "'" + text + "'" }
    return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
}
