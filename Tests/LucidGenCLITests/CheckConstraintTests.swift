import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// What apps declare on their columns and tables stays: CHECK constraints (a column's,
/// the table's, named or not) and generated columns (`GENERATED ALWAYS AS (…) VIRTUAL` or `STORED`), as GRDB's
/// schema builder writes them (`check(sql:)`, `generatedAs(sql:_:)`), are described, generated, created,
/// recognised and kept by every rebuild; a rebuild whose rows break a CHECK is a typed error that changes
/// nothing. Stores written here, modelled on GRDB's demo app's `player` table.
@Suite struct CheckConstraintTests {
    /// A game's store: players (a column CHECK, table CHECKs, a STORED and a VIRTUAL generated column) and
    /// teams (a named table CHECK), made by GRDB's schema builder and raw SQL as apps write them.
    static func makeGame(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().check(sql: "length(name) > 0")
                t.column("score", .integer).notNull().defaults(to: 0)
                t.column("bonus", .integer).notNull().defaults(to: 0)
                t.column("totalScore", .integer).generatedAs(sql: "score + bonus", .stored)
                t.column("label", .text).generatedAs(sql: "name || ':' || score")
                t.check(sql: "score >= 0")
            }
            try db.execute(
                sql: """
                    CREATE TABLE "team" (
                      "id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL,
                      "size" INTEGER NOT NULL DEFAULT 1,
                      CONSTRAINT "teamSizePositive" CHECK ("size" > 0));
                    INSERT INTO "player" ("name", "score", "bonus") VALUES ('Arthur', 10, 5), ('Barbara', 20, 0);
                    INSERT INTO "team" ("name", "size") VALUES ('Reds', 3);
                    """)
        }
    }

    /// Described (`check`, `checks`, `generated`), generated (records never write a generated column),
    /// created, recognised with no warning; a release that rebuilds `player` keeps every CHECK, both generated
    /// columns and the rows, and one that adds a STORED generated column to `team` (which ADD COLUMN cannot
    /// add) rebuilds it.
    @Test func checksAndGeneratedColumnsAreDescribedCreatedRecognisedAndKept() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("game.sqlite").path
        try Self.makeGame(at: store)
        let schemas = try SQLiteAppAdoptionTests.describeAndGenerate(project, "game.sqlite")
        let player = try project.read(".entities/player.json")
        #expect(player.contains(#""checks": ["score >= 0"]"#), "\(player)")
        #expect(player.contains(#"{ "name": "name", "property_type": "string", "check": "length(name) > 0" }"#), "\(player)")
        #expect(player.contains(#""generated": { "expression": "score + bonus", "stored": true }"#), "\(player)")
        #expect(player.contains(#""generated": { "expression": "name || ':' || score" }"#), "\(player)")
        let team = try project.read(".entities/team.json")
        #expect(team.contains(#""checks": [{ "name": "teamSizePositive", "expression": "\"size\" > 0" }]"#), "\(team)")

        // The record reads a generated column and never writes it.
        let swift = try project.read("Sources/App/Generated/Entities/Player.swift")
        #expect(swift.contains("public func encode(to container: inout GRDB.PersistenceContainer) throws {"), "\(swift)")
        #expect(
            swift.contains(#"container["score"] = self.score"#) && !swift.contains(#"container["totalScore"]"#)
                && !swift.contains(#"container["label"]"#), "\(swift)")
        #expect(swift.contains("public var totalScore: Swift.Int?"), "\(swift)")

        // A new store has them.
        let freshPath = project.root.appendingPathComponent("new.sqlite").path
        let fresh = try LucidStore.open(atPath: freshPath, versions: schemas)
        try fresh.database.write { db in
            try db.execute(sql: #"INSERT INTO "player" ("name", "score", "bonus") VALUES ('Chloe', 3, 4)"#)
            #expect(try String.fetchOne(db, sql: #"SELECT "totalScore" || '/' || "label" FROM "player""#) == "7/Chloe:3")
            #expect(throws: DatabaseError.self, "the table CHECK") {
                try db.execute(sql: #"INSERT INTO "player" ("name", "score") VALUES ('Dan', -1)"#)
            }
            #expect(throws: DatabaseError.self, "the column CHECK") { try db.execute(sql: #"INSERT INTO "player" ("name") VALUES ('')"#) }
            #expect(throws: DatabaseError.self, "the named CHECK") {
                try db.execute(sql: #"INSERT INTO "team" ("name", "size") VALUES ('Blues', 0)"#)
            }
        }
        try fresh.database.close()

        // 1.1: a player's bonus becomes optional (a rebuild of `player`); a team gets a STORED generated column.
        try project.write(
            ".entities/team.json",
            team
                .replacingOccurrences(
                    of: #""version_history": [{ "version": "1.0" }]"#,
                    with: #""version_history": [{ "version": "1.0" }, { "version": "1.1" }]"#
                )
                .replacingOccurrences(
                    of: #"{ "name": "size", "property_type": "int", "default_value": 1 }"#,
                    with:
                        #"{ "name": "size", "property_type": "int", "default_value": 1 }, { "name": "doubled", "property_type": "int", "nullable": true, "generated": { "expression": "size * 2", "stored": true }, "added_at_version": "1.1" }"#
                ))
        let next = try releaseNext(
            project, "player", player, replacing: #"{ "name": "bonus", "property_type": "int", "default_value": 0 }"#,
            with:
                #"{ "name": "bonus", "property_type": "int", "nullable": true, "default_value": 0, "type_history": [{ "until_version": "1.1", "nullable": false }] }"#
        )
        let plan = try run(lucidgenBinary, ["plan", "--database", "game.sqlite"], in: project.root)
        #expect(
            plan.output.contains("team.doubled is added as a STORED generated column, which ADD COLUMN cannot add"),
            "\(plan.output)\(plan.error)")
        let opened = try LucidStore.open(atPath: store, versions: next)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'player'") ?? ""
            #expect(sql.contains(#""name" TEXT NOT NULL CHECK (length(name) > 0)"#) && sql.contains("CHECK (score >= 0)"), "\(sql)")
            #expect(
                sql.contains(#""totalScore" INTEGER GENERATED ALWAYS AS (score + bonus) STORED"#)
                    && sql.contains(#""bonus" INTEGER DEFAULT 0"#), "\(sql)")
            #expect(
                try String.fetchAll(db, sql: #"SELECT "id" || ':' || "totalScore" || ':' || "label" FROM "player" ORDER BY "id""#) == [
                    "1:15:Arthur:10", "2:20:Barbara:20",
                ])
            #expect(throws: DatabaseError.self, "the table CHECK kept") {
                try db.execute(sql: #"UPDATE "player" SET "score" = -5 WHERE "id" = 1"#)
            }
            try db.execute(sql: #"INSERT INTO "player" ("name", "score", "bonus") VALUES ('Eve', 1, NULL)"#)
            #expect(db.lastInsertedRowID == 3)
            #expect(try Int.fetchAll(db, sql: #"SELECT "doubled" FROM "team""#) == [6], "a STORED generated column added by a rebuild")
            #expect(throws: DatabaseError.self, "the named CHECK kept") { try db.execute(sql: #"UPDATE "team" SET "size" = 0"#) }
        }
        let status = try LucidStore.inspect(atPath: store, versions: next)
        #expect(status.version == SchemaVersion("1.1"))
    }

    /// A release that adds a CHECK (`added_at_version`) some rows break: the rebuild fails with a typed error naming the table,
    /// the constraint and the first row that breaks it, and the store is left as it was.
    @Test func aRebuildWhoseCheckFailsOnARowIsATypedErrorAndChangesNothing() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("game.sqlite").path
        try Self.makeGame(at: store)
        _ = try SQLiteAppAdoptionTests.describeAndGenerate(project, "game.sqlite")
        let player = try project.read(".entities/player.json")
        let next = try releaseNext(
            project, "player", player, replacing: #""checks": ["score >= 0"]"#,
            with: #""checks": ["score >= 0", { "expression": "score < 15", "added_at_version": "1.1" }]"#)
        // The app's tables and rows (adoption records lucidgen's own tables before the step).
        func appTablesAndRows() throws -> [String] {
            let queue = try DatabaseQueue(path: store)
            defer { try? queue.close() }
            return try queue.read { db in
                try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE name NOT LIKE 'lucid%' AND sql IS NOT NULL ORDER BY name")
                    + String.fetchAll(
                        db,
                        sql:
                            #"SELECT "id" || ':' || "name" || ':' || "score" || ':' || "bonus" || ':' || "totalScore" FROM "player" ORDER BY "id""#
                    )
            }
        }
        let before = try appTablesAndRows()
        #expect {
            _ = try LucidStore.open(atPath: store, versions: next)
        } throws: { error in
            guard case StoreError.checkFailed(_, let table, let constraint, let rowid) = error else { return false }
            return table == "player" && constraint == "score < 15" && rowid == 2
                && (error as? StoreError)?.description.contains("its row of rowid 2 breaks the CHECK constraint score < 15") == true
        }
        #expect(try appTablesAndRows() == before && before.contains("2:Barbara:20:0:20"), "the store's tables and rows are unchanged")
        #expect(try LucidStore.inspect(atPath: store, versions: next).version == SchemaVersion("1.0"))
    }

    /// A CHECK or generated expression a description gives must stay one expression in the DDL: anything
    /// else is a located error; a generated property has no default.
    @Test func descriptionsExpressionsAreCheckedAndLocated() throws {
        let project = try TestProject(files: [
            ".entities/item.json": """
            { "name": "item", "version_history": [{ "version": "1.0" }], "checks": ["1); DROP TABLE x; --"],
              "properties": [
                { "name": "a", "property_type": "int", "check": "a > (0" },
                { "name": "b", "property_type": "int", "default_value": 1, "generated": { "expression": "a * 2" } }] }
            """
        ])
        defer { project.remove() }
        let errors = try project.errors().map(\.description)
        #expect(errors.contains { $0.contains("item.json:1:") && $0.contains("'checks' must be one SQL expression") }, "\(errors)")
        #expect(
            errors.contains {
                $0.contains("item.json:3:") && $0.contains("'check' must be one SQL expression") && $0.contains("a '(' is not closed")
            }, "\(errors)")
        #expect(
            errors.contains {
                $0.contains("item.json:4:") && $0.contains("'b' is generated: SQLite computes its values, so it has no default_value")
            }, "\(errors)")
        let key = try TestProject(files: [
            ".entities/code.json": """
            { "name": "code", "identifier": { "type": "property", "property_name": "value" }, "version_history": [{ "version": "1.0" }],
              "properties": [{ "name": "value", "property_type": "string", "generated": { "expression": "'x'" } }] }
            """
        ])
        defer { key.remove() }
        #expect(
            try key.errors().map(\.description).contains {
                $0.contains("code.json:2:") && $0.contains("'value' is the identifier, which SQLite cannot generate")
            })
    }

    /// CHECKs and generated columns are part of a table's DDL and of its JSON (what a generated registry
    /// holds) and survive it; a table without them has the JSON and DDL it had.
    @Test func checksAndGeneratedColumnsSurviveTheRegistrysJSON() throws {
        var score = SchemaColumn(name: "score", type: .integer, notNull: true)
        score.check = "score >= 0"
        var total = SchemaColumn(name: "total", type: .integer, notNull: false)
        total.generatedSQL = "score * 2"
        total.generatedStored = true
        var table = SchemaTable(
            name: "player", columns: [SchemaColumn(name: "id", type: .integer, notNull: true), score, total], primaryKey: ["id"])
        table.checks = [SchemaCheck(name: "small", expression: "score < 100"), SchemaCheck(expression: "total < 200")]
        #expect(
            table.createTableStatement()
                == #"CREATE TABLE "player" ("id" INTEGER PRIMARY KEY NOT NULL, "score" INTEGER NOT NULL CHECK (score >= 0), "#
                + #""total" INTEGER GENERATED ALWAYS AS (score * 2) STORED, CONSTRAINT "small" CHECK (score < 100), CHECK (total < 200))"#)
        #expect(SchemaTable(json: table.json(indent: "")) == table)
        let plain = SchemaTable(name: "player", columns: [SchemaColumn(name: "id", type: .integer, notNull: true)], primaryKey: ["id"])
        #expect(!plain.json(indent: "").contains("check") && !plain.json(indent: "").contains("generated"))
    }
}

/// `UNIQUE … ON CONFLICT` (a column's and a table constraint's), as apps declare it: described as a unique
/// `indexes` item's `on_conflict`, generated (the table's `UNIQUE (…) ON CONFLICT …`, no `CREATE INDEX`),
/// recognised, and kept by a rebuild with its rows.
@Suite struct UniqueConflictTests {
    @Test func uniqueOnConflictIsDescribedAndKeptByRebuilds() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("codes.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "codes" (
                      "id" INTEGER PRIMARY KEY, "code" TEXT UNIQUE ON CONFLICT IGNORE, "owner" TEXT, "slot" INTEGER,
                      UNIQUE ("owner", "slot") ON CONFLICT REPLACE);
                    INSERT INTO "codes" ("code", "owner", "slot") VALUES ('A1', 'ann', 1), ('B2', 'bob', 1);
                    """)
        }
        try queue.close()
        let schemas = try SQLiteAppAdoptionTests.describeAndGenerate(project, "codes.sqlite")
        let codes = try project.read(".entities/codes.json")
        #expect(codes.contains(#"{ "properties": ["code"], "unique": true, "on_conflict": "ignore" }"#), "\(codes)")
        #expect(codes.contains(#"{ "properties": ["owner", "slot"], "unique": true, "on_conflict": "replace" }"#), "\(codes)")
        let table = try #require(schemas[0].table(named: "codes"))
        #expect(
            table.createTableStatement().contains(#"UNIQUE ("code") ON CONFLICT IGNORE, UNIQUE ("owner", "slot") ON CONFLICT REPLACE"#),
            "\(table.createTableStatement())")
        #expect(table.createIndexStatements.isEmpty)

        // 1.1 adds a column whose default is an expression: a rebuild of `codes`.
        let next = try releaseNext(
            project, "codes", codes, replacing: #"{ "name": "slot", "property_type": "int", "nullable": true }"#,
            with:
                #"{ "name": "slot", "property_type": "int", "nullable": true }, { "name": "stamp", "property_type": "int", "default_value": { "sql": "(abs(7))" }, "added_at_version": "1.1" }"#
        )
        let opened = try LucidStore.open(atPath: store, versions: next)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'codes'") ?? ""
            #expect(
                sql.contains(#"UNIQUE ("code") ON CONFLICT IGNORE"#) && sql.contains(#"UNIQUE ("owner", "slot") ON CONFLICT REPLACE"#),
                "\(sql)")
            try db.execute(sql: #"INSERT INTO "codes" ("code", "owner", "slot") VALUES ('A1', 'cy', 2)"#)
            #expect(
                try Int.fetchOne(db, sql: #"SELECT count(*) FROM "codes""#) == 2, "ON CONFLICT IGNORE kept: the duplicate code is ignored")
            try db.execute(sql: #"INSERT INTO "codes" ("code", "owner", "slot") VALUES ('C3', 'bob', 1)"#)
            #expect(
                try String.fetchAll(db, sql: #"SELECT "code" || ':' || "stamp" FROM "codes" ORDER BY "code""#) == ["A1:7", "C3:7"],
                "ON CONFLICT REPLACE kept, rows kept")
        }
        #expect(try LucidStore.inspect(atPath: store, versions: next).version == SchemaVersion("1.1"))
    }

    /// A feed reader's store as GRDB's schema builder writes it for a podcast app's first migration (written
    /// here): `unique(onConflict: .fail)` and a plain index the app made on the same column (which `generate`
    /// used to refuse as a duplicate index), `uniqueKey(_:onConflict:)`,
    /// `belongsTo(…, onDelete: .cascade)` and `check { $0 >= 0 }`. Described with no warning, generated,
    /// recognised, and a rebuild keeps them all.
    @Test func aFeedReadersGRDBStoreIsAdoptedWithItsConstraints() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("feeds.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.create(table: "feed") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("url", .text).unique(onConflict: .fail).notNull().indexed()
                t.column("name", .text).notNull()
            }
            try db.create(index: "feed_on_url", on: "feed", columns: ["url"])
            try db.create(table: "item") { t in
                t.autoIncrementedPrimaryKey("id")
                t.uniqueKey(["feedId", "guid"], onConflict: .fail)
                t.belongsTo("feed", onDelete: .cascade).notNull()
                t.column("guid", .text).notNull().indexed()
                t.column("title", .text).notNull()
                t.column("position", .integer).check { $0 >= 0 }
            }
            try db.execute(sql: #"INSERT INTO "feed" ("url", "name") VALUES ('https://a.example/feed', 'A')"#)
            try db.execute(
                sql: #"INSERT INTO "item" ("feedId", "guid", "title", "position") VALUES (1, 'g1', 'One', 0), (1, 'g2', 'Two', NULL)"#)
        }
        try queue.close()
        _ = try SQLiteAppAdoptionTests.describeAndGenerate(project, "feeds.sqlite")
        let feed = try project.read(".entities/feed.json")
        #expect(
            feed.contains(#"{ "properties": ["url"] },"#)
                && feed.contains(#"{ "properties": ["url"], "unique": true, "on_conflict": "fail" }"#), "\(feed)")
        let item = try project.read(".entities/item.json")
        #expect(
            item.contains(#""check": "\"position\" >= 0""#)
                && item.contains(#"{ "properties": ["feed_id", "guid"], "unique": true, "on_conflict": "fail" }"#), "\(item)")

        let next = try releaseNext(
            project, "item", item, replacing: #"{ "name": "title", "property_type": "string" }"#,
            with:
                #"{ "name": "title", "property_type": "string", "nullable": true, "type_history": [{ "until_version": "1.1", "nullable": false }] }"#
        )
        let opened = try LucidStore.open(atPath: store, versions: next)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            #expect(throws: DatabaseError.self, "the CHECK kept") { try db.execute(sql: #"UPDATE "item" SET "position" = -1"#) }
            #expect(throws: DatabaseError.self, "UNIQUE ON CONFLICT FAIL kept") {
                try db.execute(sql: #"INSERT INTO "item" ("feedId", "guid", "title") VALUES (1, 'g1', 'again')"#)
            }
            try db.execute(sql: #"DELETE FROM "feed""#)
            #expect(try Int.fetchOne(db, sql: #"SELECT count(*) FROM "item""#) == 0, "ON DELETE CASCADE kept")
        }
        #expect(try LucidStore.inspect(atPath: store, versions: next).version == SchemaVersion("1.1"))
    }
}
