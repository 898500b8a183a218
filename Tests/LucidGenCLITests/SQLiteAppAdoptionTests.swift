import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// Stores laid out the way shipped SQLite apps lay theirs out (written here, modelled on what a messenger's
/// GRDB schema migrator and SQLiteData's example apps declare, none of their code): `lucidgen describe`
/// writes descriptions `generate` accepts with no hand edit, `plan` recognises the store, and a release that
/// rebuilds a table keeps what the app declared.
@Suite struct SQLiteAppAdoptionTests {
    /// A messenger's store as its GRDB migrator writes it in raw SQL: AUTOINCREMENT keys, UNIQUE text ids,
    /// index names of 71 and 72 characters, a column name of 76, and a full-text index of the app's kept by
    /// its triggers. `payloads`: the send log's payload table, keyed by an AUTOINCREMENT `payloadId`.
    static func makeMessenger(at path: String, payloads: Bool) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE model_TSThread (
                      id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, recordType INTEGER NOT NULL, uniqueId TEXT NOT NULL UNIQUE,
                      shouldThreadBeVisible INTEGER NOT NULL DEFAULT 0, lastInteractionRowId INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE model_TSInteraction (
                      id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, recordType INTEGER NOT NULL, uniqueId TEXT NOT NULL UNIQUE,
                      uniqueThreadId TEXT NOT NULL, timestamp INTEGER NOT NULL, body TEXT, errorType INTEGER, read INTEGER,
                      storedMessageState INTEGER, hasEnded INTEGER,
                      isGroupStoryReplyThatHasNoRepliesYetAndShouldStillCountTowardsTheUnreadBadge INTEGER NOT NULL DEFAULT 0);
                    CREATE INDEX index_model_TSInteraction_on_uniqueThreadId_and_errorType_and_recordType
                      ON model_TSInteraction(uniqueThreadId, errorType, recordType);
                    CREATE INDEX index_model_TSInteraction_on_uniqueThreadId_read_and_storedMessageState
                      ON model_TSInteraction(uniqueThreadId, read, storedMessageState);
                    CREATE INDEX index_model_TSInteraction_on_uniqueThreadId_and_hasEnded_and_recordType
                      ON model_TSInteraction(uniqueThreadId, hasEnded, recordType);
                    CREATE TABLE indexable_text (
                      id INTEGER PRIMARY KEY NOT NULL, collection TEXT NOT NULL, uniqueId TEXT NOT NULL, ftsIndexableContent TEXT NOT NULL);
                    CREATE UNIQUE INDEX index_indexable_text_on_collection_and_uniqueId ON indexable_text(collection, uniqueId);
                    CREATE VIRTUAL TABLE indexable_text_fts USING fts5(ftsIndexableContent, tokenize='unicode61', content='indexable_text', content_rowid='id');
                    CREATE TRIGGER __indexable_text_fts_ai AFTER INSERT ON indexable_text BEGIN
                      INSERT INTO indexable_text_fts (rowid, ftsIndexableContent) VALUES (new.id, new.ftsIndexableContent);
                    END;
                    CREATE TRIGGER __indexable_text_fts_ad AFTER DELETE ON indexable_text BEGIN
                      INSERT INTO indexable_text_fts (indexable_text_fts, rowid, ftsIndexableContent) VALUES ('delete', old.id, old.ftsIndexableContent);
                    END;
                    CREATE TRIGGER __indexable_text_fts_au AFTER UPDATE ON indexable_text BEGIN
                      INSERT INTO indexable_text_fts (indexable_text_fts, rowid, ftsIndexableContent) VALUES ('delete', old.id, old.ftsIndexableContent);
                      INSERT INTO indexable_text_fts (rowid, ftsIndexableContent) VALUES (new.id, new.ftsIndexableContent);
                    END;
                    INSERT INTO model_TSThread (recordType, uniqueId) VALUES (1, 't1');
                    INSERT INTO model_TSInteraction (recordType, uniqueId, uniqueThreadId, timestamp, body) VALUES (2, 'm1', 't1', 1700000000, 'hello'), (2, 'm2', 't1', 1700000001, 'bye');
                    DELETE FROM model_TSInteraction WHERE uniqueId = 'm2';
                    INSERT INTO indexable_text (collection, uniqueId, ftsIndexableContent) VALUES ('TSInteraction', 'm1', 'hello');
                    """)
            if payloads {
                try db.execute(
                    sql: """
                        CREATE TABLE MessageSendLog_Payload (
                          payloadId INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, plaintextContent BLOB NOT NULL, contentHint INTEGER NOT NULL,
                          sentTimestamp INTEGER NOT NULL, uniqueThreadId TEXT NOT NULL, sendComplete INTEGER NOT NULL DEFAULT 0);
                        CREATE INDEX MSLPayload_sentTimestampIndex ON MessageSendLog_Payload(sentTimestamp);
                        INSERT INTO MessageSendLog_Payload (plaintextContent, contentHint, sentTimestamp, uniqueThreadId) VALUES (x'01', 0, 1700000000, 't1'), (x'02', 0, 1700000001, 't1');
                        DELETE FROM MessageSendLog_Payload WHERE payloadId = 2;
                        """)
            }
        }
    }

    /// Describes the store at `store` (one layout, 1.0) in a new project, then generates; the schemas.
    static func describeAndGenerate(
        _ project: TestProject, _ store: String, _ arguments: [String] = [], sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> [Schema] {
        let described = try run(lucidgenBinary, ["describe", "--database", store] + arguments, in: project.root)
        #expect(
            described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)",
            sourceLocation: sourceLocation)
        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)", sourceLocation: sourceLocation)
        let plan = try run(lucidgenBinary, ["plan", "--database", store], in: project.root)
        #expect(
            plan.status == 0 && plan.output.contains("\(store): at version 1.0, the newest. Nothing to do."), "\(plan.output)\(plan.error)",
            sourceLocation: sourceLocation)
        return try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
    }

    /// Names as long as the app's: index names of 71 and 72 characters and a column of 76 are described,
    /// generated (the Swift property derived from the column is the column's name in camelCase) and recognised.
    @Test func namesOfAnyLengthAreDescribedAndGenerated() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("messenger.sqlite").path
        try Self.makeMessenger(at: store, payloads: false)
        let schemas = try Self.describeAndGenerate(project, "messenger.sqlite")
        let interaction = try project.read(".entities/model_ts_interaction.json")
        #expect(
            interaction.contains(#""name": "index_model_TSInteraction_on_uniqueThreadId_and_errorType_and_recordType""#), "\(interaction)")
        #expect(
            interaction.contains(
                #"{ "name": "is_group_story_reply_that_has_no_replies_yet_and_should_still_count_towards_the_unread_badge", "property_type": "int", "default_value": 0 }"#
            ), "\(interaction)")
        let swift = try project.read("Sources/App/Generated/Entities/ModelTsInteraction.swift")
        #expect(
            swift.contains("public var isGroupStoryReplyThatHasNoRepliesYetAndShouldStillCountTowardsTheUnreadBadge: Swift.Int"), "\(swift)"
        )
        let table = try #require(schemas.last?.table(named: "model_TSInteraction"))
        #expect(
            Set(table.indexes.map(\.name)).isSuperset(of: [
                "index_model_TSInteraction_on_uniqueThreadId_and_errorType_and_recordType",
                "index_model_TSInteraction_on_uniqueThreadId_read_and_storedMessageState",
                "index_model_TSInteraction_on_uniqueThreadId_and_hasEnded_and_recordType",
            ]), "\(table.indexes)")
        // A name is checked only where it becomes a file's: an entity of 201 characters is a located error.
        let long = String(repeating: "a", count: 201)
        let files = try TestProject(files: [
            ".entities/long.json": #"{ "name": "\#(long)", "version_history": [{ "version": "1.0" }], "properties": [] }"#
        ])
        defer { files.remove() }
        #expect(
            try files.errors().contains {
                $0.description.contains("long.json:1:")
                    && $0.description.contains("is longer than 200 characters, and an entity's or subtype's name is a file's name")
            })
    }

    /// A reminders app's store as SQLiteData's apps make theirs: every table STRICT, a list's reminders deleted
    /// with it, and a trigram full-text index of the app's kept by its triggers.
    static func makeReminders(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "remindersLists" (
                      "id" INTEGER PRIMARY KEY AUTOINCREMENT, "color" INTEGER NOT NULL DEFAULT 1251602431, "title" TEXT NOT NULL DEFAULT '',
                      "rating" REAL, "cover" BLOB) STRICT;
                    CREATE TABLE "reminders" (
                      "id" INTEGER PRIMARY KEY AUTOINCREMENT, "remindersListID" INTEGER NOT NULL REFERENCES "remindersLists"("id") ON DELETE CASCADE,
                      "title" TEXT NOT NULL DEFAULT '', "notes" TEXT NOT NULL DEFAULT '', "isCompleted" INTEGER NOT NULL DEFAULT 0, "dueDate" TEXT) STRICT;
                    CREATE INDEX "idx_reminders_remindersListID" ON "reminders"("remindersListID");
                    CREATE VIRTUAL TABLE "reminderTexts" USING fts5("title", "notes", content='reminders', content_rowid='id', tokenize='trigram');
                    CREATE TRIGGER "reminderTexts_insert" AFTER INSERT ON "reminders" BEGIN
                      INSERT INTO "reminderTexts" (rowid, "title", "notes") VALUES (new."id", new."title", new."notes");
                    END;
                    CREATE TRIGGER "reminderTexts_delete" AFTER DELETE ON "reminders" BEGIN
                      INSERT INTO "reminderTexts" ("reminderTexts", rowid, "title", "notes") VALUES ('delete', old."id", old."title", old."notes");
                    END;
                    INSERT INTO "remindersLists" ("title") VALUES ('Home'), ('Work');
                    INSERT INTO "reminders" ("remindersListID", "title", "notes", "dueDate") VALUES
                      (1, 'Groceries', 'milk, eggs', '2026-12-02'), (2, 'Quarterly report', 'due Friday', NULL), (2, 'Call Bob', '', NULL);
                    DELETE FROM "reminders" WHERE "id" = 3;
                    """)
        }
    }

    /// STRICT tables (SQLiteData's): described (`"strict": true`), generated and created STRICT, recognised;
    /// a release that rebuilds one keeps STRICT, its rows, its links and the app's FTS5 index, and a value its
    /// declared type refuses is still refused. A description that says STRICT with a type STRICT refuses is a
    /// located error.
    @Test func strictTablesAreDescribedCreatedAndKeptByRebuilds() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("reminders.sqlite").path
        try Self.makeReminders(at: store)
        let schemas = try Self.describeAndGenerate(project, "reminders.sqlite")
        let reminders = try project.read(".entities/reminders.json")
        #expect(reminders.contains(#""strict": true"#), "\(reminders)")
        #expect(try project.read(".entities/reminders_lists.json").contains(#""strict": true"#))
        #expect(schemas[0].table(named: "reminders")?.createTableStatement().hasSuffix(") STRICT") == true)

        // A new store is created STRICT.
        let fresh = try LucidStore.open(atPath: project.root.appendingPathComponent("new.sqlite").path, versions: schemas)
        let strictCount = try fresh.database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_table_list WHERE name IN ('reminders', 'remindersLists') AND strict = 1")
        }
        try fresh.database.close()
        #expect(strictCount == 2)

        // 1.1 makes a reminder's title optional: a rebuild of `reminders`.
        let next = try releaseNext(
            project, "reminders", reminders, replacing: #"{ "name": "title", "property_type": "string", "default_value": "" }"#,
            with:
                #"{ "name": "title", "property_type": "string", "nullable": true, "default_value": "", "type_history": [{ "until_version": "1.1", "nullable": false }] }"#
        )
        let opened = try LucidStore.open(atPath: store, versions: next)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'reminders'") ?? ""
            #expect(sql.hasSuffix(" STRICT") && sql.contains(#""title" TEXT DEFAULT ''"#), "\(sql)")
            #expect(
                try String.fetchAll(db, sql: #"SELECT "id" || ':' || "title" || ':' || "remindersListID" FROM "reminders" ORDER BY "id""#)
                    == ["1:Groceries:1", "2:Quarterly report:2"])
            try db.execute(sql: #"INSERT INTO "reminderTexts"("reminderTexts") VALUES ('integrity-check')"#)
            #expect(
                try Int.fetchAll(db, sql: #"SELECT rowid FROM "reminderTexts" WHERE "reminderTexts" MATCH 'port'"#) == [2],
                "the trigram index and its rowids kept")
            #expect(throws: DatabaseError.self, "STRICT still refuses a value its type does not hold") {
                try db.execute(sql: #"INSERT INTO "reminders" ("remindersListID", "isCompleted") VALUES (1, 'yes')"#)
            }
            try db.execute(sql: #"INSERT INTO "reminders" ("remindersListID", "title") VALUES (1, 'Bread')"#)
            #expect(db.lastInsertedRowID == 4, "AUTOINCREMENT kept")
            #expect(
                try Int.fetchOne(db, sql: #"SELECT count(*) FROM "reminderTexts" WHERE "reminderTexts" MATCH 'Bread'"#) == 1,
                "the app's triggers still run")
            try db.execute(sql: #"DELETE FROM "remindersLists" WHERE "id" = 2"#)
            #expect(
                try Int.fetchOne(db, sql: #"SELECT count(*) FROM "reminders" WHERE "remindersListID" = 2"#) == 0, "ON DELETE CASCADE kept")
        }
        let status = try LucidStore.inspect(atPath: store, versions: next)
        #expect(status.version == SchemaVersion("1.1"))

        // STRICT with a declared type it refuses: located at "strict".
        let refused = try TestProject(files: [
            ".entities/item.json": """
            { "name": "item", "strict": true, "version_history": [{ "version": "1.0" }],
              "properties": [{ "name": "at", "property_type": "date", "column_type": "DATETIME" }] }
            """
        ])
        defer { refused.remove() }
        let errors = try refused.errors().map(\.description)
        #expect(
            errors.contains {
                $0.contains("item.json:1:") && $0.contains("entity 'item' is strict, and its column 'at' declares DATETIME at 1.0")
            }, "\(errors)")
    }

    /// AUTOINCREMENT on a key the app named otherwise than `id` (the send log's `payloadId`): described as the
    /// identifier property's `"autoincrement": true`, recognised, and a rebuild keeps the highest id handed out.
    /// On a key property that is no int it is a located error.
    @Test func autoincrementOnAKeyOfAnyNameIsDescribedAndKept() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("messenger.sqlite").path
        try Self.makeMessenger(at: store, payloads: true)
        _ = try Self.describeAndGenerate(project, "messenger.sqlite")
        let payload = try project.read(".entities/message_send_log_payload.json")
        #expect(
            payload.contains(#""identifier": { "type": "property", "property_name": "payload_id", "autoincrement": true }"#), "\(payload)")
        let next = try releaseNext(
            project, "message_send_log_payload", payload, replacing: #"{ "name": "unique_thread_id", "property_type": "string" }"#,
            with:
                #"{ "name": "unique_thread_id", "property_type": "string", "nullable": true, "type_history": [{ "until_version": "1.1", "nullable": false }] }"#
        )
        let opened = try LucidStore.open(atPath: store, versions: next)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'MessageSendLog_Payload'") ?? ""
            #expect(sql.contains(#""payloadId" INTEGER PRIMARY KEY AUTOINCREMENT"#), "\(sql)")
            try db.execute(
                sql: "INSERT INTO MessageSendLog_Payload (plaintextContent, contentHint, sentTimestamp) VALUES (x'03', 0, 1700000002)")
            #expect(db.lastInsertedRowID == 3, "the deleted payload 2 is not handed out again")
        }

        let refused = try TestProject(files: [
            ".entities/item.json": """
            { "name": "item", "identifier": { "type": "property", "property_name": "code", "autoincrement": true }, "version_history": [{ "version": "1.0" }],
              "properties": [{ "name": "code", "property_type": "string" }] }
            """
        ])
        defer { refused.remove() }
        let errors = try refused.errors().map(\.description)
        #expect(
            errors.contains {
                $0.contains("item.json:1:") && $0.contains(#""autoincrement" needs an int identifier property"#)
                    && $0.contains("'code' is a string")
            }, "\(errors)")
    }

    /// Keys as SQLiteData's apps have them: TEXT keys, a `COLLATE NOCASE` text key (a tag is its title), and a
    /// one-to-one extension table keyed by its list's key (a key that is a foreign key, ON DELETE CASCADE).
    /// Described, generated (the extension's key is its list's key type), recognised; a rebuild of the
    /// extension keeps its foreign key and the cascade.
    @Test func textKeysCollatedKeysAndKeysThatAreForeignKeysAreAdopted() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("lists.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "remindersLists" ("id" TEXT PRIMARY KEY NOT NULL, "title" TEXT NOT NULL DEFAULT '') STRICT;
                    CREATE TABLE "remindersListAssets" (
                      "remindersListID" TEXT PRIMARY KEY NOT NULL REFERENCES "remindersLists"("id") ON DELETE CASCADE, "coverImage" BLOB) STRICT;
                    CREATE TABLE "tags" ("title" TEXT PRIMARY KEY NOT NULL COLLATE NOCASE) STRICT;
                    INSERT INTO "remindersLists" VALUES ('6f2c1c7e-5b7a-4a53-9d0b-3c6f1e2a9b10', 'Home'), ('0b7e2d4c-1a3f-4e5d-8c9b-7a6f5e4d3c2b', 'Work');
                    INSERT INTO "remindersListAssets" VALUES ('6f2c1c7e-5b7a-4a53-9d0b-3c6f1e2a9b10', x'89504e47'), ('0b7e2d4c-1a3f-4e5d-8c9b-7a6f5e4d3c2b', NULL);
                    INSERT INTO "tags" VALUES ('Errand');
                    """)
        }
        try queue.close()
        _ = try Self.describeAndGenerate(project, "lists.sqlite")
        let assets = try project.read(".entities/reminders_list_assets.json")
        #expect(assets.contains(#""identifier": { "type": "property", "property_name": "reminders_list_id" }"#), "\(assets)")
        #expect(try project.read(".entities/tags.json").contains(#"{ "name": "title", "property_type": "string", "collation": "NOCASE" }"#))
        let swift = try project.read("Sources/App/Generated/Entities/RemindersListAssets.swift")
        #expect(swift.contains("public var remindersListId: Swift.String"), "\(swift)")

        // 1.1 adds a scale whose default is an expression, which SQLite's ADD COLUMN refuses: a rebuild of the extension table.
        let next = try releaseNext(
            project, "reminders_list_assets", assets,
            replacing: #"{ "name": "cover_image", "persisted_name": "coverImage", "property_type": "data", "nullable": true }"#,
            with:
                #"{ "name": "cover_image", "persisted_name": "coverImage", "property_type": "data", "nullable": true }, { "name": "scale", "property_type": "double", "default_value": { "sql": "(abs(1.0))" }, "added_at_version": "1.1" }"#
        )
        let plan = try run(lucidgenBinary, ["plan", "--database", "lists.sqlite"], in: project.root)
        #expect(plan.output.contains("rebuild"), "\(plan.output)\(plan.error)")
        let opened = try LucidStore.open(atPath: store, versions: next)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            #expect(try Int.fetchOne(db, sql: #"SELECT count(*) FROM "remindersListAssets" WHERE "scale" = 1.0"#) == 2)
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'remindersListAssets'") ?? ""
            #expect(sql.contains(#"REFERENCES "remindersLists"("id") ON DELETE CASCADE"#) && sql.hasSuffix(" STRICT"), "\(sql)")
            try db.execute(sql: #"DELETE FROM "remindersLists" WHERE "title" = 'Home'"#)
            #expect(
                try String.fetchAll(db, sql: #"SELECT "remindersListID" FROM "remindersListAssets""#) == [
                    "0b7e2d4c-1a3f-4e5d-8c9b-7a6f5e4d3c2b"
                ], "ON DELETE CASCADE through the key")
            #expect(
                try Int.fetchOne(db, sql: #"SELECT count(*) FROM "tags" WHERE "title" = 'errand'"#) == 1, "the key's COLLATE NOCASE kept")
            #expect(throws: DatabaseError.self) { try db.execute(sql: #"INSERT INTO "tags" VALUES ('ERRAND')"#) }
        }

        // A key with a default (SQLiteData's `DEFAULT (uuid())`) is adopted: JoinTableAdoptionTests.
    }

    /// What SQLiteData's apps declare on their columns stays: `NOT NULL ON CONFLICT REPLACE DEFAULT …` (an
    /// insert of NULL takes the default) and a key's `PRIMARY KEY ON CONFLICT REPLACE` are described
    /// (`on_conflict`), recognised and kept by a rebuild; a `UNIQUE … ON CONFLICT` is a unique index item's
    /// `on_conflict` (``UniqueConflictTests``).
    @Test func onConflictClausesAreDescribedAndKeptByRebuilds() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("conflicts.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "tags" ("title" TEXT PRIMARY KEY ON CONFLICT REPLACE NOT NULL COLLATE NOCASE, "color" INTEGER) STRICT;
                    CREATE TABLE "reminders" (
                      "id" INTEGER PRIMARY KEY AUTOINCREMENT, "isFlagged" INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0,
                      "notes" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT '', "title" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT '') STRICT;
                    INSERT INTO "tags" VALUES ('Errand', 1);
                    INSERT INTO "reminders" ("isFlagged", "notes", "title") VALUES (NULL, NULL, 'Groceries');
                    """)
        }
        try queue.close()
        _ = try Self.describeAndGenerate(project, "conflicts.sqlite")
        let reminders = try project.read(".entities/reminders.json")
        #expect(
            reminders.contains(#"{ "name": "notes", "property_type": "string", "on_conflict": "replace", "default_value": "" }"#),
            "\(reminders)")
        #expect(
            try project.read(".entities/tags.json").contains(
                #""identifier": { "type": "property", "property_name": "title", "on_conflict": "replace" }"#))

        // 1.1 adds a column whose default is an expression: a rebuild of `reminders`.
        let next = try releaseNext(
            project, "reminders", reminders,
            replacing: #"{ "name": "title", "property_type": "string", "on_conflict": "replace", "default_value": "" }"#,
            with:
                #"{ "name": "title", "property_type": "string", "on_conflict": "replace", "default_value": "" }, { "name": "stamp", "property_type": "int", "default_value": { "sql": "(abs(7))" }, "added_at_version": "1.1" }"#
        )
        let opened = try LucidStore.open(atPath: store, versions: next)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'reminders'") ?? ""
            #expect(
                sql.contains(#""notes" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT ''"#)
                    && sql.contains(#""stamp" INTEGER NOT NULL DEFAULT (abs(7))"#) && sql.hasSuffix(" STRICT"), "\(sql)")
            try db.execute(sql: #"INSERT INTO "reminders" ("isFlagged", "notes", "title") VALUES (NULL, NULL, 'Bread')"#)
            #expect(
                try String.fetchAll(
                    db, sql: #"SELECT "title" || ':' || "isFlagged" || ':' || "notes" || ':' || "stamp" FROM "reminders" ORDER BY "id""#)
                    == ["Groceries:0::7", "Bread:0::7"])
            try db.execute(sql: #"INSERT INTO "tags" VALUES ('errand', 2)"#)
            #expect(
                try Int.fetchAll(db, sql: #"SELECT "color" FROM "tags""#) == [2],
                "PRIMARY KEY ON CONFLICT REPLACE (and COLLATE NOCASE) kept")
        }

        let other = try TestProject(config: nil)
        defer { other.remove() }
        let unique = try DatabaseQueue(path: other.root.appendingPathComponent("unique.sqlite").path)
        try unique.write { db in
            try db.execute(sql: #"CREATE TABLE "codes" ("id" INTEGER PRIMARY KEY, "code" TEXT UNIQUE ON CONFLICT IGNORE)"#)
        }
        try unique.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "unique.sqlite"], in: other.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.error)")
        #expect(
            try other.read(".entities/codes.json").contains(#"{ "properties": ["code"], "unique": true, "on_conflict": "ignore" }"#),
            "UniqueConflictTests: kept by rebuilds")
    }

    /// The shared real stores (``realWorldFolder(_:holding:for:)``); nil (and said) when absent.
    static let realWorld = realWorldFolder("", holding: "sqlite/home-assistant-ios", for: "SQLiteAppAdoptionTests")

    /// Home Assistant's stores (GRDB without a migrator: each table created if missing), real files at two
    /// layouts (the watch's, one table; the CarPlay one, four): described as one history, generated, each
    /// adopted at its version, and the older migrated to the newer with its rows.
    @Test(.enabled(if: realWorld != nil, "the shared real stores are absent")) func homeAssistantsStoresAreAdoptedAtBothLayouts() throws {
        let folder = try #require(Self.realWorld).appendingPathComponent("sqlite/home-assistant-ios")
        let project = try TestProject(config: nil)
        defer { project.remove() }
        for (file, copy) in [("WatchConfigV1.sqlite", "watch.sqlite"), ("CarPlayConfigV1.sqlite", "carplay.sqlite")] {
            try FileManager.default.copyItem(at: folder.appendingPathComponent(file), to: project.root.appendingPathComponent(copy))
        }
        let described = try run(
            lucidgenBinary, ["describe", "--database", "watch.sqlite=1.0", "--database", "carplay.sqlite=1.1"], in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        #expect(try project.read(".entities/car_play_config.json").contains(#""version_history": [{ "version": "1.1" }]"#))
        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        let watch = project.root.appendingPathComponent("watch.sqlite").path
        let rows = try DatabaseQueue(path: watch).read { db in try Row.fetchAll(db, sql: #"SELECT * FROM "watchConfig" ORDER BY "id""#) }
        for (path, version) in [(project.root.appendingPathComponent("carplay.sqlite").path, "1.1"), (watch, "1.0")] {
            let status = try LucidStore.inspect(atPath: path, versions: schemas)
            #expect(status.adopted && status.version == (try? SchemaVersion(parsing: version)), "\(path): \(status.start)")
        }
        let opened = try LucidStore.open(atPath: watch, versions: schemas)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.map(\.label) == ["1.0 → 1.1 (inferred)"])
        let (migratedRows, carPlay) = try opened.database.read { db in
            (
                try Row.fetchAll(db, sql: #"SELECT * FROM "watchConfig" ORDER BY "id""#),
                try Int.fetchOne(db, sql: #"SELECT count(*) FROM "carPlayConfig""#)
            )
        }
        #expect(migratedRows == rows && !rows.isEmpty && carPlay == 0, "\(rows.count) rows")
    }

    /// Stores an FMDB or raw-SQL app numbered with `PRAGMA user_version` (each migration bumps it): several
    /// stores given without versions are each described at their rung (user_version N as version N.0), and
    /// each is adopted at it; lucidgen leaves `user_version` as the app set it. A store at user_version 0
    /// among them is refused, with what to give.
    @Test func storesVersionedByUserVersionAreDescribedAtTheirRungs() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        func make(_ name: String, rung: Int) throws {
            let queue = try DatabaseQueue(path: project.root.appendingPathComponent(name).path)
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
                if rung >= 2 { try db.execute(sql: "ALTER TABLE note ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0") }
                try db.execute(sql: "INSERT INTO note (body) VALUES ('first')")
                try db.execute(sql: "PRAGMA user_version = \(rung)")
            }
            try queue.close()
        }
        try make("one.sqlite", rung: 1)
        try make("two.sqlite", rung: 2)
        let described = try run(lucidgenBinary, ["describe", "--database", "one.sqlite", "--database", "two.sqlite"], in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        #expect(
            described.output.contains("one.sqlite: user_version 1, described at 1.0")
                && described.output.contains("two.sqlite: user_version 2, described at 2.0"), "\(described.output)")
        #expect(
            try project.read(".entities/note.json").contains(
                #"{ "name": "pinned", "property_type": "int", "default_value": 0, "added_at_version": "2.0" }"#))
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        for (name, version) in [("one.sqlite", "1.0"), ("two.sqlite", "2.0")] {
            let status = try LucidStore.inspect(atPath: project.root.appendingPathComponent(name).path, versions: schemas)
            #expect(status.adopted && status.version == (try? SchemaVersion(parsing: version)), "\(name): \(status.start)")
        }
        let opened = try LucidStore.open(atPath: project.root.appendingPathComponent("one.sqlite").path, versions: schemas)
        let userVersion = try opened.database.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        try opened.database.close()
        #expect(
            opened.outcome.steps.count == 1 && userVersion == 1, "lucidgen migrated the store and left its user_version as the app set it")

        try make("zero.sqlite", rung: 0)
        let refused = try run(
            lucidgenBinary, ["describe", "--database", "zero.sqlite", "--database", "two.sqlite", "--force"], in: project.root)
        #expect(
            refused.status != 0
                && refused.error.contains(
                    "--database zero.sqlite: its user_version is 0, so it says no layout; give each store its version (FILE=VERSION)"),
            "\(refused.error)")
    }

    /// STRICT and the ON CONFLICT clauses are part of a table's DDL and of its JSON (what a generated registry
    /// holds) and survive it; a table without them has the JSON and DDL it had.
    @Test func strictAndConflictClausesSurviveTheRegistrysJSON() throws {
        var notes = SchemaColumn(name: "notes", type: .text, notNull: true, defaultSQL: "''")
        notes.notNullConflict = "REPLACE"
        var table = SchemaTable(
            name: "reminders", columns: [SchemaColumn(name: "id", type: .integer, notNull: true), notes], primaryKey: ["id"],
            autoincrement: true)
        table.strict = true
        table.primaryKeyConflict = "IGNORE"
        #expect(
            table.createTableStatement()
                == #"CREATE TABLE "reminders" ("id" INTEGER PRIMARY KEY ON CONFLICT IGNORE AUTOINCREMENT NOT NULL, "notes" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT '') STRICT"#
        )
        #expect(SchemaTable(json: table.json(indent: "")) == table)
        let plain = SchemaTable(name: "reminders", columns: [SchemaColumn(name: "id", type: .integer, notNull: true)], primaryKey: ["id"])
        #expect(!plain.json(indent: "").contains("strict") && !plain.json(indent: "").contains("onflict"))
        #expect(plain.createTableStatement() == #"CREATE TABLE "reminders" ("id" INTEGER PRIMARY KEY NOT NULL)"#)
    }
}
