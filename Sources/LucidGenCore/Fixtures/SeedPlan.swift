@_spi(Generated) import LucidSchema

/// How the seeders keep one table's unique indexes unique at one version: the one rule both encoders
/// follow (the generated tests' `Seedable` records and ``FixtureRows``' SQL), from
/// `LucidSchema.SeedValues`.
///
/// The unique indexes considered are the table's at this version **and at every later version** (by
/// the properties' current names): a store seeded at 1.0 must migrate to the version that makes a
/// column unique. For each such index:
/// - one of its columns already distinct per row (the identifier, a to-one relationship: references
///   are a permutation of the target's rows) or already made distinct by another index: nothing to do;
/// - else its first column whose type can hold a distinct value per row (string, color, int, double,
///   seconds, milliseconds, float, date, url, data, uuid, decimal) is seeded with `SeedValues.distinct…` values;
/// - else (booleans, enumerations, option sets, JSON values) its columns count through the cartesian
///   product of their values (`SeedValues.productRow`): rows beyond the product are `NULL` in the
///   index's nullable columns, or, if none is nullable, the table is seeded with only as many rows as
///   the product holds (``rowLimit``; the references to it point at those rows).
package struct SeedPlan: Sendable, Equatable, CustomStringConvertible {
    package enum Rule: Sendable, Equatable {
        /// `SeedValues.distinct…` / `DistinctSeedable.seedDistinct(row:salt:)`.
        case distinct
        /// Digit `((row - 1) / divisor) % count` of the product; `NULL` beyond row `nullBeyond`.
        case product(divisor: Int, count: Int, nullBeyond: Int?)
    }

    /// By property current name.
    package var rules: [String: Rule] = [:]
    /// At most this many rows of the table (nil: as many as asked).
    package var rowLimit: Int?

    package var isEmpty: Bool { rules.isEmpty && rowLimit == nil }

    /// The rows of the table when `rows` are asked for.
    package func rows(_ rows: Int) -> Int { rowLimit.map { min($0, rows) } ?? rows }

    package var description: String {
        rules.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "/\(rowLimit.map(String.init) ?? "-")"
    }

    /// How many rows the simulation of a product index checks at most (beyond, its tuples are taken as
    /// distinct: exact when the index's columns are not shared with another product index).
    static let simulationLimit = 4096

    /// The plan of `shape` given the unique indexes (lists of property current names) it must keep.
    /// `valueCount` is how many values a product column's type has.
    static func make(shape: EntityShape, uniqueIndexes: [[String]], valueCount: (PropertyShape) -> Int) -> SeedPlan {
        var plan = SeedPlan()
        var products: [[PropertyShape]] = []
        for names in uniqueIndexes {
            var properties: [PropertyShape] = []
            var alreadyDistinct = false
            var missing = false // a property without a column at this version: the index is not ours to keep yet
            for name in names {
                if case .property(let key) = shape.identifier.kind, key == name { alreadyDistinct = true; continue }
                guard let property = shape.properties.first(where: { $0.currentName == name }) else { missing = true; continue }
                if property.column == shape.identifier.column { alreadyDistinct = true }
                properties.append(property)
            }
            if alreadyDistinct || missing || properties.isEmpty { continue }
            if properties.contains(where: { plan.rules[$0.currentName] == .distinct }) { continue }
            if let property = properties.first(where: canBeDistinct) {
                plan.rules[property.currentName] = .distinct
                continue
            }
            if properties.contains(where: { if case .toOne = $0.kind { true } else { false } }) { continue }
            products.append(properties)
        }
        // Product indexes: fresh columns continue the digits after the index's columns already assigned.
        for properties in products {
            var divisor = 1
            for property in properties {
                if case .product(let d, let c, _)? = plan.rules[property.currentName] { divisor = max(divisor, saturatingMultiply(d, c)) }
            }
            for property in properties where plan.rules[property.currentName] == nil {
                let count = max(valueCount(property), 1)
                plan.rules[property.currentName] = .product(divisor: divisor, count: count, nullBeyond: nil)
                divisor = saturatingMultiply(divisor, count)
            }
        }
        for properties in products {
            let total = distinctRows(properties.map { plan.rules[$0.currentName]! })
            let nullable = properties.filter(\.nullable)
            if nullable.isEmpty {
                plan.rowLimit = min(plan.rowLimit ?? total, total)
            } else {
                for property in nullable {
                    guard case .product(let d, let c, let beyond)? = plan.rules[property.currentName] else { continue }
                    plan.rules[property.currentName] = .product(divisor: d, count: c, nullBeyond: min(beyond ?? total, total))
                }
            }
        }
        return plan
    }

    /// How many first rows have distinct tuples under these product rules.
    static func distinctRows(_ rules: [Rule]) -> Int {
        var product = 1
        var digits: [(Int, Int)] = []
        for case .product(let divisor, let count, _) in rules {
            product = saturatingMultiply(product, count)
            digits.append((divisor, count))
        }
        guard product <= simulationLimit else { return product }
        var seen = Set<[Int]>()
        for row in 1...product {
            guard seen.insert(digits.map { SeedValues.productRow(row: row, divisor: $0.0, count: $0.1) }).inserted else { return row - 1 }
        }
        return product
    }

    static func canBeDistinct(_ property: PropertyShape) -> Bool {
        if case .composite(let composite) = property.kind {
            return composite.leaves(optional: true).contains { leafCanBeDistinct($0.typeName) }
        }
        guard case .value = property.kind, !property.typeDescription.hasPrefix("[") else { return false }
        return leafCanBeDistinct(property.typeDescription)
    }

    /// Whether a scalar type can take a distinct value per row.
    static func leafCanBeDistinct(_ typeName: String) -> Bool {
        switch ScalarType(name: typeName) {
        case .string?, .color?, .int?, .double?, .seconds?, .milliseconds?, .float?, .date?, .url?, .data?, .uuid?, .decimal?: return true
        case .bool?, nil: return false
        }
    }

    static func saturatingMultiply(_ a: Int, _ b: Int) -> Int {
        let (result, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? Int.max / 2 : result
    }
}

extension FixtureRows {
    /// The seed plan of every entity at `version` (by entity name; entities without unique indexes are
    /// left out).
    package func seedPlans(at version: SchemaVersion) -> [String: SeedPlan] {
        let shapes = shapes(at: version)
        var result: [String: SeedPlan] = [:]
        for shape in shapes {
            guard let indexes = uniqueIndexes[shape.entityName] else { continue }
            var lists: [[String]] = []
            for (at, names) in indexes where at >= version && !lists.contains(names) { lists.append(names) }
            let plan = SeedPlan.make(shape: shape, uniqueIndexes: lists, valueCount: valueCount)
            if !plan.isEmpty { result[shape.entityName] = plan }
        }
        return result
    }

    /// How many values a product column's type has: 2 booleans, an enumeration's cases, an option set's
    /// raw values; 1 for anything else (JSON values: the table gets one row).
    func valueCount(_ property: PropertyShape) -> Int {
        if ScalarType(name: property.typeDescription) == .bool { return 2 }
        guard let subtype = model.subtypes.first(where: { $0.name == property.typeDescription }) else { return 1 }
        switch subtype.kind {
        case .enumeration(let cases): return cases.count
        case .optionSet(let options): return 1 << min(options.count, 62)
        case .structure: return 1
        }
    }

    /// Every entity's unique indexes at every schema version, as lists of property current names.
    static func uniqueIndexes(of model: ResolvedModel) -> [String: [(SchemaVersion, [String])]] {
        var result: [String: [(SchemaVersion, [String])]] = [:]
        for schema in model.schemas where schema.tables.contains(where: { $0.indexes.contains(where: \.unique) }) {
            var byTable: [String: [EntityShape]] = [:]
            for entity in model.entities {
                if let shape = entity.shape(at: schema.version) { byTable[shape.tableName, default: []].append(shape) }
            }
            for table in schema.tables {
                // An entity hierarchy's table: each of its entities whose records have every column of the index.
                let shapes = byTable[table.name] ?? []
                for shape in shapes.count > 1 ? shapes : Array(shapes.suffix(1)) {
                    for index in table.indexes where index.unique {
                        let names = index.columns.map { column -> String in
                            if column == shape.identifier.column, case .property(let key) = shape.identifier.kind { return key }
                            if let property = shape.properties.first(where: { $0.column == column }) { return property.currentName }
                            // A composite element's column: the composite is seeded distinct as a whole.
                            for property in shape.properties {
                                if case .composite(let composite) = property.kind,
                                    composite.leaves(optional: true).contains(where: { $0.column == column })
                                {
                                    return property.currentName
                                }
                            }
                            return "\u{0}\(column)"
                        }
                        if shapes.count > 1, names.contains(where: { $0.hasPrefix("\u{0}") }) { continue }
                        result[shape.entityName, default: []].append((schema.version, names))
                    }
                }
            }
        }
        return result
    }
}
