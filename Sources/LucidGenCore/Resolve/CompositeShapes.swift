import Foundation
@_spi(Generated) import LucidSchema

/// Composites: a struct subtype stored as one column per element (nested structs flattened).
extension ShapeBuilder {
    /// A composite's elements: `name` must be a struct subtype whose members are scalars, enums, option
    /// sets or structs (nested composites, flattened the same way), never arrays or relationships.
    func compositeShape(
        _ name: String, prefix: String, of property: PropertyDescription, at version: SchemaVersion, stack: [String],
        _ diagnostics: inout DiagnosticCollector
    ) -> CompositeShape? {
        guard let subtype = subtypes[name] else {
            diagnostics.error(
                "unknown property type '\(name)': a composite needs a struct subtype in Subtypes/", at: property.typeLocation,
                path: property.path + ".property_type")
            return nil
        }
        guard case .structure = subtype.kind, let members = subtype.members(at: version) else {
            let kind = if case .enumeration = subtype.kind { "an enum" } else { "an option set" }
            diagnostics.error(
                "composite '\(property.name)' needs a struct subtype (one with 'properties'), but '\(name)' is \(kind), which is one column already; drop \"composite\"",
                at: property.typeLocation, path: property.path + ".property_type")
            return nil
        }
        if stack.contains(name) {
            diagnostics.error(
                "composite '\(property.name)' contains itself: \((stack + [name]).joined(separator: " → ")); a composite's columns must be finite",
                at: subtype.location)
            return nil
        }
        var elements: [CompositeShape.Element] = []
        // Each element's value in the struct made of defaults (nil: the element has none).
        var elementDefaults: [String?] = []
        var valid = true
        for member in members {
            let column = prefix + "_" + member.name
            let swiftName = Naming.swiftIdentifier(member.swiftMemberName)
            func leaf(_ storage: SchemaColumn.StorageType, _ swiftType: String, _ typeName: String) {
                var defaultSQL: String?
                var defaultSwift: String? = member.nullable ? "nil" : nil
                if let value = member.defaultValue {
                    var asProperty = property
                    asProperty.name = member.name
                    asProperty.type = member.type
                    asProperty.location = member.location
                    asProperty.path = member.path
                    guard let (sql, swift) = defaultLiterals(value, for: asProperty, nullable: member.nullable, &diagnostics) else {
                        valid = false; return
                    }
                    defaultSQL = sql
                    defaultSwift = swift ?? defaultSwift
                }
                elementDefaults.append(defaultSwift)
                elements.append(
                    CompositeShape.Element(
                        name: member.name, identity: member.identity, swiftName: swiftName, column: column, nullable: member.nullable,
                        kind: .column(
                            storage: storage, swiftType: swiftType, valueType: valueType(of: member.type), typeName: typeName,
                            defaultSQL: defaultSQL)))
            }
            switch member.type {
            case .scalar(let scalar):
                let (storage, swiftType) = Self.storage(of: scalar)
                leaf(storage, swiftType, scalar.rawValue)
            case .subtype(let nestedName), .composite(let nestedName):
                guard let nested = subtypes[nestedName] else {
                    diagnostics.error(
                        "unknown type '\(nestedName)' of member '\(member.name)' of '\(name)': not a scalar nor a subtype in Subtypes/",
                        at: member.location, path: member.path)
                    valid = false
                    continue
                }
                switch nested.kind {
                case .enumeration: leaf(.text, enumTypes.typeName(of: nestedName, at: version) ?? nested.swiftTypeName, nestedName)
                case .optionSet: leaf(.integer, nested.swiftTypeName, nestedName)
                case .structure:
                    if member.defaultValue != nil {
                        diagnostics.error(
                            "member '\(member.name)' of '\(name)' is a nested composite, which cannot have a default_value: give its elements one",
                            at: member.location, path: member.path + ".default_value")
                        valid = false
                    }
                    guard
                        let shape = compositeShape(
                            nestedName, prefix: column, of: property, at: version, stack: stack + [name], &diagnostics)
                    else { valid = false; continue }
                    if member.nullable, !shape.hasRequiredColumn {
                        diagnostics.error(
                            "optional member '\(member.name)' of '\(name)' is a nested composite with no required element: nil and a '\(nestedName)' whose elements are all nil would both be NULL in every column; make one element of '\(nestedName)' required",
                            at: member.location, path: member.path)
                        valid = false
                        continue
                    }
                    elementDefaults.append(shape.defaultSwift ?? (member.nullable ? "nil" : nil))
                    elements.append(
                        CompositeShape.Element(
                            name: member.name, identity: member.identity, swiftName: swiftName, column: column, nullable: member.nullable,
                            kind: .nested(shape)))
                }
            case .array:
                diagnostics.error(
                    "member '\(member.name)' of '\(name)' is an array, which cannot be a composite element (an element is one queryable column); store '\(name)' as JSON (drop \"composite\" from '\(property.name)') or make the array a property of its own",
                    at: member.location, path: member.path)
                valid = false
            case .relationship:
                diagnostics.error(
                    "member '\(member.name)' of '\(name)' is a relationship: a composite is made of values, never relationships",
                    at: member.location, path: member.path)
                valid = false
            }
        }
        guard valid else { return nil }
        if elements.isEmpty {
            diagnostics.error(
                "composite '\(property.name)': the struct '\(name)' has no members, so it would have no column", at: subtype.location)
            return nil
        }
        let swiftType = structTypes.typeName(of: name, at: version)
        var shape = CompositeShape(subtype: name, swiftType: swiftType, elements: elements)
        if elementDefaults.count == elements.count, elementDefaults.allSatisfy({ $0 != nil }) {
            let arguments = zip(elements, elementDefaults).map { "\(Naming.argumentLabel($0.swiftName)): \($1!)" }
            shape.defaultSwift = "\(swiftType)(\(arguments.joined(separator: ", ")))"
        }
        return shape
    }

    /// The element `path` of composite `property` (its current members): the scalar or subtype name of
    /// its values, or why it is not one of the composite's columns.
    func compositeElement(_ property: PropertyDescription, path: [String]) -> Result<String, ElementProblem> {
        guard case .composite(var type) = property.type else {
            return .failure(ElementProblem("'\(property.name)' is not a composite (\"composite\": true), so it has no elements"))
        }
        for (depth, member) in path.enumerated() {
            guard case .structure(let members)? = subtypes[type]?.kind, let found = members.first(where: { $0.name == member }) else {
                return .failure(ElementProblem("'\(type)' has no member '\(member)'"))
            }
            let last = depth == path.count - 1
            switch found.type {
            case .subtype(let nested) where { if case .structure? = subtypes[nested]?.kind { true } else { false } }():
                if last { return .failure(ElementProblem("'\(member)' is a nested composite: name one of its elements")) }
                type = nested
            case .scalar(let scalar) where last: return .success(scalar.rawValue)
            case .subtype(let name) where last: return .success(name)
            default:
                return .failure(
                    ElementProblem(last ? "'\(member)' of '\(type)' cannot be an element" : "'\(member)' of '\(type)' is not a struct"))
            }
        }
        return .failure(ElementProblem("an element path names at least one member"))
    }

    struct ElementProblem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func firstMember(of type: String, _ subtypes: [String: SubtypeDescription]) -> String? {
        if case .structure(let members)? = subtypes[type]?.kind { return members.first?.name }
        return nil
    }
}
