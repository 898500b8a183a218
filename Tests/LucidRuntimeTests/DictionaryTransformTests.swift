import Foundation
import GRDB
@_spi(Generated) import LucidSchema
import Samples
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// Row transforms over GRDB rows and dictionaries (`RowTransform(table:) { row in … }`): the app's code runs
/// on another thread, batch by batch, while the connection reads and inserts; the new rows are bound by
/// position from bytes. Checked against the typed path on the same stores, over several batches.
@Suite struct DictionaryTransformTests {
    let samples = RecordTransformTests()

    struct Refused: Error, CustomStringConvertible {
        var id: Int64
        var description: String { "refused row \(id)" }
    }

    /// `ParseCodes` written over rows: every value passed through as stored, NULLs left out of the
    /// dictionary (a missing column is NULL), `id` spelled `ID` (column names are case-insensitive), rows
    /// whose code is not a number dropped.
    static func parseCodes(failingAt failing: Int64? = nil, omitting omitted: String? = nil) -> RowTransform {
        RowTransform(table: "sample") { row in
            let id: Int64 = row["id"]
            if id == failing { throw Refused(id: id) }
            guard let code = Int((row["code"] as String).trimmingCharacters(in: .whitespaces)) else { return nil }
            var values: [String: DatabaseValue] = [:]
            for (column, value) in row where !value.isNull && column != omitted {
                values[column == "id" ? "ID" : column] = value
            }
            values["code"] = code.databaseValue
            return values
        }
    }

    func options(_ transform: RowTransform) -> StoreOptions {
        var options = StoreOptions()
        options.stages = [
            MigrationStage(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "parse codes", transforms: [transform])
        ]
        return options
    }

    /// The samples store plus `count` rows made from row 4, ids 101…, every third code not a number,
    /// labels of growing length (texts of every size cross the batches' byte buffers).
    func makeStore(_ folder: TemporaryFolder, name: String, count: Int) throws -> String {
        let path = try samples.makeStore(folder, name: name)
        try withDatabase(path) { db in
            let columns = try db.columns(in: "sample").map(\.name)
            let values = columns.map { column -> String in
                switch column {
                case "id": "100 + c.i"
                case "label": "printf('%.*c', c.i % 300, 'x') || 'é'"
                case "code": "CASE WHEN c.i % 3 = 0 THEN 'none' ELSE c.i END"
                case "note": "CASE WHEN c.i % 2 = 0 THEN NULL ELSE printf('n%d', c.i) END"
                case "payload": "CASE WHEN c.i % 5 = 0 THEN x'' ELSE s.payload END"
                default: "s.\(quoteIdentifier(column))"
                }
            }
            try db.execute(
                sql: """
                    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(count))
                    INSERT INTO sample (\(columns.map(quoteIdentifier).joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM sample AS s, c WHERE s.id = 4
                    """)
        }
        return path
    }

    @Test func theDictionaryPathWritesWhatTheTypedPathWrites() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Three full batches and a partial one.
        let count = StepExecutor.transformBatchSize * 3 + 123
        let typedPath = try makeStore(folder, name: "typed.sqlite", count: count)
        let rowsPath = try makeStore(folder, name: "rows.sqlite", count: count)
        try LucidStore.open(atPath: typedPath, registry: SamplesSchema.self, options: samples.options(RecordTransformTests.ParseCodes()))
            .database.close()
        try LucidStore.open(atPath: rowsPath, registry: SamplesSchema.self, options: options(Self.parseCodes())).database.close()

        let typed = try samples.dump(typedPath)
        let rows = try samples.dump(rowsPath)
        // The 4 sample rows less one dropped, and two thirds of the others.
        #expect(typed.count == 3 + count - count / 3)
        #expect(rows == typed)
        #expect(rows.contains { $0.contains("blob:X''") })
        let ids: [Int] = try withDatabase(rowsPath) { db in try Int.fetchAll(db, sql: "SELECT id FROM sample ORDER BY id LIMIT 5") }
        let notes: Int? = try withDatabase(rowsPath) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sample WHERE note IS NULL") }
        let evenAndKept = (1...count).filter { $0 % 2 == 0 && $0 % 3 != 0 }.count
        #expect(ids == [1, 2, 4, 101, 102])
        // Rows 1 and 4 have no note; the added rows with an even number do not, the dropped ones aside.
        #expect(notes == 2 + evenAndKept)
    }

    @Test func progressCountsRowsReadAtTheSameChunks() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let count = StepExecutor.chunkSize + 700
        let path = try makeStore(folder, name: "rows.sqlite", count: count)
        let recorder = ProgressRecorder()
        var options = options(Self.parseCodes())
        options.progress = { recorder.append($0) }
        try LucidStore.open(atPath: path, registry: SamplesSchema.self, options: options).database.close()
        let seen = recorder.values.filter { $0.operation == "transform table sample" }.map { ($0.rowsDone, $0.rowsTotal) }
        #expect(seen.map(\.0) == [0, StepExecutor.chunkSize, count + 4])
        #expect(seen.map(\.1) == [count + 4, count + 4, count + 4])
    }

    @Test func anErrorInALaterBatchLeavesTheStoreUnchanged() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeStore(folder, name: "rows.sqlite", count: StepExecutor.transformBatchSize * 2 + 10)
        let before = fileBytes(path)
        let failing = Int64(100 + StepExecutor.transformBatchSize * 2 + 1)
        #expect {
            try LucidStore.open(atPath: path, registry: SamplesSchema.self, options: options(Self.parseCodes(failingAt: failing))).database
        } throws: { error in
            guard case StoreError.stepFailed(_, _, let message) = error else { return false }
            return message == "refused row \(failing)"
        }
        #expect(fileBytes(path) == before)
    }

    @Test func aRowSQLiteRefusesFailsTheStepWithSQLitesMessage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeStore(folder, name: "rows.sqlite", count: 10)
        let before = fileBytes(path)
        // `label` is required: a dictionary without it inserts NULL.
        #expect {
            try LucidStore.open(atPath: path, registry: SamplesSchema.self, options: options(Self.parseCodes(omitting: "label"))).database
        } throws: { error in
            guard case StoreError.stepFailed(_, _, let message) = error else { return false }
            return message.contains("NOT NULL constraint failed: lucid_rebuild_sample.label") && message.contains("INSERT INTO")
        }
        #expect(fileBytes(path) == before)
    }
}
