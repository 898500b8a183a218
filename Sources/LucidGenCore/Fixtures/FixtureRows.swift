import Foundation
@_spi(Generated) import LucidSchema

/// Deterministic rows for a store at one version, as SQL: the untyped encoder of the values the
/// generated migration tests seed with their record types (`LucidSchema.SeedValues` is the one
/// definition of both: the edge values by row and salt, which rows get `NULL`, which row a to-one
/// relationship points at and which rows a to-many relationship links). Used by `lucidgen fixtures`,
/// and usable for any resolved history without compiled records.
///
/// Every reference points at a row of the seeded set (`1...rows`), so the statements are valid in any
/// order, with self-references and cycles, but only as a whole: run them with foreign key enforcement
/// off inside one transaction, then `PRAGMA foreign_key_check` before committing (as
/// `LucidTesting.SeedWriter` does). `rows` may be 0 (no statements: an empty store at that version).
package struct FixtureRows {
    package let model: ResolvedModel
    /// Every entity's unique indexes at every schema version (property current names), for ``SeedPlan``.
    let uniqueIndexes: [String: [(SchemaVersion, [String])]]
    /// The tables with CHECK constraints at each version, by name (none when the model has no
    /// ``ResolvedModel/seedCheckProbe``): the only ones whose seeds are tried.
    let checkedTables: [SchemaVersion: [String: SchemaTable]]

    package init(model: ResolvedModel) {
        self.model = model
        self.uniqueIndexes = Self.uniqueIndexes(of: model)
        var checked: [SchemaVersion: [String: SchemaTable]] = [:]
        if model.seedCheckProbe != nil {
            for schema in model.schemas {
                for table in schema.tables where !(table.checks ?? []).isEmpty || table.columns.contains(where: { $0.check != nil }) {
                    checked[schema.version, default: [:]][table.name] = table
                }
            }
        }
        self.checkedTables = checked
    }

    /// The entity shapes in force at a schema version.
    package func shapes(at version: SchemaVersion) -> [EntityShape] {
        model.entities.compactMap { $0.shape(at: version) }
    }

    /// Entity inheritance: the entities of a hierarchy share their root's table, so each concrete one seeds
    /// its own block of row numbers (and keys): the `k`-th concrete entity of its hierarchy at `version` (root
    /// first, then its subentities depth first, by name) seeds rows `k * rows + 1 ... k * rows + rows`.
    /// `referenced`: the block a reference to the entity points into (its own, or its first concrete
    /// subentity's when it is abstract). Entities outside hierarchies are left out (block 0).
    package func seedBlocks(at version: SchemaVersion) -> (own: [String: Int], referenced: [String: Int]) {
        let present = model.entities.filter { $0.shape(at: version) != nil }
        guard present.contains(where: { $0.parent(at: version) != nil }) else { return ([:], [:]) }
        var children: [String: [ResolvedEntity]] = [:]
        for entity in present { if let parent = entity.parent(at: version) { children[parent, default: []].append(entity) } }
        var own: [String: Int] = [:]
        var referenced: [String: Int] = [:]
        func preorder(_ entity: ResolvedEntity) -> [ResolvedEntity] {
            [entity] + (children[entity.name] ?? []).sorted { $0.name < $1.name }.flatMap(preorder)
        }
        for root in present where root.parent(at: version) == nil && children[root.name] != nil {
            let members = preorder(root)
            var next = 0
            for member in members where !member.abstract {
                own[member.name] = next
                next += 1
            }
            for member in members { referenced[member.name] = preorder(member).lazy.compactMap { own[$0.name] }.first ?? 0 }
        }
        return (own, referenced)
    }

    /// The salt of a shape's property `index`: the generated seeds pass the same one to `.seed(row:salt:)`.
    package static func salt(ofPropertyAt index: Int) -> Int { index + 1 }

    /// At most how many links a row of a to-many relationship gets: one if the relationship becomes
    /// to-one at a later version (more would rightly stop that migration), two otherwise.
    package func maxLinks(_ property: PropertyShape, of shape: EntityShape) -> Int {
        guard let entity = model.entities.first(where: { $0.name == shape.entityName }) else { return 2 }
        let becomesToOne = entity.shapes.contains { later in
            later.version > shape.version && later.properties.contains { $0.currentName == property.currentName && $0.isToOne }
        }
        return becomesToOne ? 1 : 2
    }

    /// One row to insert: a quoted table name, quoted column names and SQL literals.
    package struct Row: Sendable, Equatable {
        package var table: String
        package var columns: [String]
        package var values: [String]

        package var sql: String { Self.sql(inserting: [self]) }

        /// One `INSERT` of several rows of the same table and columns (``canShareInsert(with:)``), in order:
        /// the rows `sql` inserts one by one. Each statement costs a compilation (and GRDB's authorizer
        /// callbacks for every column it names), which for a fixture of 2,000 small tables cost more
        /// than the inserting.
        package static func sql(inserting rows: some Collection<Row>) -> String {
            guard let first = rows.first else { return "" }
            let tuples = rows.map { "(\($0.values.joined(separator: ", ")))" }
            return
                "INSERT INTO \(quoteIdentifier(first.table)) (\(first.columns.map(quoteIdentifier).joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))"
        }

        /// Whether `other` goes into the same multi-row `INSERT` as this row: same table, same columns.
        package func canShareInsert(with other: Row) -> Bool { table == other.table && columns == other.columns }
    }

    /// `rows` rows per entity at `version` and their to-many links (zero, one or two per row), entity
    /// rows first. References need foreign key enforcement off (see the type's documentation).
    package func rows(at version: SchemaVersion, rows: Int) -> [Row] {
        var result: [Row] = []
        forEachRow(at: version, rows: rows) { result.append($0) }
        return result
    }

    /// The rows of ``rows(at:rows:)``, in the same order, handed to `body` one at a time: memory stays
    /// flat however many rows a fixture has (every entity's rows, then every link).
    package func forEachRow<Failure: Error>(at version: SchemaVersion, rows: Int, _ body: (Row) throws(Failure) -> Void) throws(Failure) {
        guard rows > 0 else { return }
        let shapes = shapes(at: version)
        let plans = seedPlans(at: version)
        // By entity name, once: a reference's target is looked up per row, and a model may have
        // thousands of entities.
        let shapesByEntity = Dictionary(shapes.map { ($0.entityName, $0) }, uniquingKeysWith: { first, _ in first })
        func target(_ entity: String) -> EntityShape? { shapesByEntity[entity] }
        func rowCount(_ entity: String) -> Int { plans[entity]?.rows(rows) ?? rows }
        // Entity inheritance: each entity of a hierarchy seeds its own block of rows (an abstract one none).
        let blocks = seedBlocks(at: version)
        func first(_ entity: String) -> Int { (blocks.own[entity] ?? 0) * rows }
        func referencedBase(_ entity: String) -> Int { (blocks.referenced[entity] ?? 0) * rows }
        for shape in shapes where !shape.abstract {
            let plan = plans[shape.entityName] ?? SeedPlan()
            // The edge values the table's CHECKs refuse give way to the next row's (the generated seeds do the same).
            let refusals = shape.properties.enumerated().map { index, property in
                plan.rules[property.currentName] == nil
                    ? refusedSeeds(property, of: shape, salt: Self.salt(ofPropertyAt: index), at: version) : nil
            }
            for row in (first(shape.entityName) + 1)...(first(shape.entityName) + rowCount(shape.entityName)) {
                var columns = [shape.identifier.column]
                var values = [identifierLiteral(shape.identifier.storage, row: row)]
                for (index, property) in shape.properties.enumerated() {
                    switch property.kind {
                    case .toMany: continue
                    case .toOne(let entity, _, _):
                        guard let target = target(entity) else { continue }
                        let targetRows = rowCount(entity)
                        let referenced =
                            property.nullable
                            ? SeedValues.optionalReferencedRow(row: row, rows: targetRows)
                            : SeedValues.referencedRow(row: row, rows: targetRows)
                        columns.append(property.column)
                        values.append(
                            referenced.map { identifierLiteral(target.identifier.storage, row: $0 + referencedBase(entity)) } ?? "NULL")
                    case .composite(let composite):
                        // As the generated `Seedable` conformance of the struct seeds it: nil when the property
                        // is optional and its salt says so, then member `i` with `salt + i + 1`, depth first.
                        let salt = Self.salt(ofPropertyAt: index)
                        let isNil = property.nullable && SeedValues.isNull(row: row, salt: salt)
                        let distinct = plan.rules[property.currentName] == .distinct
                        for leaf in composite.leaves(optional: property.nullable) {
                            columns.append(leaf.column)
                            values.append(
                                isNil
                                    ? "NULL"
                                    : leafLiteral(leaf, composite: composite, row: row, salt: salt, distinct: distinct, at: version))
                        }
                    case .value where property.isKind:
                        columns.append(property.column)
                        values.append(quoteLiteral(shape.name))
                    case .value where property.generated:
                        continue // SQLite computes it: no insert writes it.
                    case .value:
                        let salt = Self.salt(ofPropertyAt: index)
                        columns.append(property.column)
                        switch plan.rules[property.currentName] {
                        case nil:
                            let row = refusals[index].map { SeedValues.passingRow(row, period: $0.period, refused: $0.refused) } ?? row
                            values.append(
                                property.nullable && SeedValues.isNull(row: row, salt: salt)
                                    ? "NULL" : valueLiteral(property, row: row, salt: salt, at: version))
                        case .distinct?:
                            values.append(
                                property.nullable && SeedValues.isNull(row: row, salt: salt)
                                    ? "NULL" : distinctLiteral(property, row: row, salt: salt, at: version))
                        case .product(let divisor, let count, let nullBeyond)?:
                            if let nullBeyond, row > nullBeyond {
                                values.append("NULL")
                            } else {
                                values.append(
                                    valueLiteral(
                                        property, row: SeedValues.productRow(row: row, divisor: divisor, count: count), salt: 0, at: version
                                    ))
                            }
                        }
                    }
                }
                try body(Row(table: shape.tableName, columns: columns, values: values))
            }
        }
        for shape in shapes where !shape.abstract {
            for property in shape.properties {
                guard case .toMany(let entity, _, _, let joinTable, let targetStorage, _, let ordered) = property.kind,
                    target(entity) != nil
                else { continue }
                let maxLinks = maxLinks(property, of: shape)
                for row in (first(shape.entityName) + 1)...(first(shape.entityName) + rowCount(shape.entityName)) {
                    let linked = SeedValues.linkedRows(row: row, rows: rowCount(entity), maxLinks: maxLinks)
                    for (index, target) in linked.enumerated() {
                        let link = property.linkColumns ?? .lucid(joinTable)
                        var columns = [link.source, link.target]
                        var values = [
                            identifierLiteral(shape.identifier.storage, row: row),
                            identifierLiteral(targetStorage, row: target + referencedBase(entity)),
                        ]
                        if ordered {
                            columns.append(LinkTable.positionColumn)
                            values.append(String(SeedValues.linkPosition(index: index, count: linked.count)))
                        }
                        try body(Row(table: joinTable, columns: columns, values: values))
                    }
                }
            }
        }
    }

    /// How many rows a value property's seed takes to repeat (the length of its list of edge values), nil
    /// for a seed that never repeats (dates, arrays, structs, option sets).
    func seedPeriod(_ property: PropertyShape) -> Int? {
        let type = property.typeDescription
        guard !type.hasPrefix("[") else { return nil }
        switch ScalarType(name: type) {
        case .string?, .color?: return SeedValues.strings.count
        case .int?: return SeedValues.integers.count
        case .bool?: return 2
        case .double?, .seconds?, .milliseconds?: return SeedValues.doubles.count
        case .float?: return SeedValues.floats.count
        case .url?: return SeedValues.urls.count
        case .data?: return 4
        case .uuid?: return SeedValues.uuids.count
        case .decimal?: return SeedValues.decimals.count
        case .date?: return nil
        case nil:
            guard case .enumeration(let cases)? = model.subtypes.first(where: { $0.name == type })?.kind else { return nil }
            return cases.count
        }
    }

    /// The seeds of a value property (rows `1...period`, residues `0..<period`) that the CHECK constraints
    /// of its table at `version` refuse, tried in SQLite by the model's ``ResolvedModel/seedCheckProbe``: the
    /// rows whose value gives way to the next passing row's (``SeedValues/passingRow(_:period:refused:)``).
    /// Nil when none is refused, when all are (the insert then fails, naming the CHECK), when the table has
    /// no CHECK, or for a seed that does not repeat.
    package func refusedSeeds(_ property: PropertyShape, of shape: EntityShape, salt: Int, at version: SchemaVersion) -> (
        period: Int, refused: [Int]
    )? {
        guard let probe = model.seedCheckProbe, case .value = property.kind, !property.isKind, !property.generated,
            let table = checkedTables[version]?[shape.tableName],
            let column = table.columns.first(where: { $0.name == property.column }),
            column.check != nil || !(table.checks ?? []).isEmpty,
            let period = seedPeriod(property)
        else { return nil }
        let literals = (1...period).map { valueLiteral(property, row: $0, salt: salt, at: version) }
        guard let passes = probe(table, column, literals), passes.count == period else { return nil }
        let refused = passes.indices.filter { !passes[$0] }
        return refused.isEmpty || refused.count == period ? nil : (period, refused)
    }

    /// The rows as `INSERT` statements (see ``rows(at:rows:)``).
    package func insertStatements(at version: SchemaVersion, rows: Int) -> [String] {
        self.rows(at: version, rows: rows).map(\.sql)
    }

    /// `Seed.identifier(row:)`: the row number, or `id-<row>` for a text key.
    func identifierLiteral(_ storage: SchemaColumn.StorageType, row: Int) -> String {
        switch storage {
        case .text: quoteLiteral("id-\(row)")
        case .blob: UUIDText.sqlLiteral(SeedValues.identifierUUIDBytes(row: row)) // a uuid key, as `Seed.identifier` makes it
        default: "\(row)"
        }
    }

    // MARK: Values (as the generated records store them)

    func valueLiteral(_ property: PropertyShape, row: Int, salt: Int, at version: SchemaVersion? = nil) -> String {
        let type = property.typeDescription
        if type.hasPrefix("[") { return quoteLiteral(jsonValue(typeName: type, row: row, salt: salt, at: version)) }
        return scalarLiteral(typeName: type, row: row, salt: salt, at: version)
    }

    /// The value of a column seeded distinct per row (``SeedPlan/Rule/distinct``).
    func distinctLiteral(_ property: PropertyShape, row: Int, salt: Int, at version: SchemaVersion? = nil) -> String {
        distinctScalarLiteral(typeName: property.typeDescription, row: row, salt: salt)
            ?? valueLiteral(property, row: row, salt: salt, at: version)
    }

    /// A scalar's distinct value per row, nil for a type that has none (booleans, subtypes).
    func distinctScalarLiteral(typeName: String, row: Int, salt: Int) -> String? {
        switch ScalarType(name: typeName) {
        case .string?, .color?: return quoteLiteral(SeedValues.distinctString(row: row, salt: salt))
        case .int?: return "\(SeedValues.distinctInteger(row: row, salt: salt))"
        case .double?, .seconds?, .milliseconds?: return realLiteral(SeedValues.distinctDouble(row: row, salt: salt))
        case .float?: return realLiteral(Double(SeedValues.distinctFloat(row: row, salt: salt)))
        case .date?: return quoteLiteral(Self.storedDate(milliseconds: SeedValues.distinctDateMilliseconds(row: row, salt: salt)))
        case .url?: return quoteLiteral(Self.storedURL(SeedValues.distinctURL(row: row, salt: salt)))
        case .data?: return "X'" + SeedValues.distinctBytes(row: row, salt: salt).map { String(format: "%02X", $0) }.joined() + "'"
        case .uuid?: return UUIDText.sqlLiteral(SeedValues.distinctUUIDBytes(row: row, salt: salt))
        case .decimal?: return quoteLiteral(SeedValues.distinctDecimal(row: row, salt: salt))
        case .bool?, nil: return nil
        }
    }

    func scalarLiteral(typeName: String, row: Int, salt: Int, at version: SchemaVersion? = nil) -> String {
        switch ScalarType(name: typeName) {
        case .string?, .color?: return quoteLiteral(SeedValues.pick(SeedValues.strings, row: row, salt: salt))
        case .int?: return "\(SeedValues.pick(SeedValues.integers, row: row, salt: salt))"
        case .bool?: return SeedValues.bool(row: row, salt: salt) ? "1" : "0"
        case .double?, .seconds?, .milliseconds?: return realLiteral(SeedValues.pick(SeedValues.doubles, row: row, salt: salt))
        case .float?: return realLiteral(Double(SeedValues.pick(SeedValues.floats, row: row, salt: salt)))
        case .date?: return quoteLiteral(Self.storedDate(milliseconds: SeedValues.dateMilliseconds(row: row, salt: salt)))
        case .url?: return quoteLiteral(Self.storedURL(SeedValues.pick(SeedValues.urls, row: row, salt: salt)))
        case .data?: return "X'" + SeedValues.bytes(row: row, salt: salt).map { String(format: "%02X", $0) }.joined() + "'"
        case .uuid?: return UUIDText.sqlLiteral(SeedValues.uuidBytes(row: row, salt: salt))
        case .decimal?: return quoteLiteral(SeedValues.pick(SeedValues.decimals, row: row, salt: salt))
        case nil:
            guard let subtype = model.subtypes.first(where: { $0.name == typeName }) else { return "NULL" }
            switch subtype.kind {
            case .enumeration(let cases): return quoteLiteral(cases[SeedValues.caseIndex(row: row, salt: salt, count: cases.count)])
            case .optionSet(let options): return "\(SeedValues.optionSetRawValue(row: row, salt: salt, options: options.count))"
            case .structure: return quoteLiteral(jsonValue(typeName: typeName, row: row, salt: salt, at: version))
            }
        }
    }

    /// A composite column's seeded value: each member on the way down takes `salt + index + 1`, and an
    /// optional member whose salt says NULL makes every column below it NULL.
    func leafLiteral(
        _ leaf: CompositeShape.Leaf, composite: CompositeShape, row: Int, salt: Int, distinct: Bool = false,
        at version: SchemaVersion? = nil
    ) -> String {
        var salt = salt
        var shape: CompositeShape? = composite
        for index in leaf.memberIndexes {
            salt += index + 1
            guard let element = shape?.elements[index] else { break }
            if element.nullable && SeedValues.isNull(row: row, salt: salt) { return "NULL" }
            if case .nested(let nested) = element.kind { shape = nested } else { shape = nil }
        }
        if distinct, SeedPlan.leafCanBeDistinct(leaf.typeName) {
            // As `DistinctSeedable.seedDistinct` of the generated struct: every element that can be, distinct.
            return distinctScalarLiteral(typeName: leaf.typeName, row: row, salt: salt)
                ?? scalarLiteral(typeName: leaf.typeName, row: row, salt: salt, at: version)
        }
        return scalarLiteral(typeName: leaf.typeName, row: row, salt: salt, at: version)
    }

    func realLiteral(_ value: Double) -> String {
        let text = "\(value)"
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }

    /// A URL as `URL` stores it: its absolute string, which Foundation percent-encodes (`ä` → `%C3%A4`).
    static func storedURL(_ text: String) -> String { URL(string: text)?.absoluteString ?? text }

    /// GRDB's storage format for a `Date`: `yyyy-MM-dd HH:mm:ss.SSS`, UTC.
    ///
    /// Worked out with integer arithmetic (the proleptic Gregorian calendar, as `DateFormatter` uses
    /// after 1582): a fixture has a date per row and column, and a `DateFormatter` made per value cost
    /// ~0.1 ms each (ICU sets one up), which dominated `lucidgen fixtures` of a wide model.
    static func storedDate(milliseconds: Int64) -> String {
        let (days, millisecondOfDay) = milliseconds.floorDividedWithRemainder(by: 86_400_000)
        let (year, month, day) = civilDate(daysSince1970: days)
        let secondOfDay = millisecondOfDay / 1000
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(width - digits.count, 0)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2)) "
            + "\(padded(secondOfDay / 3600, 2)):\(padded(secondOfDay / 60 % 60, 2)):\(padded(secondOfDay % 60, 2)).\(padded(millisecondOfDay % 1000, 3))"
    }

    /// The Gregorian year, month and day of a day counted from 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`, exact for every day from year 1 on).
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468 // days since 0000-03-01: a year then ends with February's leap day
        let era = shifted.floorDividedWithRemainder(by: 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A JSON value for a type, as GRDB's JSON encoder writes it for the generated records (dates as
    /// milliseconds since 1970, data as base64, UUIDs as their upper-case text, decimals as numbers with their
    /// digits, nil members left out).
    func jsonValue(typeName: String, row: Int, salt: Int, at version: SchemaVersion? = nil) -> String {
        if typeName.hasPrefix("[") {
            let element = String(typeName.dropFirst().dropLast())
            let count = SeedValues.arrayCount(row: row, salt: salt)
            return "["
                + (0..<count).map { jsonValue(typeName: element, row: row, salt: SeedValues.elementSalt(salt, index: $0), at: version) }
                .joined(separator: ",") + "]"
        }
        switch ScalarType(name: typeName) {
        case .string?, .color?: return DescriptionWriter.string(SeedValues.pick(SeedValues.strings, row: row, salt: salt))
        case .int?: return "\(SeedValues.pick(SeedValues.integers, row: row, salt: salt))"
        case .bool?: return SeedValues.bool(row: row, salt: salt) ? "true" : "false"
        case .double?, .seconds?, .milliseconds?: return "\(SeedValues.pick(SeedValues.doubles, row: row, salt: salt))"
        case .float?: return "\(SeedValues.pick(SeedValues.floats, row: row, salt: salt))"
        case .url?: return DescriptionWriter.string(Self.storedURL(SeedValues.pick(SeedValues.urls, row: row, salt: salt)))
        case .date?: return "\(SeedValues.dateMilliseconds(row: row, salt: salt))"
        case .data?: return DescriptionWriter.string(Data(SeedValues.bytes(row: row, salt: salt)).base64EncodedString())
        case .uuid?: return DescriptionWriter.string(UUIDText.string(SeedValues.uuidBytes(row: row, salt: salt)))
        // A JSON number with the decimal's digits, as JSONEncoder writes a `Decimal`.
        case .decimal?: return SeedValues.pick(SeedValues.decimals, row: row, salt: salt)
        case nil:
            guard let subtype = model.subtypes.first(where: { $0.name == typeName }) else { return "null" }
            switch subtype.kind {
            case .enumeration(let cases):
                return DescriptionWriter.string(cases[SeedValues.caseIndex(row: row, salt: salt, count: cases.count)])
            case .optionSet(let options): return "\(SeedValues.optionSetRawValue(row: row, salt: salt, options: options.count))"
            case .structure:
                // The generated `Seedable` conformance of the version's type: member `index` gets `salt + index + 1`.
                let properties = subtype.members(at: version ?? model.versions.last ?? SchemaVersion("0")) ?? []
                let members = properties.enumerated().compactMap { index, property -> String? in
                    let memberSalt = salt + index + 1
                    if property.nullable && SeedValues.isNull(row: row, salt: memberSalt) { return nil }
                    let value: String
                    switch property.type {
                    case .scalar(let scalar): value = jsonValue(typeName: scalar.rawValue, row: row, salt: memberSalt, at: version)
                    case .subtype(let name), .composite(let name):
                        value = jsonValue(typeName: name, row: row, salt: memberSalt, at: version)
                    case .array(let element): value = jsonValue(typeName: "[\(element)]", row: row, salt: memberSalt, at: version)
                    case .relationship: value = "null"
                    }
                    return "\(DescriptionWriter.string(property.name)):\(value)"
                }
                return "{" + members.joined(separator: ",") + "}"
            }
        }
    }
}

private extension Int64 {
    /// Division rounding towards negative infinity, with a remainder in `0..<divisor` (dates before 1970).
    func floorDividedWithRemainder(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
