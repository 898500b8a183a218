import Foundation
import LucidSchema
@_spi(Generated) import LucidSchema

/// Literals: a `default_value` as the SQL of a column's `DEFAULT` and as the Swift of a record's default.
extension ShapeBuilder {
    /// A double default's SQL (and Swift): `5.0`, `2.5`, `1e+300`. `describe` writes a store's default as a
    /// value only when this gives its text back.
    static func numberSQL(_ double: Double) -> String {
        double == double.rounded() && abs(double) < 1e15 ? String(format: "%.1f", double) : "\(double)"
    }

    /// The SQL and Swift forms of a default value, checked against the property's type. An SQL expression
    /// has no Swift form (the record's initialiser then asks for the value), except `CURRENT_TIMESTAMP` on a date.
    /// `version`: the version whose enum cases a default case names (nil: the newest), for its Swift name.
    func defaultLiterals(
        _ value: DefaultValue, for property: PropertyDescription, nullable: Bool, at version: SchemaVersion? = nil,
        _ diagnostics: inout DiagnosticCollector
    ) -> (String, String?)? {
        func mismatch() -> (String, String?)? {
            diagnostics.error(
                "default_value does not fit property '\(property.name)' of type \(property.type)", at: property.location,
                path: property.path + ".default_value")
            return nil
        }
        func number(_ double: Double) -> String { Self.numberSQL(double) }
        if value == .null { return nullable ? ("NULL", "nil") : mismatch() }
        switch property.type {
        case .scalar(let scalar):
            if case .string(let text) = value, text.utf8.contains(0) {
                // SQLite reads SQL text up to its first NUL: the column's DEFAULT could not hold the value.
                diagnostics.error(
                    "default_value of '\(property.name)' contains NUL (U+0000), which a SQL default cannot hold",
                    at: property.location, path: property.path + ".default_value")
                return nil
            }
            switch (scalar, value) {
            case (.date, .sqlExpression(let sql)) where sql.uppercased() == "CURRENT_TIMESTAMP":
                return (sql, "\(SwiftTypes.date)()")
            case (_, .sqlExpression(let sql)):
                return (sql, nil)
            case (.bool, .bool(let flag)): return (flag ? "1" : "0", flag ? "true" : "false")
            case (.int, .int(let integer)): return ("\(integer)", "\(integer)")
            case (.double, .int(let integer)), (.float, .int(let integer)), (.seconds, .int(let integer)),
                (.milliseconds, .int(let integer)):
                return (number(Double(integer)), number(Double(integer)))
            case (.double, .double(let double)), (.float, .double(let double)), (.seconds, .double(let double)),
                (.milliseconds, .double(let double)):
                return (number(double), number(double))
            case (.double, .number(let text)), (.float, .number(let text)), (.seconds, .number(let text)),
                (.milliseconds, .number(let text)):
                guard let double = Double(text) else { return mismatch() }
                return (number(double), number(double))
            case (.decimal, .int(let integer)):
                return (quoteLiteral("\(integer)"), "\(SwiftTypes.decimal)(\(integer))")
            case (.decimal, .number(let text)), (.decimal, .string(let text)):
                // Exact: the text GRDB stores for that `Decimal`, never through a `Double`.
                guard let stored = DecimalText.stored(text) else {
                    diagnostics.error(
                        "default_value '\(text)' of '\(property.name)' is not a decimal number a Decimal holds exactly: write digits with an optional sign, fraction and exponent, at most \(DecimalText.maximumDigits) significant digits, e.g. \"12.50\"",
                        at: property.location, path: property.path + ".default_value")
                    return nil
                }
                return (quoteLiteral(stored), "\(SwiftTypes.decimal)(string: \(swiftStringLiteral(stored)))!")
            case (.seconds, .seconds(let seconds)): return (number(seconds), number(seconds))
            case (.seconds, .milliseconds(let milliseconds)): return (number(milliseconds / 1000), number(milliseconds / 1000))
            case (.milliseconds, .milliseconds(let milliseconds)): return (number(milliseconds), number(milliseconds))
            case (.milliseconds, .seconds(let seconds)): return (number(seconds * 1000), number(seconds * 1000))
            case (.string, .string(let text)), (.color, .string(let text)):
                return (quoteLiteral(text), swiftStringLiteral(text))
            case (.url, .string(let text)):
                guard URL(string: text) != nil else { return mismatch() }
                return (quoteLiteral(text), "\(SwiftTypes.url)(string: \(swiftStringLiteral(text)))!")
            case (.uuid, .string(let text)):
                // The canonical text; the column's default is the blob GRDB writes for that `UUID`.
                guard let bytes = UUIDText.bytes(text) else {
                    diagnostics.error(
                        "default_value '\(text)' of '\(property.name)' is not a UUID: write its 32 hexadecimal digits as 8-4-4-4-12, e.g. \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"",
                        at: property.location, path: property.path + ".default_value")
                    return nil
                }
                return (UUIDText.sqlLiteral(bytes), "\(SwiftTypes.uuid)(uuidString: \(swiftStringLiteral(UUIDText.string(bytes))))!")
            case (.date, .currentDate):
                // The same text form GRDB stores dates in, to the millisecond.
                return ("(strftime('%Y-%m-%d %H:%M:%f', 'now'))", "\(SwiftTypes.date)()")
            default: return mismatch()
            }
        case .subtype(let name):
            guard let subtype = subtypes[name], case .enumeration(let cases) = subtype.kind, case .enumCase(let item) = value else {
                return mismatch()
            }
            // Any case the enum ever had: which one exists at each version is checked with the enum's history.
            guard cases.contains(item) || subtype.everyCaseName.contains(item) else {
                diagnostics.error(
                    "default_value '.\(item)' is not a case of '\(name)' (\(cases.joined(separator: ", ")))", at: property.location,
                    path: property.path + ".default_value")
                return nil
            }
            let swiftCase = subtype.swiftCaseName(item, at: version)
            // `.none` where an optional is expected is `Optional.none` (nil), and Swift warns: name the enum.
            let type = swiftCase == "none" ? (version.flatMap { enumTypes.typeName(of: name, at: $0) } ?? subtype.swiftTypeName) : ""
            return (quoteLiteral(item), "\(type).\(Naming.swiftIdentifier(swiftCase))")
        default:
            diagnostics.error(
                "default_value is not supported for property '\(property.name)' of type \(property.type)", at: property.location,
                path: property.path + ".default_value")
            return nil
        }
    }
}
