import Foundation
import GRDB
import LucidRuntime
@_spi(Generated) import LucidSchema

// Every row of a Core Data store accounted for: where Core Data reads it, and what becomes of it.
extension CoreDataConverter {
    /// An entity's rows in its hierarchy's Core Data table, as Core Data reads them.
    struct Placement {
        var entity: CoreDataOrigin.Entity
        /// The Core Data table (its name in the store).
        var source: String
        /// Which of the table's rows (alias `s`) are the entity's.
        var predicate: String
        var rows: Int
    }

    /// A to-many's link table and the rows it is made of.
    struct LinkAccount {
        var relationship: String
        var link: String
        /// The Core Data table its rows come from (a join table, or the child's table).
        var source: String
        /// `SELECT source, target[, position]` of the links (the rows naming rows that exist).
        var select: String
        /// Rows of `source` read for it (a join table's rows, or the children with a parent).
        var read: Int
        var links: Int
    }

    /// What converting the store does, counted before anything is written.
    struct Account {
        var placements: [Placement] = []
        var links: [LinkAccount] = []
        /// Core Data table → its rows.
        var tableRows: [String: Int] = [:]
        /// What is not as the Core Data rows had it, each with why (for the report).
        var notes: [String] = []

        func report(_ recognition: Recognition) -> CoreDataConversionReport {
            CoreDataConversionReport(
                model: recognition.version.model,
                entities: placements.map { .init(name: $0.entity.name, table: $0.entity.table ?? "", source: $0.source, rows: $0.rows) },
                links: links.map { .init(name: $0.relationship, table: $0.link, source: $0.source, rows: $0.links) },
                notes: notes, drift: recognition.drift)
        }
    }

    /// The entities whose rows share `root`'s table.
    func members(of root: CoreDataOrigin.Entity, in version: CoreDataOrigin.Version) -> [CoreDataOrigin.Entity] {
        version.entities.filter { self.root(of: $0, in: version).name == root.name }
    }

    /// `entity` and the entities below it.
    func subtree(of entity: CoreDataOrigin.Entity, in version: CoreDataOrigin.Version) -> [CoreDataOrigin.Entity] {
        version.entities.filter { candidate in
            var current: CoreDataOrigin.Entity? = candidate
            var seen: Set<String> = []
            while let next = current, seen.insert(next.name).inserted {
                if next.name == entity.name { return true }
                current = next.parent.flatMap { parent in version.entities.first { $0.name == parent } }
            }
            return false
        }
    }

    /// Which rows of the table (as `alias`) are `entities`' as Core Data reads them: in a table that holds
    /// one entity, every row whatever its `Z_ENT`; in a hierarchy's, those whose `Z_ENT` is one of theirs.
    func predicate(_ alias: String, _ entities: [CoreDataOrigin.Entity], in version: CoreDataOrigin.Version, numbers: [String: Int64])
        -> String
    {
        guard let first = entities.first, members(of: root(of: first, in: version), in: version).count > 1 else { return "1" }
        return "\(alias).Z_ENT IN (\(entities.map { "\(numbers[$0.name] ?? -1)" }.sorted().joined(separator: ", ")))"
    }

    /// The table a hierarchy's rows are in (its name in the store).
    func sourceTable(of entity: CoreDataOrigin.Entity, in version: CoreDataOrigin.Version, tables: StoreTables) -> String {
        let upper = "Z" + root(of: entity, in: version).name.uppercased()
        return tables.names[upper] ?? upper
    }

    /// Whether `value` (an expression over the row being read) names a row of `destination` or below it.
    func exists(
        _ value: String, of destination: CoreDataOrigin.Entity, in version: CoreDataOrigin.Version, numbers: [String: Int64],
        tables: StoreTables
    ) -> String {
        // A hierarchy whose table the (drifted) store does not have holds no row.
        guard tables.names["Z" + root(of: destination, in: version).name.uppercased()] != nil else { return "0" }
        return
            "EXISTS (SELECT 1 FROM \(quoteIdentifier(sourceTable(of: destination, in: version, tables: tables))) AS t WHERE t.Z_PK = \(value) AND \(predicate("t", subtree(of: destination, in: version), in: version, numbers: numbers)))"
    }

    /// Seconds since 2001-01-01 that GRDB's text dates hold: 0001-01-01 00:00:00 to 9999-12-31 23:59:59.998.
    static let dateRange = (-63_113_904_000.0, 252_423_993_599.998)

    /// Counts where each row of the store goes, before anything is written, and refuses (naming the
    /// table, the first ids and why) a row no entity can claim, a date GRDB cannot store, an externally
    /// stored value that is not bytes, a required to-one that names no row. Dangling to-ones and join rows
    /// are listed (they become NULL / no link).
    func account(_ db: Database, _ recognition: Recognition, layout: CoreDataStoreLayout) throws -> Account {
        let version = recognition.version
        let numbers = Self.numbers(layout)
        let tables = try StoreTables(db)
        var account = Account()
        // Rows: each hierarchy's table, entity by entity.
        for root in version.entities where self.root(of: root, in: version).name == root.name {
            try placeRows(of: root, db, recognition, layout: layout, numbers: numbers, tables: tables, into: &account)
        }
        // Values Core Data would not have written, entity by entity.
        for placement in account.placements {
            try checkValues(of: placement, db, recognition, numbers: numbers, tables: tables, into: &account)
        }
        // Links: each to-many's link table, from Core Data's join table or from the child's to-one.
        let joins = self.joins(version, numbers: numbers, tables: tables).found
        for entity in version.entities {
            for relationship in entity.relationships where relationship.toMany && relationship.transient != true {
                if let link = try linkAccount(
                    of: relationship, of: entity, db, recognition, joins: joins, numbers: numbers, tables: tables, notes: &account.notes)
                {
                    account.links.append(link)
                }
            }
        }
        return account
    }

    /// Where the rows of one hierarchy's table go (``Account/placements``): every row to one entity of it,
    /// or a refusal naming the rows none can claim.
    private func placeRows(
        of root: CoreDataOrigin.Entity, _ db: Database, _ recognition: Recognition, layout: CoreDataStoreLayout, numbers: [String: Int64],
        tables: StoreTables, into account: inout Account
    ) throws {
        let version = recognition.version
        let names = Dictionary(layout.entities.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
        func ids(_ rows: [Row]) -> String { rows.map { CoreDataStoreLayout.describe($0[0]) }.joined(separator: ", ") }
        // A hierarchy the drifted store has none of (``Recognition/absentEntities``): no rows to read.
        if recognition.absentEntities.contains(root.name) && tables.names["Z" + root.name.uppercased()] == nil { return }
        let table = sourceTable(of: root, in: version, tables: tables)
        let source = quoteIdentifier(table)
        let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(source)") ?? 0
        account.tableRows[table] = total
        let keys = try Row.fetchAll(
            db, sql: "SELECT Z_PK FROM \(source) WHERE typeof(Z_PK) != 'integer' OR Z_PK = 9223372036854775807 LIMIT 5")
        if !keys.isEmpty {
            throw Refusal(
                description: "\(table) has rows whose Z_PK is no id a new row can follow (first: \(ids(keys))): nothing was changed")
        }
        let members = self.members(of: root, in: version)
        let converted = members.filter { $0.abstract != true && $0.table != nil }
        if members.count == 1 {
            guard let entity = converted.first else {
                if total > 0 {
                    throw Refusal(
                        description:
                            "\(table) has \(total) rows of \(root.name), which \(root.abstract == true ? "is abstract" : "has no table at \(recognition.schema.version)"): nothing was changed"
                    )
                }
                return
            }
            account.placements.append(Placement(entity: entity, source: table, predicate: "1", rows: total))
            let number = numbers[entity.name] ?? -1
            let others = try Row.fetchAll(
                db, sql: "SELECT Z_ENT, count(*) FROM \(source) WHERE Z_ENT IS NOT ? GROUP BY Z_ENT ORDER BY Z_ENT", arguments: [number]
            )
            for other in others {
                let count = other[1] as Int64? ?? 0
                account.notes.append(
                    "\(table): \(count) row\(count == 1 ? " has" : "s have") Z_ENT \(CoreDataStoreLayout.describe(other[0])), not \(entity.name)'s \(number): read as \(entity.name), as Core Data reads every row of \(table)"
                )
            }
            return
        }
        var placed = 0
        for entity in converted {
            let rows =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(source) WHERE Z_ENT = ?", arguments: [numbers[entity.name] ?? -1])
                ?? 0
            account.placements.append(
                Placement(entity: entity, source: table, predicate: predicate("s", [entity], in: version, numbers: numbers), rows: rows)
            )
            placed += rows
        }
        if placed != total {
            let claimable = converted.map { "\(numbers[$0.name] ?? -1)" }.joined(separator: ", ")
            let unclaimed = try Row.fetchAll(
                db, sql: "SELECT Z_PK, Z_ENT FROM \(source) WHERE Z_ENT IS NULL OR Z_ENT NOT IN (\(claimable)) ORDER BY Z_PK LIMIT 5")
            let why = unclaimed.map { row -> String in
                let kind: DatabaseValue = row[1]
                let reason: String
                if case .int64(let number) = kind.storage, let name = names[number] {
                    let entity = members.first { $0.name == name }
                    reason =
                        entity == nil
                        ? "entity \(name), which is not of this hierarchy"
                        : entity?.abstract == true ? "abstract entity \(name)" : "entity \(name), which has no table"
                } else {
                    reason = kind.isNull ? "no entity (NULL)" : "no entity of the store"
                }
                return "\(CoreDataStoreLayout.describe(row[0])) (Z_ENT \(CoreDataStoreLayout.describe(kind)): \(reason))"
            }
            throw Refusal(
                description:
                    "\(table) has \(total - placed) row\(total - placed == 1 ? "" : "s") that no entity of model \(version.model) can claim (first: \(why.joined(separator: ", "))): nothing was changed"
            )
        }
    }

    /// The values of one placement's rows that Core Data would not have written: refused (dates out of range,
    /// external storage that is not bytes, a required to-one naming no row) or noted (a dangling to-one).
    private func checkValues(
        of placement: Placement, _ db: Database, _ recognition: Recognition, numbers: [String: Int64], tables: StoreTables,
        into account: inout Account
    ) throws {
        let version = recognition.version
        let source = quoteIdentifier(placement.source)
        try checkStorage(db, placement, in: version, columns: tables.columns(of: placement.source), account: &account)
        // A column the drifted store lacks (``Recognition/drift``) holds nothing to check.
        let present = tables.columns(of: placement.source)
        for attribute in lineage(of: placement.entity, in: version).flatMap(\.attributes)
        where attribute.transient != true && attribute.column != nil {
            let stored = attribute.storedColumn
            guard present[stored] != nil else { continue }
            if attribute.type == "Date" {
                let bad = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT Z_PK, \(stored) FROM \(source) AS s WHERE \(placement.predicate) AND \(stored) IS NOT NULL \
                        AND NOT (typeof(\(stored)) IN ('integer', 'real') AND \(stored) BETWEEN ? AND ?) ORDER BY Z_PK LIMIT 5
                        """, arguments: [Self.dateRange.0, Self.dateRange.1])
                if !bad.isEmpty {
                    throw Refusal(
                        description:
                            "\(placement.source).\(stored) (\(placement.entity.name).\(attribute.name), a date) holds values that are no date from year 1 to 9999, which is what a date column stores (first: \(bad.map { "row \(CoreDataStoreLayout.describe($0[0])): \(CoreDataStoreLayout.describe($0[1]))" }.joined(separator: ", "))): nothing was changed"
                    )
                }
            }
            if attribute.externalStorage == true {
                let bad = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT Z_PK, \(stored) FROM \(source) AS s WHERE \(placement.predicate) AND \(stored) IS NOT NULL AND typeof(\(stored)) != 'blob' ORDER BY Z_PK LIMIT 5"
                )
                if !bad.isEmpty {
                    throw Refusal(
                        description:
                            "\(placement.source).\(stored) (\(placement.entity.name).\(attribute.name), which allows external storage) holds values that are not bytes (first: \(bad.map { "row \(CoreDataStoreLayout.describe($0[0])): \(CoreDataStoreLayout.describe($0[1]))" }.joined(separator: ", "))): nothing was changed"
                    )
                }
            }
        }
        // To-ones naming no row: NULL in lucidgen's table (Core Data keeps them, and faults when one is read).
        for relationship in lineage(of: placement.entity, in: version).flatMap(\.relationships)
        where !relationship.toMany && relationship.transient != true {
            guard let column = relationship.column,
                let destination = version.entities.first(where: { $0.name == relationship.destination }),
                present["Z" + relationship.name.uppercased()] != nil
            else { continue }
            let stored = "s.Z" + relationship.name.uppercased()
            let dangling = try Row.fetchAll(
                db,
                sql: """
                    SELECT s.Z_PK, \(stored) FROM \(source) AS s WHERE \(placement.predicate) AND \(stored) IS NOT NULL \
                    AND NOT \(exists(stored, of: destination, in: version, numbers: numbers, tables: tables)) ORDER BY s.Z_PK
                    """)
            guard !dangling.isEmpty else { continue }
            let table = placement.entity.table ?? ""
            if recognition.schema.tables.first(where: { $0.name == table })?.column(named: column)?.notNull == true {
                throw Refusal(
                    description:
                        "\(placement.source) row \(CoreDataStoreLayout.describe(dangling[0][0])): \(stored.dropFirst(2)) (\(placement.entity.name).\(relationship.name), required) names \(destination.name) \(CoreDataStoreLayout.describe(dangling[0][1])), which does not exist\(dangling.count > 1 ? " (and \(dangling.count - 1) more rows)" : ""): nothing was changed"
                )
            }
            for row in dangling {
                account.notes.append(
                    "\(placement.source) row \(CoreDataStoreLayout.describe(row[0])): \(stored.dropFirst(2)) is \(CoreDataStoreLayout.describe(row[1])), and no \(destination.name) has that id: \(table).\(column) NULL"
                )
            }
        }
    }

    /// A to-many's link table and the rows that fill it (nil where the store holds none: a drifted store
    /// without the join table or the child's column); each row naming no row is noted.
    private func linkAccount(
        of relationship: CoreDataOrigin.Relationship, of entity: CoreDataOrigin.Entity, _ db: Database, _ recognition: Recognition,
        joins: [String: Join], numbers: [String: Int64], tables: StoreTables, notes: inout [String]
    ) throws -> LinkAccount? {
        let version = recognition.version
        guard let link = relationship.linkTable else { return nil }
        let name = "\(entity.name).\(relationship.name)"
        guard let destination = relationship.destination, let inverse = relationship.inverse,
            let target = version.entities.first(where: { $0.name == destination }),
            let inverseRelationship = target.relationships.first(where: { $0.name == inverse })
        else {
            throw Refusal(
                description:
                    "\(name) has no inverse, and where Core Data keeps such a relationship is not known: converting it is not supported; nothing was changed"
            )
        }
        let ordered = relationship.ordered == true
        var linkAccount: LinkAccount
        if inverseRelationship.toMany {
            // A drifted store without the join table (``Recognition/linkless``): its link table stays empty.
            if joins[name] == nil && recognition.linkless.contains(name) { return nil }
            guard let join = joins[name] else { throw Refusal(description: "no join table of \(name): nothing was changed") }
            let source = quoteIdentifier(join.table)
            let placeable =
                "\(exists("s.\(join.source)", of: entity, in: version, numbers: numbers, tables: tables)) AND \(exists("s.\(join.target)", of: target, in: version, numbers: numbers, tables: tables))"
            let order =
                ordered
                ? ", row_number() OVER (PARTITION BY s.\(join.source) ORDER BY \(join.order.map { "s.\($0)" } ?? "s.rowid"), s.rowid) - 1"
                : ""
            let read = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(source)") ?? 0
            linkAccount = LinkAccount(
                relationship: name, link: link, source: join.table,
                select: "SELECT s.\(join.source), s.\(join.target)\(order) FROM \(source) AS s WHERE \(placeable)",
                read: read, links: try Int.fetchOne(db, sql: "SELECT count(*) FROM \(source) AS s WHERE \(placeable)") ?? 0)
            for row in try Row.fetchAll(
                db, sql: "SELECT s.\(join.source), s.\(join.target) FROM \(source) AS s WHERE NOT (\(placeable)) ORDER BY s.rowid")
            {
                notes.append(
                    "\(join.table) row (\(join.source) \(CoreDataStoreLayout.describe(row[0])), \(join.target) \(CoreDataStoreLayout.describe(row[1]))) names a row that does not exist (\(entity.name) or \(destination)): no link in \(link)"
                )
            }
        } else {
            // An ordered one-to-many described as a link table: the child's to-one, and its order beside it.
            let child = sourceTable(of: target, in: version, tables: tables)
            // The child's to-one column absent in a drifted store: no links to read.
            guard tables.columns(of: child)["Z" + inverse.uppercased()] != nil else { return nil }
            let parentColumn = "s.Z" + inverse.uppercased()
            let fok = "Z_FOK_" + inverse.uppercased()
            let children =
                "\(predicate("s", subtree(of: target, in: version), in: version, numbers: numbers)) AND \(parentColumn) IS NOT NULL"
            let placeable = "\(children) AND \(exists(parentColumn, of: entity, in: version, numbers: numbers, tables: tables))"
            let order =
                ordered
                ? ", row_number() OVER (PARTITION BY \(parentColumn) ORDER BY \(tables.columns(of: child)[fok] != nil ? "s." + fok : "s.Z_PK"), s.Z_PK) - 1"
                : ""
            linkAccount = LinkAccount(
                relationship: name, link: link, source: child,
                select: "SELECT \(parentColumn), s.Z_PK\(order) FROM \(quoteIdentifier(child)) AS s WHERE \(placeable)",
                read: try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(child)) AS s WHERE \(children)") ?? 0,
                links: try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(child)) AS s WHERE \(placeable)") ?? 0)
            for row in try Row.fetchAll(
                db,
                sql:
                    "SELECT s.Z_PK, \(parentColumn) FROM \(quoteIdentifier(child)) AS s WHERE \(children) AND NOT (\(placeable)) ORDER BY s.Z_PK"
            ) {
                notes.append(
                    "\(child) row \(CoreDataStoreLayout.describe(row[0])): \(parentColumn.dropFirst(2)) is \(CoreDataStoreLayout.describe(row[1])), and no \(entity.name) has that id: no link in \(link)"
                )
            }
        }
        return linkAccount
    }

    /// `entity` and its parents, the root last.
    /// How Core Data reads a column's value, which it does by the attribute's type whatever the value's
    /// storage class (`sqlite3_column_int64`, `_double`, `_text`, `_blob`): `read`, the storage classes it
    /// reads as written; `converted`, one it reads as the bytes of its text (kept, converted alike, and
    /// reported). Any other value would not read back as what was written (text in an integer column reads
    /// as 0), so it refuses the store. Dates and externally stored values have their own checks.
    struct StoredValueRule {
        var read: [String]
        var converted: (storage: String, cast: String)? = nil
        var range: ClosedRange<Int64>? = nil
        var length: Int? = nil
        /// The one text Core Data reads as a value of a number's type.
        var text: String? = nil

        /// The rule of an attribute of `type` (nil: checked elsewhere, or not confirmed), or of a to-one's key.
        init?(type: String?, external: Bool) {
            switch type {
            case "Integer 16": read = ["integer"]; range = Int64(Int16.min)...Int64(Int16.max)
            case "Integer 32": read = ["integer"]; range = Int64(Int32.min)...Int64(Int32.max)
            case "Integer 64", "Boolean", nil: read = ["integer"]
            // A FLOAT column's affinity stores an integer as a real: only text or bytes are not read.
            case "Double", "Float": read = ["real", "integer"]
            // Core Data writes a decimal's NaN as the text 'NaN' (Artsy Folio's real stores hold it).
            case "Decimal": read = ["integer", "real"]; text = "NaN"
            case "String": read = ["text"]
            case "Binary", "Transformable":
                guard !external else { return nil }
                read = ["blob"]; converted = ("text", "BLOB")
            case "UUID": read = ["blob"]; length = 16
            default: return nil
            }
        }

        /// SQL true for a value of `column` Core Data does not read as written and that is not converted.
        func refused(_ column: String) -> String {
            var fine = "typeof(\(column)) IN (\(read.map { "'\($0)'" }.joined(separator: ", ")))"
            if let range { fine = "(\(fine) AND \(column) BETWEEN \(range.lowerBound) AND \(range.upperBound))" }
            if let length { fine = "(\(fine) AND length(\(column)) = \(length))" }
            if let text { fine = "(\(fine) OR \(column) = '\(text)')" }
            if let converted { fine = "(\(fine) OR typeof(\(column)) = '\(converted.storage)')" }
            return "(\(column) IS NOT NULL AND NOT \(fine))"
        }

        /// The value lucidgen's column gets: converted as Core Data reads it.
        func value(_ column: String) -> String {
            guard let converted else { return column }
            return "CASE WHEN typeof(\(column)) = '\(converted.storage)' THEN CAST(\(column) AS \(converted.cast)) ELSE \(column) END"
        }
    }

    /// The entity's attribute and to-one columns checked against ``StoredValueRule`` in one pass over its
    /// rows (`typeof` counted per column); a value not read as written refuses the store, naming the table,
    /// rows and column; a converted one is listed in the report.
    func checkStorage(
        _ db: Database, _ placement: Placement, in version: CoreDataOrigin.Version, columns present: [String: String],
        account: inout Account
    ) throws {
        let lineage = self.lineage(of: placement.entity, in: version)
        var checked: [(column: String, what: String, rule: StoredValueRule)] = []
        for attribute in lineage.flatMap(\.attributes)
        where attribute.transient != true && attribute.column != nil && present[attribute.storedColumn] != nil {
            guard let rule = StoredValueRule(type: attribute.type, external: attribute.externalStorage == true) else { continue }
            checked.append((attribute.storedColumn, "\(placement.entity.name).\(attribute.name), \(attribute.type)", rule))
        }
        for relationship in lineage.flatMap(\.relationships)
        where !relationship.toMany && relationship.transient != true && relationship.column != nil
            && present["Z" + relationship.name.uppercased()] != nil
        {
            checked.append(
                (
                    "Z" + relationship.name.uppercased(), "\(placement.entity.name).\(relationship.name), a to-one's id",
                    StoredValueRule(type: nil, external: false)!
                ))
        }
        guard !checked.isEmpty else { return }
        let source = quoteIdentifier(placement.source)
        let counts = try Row.fetchOne(
            db,
            sql: "SELECT "
                + checked.map { item in
                    "coalesce(sum(\(item.rule.refused("s." + item.column))), 0), coalesce(sum(typeof(s.\(item.column)) = '\(item.rule.converted?.storage ?? "none")'), 0)"
                }.joined(separator: ", ") + " FROM \(source) AS s WHERE \(placement.predicate)")
        guard let counts else { return }
        func listed(_ rows: [Row]) -> String {
            rows.map { "row \(CoreDataStoreLayout.describe($0[0])): \(CoreDataStoreLayout.describe($0[1]))" }.joined(separator: ", ")
        }
        for (index, item) in checked.enumerated() {
            let refused: Int = counts[index * 2], converted: Int = counts[index * 2 + 1]
            if refused > 0 {
                let rows = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT s.Z_PK, s.\(item.column) FROM \(source) AS s WHERE \(placement.predicate) AND \(item.rule.refused("s." + item.column)) ORDER BY s.Z_PK LIMIT 5"
                )
                throw Refusal(
                    description:
                        "\(placement.source).\(item.column) (\(item.what)) holds \(refused) value\(refused == 1 ? "" : "s") Core Data would not read as written (first: \(listed(rows))): nothing was changed"
                )
            }
            if converted > 0, let conversion = item.rule.converted {
                let rows = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT s.Z_PK, s.\(item.column) FROM \(source) AS s WHERE \(placement.predicate) AND typeof(s.\(item.column)) = '\(conversion.storage)' ORDER BY s.Z_PK"
                )
                for row in rows {
                    account.notes.append(
                        "\(placement.source) row \(CoreDataStoreLayout.describe(row[0])): \(item.column) (\(item.what)) is \(CoreDataStoreLayout.describe(row[1])): kept as its bytes, as Core Data reads it"
                    )
                }
            }
        }
    }

    func lineage(of entity: CoreDataOrigin.Entity, in version: CoreDataOrigin.Version) -> [CoreDataOrigin.Entity] {
        var lineage = [entity]
        while let parent = lineage.last?.parent, let next = version.entities.first(where: { $0.name == parent }), !lineage.contains(next) {
            lineage.append(next)
        }
        return lineage.reversed()
    }
}

/// What converting a Core Data store did (`MigrationOutcome.coreDataConversion`) or will do
/// (`StoreStatus.coreDataConversion`): the rows of each entity and the links of each to-many, counted
/// against the Core Data rows in the conversion's transaction (any difference rolls it back), and every
/// row that is not as Core Data had it.
public struct CoreDataConversionReport: Sendable, Equatable {
    /// An entity's rows, or a to-many's links, and where they came from and went.
    public struct Count: Sendable, Equatable {
        /// The entity (`Artwork`) or to-many (`Album.artworks`).
        public var name: String
        /// lucidgen's table they are in.
        public var table: String
        /// The Core Data table they were read from.
        public var source: String
        public var rows: Int
    }

    /// The Core Data model version the store was.
    public var model: String
    public var entities: [Count]
    public var links: [Count]
    /// Each row that is not as Core Data's rows had it, with why: rows of a single entity's table whose
    /// `Z_ENT` is another number (converted, as Core Data reads them), a to-one naming a row that does not
    /// exist (NULL now), a join row naming one (no link). The backup copy keeps the original.
    public var notes: [String]
    /// When the store's layout was none of the imported model versions' (a model edited after release, a
    /// development build's store): each way it differs from ``model``, the nearest, and what the
    /// conversion did about it, as Core Data's inferred mapping does: a column the model lacks (its values
    /// not converted; the backup keeps them), a column the model has (its default, or NULL), an empty
    /// table no relationship holds (dropped). Empty when the store is that model's layout.
    public var drift: [String] = []

    /// A line per entity and per to-many.
    public var lines: [String] {
        entities.map { "\($0.name) → \($0.table): \($0.rows) rows" } + links.map { "\($0.name) → \($0.table): \($0.rows) links" }
    }
}
