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
            return "an expression default is CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME or an expression in parentheses (as SQLite requires), e.g. \"(datetime('now'))\""
        }
        let scalars = Array(trimmed.unicodeScalars)
        var index = 0
        var depth = 0
        var previousWasFunction = false
        func isIdentifierStart(_ c: Unicode.Scalar) -> Bool { (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" }
        func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }
        while index < scalars.count {
            let c = scalars[index]
            if previousWasFunction && c != "(" && c != " " { return "a function name must be followed by '('" }
            switch c {
            case " ", "\t":
                index += 1
                continue
            case "(":
                depth += 1
                previousWasFunction = false
                index += 1
            case ")":
                depth -= 1
                if depth < 0 { return "')' without its '('" }
                if depth == 0 && index != scalars.count - 1 { return "the whole expression must be in one pair of parentheses" }
                index += 1
            case ",", "+", "-", "*", "/", "%":
                if c == "-" && index + 1 < scalars.count && scalars[index + 1] == "-" { return "comments are not accepted" }
                if c == "/" && index + 1 < scalars.count && scalars[index + 1] == "*" { return "comments are not accepted" }
                index += 1
            case "|":
                guard index + 1 < scalars.count, scalars[index + 1] == "|" else { return "'|' is not accepted (only '||')" }
                index += 2
            case "'":
                index += 1
                while true {
                    guard index < scalars.count else { return "a string literal is not closed" }
                    if scalars[index] == "\0" { return "a string literal contains NUL (U+0000)" }
                    if scalars[index] == "'" {
                        if index + 1 < scalars.count && scalars[index + 1] == "'" { index += 2; continue }
                        index += 1
                        break
                    }
                    index += 1
                }
            case _ where isDigit(c) || c == ".":
                while index < scalars.count, isDigit(scalars[index]) || scalars[index] == "." || scalars[index] == "e" || scalars[index] == "E" { index += 1 }
            case _ where (c == "x" || c == "X") && index + 1 < scalars.count && scalars[index + 1] == "'":
                // A blob literal, X'0A1B': hexadecimal digits in pairs.
                index += 2
                var digits = 0
                while index < scalars.count, scalars[index] != "'" {
                    guard scalars[index].properties.isASCIIHexDigit else { return "a blob literal holds only hexadecimal digits" }
                    digits += 1
                    index += 1
                }
                guard index < scalars.count, digits % 2 == 0 else { return "a blob literal is not closed, or has an odd number of digits" }
                index += 1
            case _ where isIdentifierStart(c):
                var word = ""
                while index < scalars.count, isIdentifierStart(scalars[index]) || isDigit(scalars[index]) {
                    word.unicodeScalars.append(scalars[index])
                    index += 1
                }
                if keywords.contains(word.uppercased()) || ["NULL", "TRUE", "FALSE"].contains(word.uppercased()) { continue }
                guard functions.contains(word.lowercased()) || appFunctions.contains(word.lowercased()) else {
                    return "'\(word)' is not accepted: an expression default may name CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME, NULL, SQLite's functions \(functions.sorted().joined(separator: ", ")) and uuid() (no column, table or other app function)"
                }
                previousWasFunction = true
                continue
            default:
                return "'\(Character(c))' is not accepted in an expression default"
            }
            previousWasFunction = false
        }
        if depth != 0 { return "'(' without its ')'" }
        return nil
    }

}
