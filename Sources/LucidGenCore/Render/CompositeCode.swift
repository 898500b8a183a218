import LucidSchema

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

    /// `try row.allNull(3..<6) ? nil : ColorScheme(` then `primary: row.decode(String.self, at: 3),` … one
    /// argument per line, for the statement `self.<property> = …` indented by `indent`.
    func positionalDecode(indent: String) -> String {
        var position = start
        let lead = "self.\(swiftName) = try ".count
        return "try " + decode(composite, optional: optional, position: &position, byName: false, indent: indent, lead: lead)
    }

    /// `try ColorScheme(` then `primary: row.decode(String.self, forColumn: "color_scheme_primary"),` … one
    /// argument per line, for the statement `self.<property> = …` indented by `indent`.
    func namedDecode(indent: String) -> String {
        var position = start
        let lead = "self.\(swiftName) = try ".count
        return "try " + decode(composite, optional: optional, position: &position, byName: true, indent: indent, lead: lead)
    }

    /// The value of `shape` read from the row, on a line indented by `indent` after `lead` characters.
    /// An optional one is `<all its columns NULL> ? nil : Type(…)`, its check on a line of its own (and
    /// `? nil` and `: Type(…)` on the next ones) when they do not fit on one.
    private func decode(_ shape: CompositeShape, optional: Bool, position: inout Int, byName: Bool, indent: String, lead: Int) -> String {
        let first = position
        func value(indent: String) -> String {
            position = first
            var arguments: [String] = []
            for element in shape.elements {
                let label = Naming.argumentLabel(element.swiftName)
                switch element.kind {
                case .column(_, let swiftType, _, _, _):
                    let read: String
                    if byName {
                        read =
                            "row.decode(\(swiftType)\(element.nullable ? "?" : "").self, forColumn: \(swiftStringLiteral(element.column)))"
                    } else {
                        read = "row.decode\(element.nullable ? "IfPresent" : "")(\(swiftType).self, at: \(position))"
                    }
                    arguments.append("\(label): \(read)")
                    position += 1
                case .nested(let nested):
                    let inner = indent + "    "
                    let value = decode(
                        nested, optional: element.nullable, position: &position, byName: byName, indent: inner, lead: label.count + 2)
                    arguments.append("\(label): " + value)
                }
            }
            return SwiftLayout.call(shape.swiftType, arguments, indent: indent)
        }
        guard optional else { return value(indent: indent) }
        let columnCount = shape.leaves(optional: true).count
        let check =
            byName
            ? SwiftLayout.fittingCall("row.allNull", columns(of: shape).map(swiftStringLiteral), indent: indent, prefix: lead)
            : "row.allNull(\(first)..<\(first + columnCount))"
        if !check.contains("\n"), indent.count + lead + check.count + " ? nil : ".count + shape.swiftType.count + 1 <= SwiftLayout.lineLimit
        {
            return "\(check) ? nil : " + value(indent: indent)
        }
        let inner = indent + "    "
        return check + "\n" + inner + "? nil\n" + inner + ": " + value(indent: inner)
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
