import Foundation
import LucidSchema
import LucidTestSupport
import Testing

@testable import LucidGenCore

/// The escapers of `SwiftEscaping.swift`, each on its own: what they write for the characters that could
/// end a literal or a comment, and that a literal's value is the input byte for byte (read back by
/// ``SwiftSourceScan``, which lexes as `swiftc` does; the compiled check is `InjectionConsumerTests`).
@Suite struct SwiftEscapingTests {
    static let hostile = [
        "", "plain text", "a\nb\rc\r\nd", "\u{2028}\u{2029}\u{85}", "\0\u{1B}[2J\u{7F}", "\"quoted\" 'single'", "back\\slash\\",
        "\\(x) \\#(y) \\##(z)",
        "\"\"\"#\"\"\"##", "*/ /* `tick` ``two``", "\u{202E}bidi\u{2066}", "trailing space ", "tab\t", "é e\u{301} 🛩️",
        "\n\nblank lines\n\n", "ends with a backslash\\", "ends with a quote\"",
    ]

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The only token a literal lexes to, and its value.
    static func value(ofLiteral source: String) -> String? {
        let scan = SwiftSourceScan(source)
        guard scan.problems.isEmpty, scan.tokens.count == 1, case .literal(let value) = scan.tokens[0] else { return nil }
        return value
    }

    @Test func aStringLiteralHoldsItsTextByteForByteOnOneLine() {
        #expect(swiftStringLiteral("a\"b\\c\nd\0e\u{2028}") == #""a\"b\\c\nd\u{0}e\u{2028}""#)
        #expect(swiftStringLiteral("plain") == "\"plain\"")
        for text in Self.hostile {
            let literal = swiftStringLiteral(text)
            #expect(!literal.unicodeScalars.contains { $0 == "\n" || $0 == "\r" || $0.value < 0x20 }, "\(literal.debugDescription)")
            #expect(
                Self.value(ofLiteral: literal).map(Self.bytes) == Self.bytes(text), "\(text.debugDescription) → \(literal.debugDescription)"
            )
        }
    }

    @Test func aRawLiteralsDelimiterOutnumbersEveryHashRun() {
        #expect(swiftMultilineRawStringLiteral("{\"a\": 1}", indent: "    ") == "#\"\"\"\n    {\"a\": 1}\n    \"\"\"#")
        // `"#`, `\#(` and `"""##` in the text: three `#` after a quote or backslash at most, so four.
        let text = "a \"# \\#(x) \"\"\"## \\###"
        #expect(swiftMultilineRawStringLiteral(text, indent: "").hasPrefix("####\"\"\"\n"))
        for text in Self.hostile {
            let literal = swiftMultilineRawStringLiteral(text, indent: "        ")
            #expect(
                Self.value(ofLiteral: literal).map(Self.bytes) == Self.bytes(text), "\(text.debugDescription) → \(literal.debugDescription)"
            )
            // What a generated file does to it: trailing spaces go and blank-line runs collapse, which it survives.
            #expect(Renderer.tidy(literal + "\n") == literal + "\n", "\(literal.debugDescription)")
            #expect(!literal.unicodeScalars.contains { $0 == "\r" || $0 == "\u{2028}" }, "\(literal.debugDescription)")
        }
    }

    @Test func aCommentLineShowsBreaksAndControlsEscaped() {
        #expect(swiftCommentText("a\nb\r\nc\u{2028}d\u{85}e\u{1B}[2J\tf") == #"a\nb\r\nc\u{2028}d\u{85}e\u{1b}[2J\tf"#)
        #expect(
            swiftCommentText("*/ /* `x` \"q\" \\") == "*/ /* `x` \"q\" \\",
            "nothing else changes: a `//` or `///` line is not ended by `*/`")
        for text in Self.hostile {
            let line = "/// " + swiftCommentText(text)
            let scan = SwiftSourceScan(line)
            #expect(scan.tokens == [.comment(line)], "\(text.debugDescription) → \(line.debugDescription)")
            #expect(
                !line.unicodeScalars.contains {
                    $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}"
                })
        }
    }

    @Test func aCodeSpansFenceOutnumbersItsBackticks() {
        #expect(swiftDocCodeSpan("unicode61 remove_diacritics 2") == "`unicode61 remove_diacritics 2`")
        #expect(swiftDocCodeSpan("a`b") == "``a`b``")
        #expect(swiftDocCodeSpan("a``b`") == "``` a``b` ```")
        #expect(swiftDocCodeSpan("x\ny") == #"`x\ny`"#)
    }
}
