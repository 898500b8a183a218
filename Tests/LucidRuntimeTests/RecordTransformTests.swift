import Foundation
import GRDB
import GRDBSQLite
@_spi(Generated) import LucidSchema
import Samples
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// Typed row transforms between generated records (`Samples/Generated`, checked against the generator by
/// `GoldenTests`): the `INSERT … SELECT` path with SQL functions calling the app's code.
@Suite struct RecordTransformTests {
    /// The app's code for 1.0 → 2.0: `code` (text) becomes an int; rows whose code is not a number are dropped.
    struct ParseCodes: SamplesMigrations {
        func migrate(_ old: Sample_1_0) throws -> Sample_2_0? {
            guard let code = Int(old.code.trimmingCharacters(in: .whitespaces)) else { return nil }
            return Sample_2_0(
                id: old.id, big: old.big, ratio: old.ratio, label: old.label, stamp: old.stamp, flag: old.flag, kind: old.kind,
                formats: old.formats,
                tags: old.tags, code: code, weight: old.weight, note: old.note, payload: old.payload, link: old.link, shape: old.shape)
        }
    }

    struct Refused: Error, CustomStringConvertible {
        var id: Int
        var description: String { "refused sample \(id)" }
    }

    /// The same conversion, failing on one row.
    struct FailOnSecondRow: SamplesMigrations {
        func migrate(_ old: Sample_1_0) throws -> Sample_2_0? {
            if old.id == 2 { throw Refused(id: old.id) }
            return try ParseCodes().migrate(old)
        }
    }

    /// Milliseconds (what GRDB stores) that a `Double` holds exactly.
    static let stamp = Date(timeIntervalSince1970: 1_700_000_000.125)

    /// Every kind of value: Int64 extremes, doubles, float, empty and non-ASCII strings, NULLs, blobs,
    /// dates with milliseconds, bools, an enum, an option set, a struct and an array stored as JSON.
    static let oldRows: [Sample_1_0] = [
        Sample_1_0(
            id: 1, big: Int.max, ratio: 0.1, label: "", stamp: stamp, flag: true, kind: .largeOne, formats: [.print, .digital],
            tags: ["x", "ü 🚀", "quote \" and \\ backslash"], code: "42", weight: 1.5, note: nil, payload: Data([0, 1, 2, 255]),
            link: URL(string: "https://example.org/a?b=c&d=é"),
            shape: SampleShape(width: 2.5, madeAt: stamp, names: ["a", "日本"])),
        Sample_1_0(
            id: 2, big: Int.min, ratio: -1e300, label: "héllo 🌍 wörld", stamp: Date(timeIntervalSince1970: 0), flag: false, kind: .small,
            formats: [], tags: [], code: " 7 ", note: "a note", shape: SampleShape(width: 0, madeAt: stamp, names: nil)),
        Sample_1_0(
            id: 3, big: 0, ratio: 0, label: "dropped", stamp: stamp, flag: true, kind: .small, formats: [.digital], tags: ["t"], code: "n/a"
        ),
        Sample_1_0(
            id: 4, big: -1, ratio: Double.greatestFiniteMagnitude, label: String(repeating: "long ", count: 100),
            stamp: stamp.addingTimeInterval(0.5),
            flag: false, kind: .largeOne, formats: [.print], tags: ["a"], code: "-9", weight: -0.25,
            payload: Data(repeating: 7, count: 1000)),
    ]

    /// A store at 1.0 holding `oldRows`, inserted as `SupersededRecord`s (what GRDB's record persistence
    /// writes: `recordValuesAreWhatGRDBWrites`).
    func makeStore(_ folder: TemporaryFolder, name: String = "samples.sqlite", extraSQL: String? = nil) throws -> String {
        let path = folder.path(name)
        let database = try LucidStore.create(atPath: path, versions: SamplesSchema.versions, version: SchemaVersion("1.0"))
        try database.write { db in
            for row in Self.oldRows { try row.insert(db) }
            if let extraSQL { try db.execute(sql: extraSQL) }
        }
        try database.close()
        return path
    }

    /// Every column of every row as SQLite stores it: storage class and SQL literal.
    func dump(_ path: String, table: String = "sample") throws -> [String] {
        try withDatabase(path) { db in
            let columns = try db.columns(in: table).map(\.name)
            let expression = columns.map { "typeof(\(quoteIdentifier($0))) || ':' || quote(\(quoteIdentifier($0)))" }.joined(
                separator: " || ' ' || ")
            return try String.fetchAll(db, sql: "SELECT \(expression) FROM \(quoteIdentifier(table)) ORDER BY id")
        }
    }

    func options(_ migrations: some SamplesMigrations) -> StoreOptions {
        var options = StoreOptions()
        options.stages = SamplesSchema.stages(using: migrations)
        return options
    }

    /// The same stages with SQL functions limited to 8 arguments: the transform then takes the rows path
    /// (what a table wider than SQLite's 127 function arguments takes), with the same records.
    func rowPathOptions(_ migrations: some SamplesMigrations) -> StoreOptions {
        var options = options(migrations)
        options.configuration.prepareDatabase { db in
            if let connection = db.sqliteConnection { sqlite3_limit(connection, SQLITE_LIMIT_FUNCTION_ARG, 8) }
        }
        return options
    }

    @Test func generatedStagesTakeTheTypedPath() {
        let stages = SamplesSchema.stages(using: ParseCodes())
        #expect(stages.count == 1)
        #expect(stages[0].transforms.map { $0.recordTransform != nil } == [true])
        let typed = stages[0].transforms[0].recordTransform
        #expect(typed?.sourceColumns == Sample_1_0.migrationColumns)
        #expect(typed?.targetColumns == Sample_2_0.migrationColumns)
    }

    @Test func everyKindOfValueRoundTripsAsGRDBWritesIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeStore(folder)
        let database = try LucidStore.open(atPath: path, registry: SamplesSchema.self, options: options(ParseCodes())).database
        let migrated = try database.read { db in try Sample_2_0.order(Column("id")).fetchAll(db) }
        try database.close()

        // Values: what the app's code returned, row 3 dropped.
        let expected = try Self.oldRows.compactMap { try ParseCodes().migrate($0) }
        #expect(migrated.map(\.id) == [1, 2, 4])
        #expect(migrated == expected)
        #expect(migrated.map(\.code) == [42, 7, -9])
        #expect(migrated[0].big == Int.max && migrated[1].big == Int.min)
        #expect(migrated[0].stamp == Self.stamp)
        #expect(migrated[0].shape?.madeAt == Self.stamp)
        #expect(migrated[0].label == "" && migrated[1].label == "héllo 🌍 wörld")
        #expect(migrated[1].note == "a note" && migrated[0].note == nil)
        #expect(migrated[2].payload == Data(repeating: 7, count: 1000))

        // Storage: byte for byte what GRDB's record persistence writes for the same records.
        let reference = folder.path("reference.sqlite")
        let fresh = try LucidStore.create(atPath: reference, versions: SamplesSchema.versions, version: SchemaVersion("2.0"))
        try fresh.write { db in for record in expected { try record.insert(db) } }
        try fresh.close()
        #expect(try dump(path) == dump(reference))
        #expect(try dump(path)[0].contains("text:'[\"x\",\"ü 🚀\",\"quote \\\" and \\\\ backslash\"]'"))
    }

    @Test func theTypedPathWritesWhatTheRowPathWrites() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Values GRDB's insert cannot make: an empty blob, a float stored as an integer, an integer
        // stored in a REAL column.
        let extraSQL = "UPDATE sample SET payload = x'', weight = 3, ratio = 12 WHERE id = 2"
        let typedPath = try makeStore(folder, name: "typed.sqlite", extraSQL: extraSQL)
        let rowPath = try makeStore(folder, name: "rows.sqlite", extraSQL: extraSQL)
        try LucidStore.open(atPath: typedPath, registry: SamplesSchema.self, options: options(ParseCodes())).database.close()

        let rowOptions = rowPathOptions(ParseCodes())
        try LucidStore.open(atPath: rowPath, registry: SamplesSchema.self, options: rowOptions).database.close()
        let typed = try dump(typedPath)
        let rows = try dump(rowPath)
        #expect(typed.count == 3)
        #expect(typed[1].contains("blob:X''"))
        #expect(typed[1].contains("real:3.0"))
        #expect(typed == rows)
    }

    /// Texts reach SQLite without a copy, from a buffer that grows with the longest row: long and
    /// growing texts over many rows come out as the row path writes them.
    @Test func longTextsOverManyRowsArriveWhole() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var paths: [String] = []
        for name in ["typed.sqlite", "rows.sqlite"] {
            let path = try makeStore(folder, name: name)
            try withDatabase(path) { db in
                let columns = try db.columns(in: "sample").map(\.name)
                let values = columns.map { column -> String in
                    switch column {
                    case "id": "100 + c.i"
                    case "label": "printf('%.*c', c.i * 37, 'x') || 'é'"
                    case "note": "printf('n%d', c.i)"
                    default: "s.\(quoteIdentifier(column))"
                    }
                }
                try db.execute(
                    sql: """
                        WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 400)
                        INSERT INTO sample (\(columns.map(quoteIdentifier).joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM sample AS s, c WHERE s.id = 4
                        """)
            }
            paths.append(path)
        }
        try LucidStore.open(atPath: paths[0], registry: SamplesSchema.self, options: options(ParseCodes())).database.close()
        let rowOptions = rowPathOptions(ParseCodes())
        try LucidStore.open(atPath: paths[1], registry: SamplesSchema.self, options: rowOptions).database.close()
        let typed = try dump(paths[0])
        #expect(typed.count == 403)
        #expect(typed == (try dump(paths[1])))
        let longest = try withDatabase(paths[0]) { db in try Int.fetchOne(db, sql: "SELECT max(length(label)) FROM sample") }
        #expect(longest == 400 * 37 + 1)
    }

    @Test func aThrowingTransformLeavesTheStoreUnchanged() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeStore(folder)
        let before = fileBytes(path)
        #expect {
            try LucidStore.open(atPath: path, registry: SamplesSchema.self, options: options(FailOnSecondRow())).database
        } throws: { error in
            // The app's own error, not SQLite's report of it.
            guard case StoreError.stepFailed(_, let version, let message) = error else { return false }
            return version == SchemaVersion("1.0") && message == "refused sample 2"
        }
        #expect(fileBytes(path) == before)
        let status = try LucidStore.inspect(atPath: path, versions: SamplesSchema.versions, stages: SamplesSchema.stages)
        #expect(status.version == SchemaVersion("1.0"))
    }

    @Test func aValueThatDoesNotFitNamesTableColumnAndRow() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeStore(folder, extraSQL: "UPDATE sample SET big = 'many' WHERE id = 4")
        #expect {
            try LucidStore.open(atPath: path, registry: SamplesSchema.self, options: options(ParseCodes())).database
        } throws: { error in
            guard case StoreError.stepFailed(_, _, let message) = error else { return false }
            return message == "table sample, row 4, column big: cannot convert \"many\" to Int"
        }
        #expect(try dump(path).count == 4)
        // The rows path (a wider table) reads records the same way, so it refuses the same value (GRDB's
        // own row decoding would read it as 0).
        #expect {
            try LucidStore.open(atPath: path, registry: SamplesSchema.self, options: rowPathOptions(ParseCodes())).database
        } throws: { error in
            guard case StoreError.stepFailed(_, _, let message) = error else { return false }
            return message == "table sample, row 4, column big: cannot convert \"many\" to Int"
        }
    }

    @Test func progressIsReportedPerChunk() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeStore(
            folder,
            extraSQL: """
                WITH RECURSIVE n(i) AS (SELECT 5 UNION ALL SELECT i + 1 FROM n WHERE i < \(StepExecutor.chunkSize + 4))
                INSERT INTO sample (id, big, ratio, label, stamp, flag, kind, formats, tags, code)
                SELECT i, i, 0.5, 'row', '2024-01-01 00:00:00.000', 0, 'small', 0, '[]', CASE WHEN i % 2 THEN 'x' ELSE i END FROM n
                """)
        let recorder = ProgressRecorder()
        var options = options(ParseCodes())
        options.progress = { recorder.append($0) }
        try LucidStore.open(atPath: path, registry: SamplesSchema.self, options: options).database.close()
        let seen = recorder.values.filter { $0.operation == "transform table sample" }.map { ($0.rowsDone, $0.rowsTotal) }
        let rows = StepExecutor.chunkSize + 4
        // Start, after the first chunk, end: rows read (kept or dropped), not rows kept.
        #expect(seen.map(\.0) == [0, StepExecutor.chunkSize, rows])
        #expect(seen.last?.1 == rows)
        #expect(try withDatabase(path) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sample") } == 3 + StepExecutor.chunkSize / 2)
    }

    // MARK: The SQL functions' guards

    /// A runner registered on a plain connection with a 1.0 `sample` table.
    func withRunner(_ body: (Database, RecordTransformRunner) throws -> Void) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try makeStore(folder)
        let transform = try #require(SamplesSchema.stages(using: ParseCodes())[0].transforms[0].recordTransform)
        try withDatabase(path) { db in
            let connection = try #require(db.sqliteConnection)
            let runner = RecordTransformRunner(transform, sourceTable: "sample", targetTable: "sample")
            try runner.register(on: connection)
            defer { runner.unregister(from: connection) }
            try body(db, runner)
        }
    }

    @Test func aValueWithoutAKeptRowIsAnError() throws {
        try withRunner { db, _ in
            #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT lucid_value_0()") }
        }
    }

    @Test func aKeptRowWhoseValuesAreNotReadIsAnError() throws {
        try withRunner { db, runner in
            let arguments = (["rowid"] + Sample_1_0.migrationColumns.map(quoteIdentifier)).joined(separator: ", ")
            #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT lucid_transform(\(arguments)) FROM sample ORDER BY id") }
            #expect(runner.error is EvaluationOrderError)
        }
    }

    @Test func valuesOutOfOrderAreAnError() throws {
        try withRunner { db, runner in
            let arguments = (["rowid"] + Sample_1_0.migrationColumns.map(quoteIdentifier)).joined(separator: ", ")
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "SELECT lucid_value_1(), lucid_value_0() FROM sample WHERE lucid_transform(\(arguments))")
            }
            #expect(runner.error is EvaluationOrderError)
        }
    }

    @Test func theFunctionsAreGoneAfterwards() throws {
        try withRunner { db, runner in
            runner.unregister(from: db.sqliteConnection!)
            #expect {
                try db.execute(sql: "SELECT lucid_value_0()")
            } throws: { error in
                (error as? DatabaseError)?.message?.contains("no such function") == true
            }
        }
    }
}
