/// The words of an SQL statement, as SQLite's tokenizer sees them: enough to tell which tables and
/// columns an app's view, trigger, index or virtual table names, without a parser.
///
/// Identifiers come out unquoted and lower-cased (`"Item"`, `[item]`, `` `item` `` and `ITEM` are all
/// `item`); string literals are kept apart, because FTS5 names its content table in one
/// (`content='item'`). Comments are skipped. Keywords are identifiers here: a caller asks about names
/// it knows (the described tables and their columns), so a keyword never matches by accident unless a
/// table or column is named like one, and then the answer errs on the side of "uses it".
struct SQLTokens: Sendable, Hashable {
    /// Every bare or quoted identifier (and keyword), lower-cased, in order.
    private(set) var words: [String] = []
    /// Every string literal's content, lower-cased, in order.
    private(set) var strings: [String] = []
    private var wordSet: Set<String> = []

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
            case UInt8(ascii: "["):
                words.append(quoted(until: UInt8(ascii: "]")))
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
            }
        }
        wordSet = Set(words)
    }

    /// Whether `name` (any case) is one of the identifiers.
    func names(_ name: String) -> Bool {
        wordSet.contains(name.lowercased())
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
        copy.wordSet = Set(copy.words)
        return copy
    }
}
