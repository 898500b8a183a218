import Foundation
import GRDB
@_spi(Generated) import LucidSchema

/// Converts a Core Data store into lucidgen's tables of the version its layout is, in one transaction.
///
/// Every rule comes from the model (``CoreDataOrigin``) and from the layout real stores show
/// (`Tests/LucidGenCoreTests/CoreData/STORE-LAYOUT-EVIDENCE.md` cites each): an entity's rows live in its
/// root entity's table `Z<ROOT>` (`Z_PK` the id, `Z_ENT` the entity's number in `Z_PRIMARYKEY`, `Z_OPT` a
/// row version), an attribute or to-one in `Z<NAME>`, a date as seconds since 2001-01-01, a many-to-many in a
/// join table whose columns are `Z_<entity number><name of the relationship pointing at that entity>`, an
/// ordered one's order in `Z_FOK_<target column without Z_>` (in the join table) or `Z_FOK_<TO-ONE>` (in the
/// child's table), and a value of an attribute that allows external storage tagged `0x01` (inline bytes
/// follow) or `0x02` (the name of a file in `.<store>_SUPPORT/_EXTERNAL_DATA/` follows).
package struct CoreDataConverter {
    let origin: CoreDataOrigin
    let versions: [Schema]
    let path: String

    /// The model version a store's layout is, and lucidgen's schema of it.
    struct Recognition {
        var version: CoreDataOrigin.Version
        var schema: Schema
    }

    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: Reading the store

    /// The store's tables and their columns (with declared types), read in one query: by upper-cased name,
    /// as Core Data's names are matched.
    struct StoreTables {
        /// Upper-cased name → the table's name.
        var names: [String: String] = [:]
        /// Upper-cased table name → upper-cased column name → upper-cased declared type.
        var columns: [String: [String: String]] = [:]

        init(_ db: Database) throws {
            let rows = try Row.fetchAll(db, sql: """
                SELECT m.name, p.name, p.type FROM sqlite_master AS m LEFT JOIN pragma_table_info(m.name) AS p WHERE m.type = 'table'
                """)
            for row in rows {
                let table: String = row[0]
                names[table.uppercased()] = table
                if let column = row[1] as String? {
                    columns[table.uppercased(), default: [:]][column.uppercased()] = (row[2] as String? ?? "").uppercased()
                }
            }
        }

        func columns(of table: String) -> [String: String] { columns[table.uppercased()] ?? [:] }
    }

    /// The declared type Core Data gives an attribute type's column.
    package static func declaredType(of type: String) -> String? {
        switch type {
        case "Integer 16", "Integer 32", "Integer 64", "Boolean": "INTEGER"
        case "Double", "Float": "FLOAT"
        case "Date": "TIMESTAMP"
        case "String": "VARCHAR"
        case "Decimal": "DECIMAL"
        case "Binary", "Transformable", "UUID": "BLOB"
        default: nil  // URI: not confirmed by a real store's DDL; not checked
        }
    }

    /// The entities a hierarchy's root table holds, and the root of each.
    private func root(of entity: CoreDataOrigin.Entity, in version: CoreDataOrigin.Version) -> CoreDataOrigin.Entity {
        var current = entity
        var seen: Set<String> = [entity.name]
        while let parent = current.parent, let next = version.entities.first(where: { $0.name == parent }), seen.insert(parent).inserted { current = next }
        return current
    }

    /// The join table of a many-to-many, found by its two columns (its name is not relied on).
    private func joinTable(source: Int64, inverse: String, target: Int64, relationship: String, tables: StoreTables) -> (table: String, source: String, target: String, order: String?)? {
        let sourceColumn = "Z_\(source)\(inverse.uppercased())"
        let targetColumn = "Z_\(target)\(relationship.uppercased())"
        for (upper, name) in tables.names.sorted(by: { $0.key < $1.key }) where upper.hasPrefix("Z_") {
            let columns = tables.columns(of: upper)
            if columns[sourceColumn] != nil && columns[targetColumn] != nil {
                let order = "Z_FOK_\(target)\(relationship.uppercased())"
                return (name, sourceColumn, targetColumn, columns[order] != nil ? order : nil)
            }
        }
        return nil
    }

    /// How the store differs from a model version's layout (empty: it is that layout).
    private func differences(_ version: CoreDataOrigin.Version, layout: CoreDataStoreLayout, tables: StoreTables) -> [String] {
        var differences: [String] = []
        let stored = Set(layout.entities.filter { $0.number < 16000 }.map(\.name))
        let modelled = Set(version.entities.map(\.name))
        for name in stored.subtracting(modelled).sorted() { differences.append("the store has entity \(name), which model \(version.model) does not") }
        for name in modelled.subtracting(stored).sorted() { differences.append("model \(version.model) has entity \(name), which the store does not") }
        guard differences.isEmpty else { return differences }
        let numbers = Dictionary(layout.entities.map { ($0.name, $0.number) }, uniquingKeysWith: { first, _ in first })
        var expected: [String: [String: String?]] = [:]  // root table → column → declared type (nil: not checked)
        for entity in version.entities {
            let table = "Z" + root(of: entity, in: version).name.uppercased()
            for attribute in entity.attributes where attribute.transient != true {
                expected[table, default: [:]]["Z" + attribute.name.uppercased()] = Self.declaredType(of: attribute.type)
            }
            for relationship in entity.relationships where relationship.transient != true && !relationship.toMany {
                expected[table, default: [:]]["Z" + relationship.name.uppercased()] = "INTEGER"
            }
            if expected[table] == nil { expected[table] = [:] }
        }
        for (table, columns) in expected.sorted(by: { $0.key < $1.key }) {
            guard tables.names[table] != nil else {
                differences.append("model \(version.model) keeps its rows in table \(table), which the store does not have")
                continue
            }
            let actual = tables.columns(of: table)
            for (column, type) in columns.sorted(by: { $0.key < $1.key }) {
                guard let declared = actual[column] else { differences.append("\(table) has no column \(column)"); continue }
                if let type, declared != type { differences.append("\(table).\(column) is \(declared), not \(type)") }
            }
            for column in actual.keys.sorted() where columns[column] == nil && !["Z_PK", "Z_ENT", "Z_OPT"].contains(column) {
                // Core Data's own companions: the target entity's number of a to-one (`Z6_FOLDER`), orders (`Z_FOK_…`).
                if column.hasPrefix("Z_FOK_") || column.range(of: "^Z[0-9]+_", options: .regularExpression) != nil { continue }
                differences.append("\(table) has column \(column), which model \(version.model) does not")
            }
        }
        for entity in version.entities {
            for relationship in entity.relationships where relationship.toMany && relationship.transient != true && relationship.linkTable != nil {
                guard let destination = relationship.destination, let inverse = relationship.inverse,
                    let target = version.entities.first(where: { $0.name == destination }),
                    let inverseRelationship = target.relationships.first(where: { $0.name == inverse }), inverseRelationship.toMany
                else { continue }
                if joinTable(source: numbers[entity.name] ?? -1, inverse: inverse, target: numbers[destination] ?? -1, relationship: relationship.name, tables: tables) == nil {
                    differences.append("no join table of \(entity.name).\(relationship.name) (columns Z_\(numbers[entity.name] ?? -1)\(inverse.uppercased()) and Z_\(numbers[destination] ?? -1)\(relationship.name.uppercased()))")
                }
            }
        }
        return differences
    }

    /// What makes two model versions mean different things for the same stored layout.
    private func meaning(_ version: CoreDataOrigin.Version) -> [String] {
        version.entities.map { entity in
            entity.name + "(" + entity.attributes.filter { $0.transient != true }.map { "\($0.name):\($0.type)" }.sorted().joined(separator: ",") + "|"
                + entity.relationships.filter { $0.transient != true }.map { "\($0.name):\($0.toMany):\($0.ordered == true):\($0.destination ?? "")" }.sorted().joined(separator: ",") + ")"
        }.sorted()
    }

    /// `NSStoreModelVersionHashes` of the store's metadata (`Z_METADATA.Z_PLIST`, a property list): entity
    /// name → hash. Nil when the store has none or it is not a property list (it is only read as data).
    static func storedHashes(_ db: Database) throws -> [String: Data]? {
        guard let plist = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1"),
            let metadata = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any],
            let hashes = metadata["NSStoreModelVersionHashes"] as? [String: Any]
        else { return nil }
        let data = hashes.compactMapValues { $0 as? Data }
        return data.count == hashes.count ? data : nil
    }

    /// The model version the store is: the oldest of those whose layout it has, when they mean the same
    /// (or the one the store's version hashes name).
    func recognise(_ db: Database, layout: CoreDataStoreLayout) throws -> Recognition {
        var matching: [CoreDataOrigin.Version] = []
        var closest: (CoreDataOrigin.Version, [String])?
        let tables = try StoreTables(db)
        for version in origin.versions {
            let found = differences(version, layout: layout, tables: tables)
            if found.isEmpty { matching.append(version) } else if closest == nil || found.count <= closest!.1.count { closest = (version, found) }
        }
        guard !matching.isEmpty else {
            let detail = closest.map { " (closest: model \($0.0.model), \($0.1.prefix(5).joined(separator: "; "))\($0.1.count > 5 ? "; and \($0.1.count - 5) more" : ""))" } ?? ""
            throw Refusal(description: "it is a Core Data store whose layout is none of the imported model versions\(detail): nothing was changed")
        }
        // The store's metadata names its model by the entities' version hashes: when the compiled model's
        // hashes were imported, they pick among versions whose layouts are the same.
        if matching.count > 1, let stored = try Self.storedHashes(db) {
            let picked = matching.filter { version in
                guard let hashes = version.hashes else { return false }
                return hashes.compactMapValues { Data(base64Encoded: $0) } == stored
            }
            if picked.count == 1 { matching = picked }
        }
        let meanings = Set(matching.map(meaning))
        if meanings.count > 1 {
            throw Refusal(description: "it is a Core Data store whose layout is that of model versions \(matching.map(\.model).joined(separator: ", ")), which store different things in it: which one the store is cannot be told from the file; nothing was changed")
        }
        let chosen = matching[0]
        guard let version = try? SchemaVersion(parsing: chosen.version), let schema = versions.first(where: { $0.version == version }) else {
            throw Refusal(description: "the Core Data origin names version \(chosen.version), which this app's history does not have: import and generate again")
        }
        return Recognition(version: chosen, schema: schema)
    }

    // MARK: Converting

    /// Core Data's date: seconds since 2001-01-01, as lucidgen's text (GRDB's format), to the millisecond.
    static func dateExpression(_ column: String) -> String {
        "CASE WHEN \(column) IS NULL THEN NULL ELSE strftime('%Y-%m-%d %H:%M:%f', \(column) + 978307200, 'unixepoch') END"
    }

    /// Fills `recognition.schema`'s tables (created here) from the Core Data tables, carries each root's
    /// `Z_MAX` into `sqlite_sequence`, and drops Core Data's tables. Run inside the caller's transaction.
    /// Returns what it did, for the log.
    func convert(_ db: Database, _ recognition: Recognition, layout: CoreDataStoreLayout, report: (String) -> Void = { _ in }) throws -> [String] {
        let version = recognition.version
        let schema = recognition.schema
        let numbers = Dictionary(layout.entities.map { ($0.name, $0.number) }, uniquingKeysWith: { first, _ in first })
        let maxIDs = Dictionary(layout.entities.map { ($0.name, $0.maxID) }, uniquingKeysWith: { first, _ in first })
        let tables = try StoreTables(db)
        for table in schema.tables where tables.names[table.name.uppercased()] != nil {
            throw Refusal(description: "the Core Data store has a table \(tables.names[table.name.uppercased()]!), the name of lucidgen's table \(table.name) at \(schema.version): nothing was changed")
        }
        for statement in schema.ddl { try db.execute(sql: statement) }
        var log: [String] = []
        let supportFolder = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(
            ".\(((path as NSString).lastPathComponent as NSString).deletingPathExtension)_SUPPORT/_EXTERNAL_DATA")
        for entity in version.entities {
            guard let table = entity.table, let number = numbers[entity.name], entity.abstract != true else { continue }
            let source = "Z" + root(of: entity, in: version).name.uppercased()
            var columns = [quoted("id")]
            var values = ["Z_PK"]
            // An entity of a hierarchy: its kind, and the attributes and to-ones it inherits.
            var lineage = [entity]
            while let parent = lineage.last!.parent, let next = version.entities.first(where: { $0.name == parent }), !lineage.contains(next) { lineage.append(next) }
            let attributes = lineage.reversed().flatMap(\.attributes)
            let toOnes = lineage.reversed().flatMap(\.relationships).filter { !$0.toMany }
            var external: [(column: String, source: String)] = []
            guard let lucidTable = schema.tables.first(where: { $0.name == table }) else {
                throw Refusal(description: "the Core Data origin maps \(entity.name) to table \(table), which \(schema.version) does not have: import and generate again")
            }
            if let kind = entity.kind {
                guard let column = lucidTable.columns.first(where: \.isKindColumn) else {
                    throw Refusal(description: "the Core Data origin puts \(entity.name) in hierarchy table \(table), which has no kind column at \(schema.version): import and generate again")
                }
                columns.append(quoted(column.name))
                values.append("'" + kind.replacingOccurrences(of: "'", with: "''") + "'")
            }
            for attribute in attributes where attribute.transient != true {
                guard let column = attribute.column else { continue }
                guard let target = lucidTable.column(named: column) else {
                    throw Refusal(description: "the Core Data origin maps \(entity.name).\(attribute.name) to \(table).\(column), which \(schema.version) does not have: import and generate again")
                }
                let stored = "Z" + attribute.name.uppercased()
                columns.append(quoted(column))
                var value: String = switch attribute.type {
                case "Date": Self.dateExpression(stored)
                case "Decimal": "CASE WHEN \(stored) IS NULL THEN NULL ELSE CAST(\(stored) AS TEXT) END"
                default: stored
                }
                // A required attribute Core Data left NULL (a row older than the attribute) gets the column's default.
                if target.notNull, let fallback = target.defaultSQL { value = "coalesce(\(value), \(fallback))" }
                values.append(value)
                if attribute.externalStorage == true { external.append((column, stored)) }
            }
            for relationship in toOnes where relationship.transient != true {
                guard let column = relationship.column else { continue }
                columns.append(quoted(column))
                values.append("Z" + relationship.name.uppercased())
            }
            try db.execute(sql: "INSERT INTO \(quoted(table)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quoted(source)) WHERE Z_ENT = ?", arguments: [number])
            log.append("\(entity.name) → \(table): \(db.changesCount) rows")
            report(log.last!)
            // Values that allow external storage: tagged inline bytes, or a file beside the store.
            for (column, stored) in external {
                let rows = try Row.fetchAll(db, sql: "SELECT Z_PK, \(stored) FROM \(quoted(source)) WHERE Z_ENT = ? AND \(stored) IS NOT NULL", arguments: [number])
                for row in rows {
                    let id: Int64 = row[0]
                    guard let bytes = row[1] as Data? else { continue }
                    let value = try Self.externalValue(bytes, folder: supportFolder, entity: entity.name, id: id)
                    try db.execute(sql: "UPDATE \(quoted(table)) SET \(quoted(column)) = ? WHERE id = ?", arguments: [value, id])
                }
            }
            if let maxID = maxIDs[root(of: entity, in: version).name], schema.tables.first(where: { $0.name == table })?.autoincrement == true {
                try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = ?", arguments: [table])
                try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) SELECT ?, max(?, coalesce((SELECT max(id) FROM \(quoted(table))), 0))", arguments: [table, maxID])
            }
        }
        // To-manys: each link table from Core Data's join table, or from the child's to-one.
        for entity in version.entities {
            for relationship in entity.relationships where relationship.toMany && relationship.transient != true {
                guard let link = relationship.linkTable else { continue }
                guard let destination = relationship.destination, let inverse = relationship.inverse,
                    let target = version.entities.first(where: { $0.name == destination }),
                    let inverseRelationship = target.relationships.first(where: { $0.name == inverse })
                else {
                    throw Refusal(description: "\(entity.name).\(relationship.name) has no inverse, and where Core Data keeps such a relationship is not known: converting it is not supported; nothing was changed")
                }
                let ordered = relationship.ordered == true
                let position = ordered ? ", \(quoted(LinkTable.positionColumn))" : ""
                if inverseRelationship.toMany {
                    guard let join = joinTable(source: numbers[entity.name] ?? -1, inverse: inverse, target: numbers[destination] ?? -1, relationship: relationship.name, tables: tables) else {
                        throw Refusal(description: "no join table of \(entity.name).\(relationship.name): nothing was changed")
                    }
                    let order = ordered ? ", row_number() OVER (PARTITION BY \(join.source) ORDER BY \(join.order ?? "rowid"), rowid) - 1" : ""
                    try db.execute(sql: """
                        INSERT INTO \(quoted(link)) (\(quoted(LinkTable.sourceColumn)), \(quoted(LinkTable.targetColumn))\(position)) \
                        SELECT \(join.source), \(join.target)\(order) FROM \(quoted(join.table)) WHERE \(join.source) IS NOT NULL AND \(join.target) IS NOT NULL
                        """)
                } else {
                    // An ordered one-to-many described as a link table: the child's to-one, and its order beside it.
                    let child = "Z" + root(of: target, in: version).name.uppercased()
                    let parentColumn = "Z" + inverse.uppercased()
                    let childColumns = tables.columns(of: child)
                    let fok = "Z_FOK_" + inverse.uppercased()
                    let order = ordered ? ", row_number() OVER (PARTITION BY \(parentColumn) ORDER BY \(childColumns[fok] != nil ? fok : "Z_PK"), Z_PK) - 1" : ""
                    try db.execute(
                        sql: """
                            INSERT INTO \(quoted(link)) (\(quoted(LinkTable.sourceColumn)), \(quoted(LinkTable.targetColumn))\(position)) \
                            SELECT \(parentColumn), Z_PK\(order) FROM \(quoted(child)) WHERE Z_ENT = ? AND \(parentColumn) IS NOT NULL
                            """, arguments: [numbers[destination] ?? -1])
                }
                log.append("\(entity.name).\(relationship.name) → \(link): \(db.changesCount) links")
                report(log.last!)
            }
        }
        // Core Data's tables go (their indexes and triggers with them): the store is lucidgen's now.
        var dropped: [String] = []
        let entityTables = Set(layout.entities.flatMap { ["Z" + $0.name.uppercased(), $0.name.uppercased()] })
        for (upper, name) in tables.names.sorted(by: { $0.key < $1.key }) {
            let coreData = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains(upper)
                || upper.range(of: "^Z_[0-9]+", options: .regularExpression) != nil
                || upper.hasPrefix("ANSCK") || ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"].contains(upper)
                || entityTables.contains(upper)
            guard coreData else { continue }
            try db.execute(sql: "DROP TABLE \(quoted(name))")
            dropped.append(name)
        }
        log.append("dropped Core Data's tables: \(dropped.joined(separator: ", "))")
        // The app's views must still read what they read: one over Core Data's tables would be left broken
        // (and every later step refuse it), so the conversion does not happen.
        for view in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name") {
            do {
                _ = try Row.fetchAll(db, sql: "SELECT * FROM \(quoted(view)) LIMIT 0")
            } catch {
                throw Refusal(description: "the store's view \(view) reads Core Data's tables, which the conversion removes (\((error as? DatabaseError)?.message ?? "\(error)")): nothing was changed; drop the view (or make it read other tables) and open the store again")
            }
        }
        return log
    }

    /// The bytes of a value of an attribute that allows external storage: `0x01` and the bytes, or `0x02`
    /// and the name of a file in `.<store>_SUPPORT/_EXTERNAL_DATA/` (read back into the row).
    static func externalValue(_ bytes: Data, folder: String, entity: String, id: Int64) throws -> Data {
        guard let tag = bytes.first else { return bytes }
        switch tag {
        case 0x01:
            return Data(bytes.dropFirst())
        case 0x02:
            var name = String(decoding: bytes.dropFirst(), as: UTF8.self)
            while name.hasSuffix("\0") { name.removeLast() }
            // A file name, never a path: nothing outside the support folder is read.
            guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
                throw Refusal(description: "\(entity) \(id): its externally stored value names '\(name)', which is not a file name: nothing was changed")
            }
            let file = (folder as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: file) else {
                throw Refusal(description: "\(entity) \(id): its value is stored in \(file), which is missing: restore the store's _SUPPORT folder beside it; nothing was changed")
            }
            return data
        default:
            throw Refusal(description: "\(entity) \(id): its value allows external storage but starts with byte \(tag), neither 0x01 (inline) nor 0x02 (a file): nothing was changed")
        }
    }

    private func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
