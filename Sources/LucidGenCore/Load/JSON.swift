/// A JSON value with the place it was read from.
///
/// Descriptions are parsed with this strict RFC 8259 reader rather than Foundation's `JSONDecoder`
/// (or Yams) because every error must carry a line, a column and a JSON path, and duplicate keys
/// must be rejected: `JSONDecoder` reports neither positions nor duplicates, and a YAML parser
/// silently accepts non-JSON such as comments, single quotes or unquoted strings.
package struct JSONNode: Sendable {
    package indirect enum Value: Sendable {
        case object([Member])
        case array([JSONNode])
        case string(String)
        /// The number as written, so integers and decimals can be told apart.
        case number(String)
        case bool(Bool)
        case null
    }

    package struct Member: Sendable {
        package var key: String
        package var keyLocation: SourceLocation
        package var value: JSONNode
    }

    package var value: Value
    package var location: SourceLocation
    /// The JSON path from the document's root, e.g. `$.properties[1].name`.
    package var path: String

    /// A short name for the kind of value, for messages.
    package var kindName: String {
        switch value {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

extension JSONNode.Value {
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// Malformed JSON: the message and where it was found.
package struct JSONSyntaxError: Error, Sendable {
    package var message: String
    package var location: SourceLocation
}

/// Parses strict JSON (RFC 8259) from UTF-8 bytes.
package struct JSONParser {
    private let bytes: [UInt8]
    private let file: String
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0

    package static func parse(_ bytes: [UInt8], file: String) throws(JSONSyntaxError) -> JSONNode {
        var parser = JSONParser(bytes: bytes, file: file)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3; parser.lineStart = 3 }
        parser.skipWhitespace()
        let root = try parser.parseValue(path: "$")
        parser.skipWhitespace()
        if parser.index < bytes.count { throw parser.error("unexpected text after the end of the JSON value") }
        return root
    }

    private init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

    /// Where the last column was counted: `location` counts on from there, so that a file on one line
    /// (minified, as converters write it) costs one pass, not one pass from the line's start per value.
    private final class ColumnCount {
        var lineStart = -1
        var index = 0
        var column = 1
    }
    private let counted = ColumnCount()

    private var location: SourceLocation {
        // Columns count characters, not bytes: skip UTF-8 continuation bytes.
        let end = min(index, bytes.count)
        if counted.lineStart != lineStart || counted.index > end {
            counted.lineStart = lineStart
            counted.index = lineStart
            counted.column = 1
        }
        var column = counted.column
        for byte in bytes[counted.index..<end] where byte & 0xC0 != 0x80 { column += 1 }
        counted.index = end
        counted.column = column
        return SourceLocation(file: file, line: line, column: column)
    }

    private func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(message: message, location: location)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current {
            switch byte {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A: index += 1; line += 1; lineStart = index
            default: return
            }
        }
    }

    private mutating func expect(_ literal: String, _ value: JSONNode.Value, path: String) throws(JSONSyntaxError) -> JSONNode {
        let start = location
        for byte in literal.utf8 {
            guard current == byte else { throw error("invalid literal; expected '\(literal)'") }
            index += 1
        }
        return JSONNode(value: value, location: start, path: path)
    }

    private mutating func parseValue(path: String) throws(JSONSyntaxError) -> JSONNode {
        guard let byte = current else { throw error("unexpected end of file; expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(path: path)
        case UInt8(ascii: "["): return try parseArray(path: path)
        case UInt8(ascii: "\""):
            let start = location
            return JSONNode(value: .string(try parseString()), location: start, path: path)
        case UInt8(ascii: "t"): return try expect("true", .bool(true), path: path)
        case UInt8(ascii: "f"): return try expect("false", .bool(false), path: path)
        case UInt8(ascii: "n"): return try expect("null", .null, path: path)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber(path: path)
        case UInt8(ascii: "/"): throw error("comments are not allowed in JSON")
        case UInt8(ascii: "'"): throw error("strings must use double quotes")
        default: throw error("unexpected character '\(Character(Unicode.Scalar(byte)))'; expected a value")
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > 512 { throw error("nesting deeper than 512 levels") }
    }

    private mutating func parseObject(path: String) throws(JSONSyntaxError) -> JSONNode {
        let start = location
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [JSONNode.Member] = []
        var seen: [String: SourceLocation] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return JSONNode(value: .object([]), location: start, path: path)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw error(current == UInt8(ascii: "}") ? "trailing comma before '}'" : "expected a key in double quotes")
            }
            let keyLocation = location
            let key = try parseString()
            if let first = seen[key] {
                throw JSONSyntaxError(
                    message: "duplicate key '\(key)' (first at line \(first.line), column \(first.column))", location: keyLocation)
            }
            seen[key] = keyLocation
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after key '\(key)'") }
            index += 1
            skipWhitespace()
            let value = try parseValue(path: path + "." + key)
            members.append(JSONNode.Member(key: key, keyLocation: keyLocation, value: value))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return JSONNode(value: .object(members), location: start, path: path)
            case nil: throw error("unexpected end of file; expected ',' or '}'")
            default: throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray(path: String) throws(JSONSyntaxError) -> JSONNode {
        let start = location
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return JSONNode(value: .array([]), location: start, path: path)
        }
        while true {
            skipWhitespace()
            if current == UInt8(ascii: "]") { throw error("trailing comma before ']'") }
            elements.append(try parseValue(path: "\(path)[\(elements.count)]"))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return JSONNode(value: .array(elements), location: start, path: path)
            case nil: throw error("unexpected end of file; expected ',' or ']'")
            default: throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber(path: String) throws(JSONSyntaxError) -> JSONNode {
        let start = location
        let begin = index
        if current == UInt8(ascii: "-") { index += 1 }
        func digits(_ parser: inout JSONParser) -> Int {
            var count = 0
            while let byte = parser.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { parser.index += 1; count += 1 }
            return count
        }
        if current == UInt8(ascii: "0") {
            index += 1
            if let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                throw error("numbers may not have leading zeros")
            }
        } else if digits(&self) == 0 {
            throw error("invalid number")
        }
        if current == UInt8(ascii: ".") {
            index += 1
            if digits(&self) == 0 { throw error("invalid number: expected digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            if digits(&self) == 0 { throw error("invalid number: expected digits in the exponent") }
        }
        let text = String(decoding: bytes[begin..<index], as: UTF8.self)
        return JSONNode(value: .number(text), location: start, path: path)
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ parser: JSONParser, upTo end: Int) throws(JSONSyntaxError) {
            guard runStart < end else { return }
            guard let text = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else {
                throw parser.error("invalid UTF-8 in string")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                try flush(self, upTo: index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush(self, upTo: index)
                index += 1
                guard let escape = current else { throw error("unterminated string") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired UTF-16 surrogate in \\u escape")
                        }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                    scalars.append(scalar)
                default: throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
                }
                runStart = index
            case 0x00..<0x20:
                throw error(byte == 0x0A ? "unterminated string (newline inside a string)" : "control character inside a string; escape it")
            default:
                index += 1
            }
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Character(Unicode.Scalar(byte)).hexDigitValue else {
                throw error("invalid \\u escape; expected 4 hex digits")
            }
            value = value * 16 + UInt32(digit)
            index += 1
        }
        return value
    }
}
