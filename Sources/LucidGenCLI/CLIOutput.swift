import Foundation

/// Text from descriptions and stores as the CLI prints it. (A diagnostic's message escapes its own line
/// breaks too: `Diagnostic.description`.)
enum Printable {
    /// `text` with every control character but line breaks and tabs written as a Swift-style escape
    /// (`\u{1b}`): what reaches a terminal (a value from a description or a store, e.g. a default holding
    /// `ESC [2J`, cannot clear the screen or retitle the window).
    static func terminalSafe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\n" && scalar != "\t" && (scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}")
    }
}

/// The CLI's standard output: Swift's `print`, made terminal-safe (``Printable/terminalSafe(_:)``). It
/// shadows `Swift.print` in this module, so no command prints raw control characters.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Swift.print(Printable.terminalSafe(items.map { "\($0)" }.joined(separator: separator)), terminator: terminator)
}

/// The CLI's standard error, terminal-safe like ``print(_:separator:terminator:)``.
func printError(_ text: String) {
    FileHandle.standardError.write(Data(Printable.terminalSafe(text).utf8))
}

/// A progress line drawn over the previous one on a terminal (standard error): a carriage return, the
/// text (terminal-safe), then an erase to the end of the line.
func printProgress(_ text: String) {
    FileHandle.standardError.write(Data(("\r" + Printable.terminalSafe(text) + "\u{1B}[K").utf8))
}
