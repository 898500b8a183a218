/// One token of SQL text, as SQLite's tokenizer splits it: the one place lucidgen and its runtime read SQL
/// that someone else wrote (an app's views and triggers, a store's `CREATE TABLE`, a description's default
/// expression), so that a quote inside a string, a `)` inside `')'` or a `--` inside a name means the same
/// to every reader.
package struct SQLToken: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        /// A bare identifier or keyword (`item`, `SELECT`, `$x`), as written.
        case word
        /// An identifier in `"…"`, `` `…` `` or `[…]`: ``SQLToken/text`` is the name, its doubled quotes
        /// undone (`]` is never doubled).
        case quotedName
        /// A string literal `'…'`: ``SQLToken/text`` is its content, `''` undone.
        case string
        /// A blob literal `X'…'`: ``SQLToken/text`` is what stands between its quotes (hexadecimal digits
        /// when SQLite accepts it).
        case blob
        /// A number (`1`, `1.5e-3`, `.5`, `0x1F`), as written; a word that runs on (`1abc`, which SQLite
        /// refuses) is part of it.
        case number
        /// `--` to the end of its line, or `/* … */`.
        case comment
        /// Spaces, tabs and line breaks.
        case space
        /// Any other character, one at a time except `||`.
        case punctuation
    }

    package var kind: Kind
    /// The token's meaning: see ``Kind``.
    package var text: String
    /// Where the token stands in the SQL, in UTF-8 bytes (a group's exact text is the bytes between two
    /// tokens).
    package var range: Range<Int>
    /// Whether a quoted token or a `/* */` comment reached its closing character before the SQL ended.
    package var closed: Bool

    /// Whether this is the punctuation `character`.
    package func isPunctuation(_ character: String) -> Bool { kind == .punctuation && text == character }

    /// Whether this names something: a bare word or a quoted name.
    package var isName: Bool { kind == .word || kind == .quotedName }
}

package enum SQLLexer {
    /// Whether `byte` belongs to a bare word (an identifier or keyword) as SQLite's tokenizer reads one.
    package static func isWordByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
            || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || isDigit(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Every token of `sql`, spaces and comments included, in order; their ranges cover the whole text.
    package static func tokens(_ sql: String) -> [SQLToken] {
        let bytes = Array(sql.utf8)
        var tokens: [SQLToken] = []
        var index = 0
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        /// Reads a quoted run from `index` (its opening character) to `close`, where a doubled `close`
        /// stands for itself unless `doubles` is false.
        func quoted(until close: UInt8, doubles: Bool) -> (String, Bool) {
            var content: [UInt8] = []
            index += 1
            while index < bytes.count {
                if bytes[index] == close {
                    if doubles, index + 1 < bytes.count, bytes[index + 1] == close {
                        content.append(close)
                        index += 2
                        continue
                    }
                    index += 1
                    return (String(decoding: content, as: UTF8.self), true)
                }
                content.append(bytes[index])
                index += 1
            }
            return (String(decoding: content, as: UTF8.self), false)
        }
        while index < bytes.count {
            let start = index
            let byte = bytes[index]
            let next: UInt8? = index + 1 < bytes.count ? bytes[index + 1] : nil
            var kind = SQLToken.Kind.punctuation
            var content: String
            var closed = true
            switch byte {
            case UInt8(ascii: "'"):
                kind = .string
                (content, closed) = quoted(until: byte, doubles: true)
            case UInt8(ascii: "\""), UInt8(ascii: "`"):
                kind = .quotedName
                (content, closed) = quoted(until: byte, doubles: true)
            case UInt8(ascii: "["):
                kind = .quotedName
                (content, closed) = quoted(until: UInt8(ascii: "]"), doubles: false)
            case _ where byte | 0x20 == UInt8(ascii: "x") && next == UInt8(ascii: "'"):
                kind = .blob
                index += 1
                // No doubled quote in a blob: its first `'` after the opening one closes it.
                (content, closed) = quoted(until: UInt8(ascii: "'"), doubles: false)
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                kind = .comment
                while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
                content = text(start..<index)
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                kind = .comment
                index += 2
                while index + 1 < bytes.count && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                    index += 1
                }
                closed = index + 1 < bytes.count
                index = min(index + 2, bytes.count)
                content = text(start..<index)
            case 0x20, 0x09, 0x0A, 0x0C, 0x0D:
                kind = .space
                while index < bytes.count, [0x20, 0x09, 0x0A, 0x0C, 0x0D].contains(bytes[index]) { index += 1 }
                content = text(start..<index)
            case _ where isDigit(byte) || (byte == UInt8(ascii: ".") && next.map(isDigit) == true):
                kind = .number
                while index < bytes.count {
                    let current = bytes[index]
                    // An exponent's sign belongs to the number: `1e-3`.
                    if (current == UInt8(ascii: "+") || current == UInt8(ascii: "-")), bytes[index - 1] | 0x20 == UInt8(ascii: "e"),
                        !(bytes[start] == UInt8(ascii: "0") && index > start + 1 && bytes[start + 1] | 0x20 == UInt8(ascii: "x")),
                        index + 1 < bytes.count, isDigit(bytes[index + 1])
                    {
                        index += 1
                        continue
                    }
                    guard isWordByte(current) || current == UInt8(ascii: ".") else { break }
                    index += 1
                }
                content = text(start..<index)
            case _ where isWordByte(byte):
                kind = .word
                while index < bytes.count && isWordByte(bytes[index]) { index += 1 }
                content = text(start..<index)
            case UInt8(ascii: "|") where next == UInt8(ascii: "|"):
                index += 2
                content = "||"
            default:
                // One character (a whole UTF-8 sequence cannot start here: bytes ≥ 0x80 are word bytes).
                index += 1
                content = text(start..<index)
            }
            tokens.append(SQLToken(kind: kind, text: content, range: start..<index, closed: closed))
        }
        return tokens
    }

    /// The tokens of `sql` without its spaces and comments: what a reader of its meaning sees.
    package static func significantTokens(_ sql: String) -> [SQLToken] {
        tokens(sql).filter { $0.kind != .space && $0.kind != .comment }
    }

    /// The text of `sql` when all of it is one string literal (`'it''s'` → `it's`); nil for anything else
    /// (`'a' || 'b'`, an unclosed quote, a number).
    package static func stringLiteral(_ sql: String) -> String? {
        let tokens = tokens(sql)
        guard tokens.count == 1, let token = tokens.first, token.kind == .string, token.closed else { return nil }
        return token.text
    }

    /// The SQL's text between two byte offsets (a parenthesised group's inside, exactly as written).
    package static func text(_ sql: String, _ range: Range<Int>) -> String {
        String(decoding: Array(sql.utf8)[range], as: UTF8.self)
    }
}
