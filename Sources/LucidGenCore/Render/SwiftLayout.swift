/// How generated Swift is laid out: no line longer than ``lineLimit`` where the generator chooses the
/// breaks (names and literals from the descriptions can still make one longer), long lists filled line
/// by line, and calls with several arguments one argument per line.
package enum SwiftLayout {
    /// The longest line the generator writes (the golden tests check every generated file against it).
    package static let lineLimit = 120

    /// `items` as lines of a list indented by `indent` spaces, each filled with as many items as fit within
    /// ``lineLimit`` and each ending with a comma (Swift accepts one after the last element): an item
    /// too long to share a line stands alone.
    static func filledLines(_ items: [String], indent: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for item in items {
            if !line.isEmpty, indent + line.count + 1 + item.count + 1 > lineLimit {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + item + ","
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// A call with one argument per line, the closing parenthesis after the last:
    /// `head(\n<indent + 4>argument,\n…<indent + 4>last)`. `indent` is the indentation of the line the
    /// call starts on; the arguments may hold line breaks of their own (nested calls laid out the same way).
    static func call(_ head: String, _ arguments: [String], indent: String) -> String {
        let inner = indent + "    "
        return head + "(\n" + arguments.map { inner + $0 }.joined(separator: ",\n") + ")"
    }

    /// The call on one line when that line (`indent`, then `prefix` characters before the call, then
    /// `suffix` after it) fits within ``lineLimit``; else one argument per line (``call(_:_:indent:)``).
    static func fittingCall(_ head: String, _ arguments: [String], indent: String, prefix: Int = 0, suffix: Int = 0) -> String {
        let line = head + "(" + arguments.joined(separator: ", ") + ")"
        if !line.contains("\n"), indent.count + prefix + line.count + suffix <= lineLimit { return line }
        return call(head, arguments, indent: indent)
    }

    /// An array literal of `items`: on one line when that line (`indent`, `prefix` characters before the
    /// literal, `suffix` after it) fits within ``lineLimit``, else its items filled into lines indented
    /// by `indent` plus 4 spaces and the closing bracket on a line of its own.
    static func arrayLiteral(_ items: [String], indent: String, prefix: Int = 0, suffix: Int = 0) -> String {
        let line = "[" + items.joined(separator: ", ") + "]"
        if indent.count + prefix + line.count + suffix <= lineLimit { return line }
        let inner = indent + "    "
        return "[\n" + filledLines(items, indent: inner.count).map { inner + $0 }.joined(separator: "\n") + "\n" + indent + "]"
    }

    /// Comment text in lines of at most `width` characters, broken at spaces (a word longer than that
    /// stands alone on its line).
    static func commentLines(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var rest = Substring(text)
        while rest.count > width, let space = rest.prefix(width + 1).lastIndex(of: " ") ?? rest.firstIndex(of: " ") {
            lines.append(String(rest[..<space]))
            rest = rest[rest.index(after: space)...]
        }
        lines.append(String(rest))
        return lines
    }

    /// `text` with each comment line (`//` or `///`) longer than ``lineLimit`` broken at spaces into lines
    /// with the same prefix, outside fenced code blocks (```` ``` ````) in doc comments: names from the
    /// descriptions make template comments any length, and Markdown reads a line break in prose as a
    /// space. Works on the UTF-8 bytes and touches only the long lines (rendering a large project is
    /// dominated by such passes).
    static func wrappingComments(_ text: String) -> String {
        var text = text
        let needed = text.withUTF8 { bytes -> Bool in
            var start = 0
            for position in 0...bytes.count where position == bytes.count || bytes[position] == UInt8(ascii: "\n") {
                if position - start > lineLimit { return true }
                start = position + 1
            }
            return false
        }
        guard needed else { return text }
        var inFence = false
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            let marker = trimmed.hasPrefix("/// ") ? "/// " : trimmed.hasPrefix("// ") ? "// " : nil
            if trimmed.hasPrefix("/// ```") { inFence.toggle() }
            guard let marker, !inFence, line.count > lineLimit else {
                lines.append(line)
                continue
            }
            let prefix = String(repeating: " ", count: line.count - trimmed.count) + marker
            let body = String(trimmed.dropFirst(marker.count))
            lines += commentLines(body, width: lineLimit - prefix.count).map { Substring(prefix + $0) }
        }
        return lines.joined(separator: "\n")
    }
}
