/// How text from descriptions, `.lucid.yaml` and stores lands in Swift source: one function per place it can
/// land (a string literal, a multi-line raw string literal, a comment line, a code span in a doc comment),
/// used by the generated code and by every message that shows Swift (a missing stage's signature, a check's
/// value).
///
/// Descriptions are trusted like source code and still only ever data in the generated code:
/// no default value, tokenizer or organization name may end a comment or a literal early, interpolate,
/// or start a line of code. Every view model value that holds such text goes through one of these.
///
/// The other kinds of output have one rule each too: JSON text `DescriptionWriter.string(_:)`, SQL
/// `quoteIdentifier(_:)` and `quoteLiteral(_:)`, the CLI's terminal `Printable.terminalSafe(_:)`, a glob
/// pattern `StoreList.pattern(_:)`.

/// Whether `scalar` is written as an escape rather than as itself: control characters (C0, DEL, C1 with
/// U+0085 NEXT LINE), the Unicode line and paragraph separators, and the bidirectional formatting
/// characters, which make text read differently from what the compiler sees.
private func isInvisibleOrBreaking(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F...0x9F: true
    case 0x2028, 0x2029: true
    case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: true
    default: false
    }
}

/// `\u{1b}`: the Swift escape of a scalar, after `introducer` (a backslash, and a raw literal's `#`s).
private func unicodeEscape(_ scalar: Unicode.Scalar, introducer: String = "\\") -> String {
    "\(introducer)u{\(String(scalar.value, radix: 16))}"
}

/// A Swift string literal (`"…"`, one line) whose value is `text`, byte for byte: `\`, `"`, line breaks,
/// NUL and other control characters are escaped (`\n`, `\u{0}`), so nothing in `text` can end the literal
/// or interpolate.
package func swiftStringLiteral(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": result += "\\\\"
        case "\"": result += "\\\""
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where isInvisibleOrBreaking(scalar): result += unicodeEscape(scalar)
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

/// A multi-line raw string literal (`#"""` … `"""#`) whose value is `text`, byte for byte, each line
/// indented by `indent` (the closing delimiter's indentation, which Swift strips).
///
/// The delimiter has one `#` more than the longest run of `#` after any `"` or `\` in `text`, so no
/// `"""#…` can close the literal and no `\#…(` can interpolate. What a line cannot carry as itself is
/// escaped with the delimiter (`\#r`, `\#u{2028}`): a carriage return (Swift reads it as a line break),
/// other control characters, a space or tab ending a line (generated files lose trailing spaces), and the
/// line feeds around an empty line (generated files collapse runs of blank lines).
package func swiftMultilineRawStringLiteral(_ text: String, indent: String) -> String {
    var longest = 0
    var run: Int? // the `#`s since the last `"` or `\`; nil when none precedes
    for scalar in text.unicodeScalars {
        if scalar == "#", let count = run {
            run = count + 1
            longest = max(longest, count + 1)
        } else {
            run = scalar == "\"" || scalar == "\\" ? 0 : nil
        }
    }
    let hashes = String(repeating: "#", count: longest + 1)
    let escape = "\\" + hashes
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    // An empty text is one empty line (no indentation: generated files have no trailing spaces).
    var body = text.isEmpty ? "" : indent
    for (index, line) in lines.enumerated() {
        let scalars = Array(line.unicodeScalars)
        for (position, scalar) in scalars.enumerated() {
            let endsLine = position == scalars.count - 1
            if scalar == "\r" {
                body += escape + "r"
            } else if scalar == "\t" {
                body += endsLine ? escape + "t" : "\t"
            } else if isInvisibleOrBreaking(scalar) || (scalar == " " && endsLine) {
                body += unicodeEscape(scalar, introducer: escape)
            } else {
                body.unicodeScalars.append(scalar)
            }
        }
        guard index < lines.count - 1 else { break }
        body += line.isEmpty || lines[index + 1].isEmpty ? escape + "n" : "\n" + indent
    }
    return hashes + "\"\"\"\n" + body + "\n" + indent + "\"\"\"" + hashes
}

/// Text for a comment line (`///` documentation or a `//` file header): line breaks (LF, CR, U+2028,
/// U+2029, U+0085) and other control characters are written as visible escapes (`\n`, `\u{1b}`), so the
/// text stays on its line and shows what it holds. (A `///` line cannot be ended by `*/`.)
package func swiftCommentText(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where isInvisibleOrBreaking(scalar): result += unicodeEscape(scalar)
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// A Markdown code span for a doc comment whose content is `text` (comment-escaped): its backtick fence is
/// longer than any run of backticks in `text`, so a backtick in it cannot end the span early.
package func swiftDocCodeSpan(_ text: String) -> String {
    let content = swiftCommentText(text)
    var longest = 0
    var run = 0
    for scalar in content.unicodeScalars {
        run = scalar == "`" ? run + 1 : 0
        longest = max(longest, run)
    }
    let fence = String(repeating: "`", count: longest + 1)
    // CommonMark strips one space from each end when both are there: needed when the content starts or ends with a backtick.
    let padded = longest > 0 && (content.hasPrefix("`") || content.hasSuffix("`")) ? " \(content) " : content
    return fence + padded + fence
}
