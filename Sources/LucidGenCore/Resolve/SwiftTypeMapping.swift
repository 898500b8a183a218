import Foundation
@_spi(Generated) import LucidSchema

/// Swift type mapping: the SQLite storage class and the Swift type of each property type.
extension ShapeBuilder {
    /// The storage class and Swift type of a value, enum, option set, struct or array property (nil after
    /// reporting a type that is none of them).
    func storageAndSwiftType(
        of type: PropertyType, _ property: PropertyDescription, at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector
    ) -> (SchemaColumn.StorageType, String)? {
        switch type {
        case .scalar(let scalar): return Self.storage(of: scalar)
        case .array(let element):
            guard let (_, swift) = storageAndSwiftType(of: element, property, at: version, &diagnostics) else { return nil }
            return (.text, "[\(swift)]")
        case .composite(let name): return (.text, structTypes.typeName(of: name, at: version))
        case .subtype(let name):
            guard let subtype = subtypes[name] else {
                let suggestion =
                    KeySuggestion.nearest(to: name, among: (subtypes.keys + ScalarType.allCases.map(\.rawValue)).sorted()).map {
                        "; did you mean '\($0)'?"
                    } ?? ""
                diagnostics.error(
                    "unknown property type '\(name)': not a scalar (\(ScalarType.allCases.map(\.rawValue).joined(separator: ", "))) nor a subtype in Subtypes/\(suggestion)",
                    at: property.typeLocation, path: property.path + ".property_type")
                return nil
            }
            switch subtype.kind {
            case .enumeration: return (.text, enumTypes.typeName(of: name, at: version) ?? subtype.swiftTypeName)
            case .optionSet: return (.integer, subtype.swiftTypeName)
            case .structure: return (.text, structTypes.typeName(of: name, at: version))
            }
        case .relationship:
            diagnostics.error("a relationship cannot be an array element", at: property.location, path: property.path)
            return nil
        }
    }

    func isStoredAsJSON(_ type: PropertyType) -> Bool {
        switch type {
        case .array: return true
        case .subtype(let name):
            if case .structure = subtypes[name]?.kind { return true }
            return false
        case .scalar, .relationship, .composite: return false
        }
    }

    static func storage(of scalar: ScalarType) -> (SchemaColumn.StorageType, String) {
        switch scalar {
        case .string, .color: (.text, SwiftTypes.string)
        case .int: (.integer, SwiftTypes.int)
        case .bool: (.integer, SwiftTypes.bool)
        case .double, .seconds, .milliseconds: (.real, SwiftTypes.double)
        case .float: (.real, SwiftTypes.float)
        case .date: (.text, SwiftTypes.date)
        case .url: (.text, SwiftTypes.url)
        case .data: (.blob, SwiftTypes.data)
        // As GRDB stores a `UUID` (its `databaseValue`): a BLOB of its 16 bytes.
        case .uuid: (.blob, SwiftTypes.uuid)
        // As GRDB stores a `Decimal` (its `databaseValue`): its text (`DecimalText`).
        case .decimal: (.text, SwiftTypes.decimal)
        }
    }
}
