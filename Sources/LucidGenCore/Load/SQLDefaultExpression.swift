import Foundation
import LucidSchema

/// A `default_value` that is an SQL expression (`{ "sql": "CURRENT_TIMESTAMP" }`), as GRDB's
/// `defaults(sql:)` writes them: checked against a closed grammar before it reaches any DDL, since a
/// description is input, never code.
///
/// Accepted: `CURRENT_TIMESTAMP`, `CURRENT_DATE` or `CURRENT_TIME` alone, or an expression in parentheses
/// made of numbers, string and blob literals (`X'00FF'`), `NULL`, `TRUE`, `FALSE`, those three keywords, the
/// operators `+ - * / % ||`, and calls of SQLite's date, time and text functions (``functions``) and of
/// `uuid()` (``appFunctions``). No identifier other than those (a column, a table, a subquery or another
/// app-registered function), no `;`, quoted identifier, parameter or comment.
enum SQLDefaultExpression {
    /// The SQLite functions an expression default may call: deterministic or time functions of SQLite's
    /// core, none of which reads the database or loads code.
    static let functions: Set<String> = [
        "abs", "coalesce", "date", "datetime", "hex", "ifnull", "julianday", "lower", "random", "randomblob",
        "round", "strftime", "substr", "time", "timediff", "unixepoch", "upper",
    ]
    /// Functions a default may call that SQLite's core does not have (``SchemaColumn/appFunctions``).
    static var appFunctions: Set<String> { SchemaColumn.appFunctions }
    static var keywords: Set<String> { SchemaColumn.timeKeywords }

    /// Why `text` is not an expression default lucidgen accepts; nil when it is.
    static func problem(with text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if keywords.contains(trimmed.uppercased()) { return nil }
        guard trimmed.hasPrefix("("), trimmed.hasSuffix(")") else {
            return
                "an expression default is CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME or an expression in parentheses (as SQLite requires), e.g. \"(datetime('now'))\""
        }
        let tokens = SQLLexer.tokens(trimmed)
        var depth = 0
        var previousWasFunction = false
        for (index, token) in tokens.enumerated() {
            if previousWasFunction && !token.isPunctuation("(") && !(token.kind == .space && token.text.allSatisfy { $0 == " " }) {
                return "a function name must be followed by '('"
            }
            switch token.kind {
            case .space:
                if let other = token.text.first(where: { $0 != " " && $0 != "\t" }) {
                    return "'\(other)' is not accepted in an expression default"
                }
                continue
            case .punctuation:
                switch token.text {
                case "(":
                    depth += 1
                case ")":
                    depth -= 1
                    if depth < 0 { return "')' without its '('" }
                    if depth == 0 && index != tokens.count - 1 { return "the whole expression must be in one pair of parentheses" }
                case ",", "+", "-", "*", "/", "%", "||":
                    break
                case "|":
                    return "'|' is not accepted (only '||')"
                default:
                    return "'\(token.text)' is not accepted in an expression default"
                }
            case .comment:
                return "comments are not accepted"
            case .string:
                if token.text.unicodeScalars.contains("\0") { return "a string literal contains NUL (U+0000)" }
                guard token.closed else { return "a string literal is not closed" }
            case .number:
                // Decimal digits, a point and an exponent: no hexadecimal, and nothing run on.
                let exponentSigns = token.text.indices.dropFirst().filter { ["+", "-"].contains(token.text[$0]) }
                guard token.text.allSatisfy({ $0.isASCII && ($0.isNumber || "eE.+-".contains($0)) }),
                    exponentSigns.allSatisfy({ "eE".contains(token.text[token.text.index(before: $0)]) })
                else { return "'\(token.text)' is not accepted in an expression default" }
            case .blob:
                // A blob literal, X'0A1B': hexadecimal digits in pairs.
                guard token.text.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit }) else {
                    return "a blob literal holds only hexadecimal digits"
                }
                guard token.closed, token.text.count % 2 == 0 else { return "a blob literal is not closed, or has an odd number of digits" }
            case .quotedName:
                return
                    "'\(trimmed.utf8.dropFirst(token.range.lowerBound).first.map { Character(UnicodeScalar($0)) } ?? "\"")' is not accepted in an expression default"
            case .word:
                let word = token.text
                if keywords.contains(word.uppercased()) || ["NULL", "TRUE", "FALSE"].contains(word.uppercased()) { continue }
                guard functions.contains(word.lowercased()) || appFunctions.contains(word.lowercased()) else {
                    return
                        "'\(word)' is not accepted: an expression default may name CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME, NULL, SQLite's functions \(functions.sorted().joined(separator: ", ")) and uuid() (no column, table or other app function)"
                }
                previousWasFunction = true
                continue
            }
            previousWasFunction = false
        }
        if depth != 0 { return "'(' without its ')'" }
        return nil
    }

}
