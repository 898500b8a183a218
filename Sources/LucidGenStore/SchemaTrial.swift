import Foundation
import GRDB
import GRDBSQLite
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// The Resolve stage's schemas tried in SQLite before `generate` writes anything and as part of `check`:
/// every unreleased version's DDL (the current version, and any after it) runs in an in-memory database,
/// each statement prepared alone (a statement that holds a second one is refused too). What SQLite refuses
/// there (a tokenizer it does not have, a default it cannot parse or a NUL that cuts it short, an index on
/// a column it cannot find) would otherwise pass both commands and fail only when an app creates a store.
/// Each refusal is an error at the value in the description: the property whose column SQLite refuses,
/// the index, the search declaration; it names the SQLite that tried it, which may not be the device's.
///
/// Released versions are not tried: their stores exist, made by the release that shipped them.
package enum SchemaTrial {
    /// The SQLite this process links (`3.40.1`).
    package static var sqliteVersion: String { String(cString: sqlite3_libversion()) }

    package static func diagnostics(input: LoadedInput, model: ResolvedModel) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for schema in model.schemas where schema.version >= model.currentVersion {
            do {
                let database = try DatabaseQueue()
                try database.inDatabase { db in
                    for table in schema.tables {
                        for statement in table.createStatements {
                            do {
                                try db.makeStatement(sql: statement).execute()
                            } catch let error as DatabaseError {
                                diagnostics.append(
                                    refusal(error, statement: statement, table: table, version: schema.version, input: input, model: model))
                                break // the table's other statements need it
                            }
                        }
                    }
                }
            } catch {
                diagnostics.append(Diagnostic(.error, "cannot try the schema of \(schema.version) in SQLite \(sqliteVersion): \(error)"))
            }
        }
        return diagnostics
    }

    /// The error for a refused statement, at what in the descriptions made it.
    static func refusal(
        _ error: DatabaseError, statement: String, table: SchemaTable, version: SchemaVersion, input: LoadedInput, model: ResolvedModel
    ) -> Diagnostic {
        // Printed through `Diagnostic.description`, which escapes control characters and line breaks.
        var reason = error.message ?? "\(error)"
        let entity = model.entities.first { $0.shape(at: version).map { sqlNameKey($0.tableName) } == sqlNameKey(table.name) }
        let description = entity.flatMap { entity in input.entities.first { $0.name == entity.name } }
        var location = description?.location
        var what = "table \(table.name)"
        if statement.hasPrefix("CREATE TABLE \(quoteIdentifier(table.name))") {
            if let column = refusedColumn(of: table) {
                what = "column \(table.name).\(column.name)"
                if column.defaultSQL?.contains("\u{0}") == true {
                    reason = "its default holds a NUL character (U+0000), which SQL text cannot carry (SQLite reads: \(reason))"
                }
                if let shape = entity?.shape(at: version),
                    let property = shape.properties.first(where: { sameSQLName($0.column, column.name) || isElement(column.name, of: $0) }),
                    let written = description?.properties.first(where: { $0.name == property.currentName })
                {
                    location = written.location
                    what = "property '\(property.name)' (column \(table.name).\(column.name))"
                }
            }
        } else if let index = table.indexes.first(where: {
            statement.contains(quoteIdentifier($0.name)) && statement.hasPrefix("CREATE") && statement.contains("INDEX")
        }) {
            what = "index \(index.name) of table \(table.name)"
            if let written = description?.indexes.first(where: { $0.name == index.name }) { location = written.location }
        } else if let search = description?.search?.state(at: version) {
            what = "the search index of table \(table.name)\(search.tokenizer.map { " (tokenizer '\($0)')" } ?? "")"
            location = search.location
        }
        return Diagnostic(
            .error,
            "SQLite \(sqliteVersion) refuses \(what) at version \(version): \(reason). A store at \(version) could not be created; "
                + "fix the value in the description (SQLite on a device may be older than this one)",
            at: location)
    }

    /// The first column of `table` whose definition SQLite refuses alone (its default, its type), tried in
    /// a table of its own.
    static func refusedColumn(of table: SchemaTable) -> SchemaColumn? {
        guard let probe = try? DatabaseQueue() else { return nil }
        return probe.inDatabase { db in
            table.columns.indices.first { index in
                let alone = SchemaTable(name: "probe_\(index)", columns: [table.columns[index]], primaryKey: [])
                return (try? db.makeStatement(sql: alone.createTableStatement()).execute()) == nil
            }.map { table.columns[$0] }
        }
    }

    /// Whether `column` is one of a composite property's element columns (`<prefix>_<member>`).
    static func isElement(_ column: String, of property: PropertyShape) -> Bool {
        guard case .composite = property.kind else { return false }
        return sqlNameKey(column).hasPrefix(sqlNameKey(property.column) + "_")
    }
}

extension SchemaTrial {
    /// ``SeedCheckProbe`` in this process's SQLite: each literal is inserted into an in-memory table that has
    /// only the column (its type, collation and own CHECK), and then into one per table CHECK, alone; a table
    /// CHECK that names another column (SQLite refuses it there) is left out, and the insert of the whole row
    /// says if it fails. A literal passes when no CHECK refuses it.
    package static let seedCheckProbe: SeedCheckProbe = { table, column, literals in
        var bare = column
        bare.notNull = false
        bare.notNullConflict = nil
        bare.defaultSQL = nil
        bare.generatedSQL = nil
        bare.generatedStored = nil
        bare.check = nil
        let definition = "\(quoteIdentifier(column.name)) \(bare.constraintsSQL())"
        let constraints = (column.check.map { ["CHECK (\($0))"] } ?? []) + (table.checks ?? []).map(\.sql)
        guard !constraints.isEmpty, let database = try? DatabaseQueue() else { return nil }
        var passes = Array(repeating: true, count: literals.count)
        database.inDatabase { db in
            for (index, constraint) in constraints.enumerated() {
                let probe = "seed_probe_\(index)"
                let strict = table.strict == true ? " STRICT" : ""
                do {
                    try db.execute(sql: "CREATE TABLE \(probe) (\(definition), \(constraint))\(strict)")
                } catch {
                    continue // names another column
                }
                var results: [Bool] = []
                for literal in literals {
                    do {
                        try db.execute(sql: "INSERT INTO \(probe) (\(quoteIdentifier(column.name))) VALUES (\(literal))")
                        results.append(true)
                    } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_CHECK {
                        results.append(false)
                    } catch {
                        results = [] // names another column, or a function this SQLite lacks: not tried
                        break
                    }
                }
                for (offset, passed) in results.enumerated() where !passed { passes[offset] = false }
            }
        }
        return passes
    }
}
