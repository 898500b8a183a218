@_spi(Generated) import LucidSchema

/// The words of an SQL statement, as SQLite's tokenizer sees them: enough to tell which tables and
/// columns an app's view, trigger, index or virtual table names, without a parser.
///
/// Identifiers come out unquoted and lower-cased (`"Item"`, `[item]`, `` `item` `` and `ITEM` are all
/// `item`); string literals are kept apart, because FTS5 names its content table in one
/// (`content='item'`). Comments are skipped. A bare word that SQLite reserves (`SELECT`, `VALUES`,
/// `ORDER`, …) is a keyword, never a name: a column named `values` is quoted in any SQL that works. The
/// other keywords, which SQLite also takes as names (`key`, `row`, `first`, …), count as names, so that
/// the answer errs on the side of "uses it".
package struct SQLTokens: Sendable, Hashable {
    /// Every bare or quoted word, lower-cased, in order (keywords included: what a parser reads).
    private(set) var words: [String] = []
    /// Every string literal's content, lower-cased, in order.
    private(set) var strings: [String] = []
    /// Whether each of `words` was written bare (not quoted).
    private var bare: [Bool] = []
    /// Whether each of `words` follows a `.` (a qualified name: `new.title`, `item.title`).
    private var qualified: [Bool] = []
    /// Whether each of `words` stands where SQL names a table: after `FROM`, `JOIN` (and `,` in their
    /// list), `INTO`, `UPDATE`, `ON`, `TABLE`, `REFERENCES`, or before a `.` (a qualifier).
    private var tablePosition: [Bool] = []

    /// Words after which SQL names a table.
    static let tableIntroducers: Set<String> = ["from", "join", "into", "update", "on", "table", "references", "exists"]
    /// Keywords that end a FROM or JOIN list.
    static let clauseKeywords: Set<String> = [
        "where", "group", "order", "limit", "having", "window", "on", "using", "union", "except", "intersect", "select", "values", "set",
        "begin", "end", "when", "returning",
    ]
    /// The words that can be names.
    private var nameSet: Set<String> = []

    /// SQLite's keywords that its grammar never takes as a bare name (parse.y: every keyword but the
    /// `%fallback ID` ones, the join keywords and the window keywords).
    static let reserved: Set<String> = [
        "add", "all", "alter", "and", "as", "autoincrement", "between", "case", "check", "collate", "commit", "constraint",
        "create", "default", "deferrable", "delete", "distinct", "drop", "else", "escape", "except", "exists", "foreign",
        "from", "group", "having", "in", "index", "indexed", "insert", "intersect", "into", "is", "isnull", "join", "limit",
        "not", "nothing", "notnull", "null", "on", "or", "order", "primary", "references", "returning", "select", "set",
        "table", "then", "to", "transaction", "union", "unique", "update", "using", "values", "when", "where",
    ]

    package init(_ sql: String) {
        // The last token (a word, or a punctuation character), for the position of the next word.
        var previous = ""
        // Inside the table list of a FROM or JOIN: a word after `,` names a table there.
        var inFromList = false
        func addWord(_ word: String, bare isBare: Bool) {
            let introduced = Self.tableIntroducers.contains(previous) || (inFromList && previous == ",")
            words.append(word)
            bare.append(isBare)
            qualified.append(previous == ".")
            tablePosition.append(introduced && previous != ".")
            let keyword = isBare ? word : ""
            if keyword == "from" || keyword == "join" {
                inFromList = true
            } else if Self.clauseKeywords.contains(keyword) {
                inFromList = false
            }
            previous = isBare && Self.reserved.contains(word) || Self.tableIntroducers.contains(keyword) ? keyword : "name"
        }
        for token in SQLLexer.significantTokens(sql) {
            switch token.kind {
            case .string:
                strings.append(sqlNameKey(token.text))
                previous = "string"
            case .word, .quotedName:
                addWord(sqlNameKey(token.text), bare: token.kind == .word)
            case .number:
                // Numbers are not names.
                previous = "number"
            case .blob:
                previous = "blob"
            case .punctuation:
                // A qualifier: the word before a dot names a table (or `new`/`old`, or a schema).
                if token.text == ".", previous == "name", let last = tablePosition.indices.last { tablePosition[last] = true }
                if token.text == "(" || token.text == ")" || token.text == ";" { inFromList = false }
                previous = token.text
            case .space, .comment:
                break
            }
        }
        nameSet = Self.names(words, bare: bare)
    }

    private static func names(_ words: [String], bare: [Bool]) -> Set<String> {
        var names = Set<String>()
        for (word, isBare) in zip(words, bare) where !isBare || !reserved.contains(word) { names.insert(word) }
        return names
    }

    /// Whether `name` (any case) is one of the identifiers.
    /// Whether `keyword` (lower-cased) is written bare: a reserved keyword such as `autoincrement` then is
    /// that keyword, never a name.

    package func contains(keyword: String) -> Bool {
        zip(words, bare).contains { $0 == keyword && $1 }
    }

    func names(_ name: String) -> Bool {
        nameSet.contains(sqlNameKey(name))
    }

    /// Whether the SQL names `table` where SQL names tables (``tablePosition``).
    func names(table: String) -> Bool {
        let table = sqlNameKey(table)
        for index in words.indices where words[index] == table && tablePosition[index] && (!bare[index] || !Self.reserved.contains(table)) {
            return true
        }
        return false
    }

    /// Whether a virtual table's declaration takes its content from `table` (FTS's `content='item'`, or
    /// `content=item`).
    func namesContent(_ table: String) -> Bool {
        let table = sqlNameKey(table)
        if strings.contains(table) && nameSet.contains("content") { return true }
        return zip(words, words.dropFirst()).contains { $0 == "content" && $1 == table }
    }

    /// Whether the SQL names `column`: a mention of the name that is not where SQL names a table
    /// (`ON protocol` is the table `protocol`, not its column `protocol`).
    func names(column: String) -> Bool {
        let column = sqlNameKey(column)
        for index in words.indices
        where words[index] == column && !tablePosition[index] && (!bare[index] || !Self.reserved.contains(column)) {
            return true
        }
        return false
    }

    /// Whether `name` (any case) is one of the identifiers or, with `orString`, a string literal.
    func names(_ name: String, orString: Bool) -> Bool {
        names(name) || (orString && strings.contains(sqlNameKey(name)))
    }

    /// The same words with the table `old` (any case) renamed to `new` where SQL names a table
    /// (``tablePosition``): what SQLite's `ALTER TABLE old RENAME TO new` does to the objects that name the
    /// table. A column of the same name stays, and so do string literals (FTS5's `content='…'`).
    func renaming(table old: String, to new: String) -> SQLTokens {
        renaming(old, to: new) { tablePosition[$0] }
    }

    /// The same words with the column `old` renamed to `new` where SQL does not name a table: a table of
    /// the same name stays, as SQLite's `ALTER TABLE … RENAME COLUMN` leaves it.
    func renaming(column old: String, to new: String) -> SQLTokens {
        renaming(old, to: new) { !tablePosition[$0] }
    }

    private func renaming(_ old: String, to new: String, at position: (Int) -> Bool) -> SQLTokens {
        let old = sqlNameKey(old)
        let new = sqlNameKey(new)
        var copy = self
        for index in words.indices where words[index] == old && position(index) {
            copy.words[index] = new
            // SQLite quotes the new name where it writes it.
            copy.bare[index] = false
        }
        copy.nameSet = Self.names(copy.words, bare: copy.bare)
        return copy
    }
}
