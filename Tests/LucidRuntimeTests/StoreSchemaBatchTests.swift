import Foundation
import GRDB
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// Many tables' shapes read in three statements (`StoreSchemaReader.shapes(of:_:)`) are what reading each
/// table alone gives (`table(named:_:)`, GRDB's introspection): columns, keys, indexes, foreign keys.
@Suite struct StoreSchemaBatchTests {
    @Test func theBatchReadsEveryTableAsReadingItAloneDoes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let queue = try DatabaseQueue(path: folder.path("store.sqlite"))
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "owner" ("id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "Name" TEXT NOT NULL DEFAULT 'it''s', "score" REAL, "blob" BLOB, "odd" VARCHAR(10));
                    CREATE TABLE "pair" ("a" TEXT NOT NULL, "b" INTEGER NOT NULL, "note" TEXT DEFAULT (datetime('now')), PRIMARY KEY ("b", "a")) WITHOUT ROWID;
                    CREATE TABLE "child" ("id" INTEGER PRIMARY KEY, "owner" INTEGER REFERENCES "owner"("id") ON DELETE CASCADE,
                        "pa" TEXT, "pb" INTEGER, "twice" INTEGER GENERATED ALWAYS AS ("pb" * 2) VIRTUAL,
                        "pc" TEXT UNIQUE ON CONFLICT IGNORE CHECK (length("pc") < 9), CONSTRAINT "positive" CHECK ("pb" > 0),
                        FOREIGN KEY ("pb", "pa") REFERENCES "pair"("b", "a") ON DELETE SET NULL, FOREIGN KEY ("owner") REFERENCES "owner");
                    CREATE INDEX "child_owner_index" ON "child" ("owner");
                    CREATE UNIQUE INDEX "child_pair_index" ON "child" ("pa", "pb");
                    CREATE INDEX "child_expression_index" ON "child" (lower("pa"));
                    CREATE VIRTUAL TABLE "owner_fts" USING fts5("Name", content = 'owner');
                    """)
            for number in 0..<20 {
                try db.execute(
                    sql:
                        "CREATE TABLE \"t\(number)\" (\"id\" INTEGER PRIMARY KEY NOT NULL, \"v\(number)\" TEXT\(number % 2 == 0 ? " NOT NULL DEFAULT ''" : ""))"
                )
                if number % 3 == 0 { try db.execute(sql: "CREATE INDEX \"t\(number)_v\" ON \"t\(number)\" (\"v\(number)\", \"id\")") }
            }
        }
        let names = ["owner", "pair", "child"] + (0..<20).map { "t\($0)" }
        try queue.read { db in
            let batch = try StoreSchemaReader.shapes(of: names, db)
            #expect(batch.count == names.count)
            // What the comparison covers: a composite and a declared foreign key, two indexes (not the one on an
            // expression) and a UNIQUE ON CONFLICT constraint, a generated column, CHECKs, a WITHOUT ROWID table's composite key.
            #expect(batch["child"]?.foreignKeys.count == 3)
            #expect(batch["child"]?.indexes.map(\.name) == ["child_owner_index", "child_pair_index", "sqlite_autoindex_child_1"])
            #expect(batch["child"]?.indexes.last?.onConflict == "IGNORE")
            #expect(batch["child"]?.columns.map(\.name) == ["id", "owner", "pa", "pb", "twice", "pc"])
            // CHECKs and a generated column's expression, from the table's SQL.
            #expect(batch["child"]?.checks == [SchemaCheck(name: "positive", expression: #""pb" > 0"#)])
            #expect(batch["child"]?.column(named: "pc")?.check == #"length("pc") < 9"#)
            #expect(
                batch["child"]?.column(named: "twice")?.generatedSQL == #""pb" * 2"#
                    && batch["child"]?.column(named: "twice")?.generatedStored == nil)
            #expect(batch["pair"]?.primaryKey == ["b", "a"])
            #expect(batch["pair"]?.storeOptions == ["WITHOUT ROWID"])
            #expect(batch["owner"]?.autoincrement == true)
            #expect(batch["owner"]?.columns.first { $0.name == "Name" }?.defaultSQL == "'it''s'")
            for name in names {
                #expect(batch[name] == (try StoreSchemaReader.table(named: name, db)), "\(name)")
            }
            // A name that is no table (gone, or never there) is left for the caller to read alone.
            #expect(try StoreSchemaReader.shapes(of: ["missing", "owner"], db).keys.sorted() == ["owner"])
        }
    }
}
