import Foundation
import LucidTestSupport

/// A small Swift lexer for generated files, for tests: it tells code from comments and string literals the
/// way `swiftc` does (a line comment ends at LF or CR, block comments nest, a raw literal ends at its own
/// delimiter, `\(` or `\#(` in a literal starts code), and decodes each literal's value.
struct SwiftSourceScan {
    enum Token: Equatable {
        case code(String)
        case comment(String)
        /// A string literal: its value (nil when it has interpolations, which are `code` tokens after it).
        case literal(String?)
    }

    private(set) var tokens: [Token] = []
    /// Problems the lexer found (an unterminated literal or comment).
    private(set) var problems: [String] = []

    /// The file with every comment and every literal's text replaced by a placeholder: two files whose
    /// skeletons are equal hold the same code.
    /// The code with every comment and literal replaced by a placeholder, and the layout left out: the
    /// generator wraps lines by their length (a long value moves arguments, list items and comment lines onto
    /// lines of their own, with a trailing comma), so whitespace runs are one space, adjacent comments one
    /// comment, and no space or trailing comma stands inside brackets.
    var skeleton: String {
        var text = ""
        for token in tokens {
            switch token {
            case .code(let code): text += code
            case .comment: if !text.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("/*comment*/") { text += "/*comment*/" }
            case .literal: text += "\"literal\""
            }
        }
        return layoutFree(text)
    }

    var comments: [String] { tokens.compactMap { if case .comment(let text) = $0 { text } else { nil } } }
    var literalValues: [String] { tokens.compactMap { if case .literal(let value?) = $0 { value } else { nil } } }

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var code = ""

    init(_ source: String) {
        scalars = Array(source.unicodeScalars)
        scanCode(untilClosingParenthesis: false)
        flushCode()
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    private func matches(_ text: String, at offset: Int = 0) -> Bool {
        for (index, scalar) in text.unicodeScalars.enumerated() where peek(offset + index) != scalar { return false }
        return true
    }

    private mutating func flushCode() {
        if !code.isEmpty { tokens.append(.code(code)) }
        code = ""
    }

    /// Code up to the end (or, inside an interpolation, up to its closing parenthesis, consumed).
    private mutating func scanCode(untilClosingParenthesis: Bool) {
        var depth = 0
        while let scalar = peek() {
            if matches("//") {
                flushCode()
                var text = ""
                while let next = peek(), next != "\n", next != "\r" { text.unicodeScalars.append(next); position += 1 }
                tokens.append(.comment(text))
            } else if matches("/*") {
                flushCode()
                var text = ""
                var nesting = 0
                while peek() != nil {
                    if matches("/*") { nesting += 1; text += "/*"; position += 2; continue }
                    if matches("*/") { nesting -= 1; text += "*/"; position += 2; if nesting == 0 { break } else { continue } }
                    text.unicodeScalars.append(peek()!)
                    position += 1
                }
                if nesting != 0 { problems.append("unterminated block comment") }
                tokens.append(.comment(text))
            } else if scalar == "\"" || (scalar == "#" && startsRawLiteral()) {
                flushCode()
                scanLiteral()
            } else {
                if untilClosingParenthesis {
                    if scalar == "(" { depth += 1 }
                    if scalar == ")" {
                        if depth == 0 { position += 1; return }
                        depth -= 1
                    }
                }
                code.unicodeScalars.append(scalar)
                position += 1
            }
        }
        if untilClosingParenthesis { problems.append("unterminated interpolation") }
    }

    private func startsRawLiteral() -> Bool {
        var offset = 0
        while peek(offset) == "#" { offset += 1 }
        return peek(offset) == "\""
    }

    /// One piece of a literal's text: a scalar written as itself, an escape's value, or a line continuation.
    private enum Piece {
        case raw(Unicode.Scalar)
        case escaped(String)
        case continuation
    }

    /// A literal from its opening delimiter: its value, its interpolations as code.
    private mutating func scanLiteral() {
        var hashes = 0
        while peek() == "#" { hashes += 1; position += 1 }
        let pounds = String(repeating: "#", count: hashes)
        let multiline = matches("\"\"\"")
        position += multiline ? 3 : 1
        let closing = (multiline ? "\"\"\"" : "\"") + pounds
        var pieces: [Piece] = []
        var interpolated = false
        var pendingCode: [Token] = []
        while true {
            guard let scalar = peek() else { problems.append("unterminated string literal"); break }
            if matches(closing) { position += closing.unicodeScalars.count; break }
            if !multiline && (scalar == "\n" || scalar == "\r") { problems.append("line break in a single-line literal"); break }
            if scalar == "\\" && matches(pounds, at: 1) {
                position += 1 + hashes
                guard let escaped = peek() else { break }
                position += 1
                switch escaped {
                case "n": pieces.append(.escaped("\n"))
                case "r": pieces.append(.escaped("\r"))
                case "t": pieces.append(.escaped("\t"))
                case "0": pieces.append(.escaped("\0"))
                case "\\": pieces.append(.escaped("\\"))
                case "\"": pieces.append(.escaped("\""))
                case "'": pieces.append(.escaped("'"))
                case "u":
                    guard peek() == "{" else { problems.append("bad \\u escape"); continue }
                    position += 1
                    var hex = ""
                    while let digit = peek(), digit != "}" { hex.unicodeScalars.append(digit); position += 1 }
                    position += 1
                    if let number = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(number) {
                        pieces.append(.escaped(String(decoded)))
                    } else {
                        problems.append("bad \\u escape")
                    }
                case "(":
                    interpolated = true
                    let saved = code
                    code = ""
                    let before = tokens.count
                    scanCode(untilClosingParenthesis: true)
                    flushCode()
                    pendingCode.append(contentsOf: tokens[before...])
                    tokens.removeSubrange(before...)
                    code = saved
                case "\n", "\r", " ", "\t":
                    // A line continuation (multi-line only): the escape ends the line's value.
                    position -= 1
                    while let next = peek(), next == " " || next == "\t" { position += 1 }
                    pieces.append(.continuation)
                default: problems.append("unknown escape \\\(escaped)")
                }
                continue
            }
            pieces.append(.raw(scalar))
            position += 1
        }
        let value = multiline ? Self.multilineValue(pieces) : pieces.map(Self.text).joined()
        tokens.append(.literal(interpolated ? nil : value))
        tokens.append(contentsOf: pendingCode)
    }

    private static func text(_ piece: Piece) -> String {
        switch piece {
        case .raw(let scalar): String(scalar)
        case .escaped(let text): text
        case .continuation: ""
        }
    }

    /// A multi-line literal's value: the first and last raw line breaks go, each line loses the closing
    /// delimiter's indentation, a raw CRLF or CR reads as LF, a continuation joins its line to the next.
    private static func multilineValue(_ pieces: [Piece]) -> String {
        var lines: [[Piece]] = [[]]
        var index = 0
        while index < pieces.count {
            if case .raw(let scalar) = pieces[index], scalar == "\n" || scalar == "\r" {
                if scalar == "\r", index + 1 < pieces.count, case .raw("\n") = pieces[index + 1] { index += 1 }
                lines.append([])
            } else {
                lines[lines.count - 1].append(pieces[index])
            }
            index += 1
        }
        guard lines.count >= 2 else { return pieces.map(text).joined() }
        lines.removeFirst()
        let indent = lines.removeLast().count
        var result = ""
        for (number, line) in lines.enumerated() {
            var rest = line[...]
            for _ in 0..<indent {
                guard case .raw(let scalar)? = rest.first, scalar == " " || scalar == "\t" else { break }
                rest = rest.dropFirst()
            }
            result += rest.map(text).joined()
            let continued = { if case .continuation? = rest.last { true } else { false } }()
            if number < lines.count - 1 && !continued { result += "\n" }
        }
        return result
    }
}
