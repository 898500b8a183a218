import Foundation

/// Follows tables and columns back through the versions of a registry, using each version's
/// `renamedFrom` and `convertedFrom…` annotations: the stable identities that let a step from 1.0
/// straight to 3.0 know that `log_entry.notes` was `flight.remarks`.
public struct Lineage: Sendable {
    public let versions: [Schema]
    /// Each version's tables by name as SQLite compares names (``sqlNameKey(_:)``), and each table's
    /// columns by name, made the first time a walk asks for them: tracing walks back one version at a time
    /// for every table and column (scans made it quadratic on long histories), and a path touches only
    /// the versions it crosses (a store one version behind, two of 150).
    private let positions = Positions()

    private final class Positions: @unchecked Sendable {
        private let lock = NSLock()
        private var tables: [Int: [String: Int]] = [:]
        private var columns: [Int: [Int: [String: Int]]] = [:]

        func table(_ name: String, version: Int, in schema: Schema) -> Int? {
            lock.lock()
            defer { lock.unlock() }
            return tablesLocked(version, schema)[sqlNameKey(name)]
        }

        func column(_ column: String, table name: String, version: Int, in schema: Schema) -> (table: Int, column: Int)? {
            lock.lock()
            defer { lock.unlock() }
            guard let table = tablesLocked(version, schema)[sqlNameKey(name)] else { return nil }
            if let known = columns[version]?[table] { return known[sqlNameKey(column)].map { (table, $0) } }
            let shape = schema.tables[table]
            let made = Dictionary(shape.columns.indices.map { (sqlNameKey(shape.columns[$0].name), $0) }, uniquingKeysWith: { first, _ in first })
            columns[version, default: [:]][table] = made
            return made[sqlNameKey(column)].map { (table, $0) }
        }

        private func tablesLocked(_ version: Int, _ schema: Schema) -> [String: Int] {
            if let known = tables[version] { return known }
            let made = Dictionary(schema.tables.indices.map { (sqlNameKey(schema.tables[$0].name), $0) }, uniquingKeysWith: { first, _ in first })
            tables[version] = made
            return made
        }
    }

    public init(versions: [Schema]) {
        self.versions = versions
    }

    /// Whether version index `index` has a table named `name` (no copy of the table).
    private func hasTable(_ name: String, at index: Int) -> Bool {
        positions.table(name, version: index, in: versions[index]) != nil
    }

    /// Whether the table `table` at version index `index` has a column named `column` (no copy of it).
    private func hasColumn(_ column: String, of table: String, at index: Int) -> Bool {
        positions.column(column, table: table, version: index, in: versions[index]) != nil
    }

    /// The column `column` of the table `table` at version index `index`, by name in constant time.
    func column(_ column: String, of table: String, at index: Int) -> SchemaColumn? {
        positions.column(column, table: table, version: index, in: versions[index]).map { versions[index].tables[$0.table].columns[$0.column] }
    }

    /// Where something at a later version came from at an earlier one.
    public enum Origin: Hashable, Sendable {
        case table(String)
        case column(table: String, name: String)
        /// The member at `path` of the JSON text in `column` (a composite element that was a struct
        /// member stored as JSON).
        case jsonMember(table: String, column: String, path: String)
    }

    /// The origin at version index `earlier` of table `name` at version index `later`, or nil when the
    /// table did not exist (under any name) at `earlier`.
    public func origin(ofTable name: String, at later: Int, in earlier: Int) -> Origin? {
        trace(.table(name), from: later, to: earlier)
    }

    /// The origin at `earlier` of column `column` of table `table` at `later`.
    public func origin(ofColumn column: String, table: String, at later: Int, in earlier: Int) -> Origin? {
        trace(.column(table: table, name: column), from: later, to: earlier)
    }

    /// The column at every version from `earlier` to `later`, oldest first, when it is a column (under
    /// any name) at each of them; nil when it did not exist throughout or came from a join table.
    public func columnPath(ofColumn column: String, table: String, at later: Int, in earlier: Int) -> [SchemaColumn]? {
        guard let last = self.column(column, of: table, at: later) else { return nil }
        var path = [last]
        var current = Origin.column(table: table, name: column)
        var index = later
        while index > earlier {
            guard case .column(let previousTable, let previousName)? = stepBack(current, at: index),
                let previous = self.column(previousName, of: previousTable, at: index - 1)
            else { return nil }
            path.append(previous)
            current = .column(table: previousTable, name: previousName)
            index -= 1
        }
        return path.reversed()
    }

    private func trace(_ start: Origin, from later: Int, to earlier: Int) -> Origin? {
        var current = start
        var index = later
        while index > earlier {
            guard let previous = stepBack(current, at: index) else { return nil }
            current = previous
            index -= 1
        }
        return current
    }

    /// One version back.
    private func stepBack(_ origin: Origin, at index: Int) -> Origin? {
        switch origin {
        case .table(let name):
            // The table's fields read in place: copying a SchemaTable (its arrays) per step was most of a
            // long walk's cost.
            guard let position = positions.table(name, version: index, in: versions[index]), versions[index].tables[position].reusesName != true else { return nil }
            if let column = versions[index].tables[position].convertedFromColumn {
                guard let owner = versions[index].tables[position].foreignKeys.first(where: { $0.columns == ["source_id"] })?.table,
                    case .table(let previousOwner)? = stepBack(.table(owner), at: index),
                    hasColumn(column, of: previousOwner, at: index - 1)
                else { return nil }
                return .column(table: previousOwner, name: column)
            }
            let previousName = versions[index].tables[position].renamedFrom ?? name
            return hasTable(previousName, at: index - 1) ? .table(previousName) : nil
        case .column(let tableName, let columnName):
            guard let place = positions.column(columnName, table: tableName, version: index, in: versions[index]) else { return nil }
            // Read in place, as above.
            func field<T>(_ read: (SchemaColumn) -> T) -> T { read(versions[index].tables[place.table].columns[place.column]) }
            guard field({ $0.reusesName }) != true else { return nil }
            if let join = field({ $0.convertedFromJoinTable }) {
                return hasTable(join, at: index - 1) ? .table(join) : nil
            }
            guard case .table(let previousTable)? = stepBack(.table(tableName), at: index) else { return nil }
            if let source = field({ $0.extractedFrom }), let path = field({ $0.jsonPath }) {
                return hasColumn(source, of: previousTable, at: index - 1) ? .jsonMember(table: previousTable, column: source, path: path) : nil
            }
            let previousColumn = field({ $0.renamedFrom }) ?? columnName
            return hasColumn(previousColumn, of: previousTable, at: index - 1) ? .column(table: previousTable, name: previousColumn) : nil
        case .jsonMember(let tableName, let columnName, let path):
            // The JSON column's own lineage, the member path unchanged.
            guard case .column(let previousTable, let previousColumn)? = stepBack(.column(table: tableName, name: columnName), at: index) else { return nil }
            return .jsonMember(table: previousTable, column: previousColumn, path: path)
        }
    }
}
