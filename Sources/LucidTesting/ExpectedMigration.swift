import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// Computes the rows a store must hold after a migration, from the rows it held before, without running
/// the migration: step by step along the planned path, each value follows its column's lineage (renames,
/// conversions, to-one ↔ to-many), added columns get their defaults, and the app's expectations stand in
/// for its code.
///
/// It shares only the schema history (the registry) and the planner's decision of which conversion a
/// change is with the runtime, never its SQL nor SQLite itself: conversions (`CAST`), column affinity and
/// defaults are computed in Swift (``SQLiteValues``), so a conversion that loses values shows up as a
/// difference instead of being copied into the expectation.
struct ExpectedMigration {
    let versions: [Schema]
    let lineage: Lineage
    let inference: StepInference
    let options: StoreOptions
    let expectations: MigrationExpectations

    init(versions: [Schema], options: StoreOptions, expectations: MigrationExpectations) {
        self.versions = versions
        self.lineage = Lineage(versions: versions)
        self.inference = StepInference(versions: versions)
        self.options = options
        self.expectations = expectations
    }

    /// Reads every table of `schema` from a store, in rowid order.
    static func read(_ db: Database, at schema: Schema) throws -> ExpectedRows {
        var rows = ExpectedRows(schema: schema)
        for table in schema.tables {
            rows.tables[table.name] = try Row.fetchAll(db, sql: "SELECT * FROM \(quoteIdentifier(table.name)) ORDER BY rowid").map(
                dictionary)
        }
        return rows
    }

    static func dictionary(_ row: Row) -> [String: DatabaseValue] {
        var values: [String: DatabaseValue] = [:]
        for (column, value) in row { values[column] = value }
        return values
    }

    /// The rows after `steps`, given the rows before and the data migrations the store has recorded.
    func run(_ start: ExpectedRows, steps: [MigrationStep], recorded: Set<DataMigrationKey>) throws -> ExpectedRows {
        var current = start
        var recorded = recorded
        for step in steps {
            guard let fromIndex = versions.firstIndex(where: { $0.version == step.from }),
                let toIndex = versions.firstIndex(where: { $0.version == step.to })
            else { throw ExpectationError("step \(step.label) is not between two versions of the registry") }
            var stage: MigrationStage?
            if case .explicit = step.kind {
                stage = options.stages.first { $0.from == step.from && $0.to == step.to }
            }
            let transformed = Set(stage?.transforms.map(\.table) ?? [])
            var after = map(current, from: fromIndex, to: toIndex, skipping: transformed)
            // Rows of entities removed from a hierarchy are deleted rows: their references get their ON DELETE actions.
            for table in versions[toIndex].tables where !transformed.contains(table.name) {
                guard let kind = table.columns.first(where: \.isKindColumn),
                    inference.caseMapping(ofColumn: kind.name, table: table.name, at: toIndex, in: fromIndex).mapping.contains(where: {
                        $0.to == nil
                    })
                else { continue }
                applyDeleteActions(afterDroppingRowsOf: table.name, in: &after)
            }
            for table in transformed.sorted() {
                guard
                    let expectation = expectations.transforms.first(where: { $0.from == step.from && $0.to == step.to && $0.table == table }
                    )
                else {
                    throw ExpectationError(
                        "step \(step.label) transforms table \(table) with the app's code, but no expectation says what its rows become")
                }
                guard case .table(let source)? = lineage.origin(ofTable: table, at: toIndex, in: fromIndex) else {
                    // Rows that move into the table (an entity whose parent changed), made by the app's code from
                    // the source's rows of their kinds, ids kept.
                    after.tables[table] = []
                    for move in movedRows(into: table, from: fromIndex, to: toIndex, transformed: transformed) where move.transformed {
                        let kinds = Set(move.kinds.map(\.from))
                        let rows = (current.tables[sourceTable(of: move, from: fromIndex, to: toIndex)?.name ?? move.source] ?? []).filter {
                            row in
                            guard let kindColumn = move.sourceKindColumn else { return true }
                            guard case .string(let kind)? = row[kindColumn]?.storage else { return false }
                            return kinds.contains(kind)
                        }
                        after.tables[table, default: []] += try rows.compactMap { try expectation.expect(Row($0)) }
                    }
                    continue
                }
                after.tables[table] = try (current.tables[source] ?? []).compactMap { try expectation.expect(Row($0)) }
                // A value the oracle cannot know (a non-constant default) stays unknown through the app's code.
                if let volatile = current.volatile[source], !volatile.isEmpty {
                    let columns = Set(versions[toIndex].table(named: table)?.columns.map(\.name) ?? [])
                    after.volatile[table, default: []].formUnion(volatile.intersection(columns))
                }
            }
            for table in transformed.sorted() { applyDeleteActions(afterDroppingRowsOf: table, in: &after) }
            after = try normalize(after)
            if let stage, stage.willMigrate != nil || stage.didMigrate != nil {
                guard let expectation = expectations.stages.first(where: { $0.from == step.from && $0.to == step.to }) else {
                    throw ExpectationError(
                        "step \(step.label) runs the stage '\(stage.label)', but no expectation says what it does to the rows")
                }
                try expectation.apply(current, &after)
                after = try normalize(after)
            }
            for migration in dataMigrations(after: step.from, upTo: step.to, excluding: recorded) {
                try apply(migration, to: &after)
                recorded.insert(DataMigrationKey(migration))
            }
            current = after
        }
        // Data migrations added after the store passed their version run once, after the path.
        for migration in dataMigrations(after: nil, upTo: current.version, excluding: recorded) {
            try apply(migration, to: &current)
        }
        return current
    }

    struct DataMigrationKey: Hashable {
        var version: SchemaVersion
        var label: String

        init(version: SchemaVersion, label: String) {
            self.version = version
            self.label = label
        }

        init(_ migration: DataMigration) {
            self.init(version: migration.version, label: migration.label)
        }
    }

    private func dataMigrations(after lower: SchemaVersion?, upTo upper: SchemaVersion, excluding recorded: Set<DataMigrationKey>)
        -> [DataMigration]
    {
        options.dataMigrations
            .filter { migration in
                migration.version <= upper && (lower.map { migration.version > $0 } ?? true)
                    && !recorded.contains(DataMigrationKey(migration))
            }
            .sorted { ($0.version, $0.label) < ($1.version, $1.label) }
    }

    private func apply(_ migration: DataMigration, to rows: inout ExpectedRows) throws {
        guard let expectation = expectations.dataMigrations.first(where: { $0.version == migration.version && $0.label == migration.label })
        else {
            throw ExpectationError(
                "the data migration \(migration.version) '\(migration.label)' runs, but no expectation says what it does to the rows")
        }
        try expectation.apply(&rows)
        rows = try normalize(rows)
    }

    /// A row a transform drops is a deleted row: rows referencing it get their foreign key's ON DELETE
    /// action (CASCADE: gone, SET NULL: reference cleared), down the chain.
    func applyDeleteActions(afterDroppingRowsOf table: String, in rows: inout ExpectedRows) {
        var pending = [table]
        var visited: Set<String> = []
        while let parent = pending.popLast() {
            guard visited.insert(parent).inserted, let parentTable = rows.schema.table(named: parent) else { continue }
            for child in rows.schema.tables {
                for key in child.foreignKeys where sqlNameKey(key.table) == sqlNameKey(parent) && key.onDelete != .noAction {
                    let parentColumns = key.tableColumns.isEmpty ? parentTable.primaryKey : key.tableColumns
                    let keys = Set((rows.tables[parentTable.name] ?? []).map { row in parentColumns.map { row[$0] ?? .null } })
                    func isOrphan(_ row: [String: DatabaseValue]) -> Bool {
                        let values = key.columns.map { row[$0] ?? .null }
                        return !values.contains(where: \.isNull) && !keys.contains(values)
                    }
                    let before = rows.tables[child.name] ?? []
                    switch key.onDelete {
                    case .cascade:
                        rows.tables[child.name] = before.filter { !isOrphan($0) }
                        if rows.tables[child.name]!.count != before.count { pending.append(child.name) }
                    case .setNull:
                        rows.tables[child.name] = before.map { row in
                            guard isOrphan(row) else { return row }
                            var row = row
                            for column in key.columns { row[column] = .null }
                            return row
                        }
                    case .setDefault:
                        rows.tables[child.name] = before.map { row in
                            guard isOrphan(row) else { return row }
                            var row = row
                            for column in key.columns {
                                row[column] = child.column(named: column)?.defaultSQL.flatMap(SQLiteValues.literal) ?? .null
                            }
                            return row
                        }
                    case .noAction, .restrict:
                        break
                    }
                }
            }
        }
    }

    /// The rows of `rows` (at version index `fromIndex`) as the schema at `toIndex` holds them, for every
    /// table not in `skipping`. Columns without an origin are left out: `normalize` gives them their default.
    func map(_ rows: ExpectedRows, from fromIndex: Int, to toIndex: Int, skipping: Set<String>) -> ExpectedRows {
        let source = versions[fromIndex]
        let target = versions[toIndex]
        var result = ExpectedRows(schema: target)
        for table in target.tables where !skipping.contains(table.name) {
            switch lineage.origin(ofTable: table.name, at: toIndex, in: fromIndex) {
            case .table(let sourceName)?:
                let sourceKey = source.table(named: sourceName)?.primaryKey.first
                let origins = table.columns.map {
                    ($0.name, lineage.origin(ofColumn: $0.name, table: table.name, at: toIndex, in: fromIndex))
                }
                // Each version's conversion along the way, in order (the planner decides which; the values are computed here).
                var conversions: [String: [ValueConversion]] = [:]
                for column in table.columns {
                    if case .success(let steps)? = inference.conversions(
                        ofColumn: column.name, table: table.name, at: toIndex, in: fromIndex)
                    {
                        conversions[column.name] = steps
                    }
                }
                // Enum values of renamed and removed cases, composed over the versions of the step.
                var caseMappings: [String: [String: String?]] = [:]
                for column in table.columns {
                    let mapping = inference.caseMapping(ofColumn: column.name, table: table.name, at: toIndex, in: fromIndex).mapping
                    if !mapping.isEmpty {
                        caseMappings[column.name] = Dictionary(mapping.map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
                    }
                }
                var volatile: Set<String> = []
                for (column, origin) in origins {
                    if case .column(_, let name)? = origin, rows.volatile[sourceName]?.contains(name) == true { volatile.insert(column) }
                }
                // A column that is required at the target takes its default where the old value is NULL (a
                // nullable column became required); a non-constant default is only checked to be non-NULL.
                var fills: [String: DatabaseValue] = [:]
                for column in table.columns where column.notNull {
                    guard let defaultSQL = column.defaultSQL else { continue }
                    switch origins.first(where: { $0.0 == column.name })?.1 {
                    case .column(let oldTable, let oldName)?:
                        guard source.table(named: oldTable)?.column(named: oldName)?.notNull == false else { continue }
                    case .jsonMember?:
                        break // a member of a JSON struct made composite: missing or null in the JSON takes the default
                    default:
                        continue
                    }
                    if let literal = SQLiteValues.literal(defaultSQL) {
                        fills[column.name] = literal
                    } else {
                        fills[column.name] = Self.currentDateText.databaseValue
                        volatile.insert(column.name)
                    }
                }
                result.volatile[table.name] = volatile
                // Elements of optional composites that take their default where the composite is present: added
                // at this step (with a default), or becoming required in it. Present: a sibling the store holds is not NULL.
                var compositeFills: [(column: String, siblings: [String], added: Bool, value: DatabaseValue?)] = []
                for column in table.columns {
                    guard let group = column.compositeGroup,
                        let origin = origins.first(where: { $0.0 == column.name })?.1 as Lineage.Origin??
                    else { continue }
                    let siblings = group.filter { name in name != column.name && origins.contains { $0.0 == name && $0.1 != nil } }
                    let value = column.defaultSQL.flatMap(SQLiteValues.literal)
                    switch origin {
                    case nil:
                        if column.defaultSQL != nil { compositeFills.append((column.name, siblings, true, value)) }
                    case .column(let oldTable, let oldName)?:
                        let was = source.table(named: oldTable)?.column(named: oldName)
                        if column.requiredWhenPresent == true, was?.requiredWhenPresent != true, was?.notNull == false, value != nil {
                            compositeFills.append((column.name, siblings, false, value))
                        }
                    case .jsonMember?:
                        // A JSON struct made composite: a required member missing or null in the JSON takes its default where present.
                        if column.requiredWhenPresent == true, value != nil { compositeFills.append((column.name, siblings, false, value)) }
                    default: break
                    }
                }
                // A to-many relationship that becomes ordered: each source's links numbered from 0 in rowid order.
                let numbersLinks =
                    table.kind == .join && table.column(named: LinkTable.positionColumn) != nil
                    && origins.contains { sameSQLName($0.0, LinkTable.positionColumn) && $0.1 == nil }
                var linksSeen: [DatabaseValue: Int] = [:]
                // Entity inheritance: the rows of entities removed on the way are deleted (their kind maps to NULL).
                let deletedKinds = Set(
                    table.columns.filter(\.isKindColumn).flatMap { column in
                        (caseMappings[column.name] ?? [:]).filter { $0.value == nil }.map { (column.name, $0.key) }
                    }
                    .map { "\($0.0)\u{0}\($0.1)" })
                let kindSource = table.columns.first(where: \.isKindColumn).flatMap { column -> String? in
                    if case .column(_, let name)? = origins.first(where: { $0.0 == column.name })?.1 { return name }
                    return nil
                }
                let kept = (rows.tables[sourceName] ?? []).filter { row in
                    guard !deletedKinds.isEmpty, let kindSource, let kindColumn = table.columns.first(where: \.isKindColumn),
                        case .string(let kind)? = row[kindSource]?.storage
                    else { return true }
                    return !deletedKinds.contains("\(kindColumn.name)\u{0}\(kind)")
                }
                result.tables[table.name] = kept.map { row in
                    var values: [String: DatabaseValue] = [:]
                    if numbersLinks {
                        let source = row[LinkTable.columns(of: table).source] ?? .null
                        values[LinkTable.positionColumn] = (linksSeen[source] ?? 0).databaseValue
                        linksSeen[source, default: 0] += 1
                    }
                    for (column, origin) in origins {
                        switch origin {
                        case .column(_, let name)?:
                            let value = (conversions[column] ?? []).reduce(row[name] ?? .null) { value, conversion in
                                switch conversion {
                                case .unchanged: value
                                case .cast(let storage): SQLiteValues.cast(value, to: storage)
                                }
                            }
                            var mapped = value
                            if let mapping = caseMappings[column], case .string(let text) = value.storage, let target = mapping[text] {
                                mapped = target.map(\.databaseValue) ?? .null
                            }
                            values[column] = mapped.isNull ? fills[column] ?? mapped : mapped
                        case .jsonMember(_, let name, let path)?:
                            // A struct stored as JSON became a composite: the member's value, as `json_extract` reads it.
                            let value = Self.jsonMember(
                                row[name] ?? .null, path: path, valueType: target.table(named: table.name)?.column(named: column)?.valueType
                            )
                            values[column] = value.isNull ? fills[column] ?? value : value
                        case .table(let join)?:
                            // A to-many relationship became to-one: the single link (more would fail the migration).
                            let key = sourceKey.flatMap { row[$0] } ?? .null
                            let link = LinkTable.columns(of: source.table(named: join))
                            values[column] = rows.tables[join]?.first(where: { $0[link.source] == key })?[link.target] ?? .null
                        case nil:
                            break
                        }
                    }
                    // Elements of optional composites: a default fills only the rows where the composite is present.
                    for fill in compositeFills {
                        let present = fill.siblings.contains { values[$0].map { !$0.isNull } ?? false }
                        if fill.added {
                            values[fill.column] = present ? fill.value ?? .null : .null
                        } else if present, values[fill.column]?.isNull ?? true, let value = fill.value {
                            values[fill.column] = value
                        }
                    }
                    return values
                }
            case .column(let owner, let column)?:
                // A to-one relationship became to-many: one link per row that had one.
                let ownerKey = source.table(named: owner)?.primaryKey.first ?? "id"
                result.tables[table.name] = (rows.tables[owner] ?? []).compactMap { row in
                    guard let target = row[column], !target.isNull else { return nil }
                    // Ordered: the single link is the first of its list.
                    let link = LinkTable.columns(of: table)
                    if table.column(named: LinkTable.positionColumn) != nil {
                        return [link.source: row[ownerKey] ?? .null, link.target: target, LinkTable.positionColumn: 0.databaseValue]
                    }
                    return [link.source: row[ownerKey] ?? .null, link.target: target]
                }
            case .jsonMember?, nil: // a table's origin is a table or a column
                result.tables[table.name] = []
            }
        }
        // An entity that gains, loses or changes its parent: its rows (of its kinds) come along, ids kept, each
        // column by name, the kind as the planner says; the rows left behind went with their kind (above).
        for move in movedRows(into: nil, from: fromIndex, to: toIndex, transformed: skipping) where !move.transformed {
            guard let sourceTable = sourceTable(of: move, from: fromIndex, to: toIndex) else { continue }
            let kinds = Dictionary(move.kinds.map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
            for row in rows.tables[sourceTable.name] ?? [] {
                var values: [String: DatabaseValue] = [:]
                if let sourceKind = move.sourceKindColumn {
                    guard case .string(let kind)? = row[sourceKind]?.storage, let newKind = kinds[kind] else { continue }
                    if let kindColumn = move.kindColumn { values[kindColumn] = newKind.databaseValue }
                } else if let kindColumn = move.kindColumn {
                    values[kindColumn] = move.kind.map(\.databaseValue) ?? .null
                }
                for column in move.columns { values[column] = row[column] ?? .null }
                result.tables[move.table, default: []].append(values)
            }
        }
        return result
    }

    /// The rows the planner moves between tables from one version to the next (into `table`, or into any
    /// table when nil), with `transformed` tables made by the app's code (``RowMove/transformed``).
    func movedRows(into table: String?, from fromIndex: Int, to toIndex: Int, transformed: Set<String>) -> [RowMove] {
        guard toIndex == fromIndex + 1 else { return [] }
        return ((try? inference.operations(from: fromIndex, to: toIndex, transformedTables: transformed).get()) ?? []).compactMap {
            operation in
            guard case .moveRows(let move) = operation, table.map({ $0 == move.table }) ?? true else { return nil }
            return move
        }
    }

    /// The table at `fromIndex` that a move's rows come from (the move names it as during the step, after renames).
    func sourceTable(of move: RowMove, from fromIndex: Int, to toIndex: Int) -> SchemaTable? {
        versions[fromIndex].tables.first { table in
            table.name == move.source || versions[toIndex].table(named: move.source)?.renamedFrom == table.name
        }
    }

    /// The member at `path` (`$.a.b`) of JSON text, computed in Swift as SQLite's `json_extract` gives it
    /// (strings as text, integers as integers, other numbers as reals, booleans as 1/0, anything missing
    /// or null as NULL), then as the column stores it: a date's milliseconds since 1970 as GRDB's date text.
    static func jsonMember(_ json: DatabaseValue, path: String, valueType: ValueType?) -> DatabaseValue {
        guard case .string(let text) = json.storage, var value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            return .null
        }
        for key in path.dropFirst(2).split(separator: ".") {
            guard case .object(let object) = value, let member = object[String(key)] else { return .null }
            value = member
        }
        let extracted: DatabaseValue
        switch value {
        case .string(let string): extracted = string.databaseValue
        case .bool(let flag): extracted = (flag ? 1 : 0).databaseValue
        case .integer(let integer): extracted = integer.databaseValue
        case .real(let real): extracted = real.databaseValue
        case .null, .object, .array: return .null
        }
        guard valueType == .date, case .int64(let milliseconds) = extracted.storage else {
            if valueType == .date, case .double(let milliseconds) = extracted.storage {
                return dateText(milliseconds: milliseconds).databaseValue
            }
            return extracted
        }
        return dateText(milliseconds: Double(milliseconds)).databaseValue
    }

    /// A JSON value, told apart as SQLite's JSON functions tell them apart.
    private enum JSONValue: Decodable {
        case null, bool(Bool), integer(Int64), real(Double), string(String), array, object([String: JSONValue])

        init(from decoder: any Decoder) throws {
            if var array = try? decoder.unkeyedContainer() {
                while !array.isAtEnd { _ = try array.decode(JSONValue.self) }
                self = .array
                return
            }
            if let object = try? decoder.container(keyedBy: AnyKey.self) {
                var members: [String: JSONValue] = [:]
                for key in object.allKeys { members[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
                self = .object(members)
                return
            }
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let flag = try? single.decode(Bool.self) {
                self = .bool(flag)
            } else if let integer = try? single.decode(Int64.self) {
                self = .integer(integer)
            } else if let real = try? single.decode(Double.self) {
                self = .real(real)
            } else {
                self = .string(try single.decode(String.self))
            }
        }

        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
    }

    /// GRDB's date text (`yyyy-MM-dd HH:mm:ss.SSS`, UTC) of milliseconds since 1970.
    static func dateText(milliseconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter.string(from: Date(timeIntervalSince1970: milliseconds / 1000))
    }

    /// The rows as their schema's tables store them, computed in Swift: each value takes its column's
    /// affinity, a column left out takes its default (a non-constant one, such as the current date, is
    /// only checked to be non-NULL), and an integer primary key left nil gets the next rowid. Tables with an
    /// integer primary key are in key order (their rowid order), others in insertion order.
    func normalize(_ rows: ExpectedRows) throws -> ExpectedRows {
        var result = rows
        for table in rows.schema.tables {
            let integerKey =
                table.primaryKey.count == 1 && table.column(named: table.primaryKey[0])?.type == .integer ? table.primaryKey[0] : nil
            var volatile = rows.volatile[table.name] ?? []
            var stored: [[String: DatabaseValue]] = []
            var usedKeys: Set<Int64> = []
            var largestKey: Int64 = 0
            for values in rows.tables[table.name] ?? [] {
                var row: [String: DatabaseValue] = [:]
                for column in table.columns {
                    if let value = values[column.name] {
                        row[column.name] = SQLiteValues.stored(value, in: column.type)
                    } else if let defaultSQL = column.defaultSQL {
                        if let literal = SQLiteValues.literal(defaultSQL) {
                            row[column.name] = SQLiteValues.stored(literal, in: column.type)
                        } else {
                            volatile.insert(column.name)
                            row[column.name] = Self.currentDateText.databaseValue
                        }
                    } else {
                        row[column.name] = .null
                    }
                }
                if let integerKey {
                    switch row[integerKey]?.storage {
                    case .int64(let key)?:
                        guard usedKeys.insert(key).inserted else {
                            throw ExpectationError("the expected rows of \(table.name) at \(rows.version) repeat the key \(key): \(values)")
                        }
                        largestKey = max(largestKey, key)
                    case .null?, nil:
                        guard largestKey < .max else {
                            throw ExpectationError("the expected rows of \(table.name) at \(rows.version) have no rowid left")
                        }
                        largestKey += 1
                        usedKeys.insert(largestKey)
                        row[integerKey] = largestKey.databaseValue
                    default:
                        throw ExpectationError(
                            "the expected rows of \(table.name) at \(rows.version) cannot be stored (its key \(integerKey) must be an integer): \(values)"
                        )
                    }
                }
                stored.append(row)
            }
            if let integerKey {
                stored.sort {
                    (Int64.fromDatabaseValue($0[integerKey] ?? .null) ?? 0) < (Int64.fromDatabaseValue($1[integerKey] ?? .null) ?? 0)
                }
            }
            result.volatile[table.name] = volatile
            result.tables[table.name] = stored
        }
        return result
    }

    /// The current date as a non-constant default writes it (GRDB's text form, UTC, to the millisecond).
    static var currentDateText: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter.string(from: Date())
    }
}
