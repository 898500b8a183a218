import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// SQLiteData makes every table STRICT, and its reminders' tags reference their tag with `ON UPDATE CASCADE`:
/// such a join table of two keys is a to-many relationship through it too (`link_table` with `"strict": true`
/// and `"target_on_update": "cascade"`), recognised exactly, created so, and kept by the rebuilds of the
/// tables it links. A store written here, modelled on SQLiteData's Reminders example (none of its code).
@Suite struct StrictLinkTableTests {
    static func makeReminders(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "reminders" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "title" TEXT NOT NULL DEFAULT '') STRICT;
                    CREATE TABLE "tags" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "title" TEXT NOT NULL) STRICT;
                    CREATE TABLE "reminderTags" (
                      "reminderID" INTEGER NOT NULL REFERENCES "reminders"("id") ON DELETE CASCADE,
                      "tagID" INTEGER NOT NULL REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE,
                      PRIMARY KEY ("reminderID", "tagID")
                    ) STRICT;
                    CREATE INDEX IF NOT EXISTS "index_reminderTags_on_tagID" ON "reminderTags"("tagID");
                    INSERT INTO "reminders" ("title") VALUES ('Groceries'), ('Call mum');
                    INSERT INTO "tags" ("title") VALUES ('home'), ('weekend');
                    INSERT INTO "reminderTags" VALUES (1, 1), (1, 2), (2, 1);
                    """)
        }
    }

    static func links(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: #"SELECT "reminderID" || '-' || "tagID" FROM "reminderTags" ORDER BY 1"#)
    }

    @Test func aStrictJoinTableWithOnUpdateCascadeIsALinkTable() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("reminders.sqlite").path
        try Self.makeReminders(at: store)
        let schemas = try SQLiteAppAdoptionTests.describeAndGenerate(project, "reminders.sqlite")
        let reminders = try project.read(".entities/reminders.json")
        #expect(
            reminders.contains(
                #""link_table": { "name": "reminderTags", "source_column": "reminderID", "target_column": "tagID", "target_index": "index_reminderTags_on_tagID", "strict": true, "target_on_update": "cascade" }"#
            ),
            "\(reminders)")
        let join = try #require(schemas[0].table(named: "reminderTags"))
        #expect(join.strict == true && join.foreignKeys.map(\.onUpdate) == [nil, .cascade])

        // A new store has it as the app made it.
        let fresh = try LucidStore.open(atPath: project.root.appendingPathComponent("new.sqlite").path, versions: schemas)
        try fresh.database.read { db in
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'reminderTags'") ?? ""
            #expect(sql.hasSuffix("STRICT") && sql.contains("ON UPDATE CASCADE"), "\(sql)")
        }
        try fresh.database.close()

        // 1.1 rebuilds both linked tables (a title becomes optional in each): links, STRICT and the cascades are kept.
        try project.write(
            ".lucid.yaml",
            try project.read(".lucid.yaml").replacingOccurrences(of: #"current_version: "1.0""#, with: #"current_version: "1.1""#))
        for entity in ["reminders", "tags"] {
            let text = try project.read(".entities/\(entity).json")
            let old =
                entity == "tags"
                ? #"{ "name": "title", "property_type": "string" }"#
                : #"{ "name": "title", "property_type": "string", "default_value": "" }"#
            #expect(text.contains(old), "\(text)")
            try project.write(
                ".entities/\(entity).json",
                text
                    .replacingOccurrences(
                        of: #""version_history": [{ "version": "1.0" }]"#,
                        with: #""version_history": [{ "version": "1.0" }, { "version": "1.1" }]"#
                    )
                    .replacingOccurrences(
                        of: old,
                        with: old.replacingOccurrences(
                            of: #""string""#,
                            with: #""string", "nullable": true, "type_history": [{ "until_version": "1.1", "nullable": false }]"#)))
        }
        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let next = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        let opened = try LucidStore.open(atPath: store, versions: next)
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            #expect(try Self.links(db) == ["1-1", "1-2", "2-1"])
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'reminderTags'") ?? ""
            #expect(sql.hasSuffix("STRICT") && sql.contains("ON UPDATE CASCADE"), "\(sql)")
            #expect(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'tags'")?.hasSuffix("STRICT") == true)
            try db.execute(sql: #"UPDATE "tags" SET "id" = 10 WHERE "id" = 2"#)
            #expect(try Self.links(db) == ["1-1", "1-10", "2-1"], "ON UPDATE CASCADE kept")
            try db.execute(sql: #"DELETE FROM "reminders" WHERE "id" = 1"#)
            #expect(try Self.links(db) == ["2-1"], "ON DELETE CASCADE kept")
        }
        try opened.database.close()
        #expect(try LucidStore.inspect(atPath: store, versions: next).version == SchemaVersion("1.1"))
    }
}
