@_spi(Generated) import LucidSchema
import Testing

/// The one SQL lexer: every reader of SQL someone else wrote sees the same tokens, hostile text included.
@Suite struct SQLLexerTests {
    /// The significant tokens as (kind, text) pairs.
    static func read(_ sql: String) -> [String] {
        SQLLexer.significantTokens(sql).map { "\($0.kind):\($0.text)" }
    }

    @Test func stringsUndoTheirDoubledQuotesAndHideEverythingInside() {
        #expect(Self.read(#"'it''s -- not /* a */ comment, nor ) a paren'"#) == [#"string:it's -- not /* a */ comment, nor ) a paren"#])
        #expect(Self.read("''") == ["string:"])
    }

    @Test func quotedNamesInEachOfSQLitesThreeQuotes() {
        #expect(
            Self.read(#""My ""View"" -- x" [a "b" ]] `c``d`"#) == [
                #"quotedName:My "View" -- x"#, #"quotedName:a "b" "#, "punctuation:]", "quotedName:c`d",
            ])
        #expect(SQLLexer.tokens("[it's]").map(\.kind) == [.quotedName])
    }

    @Test func commentsAreTokensSkippedByReaders() {
        let tokens = SQLLexer.tokens("a -- one 'x\nb /* two ) */ c")
        #expect(tokens.filter { $0.kind == .comment }.map(\.text) == ["-- one 'x", "/* two ) */"])
        #expect(Self.read("a -- one 'x\nb /* two ) */ c") == ["word:a", "word:b", "word:c"])
        // An unclosed block comment runs to the end.
        let open = SQLLexer.tokens("a /* never closed")
        #expect(open.last?.kind == .comment && open.last?.closed == false)
    }

    @Test func nestedParenthesesKeepTheirExactText() {
        let sql = "CHECK (length(\"a)\") > (1 + (2)))"
        let tokens = SQLLexer.significantTokens(sql)
        #expect(tokens.filter { $0.isPunctuation("(") }.count == 4 && tokens.filter { $0.isPunctuation(")") }.count == 4)
        let open = tokens.first { $0.isPunctuation("(") }!, close = tokens.last!
        #expect(SQLLexer.text(sql, open.range.upperBound..<close.range.lowerBound) == "length(\"a)\") > (1 + (2))")
    }

    @Test func blobsAreOneTokenAndNotAWordAndAString() {
        #expect(Self.read("X'00FF' x'0a' ax'00'") == ["blob:00FF", "blob:0a", "word:ax", "string:00"])
        #expect(SQLLexer.tokens("X'00").first?.closed == false)
    }

    @Test func numbersWordsAndOperators() {
        #expect(
            Self.read("1 1.5e-3 .5 0x1F a.b $v é1 || |") == [
                "number:1", "number:1.5e-3", "number:.5", "number:0x1F", "word:a", "punctuation:.", "word:b", "word:$v", "word:é1",
                "punctuation:||", "punctuation:|",
            ])
        #expect(Self.read("1-2") == ["number:1", "punctuation:-", "number:2"])
    }

    @Test func unclosedQuotesAreMarked() {
        #expect(SQLLexer.tokens("'abc").map(\.closed) == [false])
        #expect(SQLLexer.tokens("\"abc").map(\.closed) == [false])
        #expect(SQLLexer.tokens("[abc").map(\.closed) == [false])
        #expect(SQLLexer.tokens("'a' \"b\" [c]").filter { !$0.closed }.isEmpty)
    }

    @Test func rangesCoverTheWholeText() {
        let sql = "CREATE TABLE \"t\" (a TEXT DEFAULT 'x''y' /* c */, b BLOB DEFAULT X'00') -- end ✈︎"
        let tokens = SQLLexer.tokens(sql)
        #expect(tokens.first?.range.lowerBound == 0 && tokens.last?.range.upperBound == sql.utf8.count)
        #expect(zip(tokens, tokens.dropFirst()).allSatisfy { $0.range.upperBound == $1.range.lowerBound })
    }

    /// A default's one pair of parentheses around all of it, read by the lexer: a `)` inside a string, a
    /// quoted name or a comment counts for nothing.
    @Test func unwrappedDefaultIgnoresParenthesesInsideQuotes() {
        #expect(SchemaColumn.unwrappedDefault("(')')") == "')'")
        #expect(SchemaColumn.unwrappedDefault("(1)+(2)") == "(1)+(2)")
        #expect(SchemaColumn.unwrappedDefault("(\"a)\" || [b)])") == "\"a)\" || [b)]")
        #expect(SchemaColumn.unwrappedDefault("('open)") == "('open)")
        #expect(SchemaColumn.unwrappedDefault("((1))") == "(1)")
        #expect(SchemaColumn.unwrappedDefault("1") == "1")
    }

    @Test func aStringLiteralIsAllOfTheTextOrNothing() {
        #expect(SQLLexer.stringLiteral("'it''s'") == "it's")
        #expect(SQLLexer.stringLiteral("''") == "")
        #expect(SQLLexer.stringLiteral("'a' || 'b'") == nil)
        #expect(SQLLexer.stringLiteral("'open") == nil)
        #expect(SQLLexer.stringLiteral("X'00'") == nil)
        #expect(SQLLexer.stringLiteral("1") == nil)
    }
}
