import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// Writes seeded rows into a store, the one way both seeders do it (the generated tests' typed seeds
/// and `lucidgen fixtures`' SQL from `FixtureRows`): foreign key enforcement off (set outside the
/// transaction, where SQLite honours it), every row inserted in one transaction in whatever order,
/// then `PRAGMA foreign_key_check` before committing. Rows may thus reference rows inserted after
/// them (self-references, cycles); a reference that finds no row at all rolls everything back and is
/// reported by table, column, row and referenced table.
package enum SeedWriter {
    /// Runs `insert` as described above.
    package static func write(_ database: DatabaseQueue, _ insert: (Database) throws -> Void) throws {
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            try db.inTransaction {
                try insert(db)
                let violations = try DanglingReference.find(db)
                if !violations.isEmpty { throw SeedError(violations: violations) }
                return .commit
            }
        }
    }

    /// Executes `statements` (e.g. `FixtureRows.insertStatements(at:rows:)`) as described above.
    package static func write(_ database: DatabaseQueue, statements: [String]) throws {
        try write(database) { db in
            for statement in statements { try db.execute(sql: statement) }
        }
    }
}

/// Seeded rows whose foreign keys point at no row (nothing was written).
public struct SeedError: Error, CustomStringConvertible {
    /// The rows whose references point nowhere, located.
    public var violations: [DanglingReference]

    /// "3", or "20 or more" (the check stops at 20).
    public var count: String { "\(violations.count)\(violations.count >= 20 ? " or more" : "")" }
    /// The first violations: table, column, row and referenced table.
    public var located: String { violations.prefix(5).map(\.description).joined(separator: "; ") }

    /// Lists the first violations.
    public var description: String {
        "the seeded rows break \(count) foreign key(s) (nothing was written): \(located)"
    }
}
