/// The words of an SQL statement, as SQLite's tokenizer sees them: enough to tell which tables and
/// columns an app's view, trigger, index or virtual table names, without a parser.
///
/// Identifiers come out unquoted and lower-cased (`"Item"`, `[item]`, `` `item` `` and `ITEM` are all
/// `item`); string literals are kept apart, because FTS5 names its content table in one
/// (`content='item'`). Comments are skipped. A bare word that SQLite reserves (`SELECT`, `VALUES`,
/// `ORDER`, …) is a keyword, never a name: a column named `values` is quoted in any SQL that works. The
/// other keywords, which SQLite also takes as names (`key`, `row`, `first`, …), count as names, so that
/// the answer errs on the side of "uses it".
struct SQLTokens: Sendable, Hashable {
    /// Every bare or quoted word, lower-cased, in order (keywords included: what a parser reads).
    private(set) var words: [String] = []
    /// Every string literal's content, lower-cased, in order.
    private(set) var strings: [String] = []
    /// Whether each of `words` was written bare (not quoted).
    private var bare: [Bool] = []
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

    init(_ sql: String) {
        let bytes = Array(sql.utf8)
        var index = 0
        func isWordByte(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
                || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        /// Reads a quoted run that ends at `close`, where a doubled `close` stands for itself.
        func quoted(until close: UInt8) -> String {
            var text: [UInt8] = []
            index += 1
            while index < bytes.count {
                if bytes[index] == close {
                    if close != UInt8(ascii: "]"), index + 1 < bytes.count, bytes[index + 1] == close {
                        text.append(close)
                        index += 2
                        continue
                    }
                    index += 1
                    break
                }
                text.append(bytes[index])
                index += 1
            }
            return String(decoding: text, as: UTF8.self).lowercased()
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"):
                strings.append(quoted(until: byte))
            case UInt8(ascii: "\""), UInt8(ascii: "`"):
                words.append(quoted(until: byte))
                bare.append(false)
            case UInt8(ascii: "["):
                words.append(quoted(until: UInt8(ascii: "]")))
                bare.append(false)
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                index += 2
                while index + 1 < bytes.count && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
                index += 2
            default:
                guard isWordByte(byte) else {
                    index += 1
                    continue
                }
                let start = index
                while index < bytes.count && isWordByte(bytes[index]) { index += 1 }
                // Numbers are not names.
                if bytes[start] >= UInt8(ascii: "0") && bytes[start] <= UInt8(ascii: "9") { continue }
                words.append(String(decoding: bytes[start..<index], as: UTF8.self).lowercased())
                bare.append(true)
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
    func names(_ name: String) -> Bool {
        nameSet.contains(name.lowercased())
    }

    /// Whether `name` (any case) is one of the identifiers or, with `orString`, a string literal.
    func names(_ name: String, orString: Bool) -> Bool {
        names(name) || (orString && strings.contains(name.lowercased()))
    }

    /// The same words with `old` (any case) renamed to `new`: what SQLite's `ALTER TABLE … RENAME` does
    /// to the objects that name a table or column (string literals, such as FTS5's `content='…'`, stay).
    func renaming(_ old: String, to new: String) -> SQLTokens {
        let old = old.lowercased()
        let new = new.lowercased()
        var copy = self
        copy.words = words.map { $0 == old ? new : $0 }
        // SQLite quotes the new name where it writes it.
        copy.bare = zip(words, bare).map { $0.0 == old ? false : $0.1 }
        copy.nameSet = Self.names(copy.words, bare: copy.bare)
        return copy
    }
}
