import Foundation
import GRDB

/// The functions apps register that their stores' defaults call, which `lucidgen`'s own connections (its CLI's
/// `migrate`, its sample rows) provide where their SQLite lacks them, as the app does:
///
/// - `uuid()`: a version 4 UUID as lowercase text (`"5d0b2c1e-…"`), as SQLite's uuid extension returns it,
///   the default of SQLiteData's keys (`"id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid())`).
///
/// An app's own connections are the app's: a step that needs a function they lack is refused before any change
/// (``StoreError/stepFailed(step:version:message:)`` naming it), and the app registers it in
/// `StoreOptions.configuration.prepareDatabase`, e.g. `db.add(function: DatabaseFunction("uuid", argumentCount:
/// 0, pure: false) { _ in UUID().uuidString.lowercased() })`.
package enum CommonFunctions {
    /// Registers on `db` each common function its SQLite does not have already.
    package static func registerMissing(_ db: Database) throws {
        let known = Set((try? String.fetchAll(db, sql: "SELECT DISTINCT lower(name) FROM pragma_function_list")) ?? [])
        if !known.contains("uuid") {
            db.add(function: DatabaseFunction("uuid", argumentCount: 0, pure: false) { _ in UUID().uuidString.lowercased() })
        }
    }
}
