import GRDB
@_spi(Generated) import LucidSchema
import Testing

/// One SQL-name comparison: `sameSQLName` and `sqlNameKey` say two names are one exactly when
/// SQLite, on a real database, takes them for one table. SQLite folds ASCII letters only.
@Suite struct SQLNameComparisonTests {
    /// Whether SQLite refuses a second table named `b` beside a table named `a` (then they are one name).
    static func sqliteTakesForOne(_ a: String, _ b: String) throws -> Bool {
        let database = try DatabaseQueue()
        return try database.write { db in
            try db.execute(sql: "CREATE TABLE \(quoteIdentifier(a)) (x)")
            do {
                try db.execute(sql: "CREATE TABLE \(quoteIdentifier(b)) (x)")
                return false
            } catch let error as DatabaseError where error.message?.contains("already exists") == true {
                return true
            }
        }
    }

    @Test(arguments: [
        ("Abc", "aBC", true), ("item", "ITEM", true), ("Été", "été", false), ("ÉTÉ", "été", false),
        ("straße", "STRASSE", false), ("İd", "id", false), ("Ωmega", "ωmega", false), ("note", "notes", false),
    ])
    func ourComparisonAgreesWithSQLite(_ a: String, _ b: String, same: Bool) throws {
        #expect(try Self.sqliteTakesForOne(a, b) == same)
        #expect(sameSQLName(a, b) == same)
        #expect((sqlNameKey(a) == sqlNameKey(b)) == same)
    }
}
