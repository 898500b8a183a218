@_spi(Generated) import LucidSchema

/// The value types the schema carries for each column (``SchemaColumn/valueType``), from which the
/// planner decides which type changes keep every value, and the loss a `type_history` item accepts.
extension ShapeBuilder {
    /// The logical type of a property's values: `int`, `seconds`, `enum Category`, `option_set Flags`,
    /// `struct Address`, `[string]`, `to_one`. A reference's target is not part of it: the foreign key
    /// names the target's table as named at each version, and a renamed target is the same entity.
    func valueType(of type: PropertyType) -> ValueType {
        switch type {
        case .scalar(let scalar): scalar.valueType
        case .subtype(let name):
            switch subtypes[name]?.kind {
            case .enumeration?: .enumeration(name)
            case .optionSet?: .optionSet(name)
            case .structure?: .structure(name)
            // Reported as an unknown type where the property is shaped.
            case nil: .other(name)
            }
        case .composite(let name): .composite(name)
        case .array(let element): .array(valueType(of: element))
        case .relationship(_, let toMany, _): toMany ? .toMany : .toOne(target: nil)
        }
    }

    /// The value type of an identifier column.
    static func valueType(of identifier: IdentifierShape) -> ValueType {
        identifier.storage == .text ? .string : .int
    }

    /// A property's column annotations at `shape`'s version: its value type and, when a `type_history`
    /// item with `lossy_conversion` ends at this very version, the previous value type whose lossy
    /// conversion it accepts.
    func valueTypeAnnotations(of property: PropertyShape, in timeline: EntityTimeline, shape: EntityShape, previousShape: EntityShape?)
        -> (valueType: ValueType?, lossyConversionFrom: ValueType?)
    {
        guard let description = timeline.entity.properties.first(where: { $0.name == property.currentName }) else { return (nil, nil) }
        let current = valueType(of: description.asOf(shape.version).type)
        guard let previousShape, previousShape.version < shape.version,
            description.typeHistory.contains(where: {
                $0.lossyConversion && $0.untilVersion > previousShape.version && $0.untilVersion <= shape.version
            }),
            previousShape.properties.contains(where: { $0.currentName == property.currentName })
        else { return (current, nil) }
        return (current, valueType(of: description.asOf(previousShape.version).type))
    }
}

extension ScalarType {
    /// The value type of a scalar property's column.
    var valueType: ValueType {
        switch self {
        case .string: .string
        case .int: .int
        case .date: .date
        case .double: .double
        case .float: .float
        case .bool: .bool
        case .seconds: .seconds
        case .milliseconds: .milliseconds
        case .url: .url
        case .color: .color
        case .data: .data
        case .uuid: .uuid
        case .decimal: .decimal
        }
    }
}
