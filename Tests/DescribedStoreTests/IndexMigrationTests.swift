import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// Indexes described with `indexed`/`unique`, migrated on real SQLite stores: created, dropped, and a
/// new uniqueness checked against the rows already there.
@Suite struct IndexMigrationTests {
    /// The schemas of a history written release by release, as a user does: each release's descriptions
    /// generated with its `current_version`, so released snapshots freeze what each version was.
    func releases(_ releases: [(current: String, json: String)]) throws -> [Schema] {
        try releasesOf("person", releases)
    }

    /// ``releases(_:)`` of an entity named `entity`.
    func releasesOf(_ entity: String, _ releases: [(current: String, json: String)]) throws -> [Schema] {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path(".entities"), withIntermediateDirectories: true)
        var schemas: [Schema] = []
        for release in releases {
            let config =
                "input_path: .entities\ntargets:\n  app:\n    module_name: App\n    output_path: Sources/App/Generated\ncurrent_version: \"\(release.current)\"\n"
            try config.write(toFile: folder.path(".lucid.yaml"), atomically: true, encoding: .utf8)
            try release.json.write(toFile: folder.path(".entities/\(entity).json"), atomically: true, encoding: .utf8)
            schemas = try GeneratorPipeline(configPath: folder.path(".lucid.yaml")).run(check: false).model.schemas
        }
        return schemas
    }

    static func person(_ properties: String, history: [String]) -> String {
        """
        { "name": "person", "identifier": { "type": "int" },
          "version_history": [\(history.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],
          "properties": [\(properties)] }
        """
    }

    static let plain = #"{ "name": "first_name", "property_type": "string" }, { "name": "last_name", "property_type": "string" }"#

    /// 1.0 without indexes, 2.0 with `properties2`.
    func twoVersions(_ properties2: String) throws -> [Schema] {
        try releases([("1.0", Self.person(Self.plain, history: ["1.0"])), ("2.0", Self.person(properties2, history: ["1.0", "2.0"]))])
    }

    func indexList(_ path: String) throws -> [[String]] {
        try withDatabase(path) { db in
            try Row.fetchAll(db, sql: "SELECT name, \"unique\" FROM pragma_index_list('person') ORDER BY name").map {
                [$0[0], "\($0[1] as Int)"]
            }
        }
    }

    func queryPlan(_ path: String, _ sql: String) throws -> String {
        try withDatabase(path) { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }.joined(separator: "; ")
        }
    }

    static let duplicates = """
        INSERT INTO person (id, first_name, last_name) VALUES
          (1, 'Ann', 'Smith'), (2, 'Bob', 'Doe'), (3, 'Ann', 'Smith'), (4, 'Cy', 'Doe'), (5, 'Ann', 'Smith'), (6, 'Di', 'Lee'), (7, 'Cy', 'Doe')
        """
    static let distinct = "INSERT INTO person (id, first_name, last_name) VALUES (1, 'Ann', 'Smith'), (2, 'Bob', 'Doe'), (3, 'Ann', 'Doe')"

    @Test func anIndexAddedAt2IsCreatedAndUsed() throws {
        let versions = try twoVersions(
            #"{ "name": "first_name", "property_type": "string" }, { "name": "last_name", "property_type": "string", "indexed": true }"#)
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.duplicates)
        defer { folder.remove() }
        #expect(try indexList(path) == [])
        #expect(try !queryPlan(path, "SELECT * FROM person WHERE last_name = 'Doe'").contains("INDEX"))
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try indexList(path) == [["person_last_name_index", "0"]])
        #expect(
            try queryPlan(path, "SELECT * FROM person WHERE last_name = 'Doe'").contains("USING INDEX person_last_name_index (last_name=?)")
        )
    }

    @Test func anIndexRemovedAt3IsDropped() throws {
        let indexed =
            #"{ "name": "first_name", "property_type": "string" }, { "name": "last_name", "property_type": "string", "indexed": true }"#
        let versions = try releases([
            ("1.0", Self.person(indexed, history: ["1.0"])), ("2.0", Self.person(Self.plain, history: ["1.0", "2.0"])),
        ])
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.distinct)
        defer { folder.remove() }
        #expect(try indexList(path) == [["person_last_name_index", "0"]])
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try indexList(path) == [])
        #expect(try withDatabase(path) { try Int.fetchOne($0, sql: "SELECT count(*) FROM person") } == 3)
    }

    @Test func aNewUniquenessOverDuplicatesFailsNamingTheRowsAndChangesNothing() throws {
        let multi = try releases([
            ("1.0", Self.person(Self.plain, history: ["1.0"])),
            (
                "2.0",
                Self.person(Self.plain, history: ["1.0", "2.0"]).replacingOccurrences(
                    of: #""properties":"#,
                    with: #""indexes": [{ "properties": ["last_name", "first_name"], "unique": true }], "properties":"#)
            ),
        ])
        let (path, folder) = try storeAtFirstVersion(multi, rows: Self.duplicates)
        defer { folder.remove() }
        let before = try #require(fileBytes(path))
        let error = #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, versions: multi).database.close() }
        guard case .duplicateRows(_, let table, let columns, let index, let duplicates, let groups)? = error else {
            Issue.record("expected .duplicateRows, got \(String(describing: error))")
            return
        }
        #expect(table == "person")
        #expect(columns == ["last_name", "first_name"])
        #expect(index == "person_last_name_first_name_unique")
        #expect(groups == 2)
        #expect(
            duplicates == [
                DuplicateRows(values: ["'Smith'", "'Ann'"], rowids: [1, 3, 5], count: 3),
                DuplicateRows(values: ["'Doe'", "'Cy'"], rowids: [4, 7], count: 2),
            ])
        let message = try #require(error).description
        #expect(message.contains("cannot make person(last_name, first_name) unique"))
        #expect(message.contains("('Smith', 'Ann') in rowid 1, 3, 5 (3 rows); ('Doe', 'Cy') in rowid 4, 7 (2 rows)"))
        #expect(message.contains("Remove or merge the duplicate rows of person before this step"))
        #expect(message.contains("or drop \"unique\""))
        #expect(fileBytes(path) == before, "the store file is byte-identical")
        #expect(try withDatabase(path) { try String.fetchOne($0, sql: "SELECT version FROM lucid_store") } == "1.0")
    }

    @Test func aSingleColumnUniquenessShowsTheFirstRowsAndCounts() throws {
        let versions = try twoVersions(
            #"{ "name": "first_name", "property_type": "string" }, { "name": "last_name", "property_type": "string", "unique": true }"#)
        let rows = "INSERT INTO person (id, first_name, last_name) VALUES " + (1...8).map { "(\($0), 'x', 'Same')" }.joined(separator: ", ")
        let (path, folder) = try storeAtFirstVersion(versions, rows: rows)
        defer { folder.remove() }
        let error = #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, versions: versions).database.close() }
        #expect(error?.problem.hasSuffix("1 value is shared by several rows: 'Same' in rowid 1, 2, 3, 4, 5, … (8 rows)") == true)
    }

    @Test func aNewUniquenessOverDistinctRowsSucceeds() throws {
        let versions = try twoVersions(
            #"{ "name": "first_name", "property_type": "string", "indexed": true }, { "name": "last_name", "property_type": "string" }"#
                .replacingOccurrences(of: "\"indexed\"", with: "\"unique\""))
        // NULLs never clash in a unique index.
        let (path, folder) = try storeAtFirstVersion(
            versions, rows: "INSERT INTO person (id, first_name, last_name) VALUES (1, 'Ann', 'Smith'), (2, 'Bob', 'Smith')")
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try indexList(path) == [["person_first_name_unique", "1"]])
        #expect(throws: DatabaseError.self) {
            try withDatabase(path) { try $0.execute(sql: "INSERT INTO person (id, first_name, last_name) VALUES (3, 'Ann', 'Lee')") }
        }
    }

    @Test func aUniquenessAddedWithARebuildIsCheckedToo() throws {
        // 2.0 also makes first_name optional (a rebuild, which recreates the indexes).
        let versions = try twoVersions(
            #"{ "name": "first_name", "property_type": "string", "nullable": true, "unique": true }, { "name": "last_name", "property_type": "string" }"#
        )
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.duplicates)
        defer { folder.remove() }
        let before = try #require(fileBytes(path))
        let error = #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, versions: versions).database.close() }
        guard case .duplicateRows(_, _, let columns, _, let duplicates, let groups)? = error else {
            Issue.record("expected .duplicateRows, got \(String(describing: error))")
            return
        }
        #expect(columns == ["first_name"])
        #expect(groups == 2)
        #expect(duplicates.map(\.values) == [["'Ann'"], ["'Cy'"]])
        #expect(fileBytes(path) == before)
    }

    @Test func aRenamedIndexedColumnKeepsItsIndexInTheStore() throws {
        let versions = try releases([
            ("1.0", Self.person(#"{ "name": "surname", "property_type": "string", "unique": true }"#, history: ["1.0"])),
            (
                "2.0",
                Self.person(
                    #"{ "name": "last_name", "property_type": "string", "unique": true, "previous_name": "surname" }"#,
                    history: ["1.0", "2.0"])
            ),
        ])
        let (path, folder) = try storeAtFirstVersion(versions, rows: "INSERT INTO person (id, surname) VALUES (1, 'Smith'), (2, 'Doe')")
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try indexList(path) == [["person_surname_unique", "1"]])
        #expect(try queryPlan(path, "SELECT * FROM person WHERE last_name = 'Doe'").contains("INDEX person_surname_unique"))
    }
}
