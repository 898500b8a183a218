import Foundation
import GRDB
@_spi(Generated) import LucidSchema
import Samples
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// Records of superseded versions (`Sample_1_0`) are `SupersededRecord`s: GRDB records that read and write
/// rows with the same values GRDB's `Codable` record persistence reads and writes for the newest version's
/// record (`Sample_2_0`), which these tests compare value by value.
@Suite struct SupersededRecordTests {
    /// The old rows as the newest version's record (GRDB's reference for every kind of value).
    static var newestRows: [Sample_2_0] {
        get throws { try RecordTransformTests.oldRows.compactMap { try RecordTransformTests.ParseCodes().migrate($0) } }
    }

    @Test func recordValuesAreWhatGRDBWrites() throws {
        let records = try Self.newestRows
        #expect(records.count == 3)
        for record in records {
            let ours = try record.databaseValues()
            let grdb = try record.databaseDictionary
            #expect(ours == grdb)
            // And read back: the same record as GRDB's row decoding gives.
            #expect(try Sample_2_0(databaseValues: ours) == record)
            #expect(try Sample_2_0(databaseValues: ours) == Sample_2_0(row: Row(ours)))
        }
    }

    @Test func insertAndFetchAllRoundTripEveryKindOfValue() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("old.sqlite")
        let database = try LucidStore.create(atPath: path, versions: SamplesSchema.versions, version: SchemaVersion("1.0"))
        try database.write { db in for row in RecordTransformTests.oldRows { try row.insert(db) } }
        let read = try database.read { db in try Sample_1_0.fetchAll(db) }
        #expect(read == RecordTransformTests.oldRows)
        #expect(try database.read { db in try Sample_1_0.fetchCount(db) } == 4)
        // Stored as GRDB stores the same values in the newest version's table (columns both versions share).
        let jsonAndDates = try database.read { db in
            try String.fetchAll(
                db, sql: "SELECT typeof(stamp) || ':' || stamp || ' ' || tags || ' ' || typeof(payload) FROM sample ORDER BY id")
        }
        #expect(jsonAndDates[0] == "text:2023-11-14 22:13:20.125 [\"x\",\"ü 🚀\",\"quote \\\" and \\\\ backslash\"] blob")
        try database.close()
    }

    @Test func valuesByNameMatchColumnsCaseInsensitivelyAndNameWhatIsMissing() throws {
        let old = RecordTransformTests.oldRows[2]
        var values = try old.databaseValues()
        #expect(Set(values.keys) == Set(Sample_1_0.migrationColumns))
        #expect(try Sample_1_0(databaseValues: values) == old)
        // A column spelled in another case still reads (as GRDB's rows do).
        values["LABEL"] = values.removeValue(forKey: "label")
        #expect(try Sample_1_0(databaseValues: values) == old)
        // A required column that is missing reads as NULL, and says which one.
        values.removeValue(forKey: "code")
        #expect {
            try Sample_1_0(databaseValues: values)
        } throws: { error in
            (error as? MigrationRowError)?.description == "table sample, row 0, column code: NULL where String is required"
        }
        // A value of the wrong kind is refused (GRDB's row decoding would read text as 0).
        var wrong = try old.databaseValues()
        wrong["big"] = "many".databaseValue
        #expect(throws: MigrationRowError.self) { try Sample_1_0(databaseValues: wrong) }
    }

    /// What a stage or data migration written while `Sample_1_0` was the newest version called on it still
    /// compiles and works now that `Sample_2_0` supersedes it: `Columns`, the query interface,
    /// fetching by key, update, save, delete; the record is a GRDB record again, without `Codable`.
    @Test func aSupersededRecordKeepsTheAPIItHadAsTheNewest() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try LucidStore.create(
            atPath: folder.path("old.sqlite"), versions: SamplesSchema.versions, version: SchemaVersion("1.0"))
        defer { try? database.close() }
        let rows = RecordTransformTests.oldRows
        try database.write { db in for row in rows { try row.insert(db) } }
        try database.write { db in
            #expect(try Sample_1_0.filter(Sample_1_0.Columns.label == "").fetchAll(db) == [rows[0]])
            #expect(try Sample_1_0.order(Sample_1_0.Columns.id.desc).fetchAll(db).map(\.id) == rows.map(\.id).sorted(by: >))
            #expect(try Sample_1_0.fetchOne(db, key: rows[1].id) == rows[1])
            var changed = rows[1]
            changed.note = "changed"
            try changed.update(db)
            #expect(try Sample_1_0.fetchOne(db, key: rows[1].id)?.note == "changed")
            #expect(try changed.delete(db))
            #expect(try Sample_1_0.fetchCount(db) == rows.count - 1)
            var added = rows[0]
            added.id = 99
            try added.save(db)
            #expect(try Sample_1_0.exists(db, key: 99))
            // Rows selected by SQL (every column, in the table's order) decode by name.
            let all = try Sample_1_0.fetchAll(db, sql: "SELECT * FROM sample ORDER BY id")
            #expect(all.map(\.id) == (rows.map(\.id).filter { $0 != rows[1].id } + [99]).sorted())
            #expect(all.first { $0.id == 99 }.map { $0 == added } == true)
        }
        let old: Any.Type = Sample_1_0.self
        #expect(old is any FetchableRecord.Type && old is any PersistableRecord.Type)
        #expect(!(old is any Decodable.Type), "only the newest record is Codable")
    }
}
