import GRDB
@_spi(Generated) import LucidSchema
import Testing

@_spi(Generated) @testable import LucidRuntime

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
        let renamed = SQLTokens("SELECT a FROM item").renaming(column: "a", to: "values")
        #expect(renamed.names("values") && !renamed.names("a"))
    }

    /// A table and its column of the same name (`default`.`default`): renaming the table renames the
    /// table's mentions only, and renaming the column the column's only, as SQLite's ALTER TABLE does
    /// (history explorer seed 131051: a table rename had hidden that an FTS5 index used a removed column).
    @Test func aTableRenameLeavesAColumnOfTheSameName() {
        let sync = SQLTokens(
            #"CREATE TRIGGER s AFTER INSERT ON "default" BEGIN INSERT INTO f (rowid, "default") VALUES (new.rowid, new."default"); END"#)
        let tableRenamed = sync.renaming(table: "default", to: "order")
        #expect(tableRenamed.names(table: "order") && !tableRenamed.names(table: "default"))
        #expect(tableRenamed.names(column: "default") && !tableRenamed.names(column: "order"))
        let columnRenamed = sync.renaming(column: "default", to: "tint")
        #expect(columnRenamed.names(table: "default") && columnRenamed.names(column: "tint") && !columnRenamed.names(column: "default"))
    }

    /// Where SQL names a table (after FROM, JOIN and their commas, INTO, UPDATE, ON, REFERENCES, or as a
    /// qualifier) it names no column, and elsewhere no table: a column named like a table is told apart.
    @Test func tablesAndColumnsByPosition() {
        let guardTrigger = SQLTokens(#"CREATE TRIGGER g BEFORE DELETE ON "protocol" BEGIN SELECT RAISE(ABORT, 'kept'); END"#)
        #expect(guardTrigger.names(table: "protocol") && !guardTrigger.names(column: "protocol"))
        let sync = SQLTokens(
            #"CREATE TRIGGER s AFTER INSERT ON "group" BEGIN INSERT INTO f (rowid, "protocol") VALUES (new.rowid, new . "protocol"); END"#)
        #expect(sync.names(column: "protocol") && !sync.names(table: "protocol"))
        #expect(sync.names(table: "group") && sync.names(table: "f") && !sync.names(column: "group"))
        let view = SQLTokens(
            "CREATE VIEW v AS SELECT a.x, b FROM item AS a, other JOIN third ON third.id = a.id WHERE b IN (SELECT y FROM fourth)")
        #expect(["item", "other", "third", "fourth", "a"].allSatisfy { view.names(table: $0) })
        #expect(!view.names(table: "b") && !view.names(table: "x") && !view.names(table: "y"))
        #expect(view.names(column: "x") && view.names(column: "b") && view.names(column: "id"))
        #expect(SQLTokens("CREATE INDEX i ON protocol (protocol)").names(column: "protocol"))
        #expect(SQLTokens("CREATE VIRTUAL TABLE f USING fts5(init, content='employee')").namesContent("employee"))
        #expect(!SQLTokens("CREATE VIRTUAL TABLE f USING fts5(init, content='employee')").namesContent("init"))
        #expect(SQLTokens("CREATE VIRTUAL TABLE f USING fts5(init, content=employee)").namesContent("employee"))
    }
}
