import Foundation
import GRDB
import LucidRuntime
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
        /// When the store's layout is none of the imported versions' (a model edited after release, a
        /// development build's store): each difference from ``version``, the nearest, every one inferable
        /// without data of its own, with what the conversion does about it (said in the report).
        var drift: [String] = []
        /// Core Data tables of the drifted layout that ``version`` does not have, empty: dropped with
        /// Core Data's tables.
        var extraTables: [String] = []
        /// Many-to-manys of ``version`` (`Entity.relationship`, both directions) whose join table the drifted
        /// store does not have: no links, their link tables left empty.
        var linkless: Set<String> = []
        /// Entities of ``version`` the drifted store has neither in `Z_PRIMARYKEY` nor as a table of its
        /// own (an edited model added them): no rows.
        var absentEntities: Set<String> = []
    }

    /// One way a store differs from a model version's layout.
    struct Difference: Equatable {
        enum Kind: Equatable {
            /// The store has a column the version does not (upper-cased table and column names).
            case extraColumn(table: String, column: String)
            /// The version has a column (an attribute's or a to-one's) the store does not.
            case missingColumn(table: String, column: String)
            /// A table of Core Data's join-table names that no many-to-many of the version holds.
            case extraJoinTable(table: String)
            /// A many-to-many of the version (`Entity.relationship` of both sides) with no join table in the
            /// store, nor any table of its columns.
            case missingJoinTable(relationships: [String])
            /// An entity `Z_PRIMARYKEY` lists that the version does not have, a root no entity is under.
            case extraEntity(name: String)
            /// An entity of the version that `Z_PRIMARYKEY` does not list and whose rows the store could not
            /// hold (no table of its own; or a subentity, with no number to tag rows with); the store has no
            /// entity the version lacks.
            case missingEntity(name: String)
            /// Anything else (a declared type, an entity, a table, a parent): never inferred.
            case other
        }
        var kind: Kind
        var text: String

        init(_ kind: Kind, _ text: String) {
            self.kind = kind
            self.text = text
        }

        init(_ text: String) { self.init(.other, text) }
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
            let rows = try Row.fetchAll(
                db,
                sql: """
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
        default: nil // URI: not confirmed by a real store's DDL; not checked
        }
    }

    /// The entities a hierarchy's root table holds, and the root of each.
    func root(of entity: CoreDataOrigin.Entity, in version: CoreDataOrigin.Version) -> CoreDataOrigin.Entity {
        var current = entity
        var seen: Set<String> = [entity.name]
        while let parent = current.parent, let next = version.entities.first(where: { $0.name == parent }), seen.insert(parent).inserted {
            current = next
        }
        return current
    }

    /// A many-to-many's join table as the store has it: its two columns (`source` the id of the
    /// relationship's own entity, `target` the destination's) and, ordered, the target's order column.
    struct Join: Equatable {
        var table: String
        var source: String
        var target: String
        var order: String?
    }

    /// Whether `column` is Core Data's name `base` for a join table's column: the name itself, or the name
    /// and a number (`Z_2ARTISTS1`), which Core Data gives when another join table of the same entity
    /// already has a column of that name.
    package static func isJoinColumn(_ column: String, named base: String) -> Bool {
        guard column.hasPrefix(base) else { return false }
        let rest = column.dropFirst(base.count)
        return rest.allSatisfy { $0.isASCII && $0.isNumber } && rest.first != "0"
    }

    /// Each many-to-many of `version` (by `Entity.relationship`, both directions) and the store's join table
    /// of it, found by the table's own columns: one for each side, `Z_<entity number><name of the
    /// relationship pointing at that entity>` (with a suffix when taken), and nothing else but Core Data's
    /// order columns (`Z_FOK_…`). The table's name is not relied on. `problems`: a many-to-many with no
    /// such table, or with two.
    func joins(_ version: CoreDataOrigin.Version, numbers: [String: Int64], tables: StoreTables) -> (
        found: [String: Join], problems: [Difference]
    ) {
        struct Pair {
            var entity: String; var relationship: CoreDataOrigin.Relationship; var destination: String;
            var inverse: CoreDataOrigin.Relationship
        }
        var pairs: [Pair] = []
        var seen: Set<String> = []
        for entity in version.entities {
            for relationship in entity.relationships where relationship.toMany && relationship.transient != true {
                guard let destination = relationship.destination, let inverseName = relationship.inverse,
                    let inverse = version.entities.first(where: { $0.name == destination })?.relationships.first(where: {
                        $0.name == inverseName
                    }),
                    inverse.toMany, inverse.transient != true
                else { continue }
                let key = [entity.name + "." + relationship.name, destination + "." + inverseName].sorted().joined(separator: "|")
                if seen.insert(key).inserted {
                    pairs.append(Pair(entity: entity.name, relationship: relationship, destination: destination, inverse: inverse))
                }
            }
        }
        let joinTables = tables.names.filter { $0.key.range(of: "^Z_[0-9]", options: .regularExpression) != nil }.sorted { $0.key < $1.key }
        var found: [String: Join] = [:]
        var problems: [Difference] = []
        var claimed: [String: String] = [:] // join table → the many-to-many it holds
        for pair in pairs {
            let sourceBase = "Z_\(numbers[pair.entity] ?? -1)\(pair.inverse.name.uppercased())"
            let targetBase = "Z_\(numbers[pair.destination] ?? -1)\(pair.relationship.name.uppercased())"
            var candidates: [(join: Join, exact: Int)] = []
            for (upper, name) in joinTables {
                let columns = Set(tables.columns(of: upper).keys)
                for source in columns.sorted() where Self.isJoinColumn(source, named: sourceBase) {
                    for target in columns.sorted() where target != source && Self.isJoinColumn(target, named: targetBase) {
                        guard columns.subtracting([source, target]).allSatisfy({ $0.hasPrefix("Z_FOK_") }) else { continue }
                        candidates.append(
                            (
                                Join(table: name, source: source, target: target, order: nil),
                                (source == sourceBase ? 1 : 0) + (target == targetBase ? 1 : 0)
                            ))
                    }
                }
            }
            // Two readings of one table's columns (a relationship named like another and a number): the
            // one with fewer suffixes is Core Data's.
            let best = candidates.map(\.exact).max()
            let chosen = candidates.filter { $0.exact == best }.map(\.join)
            let described = "\(pair.entity).\(pair.relationship.name) ↔ \(pair.destination).\(pair.inverse.name)"
            guard chosen.count == 1, var join = chosen.first else {
                if chosen.isEmpty {
                    problems.append(
                        Difference(
                            .missingJoinTable(relationships: [
                                pair.entity + "." + pair.relationship.name, pair.destination + "." + pair.inverse.name,
                            ]),
                            numbers[pair.entity] == nil || numbers[pair.destination] == nil
                                ? "no join table of \(described) (the store has no entity \([pair.entity, pair.destination].filter { numbers[$0] == nil }.joined(separator: " or ")))"
                                : "no join table of \(described) (columns \(sourceBase) and \(targetBase), or those names and a number)"))
                } else {
                    problems.append(
                        Difference(
                            "two join tables could be \(described)'s: \(chosen.map { "\($0.table) (\($0.source), \($0.target))" }.joined(separator: ", "))"
                        ))
                }
                continue
            }
            if let other = claimed[join.table.uppercased()] {
                problems.append(Difference("join table \(join.table) would hold both \(other) and \(described)"))
                continue
            }
            claimed[join.table.uppercased()] = described
            let columns = tables.columns(of: join.table)
            func order(_ column: String) -> String? {
                columns["Z_FOK_" + column.dropFirst(2)] != nil ? "Z_FOK_" + column.dropFirst(2) : nil
            }
            join.order = pair.relationship.ordered == true ? order(join.target) : nil
            found[pair.entity + "." + pair.relationship.name] = join
            found[pair.destination + "." + pair.inverse.name] = Join(
                table: join.table, source: join.target, target: join.source, order: pair.inverse.ordered == true ? order(join.source) : nil)
        }
        for (upper, name) in joinTables where claimed[upper] == nil {
            problems.append(
                Difference(
                    .extraJoinTable(table: name),
                    "the store has table \(name), which is no join table of a many-to-many of model \(version.model)"))
        }
        return (found, problems)
    }

    /// The store's entity numbers by name (its own entities: Core Data's history and CloudKit entities,
    /// numbered from 16000, are not the model's).
    static func numbers(_ layout: CoreDataStoreLayout) -> [String: Int64] {
        Dictionary(layout.entities.map { ($0.name, $0.number) }, uniquingKeysWith: { first, _ in first })
    }

    /// The names of an entity's parents in the store, nearest first (empty for a root); nil when a number
    /// names no entity of the store or the parents go round.
    static func ancestors(of entity: CoreDataStoreLayout.Entity, in layout: CoreDataStoreLayout) -> [String]? {
        var names: [String] = []
        var parent = entity.parent
        while parent != 0 {
            guard let next = layout.entities.first(where: { $0.number == parent }), names.count < layout.entities.count else { return nil }
            names.append(next.name)
            parent = next.parent
        }
        return names
    }

    static func modelEntities(_ layout: CoreDataStoreLayout) -> Set<String> {
        Set(layout.entities.filter { $0.number < 16000 }.map(\.name))
    }

    /// How the store differs from a model version's layout (empty: it is that layout), table by table and
    /// column by column.
    private func differences(_ version: CoreDataOrigin.Version, layout: CoreDataStoreLayout, tables: StoreTables) -> [Difference] {
        var differences: [Difference] = []
        let stored = Self.modelEntities(layout)
        let modelled = Set(version.entities.map(\.name))
        let lacking = modelled.subtracting(stored)
        for name in stored.subtracting(modelled).sorted() {
            // An entity of the store's own that no other entity is under, a root (its table may be empty) or a
            // subentity of the version's entities (its root's table may hold none of its rows): drift.
            let entity = layout.entities.first { $0.name == name }
            let leaf = entity.map { entity in !layout.entities.contains { $0.parent == entity.number } } ?? false
            let ancestors = entity.map { Self.ancestors(of: $0, in: layout) }
            let underTheVersions = ancestors.map { $0 != nil && $0!.allSatisfy(modelled.contains) } ?? false
            differences.append(
                Difference(
                    leaf && underTheVersions && lacking.isEmpty ? .extraEntity(name: name) : .other,
                    "the store has entity \(name), which model \(version.model) does not"))
        }
        for name in lacking.sorted() {
            // No rows can be its: its hierarchy's table is the store's (no number tags a row as its), or absent.
            let rootName = version.entities.first { $0.name == name }.map { root(of: $0, in: version).name } ?? name
            let holdsNone = stored.contains(rootName) || tables.names["Z" + rootName.uppercased()] == nil
            differences.append(
                Difference(
                    stored.isSubset(of: modelled) && holdsNone ? .missingEntity(name: name) : .other,
                    "model \(version.model) has entity \(name), which the store does not"))
        }
        guard
            differences.allSatisfy({ if case .extraEntity = $0.kind { true } else if case .missingEntity = $0.kind { true } else { false } }
            )
        else { return differences }
        let numbers = Self.numbers(layout)
        let names = Dictionary(layout.entities.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
        for entity in version.entities {
            guard let stored = layout.entities.first(where: { $0.name == entity.name }) else { continue }
            let parent = stored.parent == 0 ? nil : names[stored.parent] ?? "number \(stored.parent)"
            if parent != entity.parent {
                differences.append(
                    Difference(
                        "Z_PRIMARYKEY gives \(entity.name) the parent \(parent ?? "none"), model \(version.model) \(entity.parent ?? "none")"
                    ))
            }
        }
        var expected: [String: [String: String?]] = [:] // root table → column → declared type (nil: not checked)
        for entity in version.entities {
            let rootName = root(of: entity, in: version).name
            // An absent entity's columns are not looked for, nor the table of a hierarchy the store has none of.
            if lacking.contains(entity.name) || lacking.contains(rootName) { continue }
            let table = "Z" + rootName.uppercased()
            for attribute in entity.attributes where attribute.transient != true {
                expected[table, default: [:]][attribute.storedColumn] = Self.declaredType(of: attribute.type)
            }
            for relationship in entity.relationships where relationship.transient != true && !relationship.toMany {
                expected[table, default: [:]]["Z" + relationship.name.uppercased()] = "INTEGER"
            }
            if expected[table] == nil { expected[table] = [:] }
        }
        for (table, columns) in expected.sorted(by: { $0.key < $1.key }) {
            guard tables.names[table] != nil else {
                differences.append(Difference("model \(version.model) keeps its rows in table \(table), which the store does not have"))
                continue
            }
            let actual = tables.columns(of: table)
            for column in ["Z_PK", "Z_ENT"] where actual[column] == nil {
                differences.append(Difference("\(table) has no column \(column)"))
            }
            for (column, type) in columns.sorted(by: { $0.key < $1.key }) {
                guard let declared = actual[column] else {
                    differences.append(Difference(.missingColumn(table: table, column: column), "\(table) has no column \(column)"));
                    continue
                }
                if let type, declared != type { differences.append(Difference("\(table).\(column) is \(declared), not \(type)")) }
            }
            for column in actual.keys.sorted() where columns[column] == nil && !["Z_PK", "Z_ENT", "Z_OPT"].contains(column) {
                // Core Data's own companions: the target entity's number of a to-one (`Z6_FOLDER`), orders (`Z_FOK_…`).
                if column.hasPrefix("Z_FOK_") || column.range(of: "^Z[0-9]+_", options: .regularExpression) != nil { continue }
                differences.append(
                    Difference(
                        .extraColumn(table: table, column: column), "\(table) has column \(column), which model \(version.model) does not"))
            }
        }
        differences += joins(version, numbers: numbers, tables: tables).problems
        return differences
    }

    /// What makes two model versions mean different things for the same stored layout.
    private func meaning(_ version: CoreDataOrigin.Version) -> [String] {
        version.entities.map { entity in
            entity.name + "("
                + entity.attributes.filter { $0.transient != true }.map { "\($0.name):\($0.type)" }.sorted().joined(separator: ",") + "|"
                + entity.relationships.filter { $0.transient != true }.map {
                    "\($0.name):\($0.toMany):\($0.ordered == true):\($0.destination ?? "")"
                }.sorted().joined(separator: ",") + ")"
        }.sorted()
    }

    /// The model version the store is: the oldest of those whose layout it has, when they mean the same
    /// (or the one the store's version hashes name). When none is, the refusal names the versions that
    /// have the store's entities (and those its version hashes name), each with what differs.
    func recognise(_ db: Database, layout: CoreDataStoreLayout) throws -> Recognition {
        var matching: [CoreDataOrigin.Version] = []
        var mismatched: [(version: CoreDataOrigin.Version, differences: [Difference])] = []
        let tables = try StoreTables(db)
        for stored in origin.versions {
            // A composite's elements are found in the store: from here on each is an attribute of its own.
            let (version, unfound) = expandingComposites(stored, tables: tables)
            let found = differences(version, layout: layout, tables: tables) + unfound.map { Difference($0) }
            if found.isEmpty { matching.append(version) } else { mismatched.append((version, found)) }
        }
        let stored = try CoreDataMetadata.storedHashes(db)
        func named(_ version: CoreDataOrigin.Version) -> Bool {
            guard let stored, let hashes = version.hashes else { return false }
            return hashes.compactMapValues { Data(base64Encoded: $0) } == stored
        }
        guard !matching.isEmpty else {
            return try drifted(db, mismatched, layout: layout, tables: tables, named: named)
        }
        // The store's metadata names its model by the entities' version hashes: when the compiled model's
        // hashes were imported, they pick among versions whose layouts are the same.
        if matching.count > 1 {
            let picked = matching.filter(named)
            if picked.count == 1 { matching = picked }
        }
        let meanings = Set(matching.map(meaning))
        if meanings.count > 1 {
            throw Refusal(
                description:
                    "it is a Core Data store whose layout is that of model versions \(matching.map(\.model).joined(separator: ", ")), which store different things in it: which one the store is cannot be told from the file; nothing was changed"
            )
        }
        let chosen = matching[0]
        guard let version = try? SchemaVersion(parsing: chosen.version), let schema = versions.first(where: { $0.version == version })
        else {
            throw Refusal(
                description:
                    "the Core Data origin names version \(chosen.version), which this app's history does not have: import and generate again"
            )
        }
        return Recognition(version: chosen, schema: schema)
    }

    /// A store no version's layout is: the nearest of the versions with its entities, by meaning (the
    /// fewest differences; a tie between versions that store different things is refused unless the
    /// store's version hashes name one), taken when every difference is one Core Data's inferred mapping
    /// makes without data of its own: a column the version lacks (its values are not converted; the
    /// backup keeps them), a column the version has (its lucidgen column's default, or NULL), an empty
    /// join table no many-to-many holds (dropped). Anything else (a declared type, a required column with
    /// no default and rows, a table with rows) refuses the store with every difference and what to do.
    /// Indexes are not compared: Core Data's go with its tables, and lucidgen's are its version's.
    private func drifted(
        _ db: Database, _ mismatched: [(version: CoreDataOrigin.Version, differences: [Difference])], layout: CoreDataStoreLayout,
        tables: StoreTables,
        named: (CoreDataOrigin.Version) -> Bool
    ) throws -> Recognition {
        let entities = Self.modelEntities(layout)
        // The versions whose entities the store has (and perhaps entities of its own).
        let candidates = mismatched.filter { entry in
            let absent = entry.differences.compactMap { if case .missingEntity(let name) = $0.kind { name } else { nil } }
            return Set(entry.version.entities.map(\.name)).subtracting(absent).isSubset(of: entities)
        }
        func refusal(_ verdict: String? = nil) -> Refusal {
            Refusal(
                description: Self.noVersion(
                    mismatched.map { ($0.version, $0.differences.map(\.text)) }, entities: entities, named: named, verdict: verdict))
        }
        guard let fewest = candidates.map(\.differences.count).min() else { throw refusal() }
        func listed(_ differences: [String]) -> String {
            differences.prefix(20).joined(separator: "; ") + (differences.count > 20 ? "; and \(differences.count - 20) more" : "")
        }
        let advice =
            "import the model version the store was written with (its .xcdatamodel in the package, `lucidgen import coredata` again) and generate again"
        var nearest = candidates.filter { $0.differences.count == fewest }
        if nearest.count > 1 {
            let picked = nearest.filter { named($0.version) }
            if picked.count == 1 { nearest = picked }
        }
        if nearest.count > 1 {
            // Of versions as near, one that has a column for every value the store holds is nearer than one that would
            // leave values behind (a model edited toward the next version before it shipped: the next one keeps them).
            func leavesValues(_ entry: (version: CoreDataOrigin.Version, differences: [Difference])) throws -> Bool {
                for difference in entry.differences {
                    guard case .extraColumn(let table, let column) = difference.kind else { continue }
                    let sql =
                        "SELECT EXISTS (SELECT 1 FROM \(quoteIdentifier(tables.names[table] ?? table)) WHERE \(quoteIdentifier(column)) IS NOT NULL)"
                    if try Bool.fetchOne(db, sql: sql) ?? false { return true }
                }
                return false
            }
            let keeping = try nearest.filter { try !leavesValues($0) }
            if !keeping.isEmpty { nearest = keeping }
        }
        if nearest.count > 1 {
            // Core Data writes a Z_PRIMARYKEY row for every entity of the model it creates the store with: of
            // versions as near, those with exactly the store's entities are nearer than one with an entity it lacks
            // (a model edited after it shipped has the entities of the version it was edited from).
            let complete = nearest.filter { entry in
                !entry.differences.contains { if case .missingEntity = $0.kind { true } else { false } }
            }
            if !complete.isEmpty { nearest = complete }
        }
        if Set(nearest.map { meaning($0.version) }).count > 1 {
            throw refusal(
                "models \(nearest.map(\.version.model).joined(separator: ", ")) are equally near it (\(fewest) difference\(fewest == 1 ? "" : "s") each) and store different things, so which one it drifted from cannot be told: nothing was changed; \(advice)"
            )
        }
        let (version, differences) = nearest[0]
        guard let number = try? SchemaVersion(parsing: version.version), let schema = versions.first(where: { $0.version == number }) else {
            throw Refusal(
                description:
                    "the Core Data origin names version \(version.version), which this app's history does not have: import and generate again"
            )
        }
        var taken: [String] = [], refused: [String] = [], extraTables: [String] = [], linkless: Set<String> = [],
            absentEntities: Set<String> = []
        for difference in differences {
            switch difference.kind {
            case .extraColumn(let table, let column):
                let held =
                    try Int.fetchOne(
                        db,
                        sql:
                            "SELECT count(*) FROM \(quoteIdentifier(tables.names[table] ?? table)) WHERE \(quoteIdentifier(column)) IS NOT NULL"
                    ) ?? 0
                taken.append(
                    "\(difference.text): "
                        + (held == 0
                            ? "it holds no value"
                            : "its \(held) value\(held == 1 ? " is" : "s are") not converted (the .coredata-backup keeps them)"))
            case .missingColumn(let table, let column):
                let filled = try filling(table, column, in: version, schema: schema, layout: layout, db: db, tables: tables)
                if filled.refused.isEmpty {
                    taken.append(
                        "\(difference.text), which model \(version.model) has: "
                            + (filled.taken.isEmpty ? "lucidgen does not keep it" : filled.taken.joined(separator: ", ")))
                } else {
                    refused.append("\(difference.text), which model \(version.model) has: " + filled.refused.joined(separator: ", "))
                }
            case .extraJoinTable(let table):
                let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(table))") ?? 0
                if rows == 0 {
                    taken.append("\(difference.text): it is empty, and dropped with Core Data's tables")
                    extraTables.append(table)
                } else {
                    refused.append(
                        "\(difference.text), and it holds \(rows) row\(rows == 1 ? "" : "s"), which nothing of lucidgen's would keep")
                }
            case .missingJoinTable(let relationships):
                // A many-to-many the store's own model did not have (added by an edited model): it has no links.
                taken.append("\(difference.text), which model \(version.model) has: it has no links in the store, and none after")
                linkless.formUnion(relationships)
            case .missingEntity(let name):
                // An entity the store's own model did not have (added by an edited model): it has no rows.
                taken.append("\(difference.text): it has no rows in the store, and none after")
                absentEntities.insert(name)
            case .extraEntity(let name)
            where layout.entities.first(where: { $0.name == name }).map({ $0.parent != 0 }) ?? false:
                // A subentity of the store's own: its rows would be its root's table's, tagged with its number.
                let entity = layout.entities.first { $0.name == name }!
                let rootName = Self.ancestors(of: entity, in: layout)?.last ?? name
                guard let table = tables.names["Z" + rootName.uppercased()] else {
                    taken.append("\(difference.text): a subentity of \(rootName), whose table the store does not have: no rows")
                    continue
                }
                let rows =
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(table)) WHERE Z_ENT = ?", arguments: [entity.number])
                    ?? 0
                if rows > 0 {
                    refused.append(
                        "\(difference.text), and \(table) holds \(rows) row\(rows == 1 ? "" : "s") of it (Z_ENT \(entity.number)), which nothing of lucidgen's would keep"
                    )
                } else {
                    taken.append(
                        "\(difference.text): a subentity of \(rootName) with no rows in \(table) (Z_ENT \(entity.number)), left out")
                }
            case .extraEntity(let name):
                // Its table, when Core Data's (`Z<NAME>` with `Z_PK` and `Z_ENT`): empty, it goes with Core Data's.
                let table = tables.names["Z" + name.uppercased()]
                let coreDatas = table.map { ["Z_PK", "Z_ENT"].allSatisfy(tables.columns(of: $0).keys.contains) } ?? false
                let rows = try table.map { try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier($0))") ?? 0 } ?? 0
                if let table, !coreDatas {
                    refused.append("\(difference.text), and \(table) is not a Core Data entity table (no Z_PK and Z_ENT)")
                } else if rows > 0, let table {
                    refused.append(
                        "\(difference.text), and its table \(table) holds \(rows) row\(rows == 1 ? "" : "s"), which nothing of lucidgen's would keep"
                    )
                } else if let table {
                    taken.append("\(difference.text): its table \(table) is empty, and dropped with Core Data's tables")
                    extraTables.append(table)
                } else {
                    taken.append("\(difference.text): it has no table, and no rows")
                }
            case .other:
                refused.append(difference.text)
            }
        }
        let of =
            "the nearest is model \(version.model) (\(version.version), \(fewest) difference\(fewest == 1 ? "" : "s")\(nearest.count > 1 ? ", as near as \(nearest.dropFirst().map(\.version.model).joined(separator: ", ")), which store the same things" : ""))"
        guard refused.isEmpty else {
            throw refusal(
                "\(of), and not every difference can be taken without data of its own: \(listed(refused)); nothing was changed; \(advice), or make the store model \(version.model)'s layout before opening it"
            )
        }
        return Recognition(
            version: version, schema: schema, drift: taken, extraTables: extraTables, linkless: linkless, absentEntities: absentEntities)
    }

    /// What lucidgen's columns get for a column of `version`'s layout in `table` that the store lacks: for
    /// each entity whose rows are in that table and that has the attribute or to-one, its column's default,
    /// or NULL; refused when the column is required, has no default, and the entity has rows.
    private func filling(
        _ table: String, _ column: String, in version: CoreDataOrigin.Version, schema: Schema, layout: CoreDataStoreLayout, db: Database,
        tables: StoreTables
    ) throws -> (taken: [String], refused: [String]) {
        var taken: [String] = [], refused: [String] = []
        let numbers = Self.numbers(layout)
        for entity in version.entities where "Z" + root(of: entity, in: version).name.uppercased() == table && entity.abstract != true {
            guard let lucidName = entity.table, let lucidTable = schema.tables.first(where: { $0.name == lucidName }) else { continue }
            let lineage = self.lineage(of: entity, in: version)
            let properties =
                lineage.flatMap(\.attributes).filter { $0.transient != true }.map { ($0.name, $0.storedColumn, $0.column) }
                + lineage.flatMap(\.relationships).filter { $0.transient != true && !$0.toMany }.map {
                    ($0.name, "Z" + $0.name.uppercased(), $0.column)
                }
            for (name, stored, mapped) in properties where stored == column {
                guard let mapped, let target = lucidTable.column(named: mapped) else { continue }
                let rows =
                    try Int.fetchOne(
                        db,
                        sql:
                            "SELECT count(*) FROM \(quoteIdentifier(sourceTable(of: entity, in: version, tables: tables))) AS s WHERE \(predicate("s", [entity], in: version, numbers: numbers))"
                    ) ?? 0
                let place = "\(entity.name).\(name) (\(lucidName).\(mapped))"
                if target.notNull && target.defaultSQL == nil && rows > 0 {
                    refused.append(
                        "\(place) is required and has no default, and \(rows) row\(rows == 1 ? "" : "s") of \(entity.name) would need a value"
                    )
                } else {
                    taken.append(
                        "\(place) \(target.defaultSQL.map { "gets its default \($0)" } ?? "is NULL") in \(rows == 1 ? "its 1 row" : "its \(rows) rows")"
                    )
                }
            }
        }
        return (taken, refused)
    }

    /// The refusal of a store no version's layout is: the versions with the store's entities and those its
    /// version hashes name, each with every difference; when none has its entities, the nearest by entities.
    /// `verdict`: why the nearest version's differences are not taken (``drifted(_:_:layout:tables:named:)``), and what to do.
    private static func noVersion(
        _ mismatched: [(version: CoreDataOrigin.Version, differences: [String])], entities: Set<String>,
        named: (CoreDataOrigin.Version) -> Bool, verdict: String? = nil
    ) -> String {
        let candidates = mismatched.filter { Set($0.version.entities.map(\.name)) == entities || named($0.version) }
        let shown: [(version: CoreDataOrigin.Version, differences: [String])]
        let lead: String
        if candidates.isEmpty {
            let distance = { (version: CoreDataOrigin.Version) in Set(version.entities.map(\.name)).symmetricDifference(entities).count }
            let nearest = mismatched.map { distance($0.version) }.min()
            shown = mismatched.filter { distance($0.version) == nearest }
            lead = "no imported model version has the store's entities (\(entities.sorted().joined(separator: ", "))); the nearest"
        } else {
            shown = candidates
            lead = "the versions with the store's entities or named by its version hashes"
        }
        let details = shown.map { entry in
            let why = [
                Set(entry.version.entities.map(\.name)) == entities ? "its entities" : nil,
                named(entry.version) ? "its version hashes" : nil,
            ].compactMap { $0 }
            let listed =
                entry.differences.prefix(20).joined(separator: "; ")
                + (entry.differences.count > 20 ? "; and \(entry.differences.count - 20) more" : "")
            return
                "model \(entry.version.model) (\(entry.version.version)\(why.isEmpty ? "" : ", the store has " + why.joined(separator: " and "))): \(listed)"
        }
        return "it is a Core Data store whose layout is none of the imported model versions; \(lead): " + details.joined(separator: " | ")
            + (verdict.map { "; \($0)" } ?? "; nothing was changed")
    }

    // MARK: Converting

    /// Core Data's date: seconds since 2001-01-01, as lucidgen's text (GRDB's format), to the millisecond.
    static func dateExpression(_ column: String) -> String {
        "CASE WHEN \(column) IS NULL THEN NULL ELSE strftime('%Y-%m-%d %H:%M:%f', \(column) + 978307200, 'unixepoch') END"
    }

    /// Fills `recognition.schema`'s tables (created here) from the Core Data tables, carries each root's
    /// `Z_MAX` (or, not recorded, its largest id) into `sqlite_sequence`, and drops Core Data's tables. Run
    /// inside the caller's transaction: every entity's rows and every link are counted against
    /// ``account(_:_:layout:)``'s count of the Core Data rows, and any difference is thrown (the caller
    /// rolls back). Returns what it did.
    func convert(_ db: Database, _ recognition: Recognition, layout: CoreDataStoreLayout, report: (String) -> Void = { _ in }) throws
        -> CoreDataConversionReport
    {
        let schema = recognition.schema
        let account = try self.account(db, recognition, layout: layout)
        let maxIDs = Dictionary(layout.entities.map { ($0.name, $0.maxID) }, uniquingKeysWith: { first, _ in first })
        let tables = try StoreTables(db)
        for table in schema.tables where tables.names[table.name.uppercased()] != nil {
            throw Refusal(
                description:
                    "the Core Data store has a table \(tables.names[table.name.uppercased()] ?? table.name), the name of lucidgen's table \(table.name) at \(schema.version): nothing was changed"
            )
        }
        for statement in schema.ddl { try db.execute(sql: statement) }
        let numbers = Self.numbers(layout)
        let supportFolder = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(
            ".\(((path as NSString).lastPathComponent as NSString).deletingPathExtension)_SUPPORT/_EXTERNAL_DATA")
        var written: [String: Int] = [:] // lucidgen's table → rows written
        for placement in account.placements {
            let table = try copyRows(
                of: placement, db, recognition, maxIDs: maxIDs, numbers: numbers, tables: tables, supportFolder: supportFolder,
                report: report)
            written[table, default: 0] += placement.rows
        }
        try checkCounts(db, written: written, account: account)
        try fillLinks(db, account, report: report)
        for note in account.notes { report(note) }
        // Core Data's tables go (their indexes and triggers with them): the store is lucidgen's now.
        let dropped = try dropCoreDataTables(db, recognition, layout: layout, numbers: numbers, tables: tables)
        report("dropped Core Data's tables: \(dropped.joined(separator: ", "))")
        try checkViews(db)
        return account.report(recognition)
    }

    /// One placement's rows copied into lucidgen's table: ids kept, dates and decimals as lucidgen stores
    /// them, dangling to-ones NULL, externally stored values read back, the id sequence carried. Returns
    /// the table; refuses when fewer or more rows were written than the account counted.
    private func copyRows(
        of placement: Placement, _ db: Database, _ recognition: Recognition, maxIDs: [String: Int64?], numbers: [String: Int64],
        tables: StoreTables, supportFolder: String, report: (String) -> Void
    ) throws -> String {
        let version = recognition.version, schema = recognition.schema
        let entity = placement.entity
        guard let table = entity.table, let lucidTable = schema.tables.first(where: { $0.name == table }) else {
            throw Refusal(
                description:
                    "the Core Data origin maps \(entity.name) to table \(entity.table ?? "(none)"), which \(schema.version) does not have: import and generate again"
            )
        }
        var columns = [quoteIdentifier("id")]
        var values = ["s.Z_PK"]
        if let kind = entity.kind {
            guard let column = lucidTable.columns.first(where: \.isKindColumn) else {
                throw Refusal(
                    description:
                        "the Core Data origin puts \(entity.name) in hierarchy table \(table), which has no kind column at \(schema.version): import and generate again"
                )
            }
            columns.append(quoteIdentifier(column.name))
            values.append(quoteLiteral(kind))
        }
        var external: [(column: String, source: String)] = []
        let lineage = self.lineage(of: entity, in: version)
        // A drifted store (``Recognition/drift``) may lack a column of the version's: its default, or NULL.
        let present = tables.columns(of: placement.source)
        func absent(_ storedColumn: String, _ target: SchemaColumn?) throws -> Bool {
            guard present[storedColumn] == nil else { return false }
            if let target, target.notNull, target.defaultSQL == nil, placement.rows > 0 {
                throw Refusal(
                    description:
                        "\(placement.source) has no column \(storedColumn), and \(table).\(target.name) is required with no default: nothing was changed"
                )
            }
            values.append(target?.defaultSQL ?? "NULL")
            return true
        }
        for attribute in lineage.flatMap(\.attributes) where attribute.transient != true {
            guard let column = attribute.column else { continue }
            guard let target = lucidTable.column(named: column) else {
                throw Refusal(
                    description:
                        "the Core Data origin maps \(entity.name).\(attribute.name) to \(table).\(column), which \(schema.version) does not have: import and generate again"
                )
            }
            let stored = "s." + attribute.storedColumn
            columns.append(quoteIdentifier(column))
            if try absent(attribute.storedColumn, target) { continue }
            var value: String =
                switch attribute.type {
                case "Date": Self.dateExpression(stored)
                case "Decimal": "CASE WHEN \(stored) IS NULL THEN NULL ELSE CAST(\(stored) AS TEXT) END"
                default: StoredValueRule(type: attribute.type, external: attribute.externalStorage == true)?.value(stored) ?? stored
                }
            // A required attribute Core Data left NULL (a row older than the attribute) gets the column's default.
            if target.notNull, let fallback = target.defaultSQL { value = "coalesce(\(value), \(fallback))" }
            values.append(value)
            if attribute.externalStorage == true { external.append((column, stored)) }
        }
        // A to-one naming no row is NULL (the account lists each one).
        for relationship in lineage.flatMap(\.relationships) where !relationship.toMany && relationship.transient != true {
            guard let column = relationship.column else { continue }
            let stored = "s.Z" + relationship.name.uppercased()
            columns.append(quoteIdentifier(column))
            if try absent("Z" + relationship.name.uppercased(), lucidTable.column(named: column)) { continue }
            if let destination = version.entities.first(where: { $0.name == relationship.destination }) {
                values.append(
                    "CASE WHEN \(exists(stored, of: destination, in: version, numbers: numbers, tables: tables)) THEN \(stored) END")
            } else {
                values.append(stored)
            }
        }
        try db.execute(
            sql:
                "INSERT INTO \(quoteIdentifier(table)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quoteIdentifier(placement.source)) AS s WHERE \(placement.predicate)"
        )
        guard db.changesCount == placement.rows else {
            throw Refusal(
                description:
                    "\(entity.name): \(placement.rows) rows of \(placement.source) are \(entity.name)'s, but \(db.changesCount) were written into \(table): nothing was changed"
            )
        }
        report("\(entity.name) → \(table): \(placement.rows) rows")
        // Values that allow external storage: tagged inline bytes, or a file beside the store.
        for (column, stored) in external {
            let rows = try Row.fetchAll(
                db,
                sql:
                    "SELECT s.Z_PK, \(stored) FROM \(quoteIdentifier(placement.source)) AS s WHERE \(placement.predicate) AND \(stored) IS NOT NULL"
            )
            for row in rows {
                let id: DatabaseValue = row[0]
                guard case .int64(let key) = id.storage, case .blob(let bytes) = (row[1] as DatabaseValue).storage else {
                    throw Refusal(
                        description:
                            "\(entity.name) \(CoreDataStoreLayout.describe(id)): its value of \(stored.dropFirst(2)) is not bytes: nothing was changed"
                    )
                }
                let value = try Self.externalValue(bytes, folder: supportFolder, entity: entity.name, id: key)
                try db.execute(
                    sql: "UPDATE \(quoteIdentifier(table)) SET \(quoteIdentifier(column)) = ? WHERE id = ?", arguments: [value, key])
            }
        }
        if lucidTable.autoincrement == true {
            // Ids are never handed out twice: the next is after the root's Z_MAX, or (not recorded) after the largest.
            let maxID = maxIDs[root(of: entity, in: version).name] ?? nil
            try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = ?", arguments: [table])
            try db.execute(
                sql:
                    "INSERT INTO sqlite_sequence (name, seq) SELECT ?, max(?, coalesce((SELECT max(id) FROM \(quoteIdentifier(table))), 0))",
                arguments: [table, maxID ?? 0])
        }
        return table
    }

    /// Every table written holds the rows written to it, and every Core Data row was placed.
    private func checkCounts(_ db: Database, written: [String: Int], account: Account) throws {
        for (table, rows) in written.sorted(by: { $0.key < $1.key }) {
            let found = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(table))") ?? 0
            guard found == rows else {
                throw Refusal(description: "\(table) holds \(found) rows after the conversion wrote \(rows): nothing was changed")
            }
        }
        for (table, rows) in account.tableRows.sorted(by: { $0.key < $1.key }) {
            let placed = account.placements.filter { $0.source == table }.map(\.rows).reduce(0, +)
            guard placed == rows else {
                throw Refusal(description: "\(table) has \(rows) rows, of which \(placed) were placed: nothing was changed")
            }
        }
    }

    /// Each to-many's link table, from Core Data's join table or from the child's to-one, counted against
    /// the account.
    private func fillLinks(_ db: Database, _ account: Account, report: (String) -> Void) throws {
        for link in account.links {
            let position = link.select.contains("row_number()") ? ", \(quoteIdentifier(LinkTable.positionColumn))" : ""
            try db.execute(
                sql:
                    "INSERT INTO \(quoteIdentifier(link.link)) (\(quoteIdentifier(LinkTable.sourceColumn)), \(quoteIdentifier(LinkTable.targetColumn))\(position)) \(link.select)"
            )
            guard db.changesCount == link.links else {
                throw Refusal(
                    description:
                        "\(link.relationship): \(link.links) rows of \(link.source) name rows that exist, but \(db.changesCount) links were written into \(link.link): nothing was changed"
                )
            }
            report("\(link.relationship) → \(link.link): \(link.links) links")
        }
    }

    /// Drops the tables Core Data's layout gives this model version: its entities' tables, its join tables,
    /// its bookkeeping, and history tracking's and CloudKit's (never a name `Z_PRIMARYKEY` gives). Returns
    /// their names.
    private func dropCoreDataTables(
        _ db: Database, _ recognition: Recognition, layout: CoreDataStoreLayout, numbers: [String: Int64], tables: StoreTables
    ) throws -> [String] {
        let version = recognition.version
        var dropped: [String] = []
        let joined = Set(joins(version, numbers: numbers, tables: tables).found.values.map { $0.table.uppercased() })
        let entityTables = Set(version.entities.map { "Z" + root(of: $0, in: version).name.uppercased() })
        let internalTables = Set(
            layout.entities.filter {
                $0.number >= 16000 && ($0.name.hasPrefix("NSCK") || ["CHANGE", "TRANSACTION", "TRANSACTIONSTRING"].contains($0.name))
            }
            .map { "A" + $0.name.uppercased() })
        for (upper, name) in tables.names.sorted(by: { $0.key < $1.key }) {
            let extra = recognition.extraTables.contains { $0.uppercased() == upper }
            guard
                ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains(upper) || joined.contains(upper) || entityTables.contains(upper)
                    || internalTables.contains(upper) || extra
            else { continue }
            if extra, try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(name))") != 0 {
                throw Refusal(description: "\(name), a table of Core Data's the drifted store has, is no longer empty: nothing was changed")
            }
            try db.execute(sql: "DROP TABLE \(quoteIdentifier(name))")
            dropped.append(name)
        }
        return dropped
    }

    /// The app's views must still read what they read: one over Core Data's tables would be left broken
    /// (and every later step refuse it), so the conversion does not happen.
    private func checkViews(_ db: Database) throws {
        for view in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name") {
            do {
                _ = try Row.fetchAll(db, sql: "SELECT * FROM \(quoteIdentifier(view)) LIMIT 0")
            } catch {
                throw Refusal(
                    description:
                        "the store's view \(view) reads Core Data's tables, which the conversion removes (\((error as? DatabaseError)?.message ?? "\(error)")): nothing was changed; drop the view (or make it read other tables) and open the store again"
                )
            }
        }
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
            guard !name.isEmpty, !name.contains("/"), !name.contains("\0"), name != ".", name != ".." else {
                throw Refusal(
                    description:
                        "\(entity) \(id): its externally stored value names '\(name)', which is not a file name: nothing was changed")
            }
            switch CoreDataExternalFile.read(name, in: folder) {
            case .success(let data): return data
            case .failure(let failure): throw Refusal(description: "\(entity) \(id): \(failure.description); nothing was changed")
            }
        default:
            throw Refusal(
                description:
                    "\(entity) \(id): its value allows external storage but starts with byte \(tag), neither 0x01 (inline) nor 0x02 (a file): nothing was changed"
            )
        }
    }
}
