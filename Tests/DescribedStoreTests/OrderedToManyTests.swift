import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidTesting

/// Ordered to-many relationships (`"ordered": true`, Core Data's `NSOrderedSet`) at run time: the generated
/// records of `OrderedLinks/` (checked against the generator by GoldenTests) link, unlink, replace and read in
/// order, GRDB's associations read in order, and every migration keeps, adds (numbered in rowid order) or
/// drops the link table's `position`.
@Suite struct OrderedToManyTests {
    /// Each link of `table` as `[source, target, position]`, in source then position order.
    static func links(_ db: Database, _ table: String = "reading_list_preview_articles") throws -> [[Int]] {
        try Row.fetchAll(db, sql: "SELECT source_id, target_id, position FROM \(table) ORDER BY source_id, position").map {
            [$0[0], $0[1], $0[2]]
        }
    }

    /// 1.0 (unordered) → 3.0 (ordered at 2.0; `article` renamed `page` at 3.0): each list's links are numbered in
    /// the order they were linked (their rowids), then the generated helpers keep the order.
    @Test func linksReadBackInOrderThroughTheGeneratedRecords() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("lists.sqlite")
        let created = try LucidStore.create(atPath: path, versions: OrderedLinksSchema.versions, version: SchemaVersion("1.0"))
        try created.write { db in
            try db.execute(sql: "INSERT INTO article (id, title) VALUES (1, 'One'), (2, 'Two'), (3, 'Three'), (4, 'Four'), (5, 'Five')")
            try db.execute(sql: "INSERT INTO reading_list (id, name) VALUES (1, 'later'), (2, 'saved')")
            // Linked in this order (rowids 1…4), which is not the key order.
            try db.execute(sql: "INSERT INTO reading_list_preview_articles (source_id, target_id) VALUES (1, 3), (2, 2), (1, 1), (1, 2)")
        }
        try created.close()

        let opened = try LucidStore.open(atPath: path, registry: OrderedLinksSchema.self)
        defer { try? opened.database.close() }
        try opened.database.write { (db: Database) throws in
            #expect(try Self.links(db) == [[1, 3, 0], [1, 1, 1], [1, 2, 2], [2, 2, 0]], "numbered per list in rowid order")
            let later = try #require(try ReadingList.fetchOne(db, key: 1))
            #expect(try later.previewArticlesIDs(db) == [3, 1, 2])

            // A list SQLite has not given an id yet cannot be linked.
            #expect(throws: UnsavedRecordError.self) { try ReadingList(name: "unsaved").linkPreviewArticles(db, ids: [1]) }
            // Link three targets, read back in order; unlink the middle one; replace the list.
            let list = try ReadingList(name: "new").inserted(db)
            #expect(list.id == 3)
            try list.linkPreviewArticles(db, ids: [4, 1, 5])
            #expect(try list.previewArticlesIDs(db) == [4, 1, 5])
            try list.linkPreviewArticles(db, ids: [1, 2]) // 1 is linked already: it keeps its place; 2 is appended
            #expect(try list.previewArticlesIDs(db) == [4, 1, 5, 2])
            try list.unlinkPreviewArticles(db, ids: [1])
            #expect(try list.previewArticlesIDs(db) == [4, 5, 2])
            #expect(try Self.links(db).filter { $0[0] == 3 } == [[3, 4, 0], [3, 5, 2], [3, 2, 3]], "unlinking leaves a gap")
            try list.linkPreviewArticles(db, ids: [3])
            #expect(try list.previewArticlesIDs(db) == [4, 5, 2, 3], "appended after the last position")
            try list.setPreviewArticles(db, ids: [2, 4, 2, 1])
            #expect(try list.previewArticlesIDs(db) == [2, 4, 1])
            #expect(try Self.links(db).filter { $0[0] == 3 } == [[3, 2, 0], [3, 4, 1], [3, 1, 2]], "replaced, numbered from 0")
            try list.setPreviewArticles(db, ids: [])
            #expect(try list.previewArticlesIDs(db).isEmpty)
            try list.setPreviewArticles(db, ids: [5, 3])

            // GRDB's associations read in order too.
            #expect(try list.request(for: ReadingList.previewArticles).fetchAll(db).map(\.id) == [5, 3])
            #expect(try list.request(for: ReadingList.previewArticlesLinks).fetchAll(db).map(\.targetID) == [5, 3])
            struct ListPages: Decodable, FetchableRecord {
                var readingList: ReadingList
                var previewArticles: [Page]
                enum CodingKeys: String, CodingKey {
                    case readingList = "reading_list"
                    case previewArticles = "preview_articles"
                }
            }
            let all = try ReadingList.including(all: ReadingList.previewArticles).order(ReadingList.Columns.id).asRequest(
                of: ListPages.self
            ).fetchAll(db)
            #expect(all.map { $0.previewArticles.map(\.id) } == [[3, 1, 2], [2], [5, 3]])
            #expect(all.map(\.readingList.name) == ["later", "saved", "new"])
        }
    }

    /// A store at 2.0 whose positions are not in rowid order: 2.0 → 3.0 renames `article` to `page` (SQLite's
    /// `RENAME` rewrites the link table's foreign key), and every position is kept, not renumbered.
    @Test func aRenamedTargetKeepsThePositions() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("lists.sqlite")
        let created = try LucidStore.create(atPath: path, versions: OrderedLinksSchema.versions, version: SchemaVersion("2.0"))
        try created.write { db in
            try db.execute(sql: "INSERT INTO article (id, title) VALUES (1, 'One'), (2, 'Two'), (3, 'Three')")
            var list = ReadingList_2_0(name: "later", id: 1)
            try list.insert(db)
            try list.setPreviewArticles(db, ids: [2, 3, 1])
            // Positions against the rowid order, with gaps.
            try db.execute(sql: "UPDATE reading_list_preview_articles SET position = 10 - position * 3")
        }
        let before = try created.read { db in try Self.links(db) }
        #expect(before == [[1, 1, 4], [1, 3, 7], [1, 2, 10]])
        try created.close()

        let opened = try LucidStore.open(atPath: path, registry: OrderedLinksSchema.self)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.map(\.label) == ["2.0 → 3.0 (inferred)"])
        try opened.database.read { (db: Database) throws in
            #expect(try Self.links(db) == before)
            #expect(try ReadingList.fetchOne(db, key: 1)?.previewArticlesIDs(db) == [1, 3, 2])
            #expect(
                try String.fetchOne(
                    db, sql: "SELECT \"table\" FROM pragma_foreign_key_list('reading_list_preview_articles') WHERE \"from\" = 'target_id'")
                    == "page")
        }
    }

    /// The relationship's target becomes another entity (`owner` → `person`, same keys): the link table's
    /// foreign key changes, so it is rebuilt, and every position is kept, gaps and order against the rowids
    /// included.
    @Test func aRebuildOfTheLinkTableKeepsThePositions() throws {
        let versions = try resolveSchemas([
            "owner.json": Self.owner,
            "person.json": """
            { "name": "person", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
              "properties": [{ "name": "name", "property_type": "string" }] }
            """,
            "item.json": """
            { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "holder", "property_type": { "entity_name": "person", "association": "to_many", "ordered": true },
                "type_history": [{ "until_version": "2.0", "property_type": \(Self.ordered) }] }] }
            """,
        ])
        let steps = try MigrationPlanner(versions: versions).plan(from: versions[0].version)
        let rebuilt = steps.flatMap(\.operations).compactMap { operation -> String? in
            if case .rebuildTable(let rebuild) = operation { rebuild.table.name } else { nil }
        }
        #expect(rebuilt == ["item_holder"], "\(steps.flatMap(\.operations).map(\.description))")
        let (path, folder) = try migrate(versions) { db in
            try db.execute(
                sql:
                    "INSERT INTO owner (id, name) VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Cy'); INSERT INTO person (id, name) VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Cy')"
            )
            try db.execute(sql: "INSERT INTO item (id) VALUES (10), (11)")
            try db.execute(
                sql: "INSERT INTO item_holder (source_id, target_id, position) VALUES (10, 2, 7), (11, 1, 0), (10, 3, 2), (10, 1, 4)")
        }
        defer { folder.remove() }
        try withDatabase(path) { (db: Database) throws in
            let rows = try Row.fetchAll(db, sql: "SELECT rowid, source_id, target_id, position FROM item_holder ORDER BY rowid").map {
                [$0[0], $0[1], $0[2], $0[3]] as [Int]
            }
            #expect(rows == [[1, 10, 2, 7], [2, 11, 1, 0], [3, 10, 3, 2], [4, 10, 1, 4]])
            #expect(
                try String.fetchOne(db, sql: "SELECT \"table\" FROM pragma_foreign_key_list('item_holder') WHERE \"from\" = 'target_id'")
                    == "person")
        }
    }

    static let owner = """
        { "name": "owner", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "name", "property_type": "string" }] }
        """

    /// One entity `item` with an int identifier and the relationship `holder` (to `owner`) whose type at 1.0 is
    /// `before` and at 2.0 `after` (relationship objects).
    static func versions(holder before: String, then after: String, nullable: Bool = false) throws -> [Schema] {
        try resolveSchemas([
            "owner.json": owner,
            "item.json": """
            { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [
                { "name": "name", "property_type": "string" },
                { "name": "holder", "property_type": \(after), "nullable": \(nullable),
                  "type_history": [{ "until_version": "2.0", "property_type": \(before) }] }
              ] }
            """,
        ])
    }

    static let unordered = #"{ "entity_name": "owner", "association": "to_many" }"#
    static let ordered = #"{ "entity_name": "owner", "association": "to_many", "ordered": true }"#
    static let toOne = #"{ "entity_name": "owner", "association": "to_one" }"#

    /// Creates a store at the first version, runs `seed`, migrates to the newest; the folder and the store's path.
    func migrate(_ versions: [Schema], seed: (Database) throws -> Void) throws -> (path: String, folder: TemporaryFolder) {
        let folder = try TemporaryFolder()
        let path = folder.path("store.sqlite")
        let created = try LucidStore.create(atPath: path, versions: versions, version: versions[0].version)
        try created.write(seed)
        try created.close()
        try LucidStore.open(atPath: path, versions: versions).database.close()
        return (path, folder)
    }

    static let seedOwnersAndItems =
        "INSERT INTO owner (id, name) VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Cy'); INSERT INTO item (id, name) VALUES (10, 'a'), (11, 'b'), (12, 'c')"

    @Test func unorderedBecomesOrderedNumberingEachSourcesLinksByRowid() throws {
        let versions = try Self.versions(holder: Self.unordered, then: Self.ordered)
        let steps = try MigrationPlanner(versions: versions).plan(from: versions[0].version)
        let reasons = steps.flatMap(\.operations).compactMap { operation -> [String]? in
            if case .rebuildTable(let rebuild) = operation { rebuild.reasons } else { nil }
        }
        #expect(reasons == [["item_holder.position numbers each source's links in their rowid order (the to-many becomes ordered)"]])
        let (path, folder) = try migrate(versions) { db in
            try db.execute(sql: Self.seedOwnersAndItems)
            try db.execute(
                sql: "INSERT INTO item_holder (source_id, target_id) VALUES (11, 3), (10, 2), (11, 1), (10, 3), (11, 2), (10, 1)")
        }
        defer { folder.remove() }
        try withDatabase(path) { (db: Database) throws in
            #expect(try Self.links(db, "item_holder") == [[10, 2, 0], [10, 3, 1], [10, 1, 2], [11, 3, 0], [11, 1, 1], [11, 2, 2]])
            #expect(try Int.fetchAll(db, sql: "SELECT rowid FROM item_holder ORDER BY rowid") == [1, 2, 3, 4, 5, 6], "rowids kept")
        }
    }

    @Test func orderedBecomesUnorderedDropsThePositions() throws {
        let versions = try Self.versions(holder: Self.ordered, then: Self.unordered)
        let operations = try MigrationPlanner(versions: versions).plan(from: versions[0].version).flatMap(\.operations)
        #expect(operations == [.dropColumn(table: "item_holder", column: "position", deferrable: false)], "\(operations)")
        let (path, folder) = try migrate(versions) { db in
            try db.execute(sql: Self.seedOwnersAndItems)
            try db.execute(sql: "INSERT INTO item_holder (source_id, target_id, position) VALUES (10, 2, 1), (10, 3, 0), (11, 1, 0)")
        }
        defer { folder.remove() }
        try withDatabase(path) { (db: Database) throws in
            #expect(
                try Row.fetchAll(db, sql: "SELECT * FROM item_holder ORDER BY rowid").map { [$0[0], $0[1]] as [Int] } == [
                    [10, 2], [10, 3], [11, 1],
                ])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_table_info('item_holder') WHERE name = 'position'") == 0)
        }
    }

    @Test func toOneBecomesOrderedToManyAtPositionZeroAndBack() throws {
        let versions = try Self.versions(holder: Self.toOne, then: Self.ordered)
        let (path, folder) = try migrate(versions) { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ann'), (2, 'Bob')")
            try db.execute(sql: "INSERT INTO item (id, name, holder) VALUES (10, 'a', 2), (11, 'b', 1)")
        }
        defer { folder.remove() }
        try withDatabase(path) { (db: Database) throws in
            #expect(try Self.links(db, "item_holder") == [[10, 2, 0], [11, 1, 0]])
        }

        let back = try Self.versions(holder: Self.ordered, then: Self.toOne, nullable: true)
        let (backPath, backFolder) = try migrate(back) { db in
            try db.execute(
                sql: "INSERT INTO owner (id, name) VALUES (1, 'Ann'), (2, 'Bob'); INSERT INTO item (id, name) VALUES (10, 'a'), (11, 'b')")
            try db.execute(sql: "INSERT INTO item_holder (source_id, target_id, position) VALUES (10, 2, 5)")
        }
        defer { backFolder.remove() }
        try withDatabase(backPath) { (db: Database) throws in
            #expect(
                try Row.fetchAll(db, sql: "SELECT id, holder FROM item ORDER BY id").map { [$0[0], $0[1]] as [Int?] } == [
                    [10, 2], [11, nil],
                ])
        }
    }

    /// The generated migration tests' expectations (`ExpectedMigration`) agree with the store: positions
    /// numbered in rowid order, a to-one's link at 0, positions kept by a rebuild.
    @Test func expectedRowsFollowThePositions() throws {
        for (before, after) in [(Self.unordered, Self.ordered), (Self.toOne, Self.ordered), (Self.ordered, Self.unordered)] {
            let versions = try Self.versions(holder: before, then: after, nullable: false)
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let path = folder.path("store.sqlite")
            let created = try LucidStore.create(atPath: path, versions: versions, version: versions[0].version)
            try created.write { db in
                try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Cy')")
                if before == Self.toOne {
                    try db.execute(sql: "INSERT INTO item (id, name, holder) VALUES (10, 'a', 3), (11, 'b', 1), (12, 'c', 2)")
                } else {
                    try db.execute(sql: "INSERT INTO item (id, name) VALUES (10, 'a'), (11, 'b'), (12, 'c')")
                    let position = before == Self.ordered
                    try db.execute(
                        sql:
                            "INSERT INTO item_holder (source_id, target_id\(position ? ", position" : "")) VALUES (11, 3\(position ? ", 4" : "")), (10, 2\(position ? ", 9" : "")), (11, 1\(position ? ", 2" : ""))"
                    )
                }
            }
            let rows = try created.read { db in try ExpectedMigration.read(db, at: versions[0]) }
            try created.close()
            let expectation = ExpectedMigration(versions: versions, options: StoreOptions(), expectations: MigrationExpectations())
            let expected = try expectation.normalize(expectation.map(rows, from: 0, to: 1, skipping: []))
            try LucidStore.open(atPath: path, versions: versions).database.close()
            let migrated = try withDatabase(path) { db in try ExpectedMigration.read(db, at: versions[1]) }
            // The harness compares rows by key: a to-one's links are filled in the order SQLite reads them.
            func sorted(_ rows: [[String: DatabaseValue]]?) -> [String] { (rows ?? []).map { "\($0.sorted { $0.key < $1.key })" }.sorted() }
            #expect(sorted(migrated.tables["item_holder"]) == sorted(expected.tables["item_holder"]), "\(before) → \(after)")
            #expect(!(migrated.tables["item_holder"] ?? []).isEmpty)
        }
    }
}
