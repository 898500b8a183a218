import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// Join tables and keys as real SQLite apps have them (stores written here, modelled on GRDB's documented
/// `hasMany(through:)` layouts and on SQLiteData's Reminders example, none of their code): the app's own join
/// table of two keys is a to-many relationship through it (`link_table`), and SQLiteData's `DEFAULT (uuid())`
/// keys are adopted, their function provided by the CLI and refused by name on a connection that lacks it.
@Suite struct JoinTableAdoptionTests {
    /// A library's store as a GRDB app lays it out: books and authors linked by `bookAuthor` (a composite key
    /// of the app's own column names, each reference cascading, the target indexed as GRDB's `belongsTo`
    /// indexes it), and a shelf's books in `shelfBook`, which carries their `position` (no plain link).
    static func makeLibrary(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE author (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);
                    CREATE TABLE book (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL);
                    CREATE TABLE shelf (id INTEGER PRIMARY KEY AUTOINCREMENT, label TEXT NOT NULL);
                    CREATE TABLE bookAuthor (
                      bookId INTEGER NOT NULL REFERENCES book(id) ON DELETE CASCADE,
                      authorId INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE,
                      PRIMARY KEY (bookId, authorId));
                    CREATE INDEX index_bookAuthor_on_authorId ON bookAuthor(authorId);
                    CREATE TABLE shelfBook (
                      shelfId INTEGER NOT NULL REFERENCES shelf(id) ON DELETE CASCADE,
                      bookId INTEGER NOT NULL REFERENCES book(id) ON DELETE CASCADE,
                      position INTEGER NOT NULL,
                      PRIMARY KEY (shelfId, bookId));
                    INSERT INTO author (name) VALUES ('Ursula'), ('Terry');
                    INSERT INTO book (title) VALUES ('Earthsea'), ('Good Omens');
                    INSERT INTO shelf (label) VALUES ('Fantasy');
                    INSERT INTO bookAuthor VALUES (1, 1), (2, 2), (2, 1);
                    INSERT INTO shelfBook VALUES (1, 2, 0), (1, 1, 1);
                    """)
        }
    }

    static func links(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT bookId || '-' || authorId FROM bookAuthor ORDER BY bookId, authorId")
    }

    /// `bookAuthor(bookId, authorId)` is described as book's to-many `authors` through it (`link_table` names
    /// the table, its columns and its index), generated (the link record reads the app's columns), recognised
    /// exactly; a release that rebuilds both book and author keeps the table, its rows and its cascades. A join
    /// table carrying a `position` stays the app's, and describe says why.
    @Test func theAppsJoinTableIsAToManyRelationshipThroughIt() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("library.sqlite").path
        try Self.makeLibrary(at: store)
        let described = try run(lucidgenBinary, ["describe", "--database", "library.sqlite"], in: project.root)
        #expect(
            described.output.contains(
                "note: bookAuthor: described as book's to-many relationship authors to author through it (link_table: its primary key's first column, bookId, is the owner's)"
            ),
            "\(described.output)")
        #expect(
            described.output.contains(
                "the app's: shelfBook (its primary key has 2 columns, so it is no entity of lucidgen's, and it is not described as a to-many relationship through it: it holds position beyond its two keys"
            ), "\(described.output)")
        let schemas = try SQLiteAppAdoptionTests.describeAndGenerate(project, "library.sqlite", ["--force"])
        let book = try project.read(".entities/book.json")
        let authors =
            #"{ "name": "authors", "property_type": { "entity_name": "author", "association": "to_many", "link_table": { "name": "bookAuthor", "source_column": "bookId", "target_column": "authorId", "target_index": "index_bookAuthor_on_authorId" } } }"#
        #expect(book.contains(authors), "\(book)")
        let join = try #require(schemas[0].table(named: "bookAuthor"))
        #expect(
            join.primaryKey == ["bookId", "authorId"] && join.indexes.map(\.name) == ["index_bookAuthor_on_authorId"]
                && join.columns.map(\.name) == ["bookId", "authorId"])
        #expect(schemas[0].table(named: "book_authors") == nil && schemas[0].table(named: "shelfBook") == nil)

        // The generated link record and associations read and write the app's columns.
        let swift = try project.read("Sources/App/Generated/Entities/Book.swift")
        for line in [
            #"public static let databaseTableName = "bookAuthor""#, #"public static let sourceID = GRDB.Column("bookId")"#,
            #"public static let targetID = GRDB.Column("authorId")"#, #"using: GRDB.ForeignKey(["bookId"], to: ["id"])"#,
            #"case targetID = "authorId""#, #"public static let migrationColumns: [Swift.String] = ["bookId", "authorId"]"#,
        ] {
            #expect(swift.contains(line), "\(line) in \(swift)")
        }
        #expect(!swift.contains("source_id") && !swift.contains("target_id"), "\(swift)")

        // 1.1: a book's title and an author's name become optional (a rebuild of each table the links reference).
        try project.write(
            ".lucid.yaml",
            try project.read(".lucid.yaml").replacingOccurrences(of: #"current_version: "1.0""#, with: #"current_version: "1.1""#))
        for (entity, text) in [("book", book), ("author", try project.read(".entities/author.json"))] {
            let column = entity == "book" ? "title" : "name"
            let old = #"{ "name": "\#(column)", "property_type": "string" }"#
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
                        with:
                            #"{ "name": "\#(column)", "property_type": "string", "nullable": true, "type_history": [{ "until_version": "1.1", "nullable": false }] }"#
                    ))
        }
        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let next = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        let plan = try run(lucidgenBinary, ["plan", "--database", "library.sqlite"], in: project.root)
        #expect(plan.status == 0 && plan.output.contains("rebuild") && !plan.output.contains("bookAuthor"), "\(plan.output)\(plan.error)")
        let opened = try LucidStore.open(atPath: store, versions: next)
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            #expect(try Self.links(db) == ["1-1", "2-1", "2-2"], "every link kept")
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'bookAuthor'") ?? ""
            #expect(sql.contains("PRIMARY KEY (bookId, authorId)"), "the app's own table, untouched: \(sql)")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM shelfBook") == 2, "the app's join table kept")
            try db.execute(sql: "DELETE FROM book WHERE id = 2")
            #expect(try Self.links(db) == ["1-1"], "ON DELETE CASCADE kept")
            try db.execute(sql: "INSERT INTO bookAuthor VALUES (1, 2)")
        }
        try opened.database.close()
        #expect(try LucidStore.inspect(atPath: store, versions: next).version == SchemaVersion("1.1"))

        // 1.2 renames author to writer: its table is renamed, and the link table keeps its name, its rows and
        // its reference (SQLite's RENAME rewrites it to writer).
        try project.write(
            ".lucid.yaml",
            try project.read(".lucid.yaml").replacingOccurrences(of: #"current_version: "1.1""#, with: #"current_version: "1.2""#))
        let history = #""version_history": [{ "version": "1.0" }, { "version": "1.1" }]"#
        let author = try project.read(".entities/author.json")
        #expect(author.contains(history) && author.contains(#""name": "author""#), "\(author)")
        try project.write(
            ".entities/writer.json",
            author
                .replacingOccurrences(
                    of: history,
                    with:
                        #""version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "1.2", "previous_name": "author" }]"#
                )
                .replacingOccurrences(of: #""name": "author""#, with: #""name": "writer""#))
        try FileManager.default.removeItem(at: project.root.appendingPathComponent(".entities/author.json"))
        try project.write(
            ".entities/book.json",
            try project.read(".entities/book.json")
                .replacingOccurrences(
                    of: history, with: #""version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "1.2" }]"#
                )
                .replacingOccurrences(of: #""entity_name": "author""#, with: #""entity_name": "writer""#))
        let renamed = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(renamed.status == 0, "\(renamed.output)\(renamed.error)")
        let last = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        #expect(last.last?.table(named: "bookAuthor")?.foreignKeys.map(\.table).sorted() == ["book", "writer"])
        let reopened = try LucidStore.open(atPath: store, versions: last)
        defer { try? reopened.database.close() }
        #expect(reopened.outcome.steps.count == 1)
        try reopened.database.read { db in
            #expect(try Self.links(db) == ["1-1", "1-2"], "every link kept through the rename")
            #expect(try String.fetchAll(db, sql: "SELECT name FROM writer ORDER BY id") == ["Ursula", "Terry"])
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'bookAuthor'") ?? ""
            #expect(sql.contains(#"REFERENCES "writer"(id)"#), "\(sql)")
        }
    }

    /// A join table describe leaves to the app says why, and `link_table` is checked where it is written.
    @Test func joinTablesThatAreNoLinksAndBadLinkTablesAreSaid() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let queue = try DatabaseQueue(path: project.root.appendingPathComponent("loose.sqlite").path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE tag (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                    CREATE TABLE noteTag (noteId INTEGER NOT NULL REFERENCES note(id), tagId INTEGER NOT NULL REFERENCES tag(id) ON DELETE CASCADE, PRIMARY KEY (noteId, tagId));
                    """)
        }
        try queue.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "loose.sqlite"], in: project.root)
        #expect(
            described.output.contains("the app's: noteTag (")
                && described.output.contains("noteId's foreign key says ON DELETE NO ACTION (a link's says ON DELETE CASCADE)"),
            "\(described.output)")

        let refused = try TestProject(files: [
            ".entities/tag.json": entityJSON("tag"),
            ".entities/note.json": entityJSON(
                "note",
                properties: """
                    { "name": "tags", "property_type": { "entity_name": "tag", "association": "to_one", "link_table": { "name": "noteTag", "source_column": "noteId", "target_column": "tagId" } } },
                    { "name": "labels", "property_type": { "entity_name": "tag", "association": "to_many", "link_table": { "name": "noteLabel", "source_column": "noteId", "target_colum": "tagId" } } }
                    """),
        ])
        defer { refused.remove() }
        let errors = try refused.errors().map(\.description)
        #expect(
            errors.contains {
                $0.contains("note.json:") && $0.contains("link_table names a to-many relationship's join table; a to-one is a column")
            }, "\(errors)")
        #expect(
            errors.contains {
                $0.contains("note.json:") && $0.contains("unknown key 'target_colum' in 'link_table'; did you mean 'target_column'?")
            }, "\(errors)")

        // A link table named like another table is an error at its link_table, not SQLite's "already exists".
        let clash = try TestProject(files: [
            ".entities/tag.json": entityJSON("tag"),
            ".entities/note.json": entityJSON(
                "note",
                properties: """
                    { "name": "tags", "property_type": { "entity_name": "tag", "association": "to_many", "link_table": { "name": "tag", "source_column": "noteId", "target_column": "tagId" } } }
                    """),
        ])
        defer { clash.remove() }
        let clashes = try clash.errors().map(\.description)
        #expect(
            clashes.contains {
                $0.contains("note.json:") && $0.contains("link_table 'tag' of 'note.tags' is the name of another table too")
            }, "\(clashes)")
    }

    /// A to-one that becomes a to-many through the app's join table (`link_table` in a `type_history` item's
    /// type too) fills the table from the column; back to a to-one, the column takes each row's single link.
    @Test func aToOneBecomesAToManyThroughTheAppsJoinTableAndBack() throws {
        let toOne = #"{ "entity_name": "author", "association": "to_one" }"#
        let toMany =
            #"{ "entity_name": "author", "association": "to_many", "link_table": { "name": "bookAuthor", "source_column": "bookId", "target_column": "authorId" } }"#
        let project = try TestProject(files: [
            ".entities/author.json": entityJSON("author", properties: #"{ "name": "name", "property_type": "string" }"#)
                .replacingOccurrences(
                    of: #"[{ "version": "1.0" }]"#, with: #"[{ "version": "1.0" }, { "version": "1.1" }, { "version": "1.2" }]"#),
            ".entities/book.json": entityJSON(
                "book",
                properties: """
                    { "name": "title", "property_type": "string" },
                    { "name": "authors", "property_type": \(toOne), "nullable": true, "type_history": [
                      { "until_version": "1.1", "property_type": \(toOne), "nullable": true },
                      { "until_version": "1.2", "property_type": \(toMany), "nullable": false } ] }
                    """
            ).replacingOccurrences(
                of: #"[{ "version": "1.0" }]"#, with: #"[{ "version": "1.0" }, { "version": "1.1" }, { "version": "1.2" }]"#),
        ])
        defer { project.remove() }
        let schemas = try project.generate().model.schemas
        #expect(schemas.map(\.version) == [SchemaVersion("1.0"), SchemaVersion("1.1"), SchemaVersion("1.2")])
        #expect(
            schemas[1].table(named: "bookAuthor")?.primaryKey == ["bookId", "authorId"] && schemas[1].table(named: "book_authors") == nil)
        let path = project.root.appendingPathComponent("books.sqlite").path
        let created = try LucidStore.create(atPath: path, versions: schemas, version: SchemaVersion("1.0"))
        try created.write { db in
            try db.execute(
                sql:
                    "INSERT INTO author (id, name) VALUES (1, 'Ursula'), (2, 'Terry'); INSERT INTO book (id, title, authors) VALUES (1, 'Earthsea', 1), (2, 'Dune', NULL), (3, 'Mort', 2)"
            )
        }
        try created.close()
        let toLinks = try LucidStore.open(atPath: path, versions: Array(schemas.prefix(2)))
        #expect(try toLinks.database.read { db in try Self.links(db) } == ["1-1", "3-2"])
        try toLinks.database.write { db in try db.execute(sql: "DELETE FROM bookAuthor WHERE bookId = 3") }
        try toLinks.database.close()
        let back = try LucidStore.open(atPath: path, versions: schemas)
        defer { try? back.database.close() }
        let (rows, linksLeft) = try back.database.read { db in
            (
                try String.fetchAll(db, sql: "SELECT id || ':' || ifnull(authors, '-') FROM book ORDER BY id"),
                try db.tableExists("bookAuthor")
            )
        }
        #expect(rows == ["1:1", "2:-", "3:-"] && !linksLeft, "\(rows)")
    }

    /// GRDB's configuration an SQLiteData app opens its store with: `uuid()` on every connection (a v4 UUID as
    /// lowercase text, as SQLite's uuid extension returns it).
    static var withUUID: Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.add(function: DatabaseFunction("uuid", argumentCount: 0, pure: false) { _ in UUID().uuidString.lowercased() })
        }
        return configuration
    }

    /// SQLiteData's keys: `"id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid())` on every table,
    /// and its reminders' tags in a table with a key of its own (an entity of two to-one relationships).
    static func makeUUIDReminders(at path: String) throws {
        let queue = try DatabaseQueue(path: path, configuration: withUUID)
        defer { try? queue.close() }
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "remindersLists" (
                      "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
                      "title" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT '') STRICT;
                    CREATE TABLE "reminders" (
                      "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
                      "remindersListID" TEXT NOT NULL REFERENCES "remindersLists"("id") ON DELETE CASCADE,
                      "title" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT '') STRICT;
                    CREATE TABLE "tags" ("title" TEXT COLLATE NOCASE PRIMARY KEY NOT NULL) STRICT;
                    CREATE TABLE "remindersTags" (
                      "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
                      "reminderID" TEXT NOT NULL REFERENCES "reminders"("id") ON DELETE CASCADE,
                      "tagID" TEXT NOT NULL REFERENCES "tags"("title") ON DELETE CASCADE ON UPDATE CASCADE) STRICT;
                    CREATE INDEX "idx_reminders_remindersListID" ON "reminders"("remindersListID");
                    CREATE INDEX "idx_remindersTags_reminderID" ON "remindersTags"("reminderID");
                    CREATE INDEX "idx_remindersTags_tagID" ON "remindersTags"("tagID");
                    INSERT INTO "remindersLists" ("id", "title") VALUES (NULL, 'Home');
                    INSERT INTO "reminders" ("remindersListID", "title") SELECT "id", 'Groceries' FROM "remindersLists";
                    INSERT INTO "tags" VALUES ('errand');
                    INSERT INTO "remindersTags" ("reminderID", "tagID") SELECT "id", 'errand' FROM "reminders";
                    """)
        }
    }

    /// SQLiteData's `DEFAULT (uuid())` keys are described (the property identifier `id`, its default an
    /// expression), generated and recognised. A step that rebuilds such a table needs `uuid()` on its
    /// connection (SQLite resolves a table's defaults when it prepares the rebuild's copy): without it the step
    /// is refused before any change, naming the function; `lucidgen migrate` provides it, and so does the app
    /// (GRDB's `prepareDatabase`).
    @Test func uuidDefaultedKeysAreAdoptedAndTheirFunctionIsProvidedOrNamed() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("reminders.sqlite").path
        try Self.makeUUIDReminders(at: store)
        _ = try SQLiteAppAdoptionTests.describeAndGenerate(project, "reminders.sqlite")
        let reminders = try project.read(".entities/reminders.json")
        #expect(reminders.contains(#""identifier": { "type": "property", "property_name": "id" }"#), "\(reminders)")
        let key = #"{ "name": "id", "property_type": "string", "on_conflict": "replace", "default_value": { "sql": "(uuid())" } }"#
        #expect(reminders.contains(key), "\(reminders)")
        #expect(try project.read(".entities/reminders_tags.json").contains(#""on_update": "cascade""#))

        // 1.1 adds a column whose default is an expression, which SQLite's ADD COLUMN refuses: a rebuild of `reminders`.
        let next = try releaseNext(
            project, "reminders", reminders,
            replacing: #"{ "name": "title", "property_type": "string", "on_conflict": "replace", "default_value": "" }"#,
            with:
                #"{ "name": "title", "property_type": "string", "on_conflict": "replace", "default_value": "" }, { "name": "stamp", "property_type": "int", "default_value": { "sql": "(abs(7))" }, "added_at_version": "1.1" }"#
        )
        #expect(try Self.uuidFunctionIsBuiltIn() == false, "this SQLite has no uuid(): the refusal below is what an app without it meets")
        let copies = ["bare", "cli", "app"].map { project.root.appendingPathComponent("\($0).sqlite").path }
        for copy in copies { try FileManager.default.copyItem(atPath: store, toPath: copy) }

        // A connection without uuid(): refused before any change, naming the function and where it is registered.
        let refusal = #expect(throws: StoreError.self) { _ = try LucidStore.open(atPath: copies[0], versions: next) }
        #expect(
            refusal.map {
                "\($0)".contains("reminders.id defaults to uuid(), a function this connection does not have")
                    && "\($0)".contains("GRDB's Configuration.prepareDatabase")
            } == true,
            "\(String(describing: refusal))")
        #expect(try LucidStore.inspect(atPath: copies[0], versions: next).version == SchemaVersion("1.0"), "the store stays at 1.0")

        // lucidgen migrate provides uuid().
        let migrated = try run(lucidgenBinary, ["migrate", "--database", "cli.sqlite"], in: project.root)
        #expect(migrated.status == 0, "\(migrated.output)\(migrated.error)")
        #expect(try LucidStore.inspect(atPath: copies[1], versions: next).version == SchemaVersion("1.1"))

        // The app's own connections have it (prepareDatabase): migrated, and a new row's key is uuid()'s.
        var options = StoreOptions()
        options.configuration = Self.withUUID
        let opened = try LucidStore.open(atPath: copies[2], versions: next, options: options)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            #expect(try String.fetchAll(db, sql: #"SELECT "title" FROM "reminders""#) == ["Groceries"])
            try db.execute(sql: #"INSERT INTO "reminders" ("id", "remindersListID") SELECT NULL, "id" FROM "remindersLists""#)
            let keys = try String.fetchAll(db, sql: #"SELECT "id" FROM "reminders""#)
            #expect(keys.count == 2 && keys.allSatisfy { UUID(uuidString: $0) != nil && $0 == $0.lowercased() }, "\(keys)")
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'reminders'") ?? ""
            #expect(sql.contains(#""id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid())"#), "\(sql)")
        }
    }

    static func uuidFunctionIsBuiltIn() throws -> Bool {
        try DatabaseQueue().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_function_list WHERE name = 'uuid'") ?? 0 }
            > 0
    }
}
