import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// Details of adopting an app's store: a blob default the app wrote in lower case (`x'00ff'`) is
/// the one lucidgen writes (`X'00FF'`); a to-one column's default is never dropped silently (NULL is described,
/// any other is said); `status` notes a `user_version` rung that disagrees with the tables, as `plan` does.
@Suite struct AdoptionDetailsTests {
    @Test func aLowerCaseBlobDefaultIsRecognised() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let queue = try DatabaseQueue(path: project.root.appendingPathComponent("tokens.sqlite").path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE token (id INTEGER PRIMARY KEY, secret BLOB NOT NULL DEFAULT x'00ff1a', salt BLOB DEFAULT (x'beef'),
                      device BLOB NOT NULL DEFAULT x'0123456789abcdef0123456789abcdef')
                    """)
            try db.execute(sql: "INSERT INTO token (id) VALUES (1)")
        }
        try queue.close()
        // The uuid default is written as lucidgen writes a UUID's bytes (X'0123…CDEF'); the store says x'0123…cdef'.
        _ = try SQLiteAppAdoptionTests.describeAndGenerate(project, "tokens.sqlite", ["--type", "token.device=uuid"])
        let token = try project.read(".entities/token.json")
        #expect(token.contains(#""property_type": "uuid""#), "\(token)")
    }

    @Test func aToOneColumnsDefaultIsDescribedOrSaid() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let queue = try DatabaseQueue(path: project.root.appendingPathComponent("lists.sqlite").path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE list (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
                    CREATE TABLE item (id INTEGER PRIMARY KEY, listId INTEGER DEFAULT NULL REFERENCES list(id) ON DELETE SET NULL, title TEXT NOT NULL);
                    CREATE INDEX item_on_listId ON item(listId);
                    CREATE TABLE chore (id INTEGER PRIMARY KEY, listId INTEGER NOT NULL DEFAULT 1 REFERENCES list(id) ON DELETE CASCADE);
                    CREATE INDEX chore_on_listId ON chore(listId);
                    """)
        }
        try queue.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "lists.sqlite"], in: project.root)
        #expect(
            described.error.contains(
                "table chore: its foreign key column listId has a default (1), which a lucidgen to-one relationship cannot have; drop the default in the app (a rebuild), or leave the table to the app with --app-table chore"
            ),
            "\(described.output)\(described.error)")
        let item = try project.read(".entities/item.json")
        #expect(item.contains(#""default_value": null"#), "\(item)")
        // Without chore, the store is recognised exactly.
        try FileManager.default.removeItem(at: project.root.appendingPathComponent(".entities"))
        try FileManager.default.removeItem(at: project.root.appendingPathComponent(".lucid.yaml"))
        _ = try SQLiteAppAdoptionTests.describeAndGenerate(project, "lists.sqlite", ["--app-table", "chore"])
    }

    @Test func statusNotesARungThatDisagreesWithTheTables() throws {
        let rungs = UserVersionRungTests()
        let project = try rungs.project()
        defer { project.remove() }
        try rungs.make(project, "odd.sqlite", rung: 3, tablesOf: 1)
        let status = try run(lucidgenBinary, ["status", "--database", "odd.sqlite"], in: project.root)
        #expect(
            status.output.contains(
                "Note: its user_version 3 names version 3.0, but its tables are 1.0's: recognised as 1.0 from its tables."),
            "\(status.output)\(status.error)")
        let json = try run(lucidgenBinary, ["status", "--database", "odd.sqlite", "--format", "json"], in: project.root)
        #expect(json.output.contains(#""userVersionNote" : "its user_version 3 names version 3.0"#), "\(json.output)")
    }
}
