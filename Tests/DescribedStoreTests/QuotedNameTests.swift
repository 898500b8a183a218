import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// A store is untrusted input: names with quotes (and other unusual characters) in the app's tables and indexes,
/// beside lucidgen's, are read by SQL that quotes them (``quoteIdentifier(_:)``) or binds them, never by GRDB's
/// introspection, whose quoting leaves an inner quote as it is. (A store of many tables is read in batches,
/// names bound as values; one of a few tables, as here, table by table.)
@Suite struct QuotedNameTests {
    /// Names an app (or an attacker) may give its tables and indexes: quotes, brackets, backticks, a closing
    /// parenthesis, non-ASCII letters, a long name.
    static let hostileNames = [#"my"idx"#, #"a""b"#, "[x]", "`y`", "z'q", "é ü 名", #"")"#, String(repeating: "long\"", count: 200)]

    /// A store at 1.0 of `item` (1.0: title required, 2.0: optional, a rebuild), with an app index of each hostile
    /// name on `item` and an app table of each hostile name with an index of its own.
    func hostileStore() throws -> (versions: [Schema], path: String, folder: TemporaryFolder) {
        let versions = try AutoincrementTests().versions()
        var sql = "INSERT INTO item (title) VALUES ('kept');"
        for (number, name) in Self.hostileNames.enumerated() {
            sql += "CREATE INDEX \(quoteIdentifier(name)) ON item (title);"
            sql += "CREATE TABLE \(quoteIdentifier("t" + name)) (\(quoteIdentifier("c" + name)) TEXT);"
            sql +=
                "CREATE INDEX \(quoteIdentifier("i\(number)" + name)) ON \(quoteIdentifier("t" + name)) (\(quoteIdentifier("c" + name)));"
        }
        let (path, folder) = try storeAtFirstVersion([versions[0]], rows: sql)
        return (versions, path, folder)
    }

    @Test func anAppIndexOrTableWithAQuoteInItsNameLocksNobodyOut() throws {
        let (versions, path, folder) = try hostileStore()
        defer { folder.remove() }
        let status = try LucidStore.inspect(atPath: path, versions: versions)
        #expect(status.version == SchemaVersion("1.0"))
        let opened = try LucidStore.open(atPath: path, versions: versions)
        #expect(opened.outcome.finalVersion == SchemaVersion("2.0"))
        try opened.database.close()
        // At the newest version, opened again (the full path: the versions, not a registry).
        let again = try LucidStore.open(atPath: path, versions: versions)
        defer { try? again.database.close() }
        #expect(again.outcome.steps.isEmpty)
        try again.database.read { db in
            #expect(try String.fetchAll(db, sql: "SELECT title FROM item") == ["kept"])
            // Every app index on the rebuilt table is there again, by its own name.
            let indexes = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'item'"))
            #expect(Set(Self.hostileNames).isSubset(of: indexes), "\(indexes)")
        }
    }

    /// The schema reader on a table, column and index whose names hold a quote.
    @Test func theSchemaReaderReadsQuotedNames() throws {
        let queue = try DatabaseQueue()
        let table = #"we"ird"#
        try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE \(quoteIdentifier(table)) (id INTEGER PRIMARY KEY, \(quoteIdentifier(#"c"1"#)) TEXT NOT NULL)")
            try db.execute(
                sql: "CREATE UNIQUE INDEX \(quoteIdentifier(#"my"idx"#)) ON \(quoteIdentifier(table)) (\(quoteIdentifier(#"c"1"#)))")
        }
        try queue.read { db in
            let alone = try StoreSchemaReader.table(named: table, db)
            #expect(alone.columns.map(\.name) == ["id", #"c"1"#] && alone.primaryKey == ["id"])
            #expect(alone.indexes == [SchemaIndex(name: #"my"idx"#, columns: [#"c"1"#], unique: true)])
        }
    }
}
