import Foundation
import GRDB
@_spi(Generated) import LucidSchema

/// A row whose foreign key points at no row, as `PRAGMA foreign_key_check` finds it, located: the
/// table, the foreign key's column(s), the row (by its primary key) and the referenced table.
public struct DanglingReference: Sendable, Equatable, CustomStringConvertible {
    /// The table holding the row.
    public var table: String
    /// The foreign key's column(s).
    public var columns: [String]
    /// The row's primary key, `column=value` pairs (or its rowid for a table without one).
    public var row: String
    /// The value(s) of the foreign key column(s), which no row of `parent` has.
    public var value: String
    /// The referenced table, which has no such row.
    public var parent: String

    /// E.g. `log_entry.aircraft of row id=7 is 'N1', but aircraft has no such row`.
    public var description: String {
        "\(table).\(columns.joined(separator: ", ")) of row \(row) is \(value), but \(parent) has no such row"
    }

    /// Runs `foreign_key_check` (on `table`, or on every table) and locates up to `limit` violations. The
    /// PRAGMA statements themselves, names quoted by ``quoteIdentifier(_:)`` (GRDB's `foreignKeyViolations(in:)`
    /// does not double a quote inside a name).
    package static func find(_ db: Database, table: String? = nil, limit: Int = 20) throws -> [DanglingReference] {
        let found = try Row.fetchCursor(db, sql: "PRAGMA main.foreign_key_check\(table.map { "(\(quoteIdentifier($0)))" } ?? "")")
        var result: [DanglingReference] = []
        while result.count < limit, let violation = try found.next() {
            let table: String = violation["table"]
            let rowid: Int64? = violation["rowid"]
            let keyID: Int = violation["fkid"]
            let columns = try Row.fetchAll(db, sql: "PRAGMA main.foreign_key_list(\(quoteIdentifier(table)))")
                .filter { ($0["id"] as Int) == keyID }.sorted { ($0["seq"] as Int) < ($1["seq"] as Int) }.map { $0["from"] as String }
            // The declared primary key (an INTEGER PRIMARY KEY too); none for a table keyed by its hidden rowid.
            let primaryKey = try StoreSchemaReader.primaryKey(of: table, db)
            var rowText = rowid.map { "rowid \($0)" } ?? "?"
            var valueText = "?"
            if let rowid,
                let values = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT \((primaryKey + columns).map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(table)) WHERE rowid = ?",
                    arguments: [rowid])
            {
                if !primaryKey.isEmpty {
                    rowText = primaryKey.enumerated().map { "\($1)=\(literal(values[$0]))" }.joined(separator: ", ")
                }
                valueText = columns.indices.map { literal(values[primaryKey.count + $0]) }.joined(separator: ", ")
            }
            result.append(DanglingReference(table: table, columns: columns, row: rowText, value: valueText, parent: violation["parent"]))
        }
        return result
    }

    private static func literal(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64(let integer): "\(integer)"
        case .double(let double): "\(double)"
        case .string(let text): quoteLiteral(text)
        case .blob(let data): "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
