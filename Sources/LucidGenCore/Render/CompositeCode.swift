/// The Swift that reads and writes one composite property of a record: by position for the migration
/// conformance (`MigrationRow`/`MigrationValues`, the composite's columns one after the other from
/// `start`), and by column name for GRDB (`init(row:)`, `encode(to:)`).
///
/// An optional composite (or optional nested member) is nil exactly when all its columns are NULL; the
/// Resolve stage makes sure it has a required column, so a value never has them all NULL.
struct CompositeCode {
    let composite: CompositeShape
    let optional: Bool
    /// The record's property.
    let swiftName: String
    let start: Int

    var leaves: [CompositeShape.Leaf] { composite.leaves(optional: optional) }

    /// `try row.allNull(3..<6) ? nil : ColorScheme(primary: row.decode(String.self, at: 3), …)`.
    func positionalDecode() -> String {
        var position = start
        return "try " + decode(composite, optional: optional, position: &position, byName: false)
    }

    /// `try ColorScheme(primary: row.decode(String.self, forColumn: "color_scheme_primary"), …)`.
    func namedDecode() -> String {
        var position = start
        return "try " + decode(composite, optional: optional, position: &position, byName: true)
    }

    private func decode(_ shape: CompositeShape, optional: Bool, position: inout Int, byName: Bool) -> String {
        let first = position
        var arguments: [String] = []
        for element in shape.elements {
            let label = Naming.argumentLabel(element.swiftName)
            switch element.kind {
            case .column(_, let swiftType, _, _, _):
                let read: String
                if byName {
                    read = "row.decode(\(swiftType)\(element.nullable ? "?" : "").self, forColumn: \(swiftStringLiteral(element.column)))"
                } else {
                    read = "row.decode\(element.nullable ? "IfPresent" : "")(\(swiftType).self, at: \(position))"
                }
                arguments.append("\(label): \(read)")
                position += 1
            case .nested(let nested):
                arguments.append("\(label): " + decode(nested, optional: element.nullable, position: &position, byName: byName))
            }
        }
        let value = "\(shape.swiftType)(\(arguments.joined(separator: ", ")))"
        guard optional else { return value }
        let check = byName
            ? "row.allNull(\(columns(of: shape).map(swiftStringLiteral).joined(separator: ", ")))"
            : "row.allNull(\(first)..<\(position))"
        return "(\(check) ? nil : \(value))"
    }

    /// Every column of a (nested) composite, in order.
    private func columns(of shape: CompositeShape) -> [String] {
        shape.leaves(optional: true).map(\.column)
    }

    /// `values.encode(self.colorScheme?.primary, at: 3)`, one line per column.
    func positionalEncode() -> [String] {
        accessors().enumerated().map { offset, accessor in "values.encode(self.\(accessor), at: \(start + offset))" }
    }

    /// `container["color_scheme_primary"] = self.colorScheme?.primary`, one line per column (`self.`: a
    /// property named `container` is not the parameter).
    func namedEncode() -> [String] {
        zip(leaves, accessors()).map { leaf, accessor in "container[\(swiftStringLiteral(leaf.column))] = self.\(accessor)" }
    }

    /// The Swift path of each column's value: `colorScheme?.accent.red` (optional chaining through every
    /// optional composite on the way).
    private func accessors() -> [String] {
        var result: [String] = []
        func walk(_ shape: CompositeShape, prefix: String) {
            for element in shape.elements {
                switch element.kind {
                case .column: result.append(prefix + "." + element.swiftName)
                case .nested(let nested): walk(nested, prefix: prefix + "." + element.swiftName + (element.nullable ? "?" : ""))
                }
            }
        }
        walk(composite, prefix: swiftName + (optional ? "?" : ""))
        return result
    }
}
