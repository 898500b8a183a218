@testable import LucidRuntime
import Testing

/// The words of the app's SQL, as the checks of a shared store read them.
@Suite struct SQLTokensTests {
    @Test func namesAreUnquotedAndFoldedStringsAndCommentsApart() {
        let tokens = SQLTokens(#"CREATE VIEW "My View" AS SELECT [Title], `n""o`, x FROM Item -- score\#n WHERE y = 'score' /* body */"#)
        #expect(tokens.names("my view") && tokens.names("TITLE") && tokens.names("item") && tokens.names("x"))
        #expect(!tokens.names("score") && !tokens.names("body"))
        #expect(tokens.names("score", orString: true))
        #expect(tokens.strings == ["score"])
    }

    /// A reserved keyword written bare is a keyword; quoted, it is a name. Keywords SQLite also takes as
    /// names count as names.
    @Test func reservedKeywordsAreNamesOnlyWhenQuoted() {
        let tokens = SQLTokens(#"CREATE TRIGGER t AFTER INSERT ON item BEGIN INSERT INTO log VALUES (new."order", new.key); END"#)
        #expect(!tokens.names("values") && !tokens.names("insert") && !tokens.names("into"))
        #expect(tokens.names("order") && tokens.names("key") && tokens.names("begin"))
        #expect(Array(tokens.words.prefix(7)) == ["create", "trigger", "t", "after", "insert", "on", "item"])
    }

    @Test func aRenameQuotesTheNewName() {
        let renamed = SQLTokens("SELECT a FROM item").renaming("a", to: "values")
        #expect(renamed.names("values") && !renamed.names("a"))
    }
}
