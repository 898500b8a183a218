import GRDB
@_spi(Generated) import LucidSchema

/// What ``StoreOptions/IncompatibleStorePolicy/openReadOnly`` puts in front of a store that lacks part
/// of what this app's records read (a newer app removed or renamed a column or a table): for each table
/// of the app's newest version whose columns the store's table lacks, a temporary view of the same name
/// that selects the store's columns and reads each missing one as its `DEFAULT` (the schema's
/// `defaultSQL`) or NULL; for a table the store lacks, a temporary view of the same name with the app's
/// columns and no rows.
///
/// SQLite resolves an unqualified name in the `temp` schema first, so the app's `SELECT * FROM tag`
/// and GRDB's requests (`Tag.fetchAll(db)`, `Tag.fetchOne(db, key: 1)` through ``PrimaryKeys``) read
/// the view. Temporary objects belong to the connection: they live in SQLite's temporary database,
/// never in the store's file, which is why they can be made on a read-only connection, and they vanish
/// when it closes. A store that lacks nothing gets nothing (its columns are read as the schema check reads them).
enum ReadOnlyStandIns {
    /// Creates the views for `schema`'s tables on `db`; returns what each one stands in for, e.g.
    /// `pilot.rank (its default 1)`, `pilot.nickname (NULL)`, `badge (no such table: no rows)`; a required
    /// column without a default says that the app's records of its table cannot be read.
    static func create(for schema: Schema, _ db: Database) throws -> [String] {
        // The store's columns of the app's tables (what the runtime's schema check reads).
        let stored = try StoreSchemaReader.tables(db, owned: OwnedNames([schema])).mapValues { $0.columns.map(\.name) }
        var standIns: [String] = []
        for table in schema.tables {
            let name = quoteIdentifier(table.name)
            guard let columns = stored[sqlNameKey(table.name)] else {
                let nulls = table.columns.map { "NULL AS \(quoteIdentifier($0.name))" }.joined(separator: ", ")
                try db.execute(sql: "CREATE TEMP VIEW \(name) AS SELECT \(nulls) WHERE 0")
                standIns.append("\(table.name) (no such table: no rows)")
                continue
            }
            let missing = table.columns.filter { column in !columns.contains { sameSQLName($0, column.name) } }
            guard !missing.isEmpty else { continue }
            // The app's columns in its order (the stored ones as they are, the missing ones stood in
            // for), then the store's newer columns, as `SELECT *` on the table would give them.
            let known = table.columns.map { column in
                guard missing.contains(column) else { return quoteIdentifier(column.name) }
                return "\(column.defaultSQL ?? "NULL") AS \(quoteIdentifier(column.name))"
            }
            let newer = columns.filter { stored in !table.columns.contains { sameSQLName($0.name, stored) } }.map(quoteIdentifier)
            try db.execute(sql: "CREATE TEMP VIEW \(name) AS SELECT \((known + newer).joined(separator: ", ")) FROM main.\(name)")
            standIns += missing.map { column in
                let value = column.defaultSQL.map { "its default \($0)" } ?? "NULL"
                // A required column without a default cannot be stood in for: records that read it fail on NULL.
                let unreadable =
                    column.notNull && column.defaultSQL == nil
                    ? ", which this app requires: its records of \(table.name) cannot be read from this store; a newer app can" : ""
                return "\(table.name).\(column.name) (\(value)\(unreadable))"
            }
        }
        return standIns
    }

    /// The primary keys of the views, for GRDB: a view has none of its own, and GRDB looks one up for
    /// `fetchOne(db, key:)` and `filter(key:)`. They are the app's tables' keys; any other view is the
    /// app's own `schemaSource`'s to answer.
    struct PrimaryKeys: DatabaseSchemaSource {
        let keys: [String: [String]]
        let app: (any DatabaseSchemaSource)?

        init(_ schema: Schema, app: (any DatabaseSchemaSource)?) {
            var keys: [String: [String]] = [:]
            for table in schema.tables where !table.primaryKey.isEmpty { keys[sqlNameKey(table.name)] = table.primaryKey }
            self.keys = keys
            self.app = app
        }

        func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
            if view.schemaID == .temp, let key = keys[sqlNameKey(view.name)] { return key }
            return try app?.columnsForPrimaryKey(db, inView: view)
        }
    }
}
