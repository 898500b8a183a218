import Foundation
import LucidSchema

/// Deterministic rows for a store at one version, as SQL: every entity gets the same number of rows,
/// with edge values (empty strings, unicode, integer extremes, dates with milliseconds, NULL where
/// allowed, arrays, struct subtypes) and relationships in both directions (to-one columns and join
/// table links). Used by `lucidgen fixtures` and the README's main job.
public struct FixtureRows {
    public let model: ResolvedModel

    public init(model: ResolvedModel) {
        self.model = model
    }

    /// The entity shapes in force at a schema version.
    public func shapes(at version: SchemaVersion) -> [EntityShape] {
        model.entities.compactMap { entity in
            if let removed = entity.removedAtVersion, version >= removed { return nil }
            return entity.shapes.last { $0.version <= version }
        }
    }

    /// `INSERT` statements for `rows` rows per entity (and one link per row per to-many relationship).
    public func insertStatements(at version: SchemaVersion, rows: Int) -> [String] {
        let shapes = shapes(at: version)
        var statements: [String] = []
        // Links go after every entity's rows, so each one finds both of its rows.
        var links: [String] = []
        for shape in shapes {
            for row in 1...max(rows, 1) {
                var columns = [shape.identifier.column]
                var values = [identifierLiteral(shape.identifier, row: row)]
                for property in shape.properties {
                    switch property.kind {
                    case .toMany: continue
                    case .toOne(let entity, _, _):
                        guard let target = shapes.first(where: { $0.entityName == entity }) else { continue }
                        columns.append(property.column)
                        // Every third row has no link when allowed; the others point at another row.
                        values.append(property.nullable && row % 3 == 0 ? "NULL" : identifierLiteral(target.identifier, row: (row % rows) + 1))
                    case .value:
                        columns.append(property.column)
                        values.append(property.nullable && row % 3 == 0 ? "NULL" : valueLiteral(property, row: row))
                    }
                }
                statements.append(
                    "INSERT INTO \(quoteIdentifier(shape.tableName)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))")
            }
            for property in shape.properties {
                guard case .toMany(let entity, _, _, let joinTable, _, _) = property.kind, let target = shapes.first(where: { $0.entityName == entity }) else { continue }
                for row in 1...max(rows, 1) where row % 4 != 0 {
                    links.append(
                        "INSERT INTO \(quoteIdentifier(joinTable)) (\"source_id\", \"target_id\") VALUES (\(identifierLiteral(shape.identifier, row: row)), \(identifierLiteral(target.identifier, row: rows + 1 - row)))")
                }
            }
        }
        return statements + links
    }

    func identifierLiteral(_ identifier: IdentifierShape, row: Int) -> String {
        identifier.storage == .text ? quoteLiteral("id-\(row)") : "\(row)"
    }

    static let strings = ["", "plain", "ünïcödé ✈︎ 日本語", "quote ' and \" and \\\\", "line\nbreak", String(repeating: "long ", count: 40), "0", "42", "-7"]
    static let integers: [Int64] = [0, 1, -1, Int64.max, Int64.min, 42]

    func valueLiteral(_ property: PropertyShape, row: Int) -> String {
        let index = row - 1
        switch property.typeDescription {
        case let type where type.hasPrefix("["):
            let element = String(type.dropFirst().dropLast())
            let items = (0..<(row % 3)).map { jsonValue(typeName: element, row: row + $0) }
            return quoteLiteral("[" + items.joined(separator: ",") + "]")
        default:
            return scalarLiteral(typeName: property.typeDescription, name: property.name, row: row, index: index)
        }
    }

    func scalarLiteral(typeName: String, name: String, row: Int, index: Int) -> String {
        switch ScalarType(name: typeName) {
        case .string?: return quoteLiteral(index < Self.strings.count ? Self.strings[index] : "\(name) \(row)")
        case .color?: return quoteLiteral(String(format: "#%06X", (row * 0x10101) & 0xFFFFFF))
        case .int?: return "\(index < Self.integers.count ? Self.integers[index] : Int64(row * 7))"
        case .bool?: return row % 2 == 0 ? "1" : "0"
        case .double?, .seconds?, .milliseconds?, .float?: return "\(Double(row) * 1.5)"
        case .date?:
            // GRDB's storage format, with milliseconds.
            let seconds = 1_700_000_000 + row * 86_461
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(secondsFromGMT: 0)
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            return quoteLiteral(formatter.string(from: date) + String(format: ".%03d", (row * 37) % 1000))
        case .url?: return quoteLiteral("https://example.com/\(name)/\(row)")
        case .data?: return row % 2 == 0 ? "X''" : "X'00FF\(String(format: "%02X", row % 256))'"
        case nil:
            guard let subtype = model.subtypes.first(where: { $0.name == typeName }) else { return "NULL" }
            switch subtype.kind {
            case .enumeration(let cases): return quoteLiteral(cases[index % cases.count])
            case .optionSet(let options): return "\(row % (1 << min(options.count, 62)))"
            case .structure: return quoteLiteral(jsonValue(typeName: typeName, row: row))
            }
        }
    }

    /// A JSON value for a type, as GRDB's JSON encoder writes it for the generated records.
    func jsonValue(typeName: String, row: Int) -> String {
        if typeName.hasPrefix("[") {
            let element = String(typeName.dropFirst().dropLast())
            return "[" + (0..<(row % 3)).map { jsonValue(typeName: element, row: row + $0) }.joined(separator: ",") + "]"
        }
        switch ScalarType(name: typeName) {
        case .string?, .color?: return jsonString(row % 2 == 0 ? "text \(row)" : "ünï \(row)")
        case .int?: return "\(row * 3)"
        case .bool?: return row % 2 == 0 ? "true" : "false"
        case .double?, .seconds?, .milliseconds?, .float?: return "\(Double(row) * 0.5)"
        case .url?: return jsonString("https://example.com/\(row)")
        // GRDB's JSON for records: dates as milliseconds since 1970, data as base64.
        case .date?: return "\(1_700_000_000_000 + Int64(row) * 86_461_000 + Int64((row * 37) % 1000))"
        case .data?: return jsonString(Data([0, 255, UInt8(row % 256)]).base64EncodedString())
        case nil:
            guard let subtype = model.subtypes.first(where: { $0.name == typeName }) else { return "null" }
            switch subtype.kind {
            case .enumeration(let cases): return jsonString(cases[row % cases.count])
            case .optionSet(let options): return "\(row % (1 << min(options.count, 62)))"
            case .structure(let properties):
                let members = properties.filter { !($0.nullable && row % 2 == 0) }.map { property in
                    let value: String
                    switch property.type {
                    case .scalar(let scalar): value = jsonValue(typeName: scalar.rawValue, row: row)
                    case .subtype(let name): value = jsonValue(typeName: name, row: row)
                    case .array(let element): value = jsonValue(typeName: "[\(element)]", row: row)
                    case .relationship: value = "null"
                    }
                    return "\(jsonString(property.name)):\(value)"
                }
                return "{" + members.joined(separator: ",") + "}"
            }
        }
    }

    func jsonString(_ text: String) -> String {
        let data = try! JSONEncoder().encode(text)
        return String(decoding: data, as: UTF8.self)
    }
}
