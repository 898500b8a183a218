import Foundation
import GRDB
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `describe` never writes what `generate` refuses, and never drops a table silently: the
/// mismatches found by hand and by the property test (HistoryExplorerTests' DescribePropertyTests), each on a
/// store made by SQL as an app makes it.
@Suite struct DescribeGenerateAcceptsTests {
    func makeStore(_ project: TestProject, _ sql: String, name: String = "s.sqlite") throws {
        let queue = try DatabaseQueue(path: project.root.appendingPathComponent(name).path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    /// describe, generate, plan: the store is recognised at 1.0 with nothing to do.
    func expectAdopted(_ project: TestProject, store: String = "s.sqlite", sourceLocation: SourceLocation = #_sourceLocation) throws {
        let described = try run(lucidgenBinary, ["describe", "--database", store], in: project.root)
        #expect(
            described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)",
            sourceLocation: sourceLocation)
        let generate = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generate.status == 0, "\(generate.output)\(generate.error)", sourceLocation: sourceLocation)
        let plan = try run(lucidgenBinary, ["plan", "--database", store], in: project.root)
        #expect(
            plan.status == 0 && plan.output.contains("\(store): at version 1.0, the newest. Nothing to do."), "\(plan.output)\(plan.error)",
            sourceLocation: sourceLocation)
    }

    /// An index named `my"idx` (or with a space, a line break, unicode) is described with its name, which
    /// `generate` accepts: an index's name is only ever quoted SQL (it refused `invalid name … at $.indexes[0].name`).
    @Test func indexNamesThatAreNoIdentifiersAreGenerated() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        try makeStore(
            project,
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT NOT NULL, b INTEGER);
            CREATE INDEX "my""idx" ON t (a);
            CREATE UNIQUE INDEX "by b
            and ünï" ON t (b);
            """)
        try expectAdopted(project)
        let json = try project.read(".entities/t.json")
        #expect(json.contains(#""name": "my\"idx""#) && json.contains(#""name": "by b\nand ünï""#), "\(json)")
    }

    /// A store with no table lucidgen describes: describe refuses, and writes nothing at all (it wrote a
    /// `.lucid.yaml` without `.entities`, which generate then refused: "input_path '.entities' is not a folder").
    @Test func aStoreWithNoDescribableTableIsRefusedWritingNothing() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        try makeStore(project, "CREATE TABLE log (at TEXT, line TEXT); CREATE TABLE pair (a INTEGER, b INTEGER, PRIMARY KEY (a, b));")
        let described = try run(lucidgenBinary, ["describe", "--database", "s.sqlite"], in: project.root)
        #expect(described.status != 0, "\(described.output)\(described.error)")
        #expect(
            described.error.contains(
                "describe: no table of s.sqlite is one lucidgen describes (each is the app's, listed above); nothing was written"),
            "\(described.error)")
        #expect(
            described.output.contains("the app's: log (it has no declared primary key") && described.output.contains("the app's: pair ("),
            "\(described.output)")
        #expect(!project.exists(".lucid.yaml") && !project.exists(".entities"))
    }

    /// The hint to rename a table whose name holds a line break shows it escaped, on one line.
    @Test func theRenameHintEscapesALineBreak() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        try makeStore(
            project, "CREATE TABLE item (id INTEGER PRIMARY KEY); CREATE TABLE \"line\nbreak\" (id INTEGER PRIMARY KEY, \"a\tb\" TEXT);")
        let described = try run(lucidgenBinary, ["describe", "--database", "s.sqlite"], in: project.root)
        #expect(described.status == 0, "\(described.output)\(described.error)")
        let line = try #require(described.output.split(separator: "\n").first { $0.hasPrefix("the app's: \"line") }, "\(described.output)")
        #expect(line.contains(#"(ALTER TABLE "line\nbreak" RENAME TO …)"#), "\(line)")
    }

    /// Defaults an audit found written as invalid JSON (`+5`, `.5`, `5.`, `007`, `1e999`) or otherwise than
    /// the store has them (`((7))`, `1E5`, `-0`, `null`, `5` on a REAL column, `2` on a BOOLEAN one): each is
    /// a value only where generate writes it back as the store has it, else an SQL expression; the store is
    /// recognised as it is.
    @Test func oddDefaultsAreDescribedAsTheStoreHasThem() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        try makeStore(
            project,
            """
            CREATE TABLE odd (
              id INTEGER PRIMARY KEY,
              plus INTEGER DEFAULT +5, dot REAL DEFAULT .5, trailing REAL DEFAULT 5., octal INTEGER DEFAULT 007,
              huge REAL DEFAULT 1e999, wrapped INTEGER NOT NULL DEFAULT ((7)), sum INTEGER DEFAULT ((1)+(2)), exponent REAL DEFAULT 1E5,
              minus_zero INTEGER DEFAULT -0, lower_null TEXT DEFAULT null, whole REAL DEFAULT 5, flag BOOLEAN NOT NULL DEFAULT 2,
              plain INTEGER DEFAULT -7, fraction REAL DEFAULT 2.5, quoted TEXT DEFAULT 'it''s', paren TEXT DEFAULT (')'), dated DATETIME DEFAULT 0,
              bytes BLOB DEFAULT X'00FF', yes BOOLEAN DEFAULT TRUE
            );
            INSERT INTO odd DEFAULT VALUES;
            """)
        try expectAdopted(project)
        let json = try project.read(".entities/odd.json")
        #expect(json.contains(#""name": "plus", "property_type": "int", "nullable": true, "default_value": { "sql": "(+5)" }"#), "\(json)")
        #expect(json.contains(#""name": "plain", "property_type": "int", "nullable": true, "default_value": -7"#), "\(json)")
        #expect(json.contains(#""name": "fraction", "property_type": "double", "nullable": true, "default_value": 2.5"#), "\(json)")
    }

    /// Two indexes on the same columns (a plain one and a UNIQUE one): a description has one index per list
    /// of properties, so generate refused what describe wrote; the table is the app's, with the index to drop.
    @Test func twoIndexesOnTheSameColumnsLeaveTheTableToTheApp() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        try makeStore(
            project,
            """
            CREATE TABLE tag (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
            CREATE INDEX tag_label ON tag (label);
            CREATE UNIQUE INDEX tag_label_unique ON tag (label);
            CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT);
            """)
        let described = try run(lucidgenBinary, ["describe", "--database", "s.sqlite"], in: project.root)
        #expect(
            described.output.contains(
                #"the app's: tag (its indexes "tag_label" and "tag_label_unique" are both on (label), and a description has one index per list of properties; drop one in the app first (DROP INDEX "tag_label_unique"), then describe again)"#
            ), "\(described.output)")
        #expect(!project.exists(".entities/tag.json"))
        let generate = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generate.status == 0, "\(generate.output)\(generate.error)")
        let plan = try run(lucidgenBinary, ["plan", "--database", "s.sqlite"], in: project.root)
        #expect(plan.output.contains("s.sqlite: at version 1.0, the newest. Nothing to do."), "\(plan.output)\(plan.error)")
    }

    /// A foreign key column typed otherwise than the key it references (INTEGER referencing a TEXT key):
    /// lucidgen's to-one column has its target key's type, so describe warns naming the table (it said
    /// nothing, and plan then did not recognise the store).
    @Test func aToOneColumnTypedOtherwiseThanItsTargetKeyIsAWarning() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        try makeStore(
            project,
            """
            CREATE TABLE list (code TEXT PRIMARY KEY NOT NULL);
            CREATE TABLE item (id INTEGER PRIMARY KEY, listRef INTEGER REFERENCES list (code));
            CREATE INDEX item_on_listRef ON item (listRef);
            """)
        let described = try run(lucidgenBinary, ["describe", "--database", "s.sqlite"], in: project.root)
        #expect(
            described.error.contains(
                "warning: table item: its foreign key column listRef is INTEGER, but the key it references, list.code, is TEXT"),
            "\(described.output)\(described.error)")
    }

    /// A default whose parentheses are not one pair around it all (`((1)+(2))`, which SQLite reports as
    /// `(1)+(2)`): compared without its outer pair only, so that a store lucidgen made, its record removed,
    /// is recognised (it was refused: "expected … DEFAULT ((1)+(2)), found … DEFAULT (1)+(2)").
    @Test func aDefaultOfParenthesisedTermsIsRecognised() throws {
        let project = try TestProject(files: [
            ".entities/item.json": """
            { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
              "properties": [{ "name": "total", "property_type": "int", "default_value": { "sql": "((1)+(2))" } }] }
            """
        ])
        defer { project.remove() }
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        #expect(try run(lucidgenBinary, ["migrate", "--database", "s.sqlite"], in: project.root).status == 0)
        let queue = try DatabaseQueue(path: project.root.appendingPathComponent("s.sqlite").path)
        try queue.write { db in try db.execute(sql: "DROP TABLE lucid_store") }
        try queue.close()
        let plan = try run(lucidgenBinary, ["plan", "--database", "s.sqlite"], in: project.root)
        #expect(plan.output.contains("s.sqlite: at version 1.0, the newest. Nothing to do."), "\(plan.output)\(plan.error)")
    }

    /// A to-one column whose only index is UNIQUE (a one-to-one: a passport per person): lucidgen indexes a
    /// to-one column with a plain index besides, so describe warns naming the table (it said nothing, and
    /// plan then did not recognise the store: "expected index passport_personId_index").
    @Test func aToOneIndexedOnlyByAUniqueIndexIsAWarning() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        try makeStore(
            project,
            """
            CREATE TABLE person (id INTEGER PRIMARY KEY);
            CREATE TABLE passport (id INTEGER PRIMARY KEY, personId INTEGER NOT NULL REFERENCES person (id) ON DELETE CASCADE);
            CREATE UNIQUE INDEX passport_person ON passport (personId);
            """)
        let described = try run(lucidgenBinary, ["describe", "--database", "s.sqlite"], in: project.root)
        #expect(
            described.error.contains(
                "warning: table passport: lucidgen indexes every to-one column (a plain, not UNIQUE, index), and the store has no such index on personid"
            ), "\(described.output)\(described.error)")
    }
}
