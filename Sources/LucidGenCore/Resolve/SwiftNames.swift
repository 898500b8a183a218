@_spi(Generated) import LucidSchema

/// The Swift names of what descriptions name: `swift_name` where one is given for the current name,
/// else the name's derived form (`log_entry` → `LogEntry`, `tail_number` → `tailNumber`). Database
/// names (tables, columns, stored enum values, JSON keys) never change with `swift_name`.
extension SubtypeProperty {
    /// The member's Swift name (not escaped) under the name it has in this value: ``SubtypeDescription/members(at:)``
    /// names members as at a version, and an older name is not the one `swift_name` renames.
    var swiftMemberName: String { Naming.memberName(name, current: identity, swiftName: swiftName) }
}

extension PropertyDescription {
    /// The property's Swift name (not escaped) when it is called `name` (its name at some version).
    func swiftPropertyName(as name: String) -> String { Naming.memberName(name, current: self.name, swiftName: swiftName) }
}

extension SubtypeDescription {
    /// The enum case that has the stored value `raw` at `version` (nil: among the newest cases).
    func caseItem(named raw: String, at version: SchemaVersion?) -> EnumCaseDescription? {
        if let version { return caseHistory.first { $0.exists(at: version) && $0.name(at: version) == raw } }
        return caseHistory.first { $0.removedAtVersion == nil && $0.name == raw }
    }

    /// The Swift case (not escaped) of the enum case stored as `raw` at `version` (nil: the newest cases).
    func swiftCaseName(_ raw: String, at version: SchemaVersion?) -> String {
        guard let item = caseItem(named: raw, at: version) else { return Naming.propertyName(raw) }
        return Naming.memberName(raw, current: item.name, swiftName: item.swiftName)
    }
}

extension PropertyShape {
    /// The nested record type of a to-many relationship's links: `TagsLink` for `tags`.
    package var linkTypeName: String { swiftName.prefix(1).uppercased() + swiftName.dropFirst() + "Link" }

    /// The static members a relationship's GRDB associations take on its record (not escaped): its Swift
    /// name, and for a to-many its links' `<name>Links`; none for a value. One named like a member every
    /// record has (``Naming/recordStaticMembers``) is left out, with a warning.
    package var associationNames: [String] {
        switch kind {
        case .toOne: [swiftName]
        case .toMany: [swiftName, swiftName + "Links"]
        case .value, .composite: []
        }
    }
}

/// The outside types that the Swift type strings of the resolved model name (property and identifier
/// types, default values), qualified with their modules: in the app's module, the app's own `Date` or
/// `String` (an entity or a subtype) would otherwise take their place.
enum SwiftTypes {
    static let string = "Swift.String"
    static let int = "Swift.Int"
    static let int64 = "Swift.Int64"
    static let bool = "Swift.Bool"
    static let double = "Swift.Double"
    static let float = "Swift.Float"
    static let never = "Swift.Never"
    static let date = "Foundation.Date"
    static let url = "Foundation.URL"
    static let data = "Foundation.Data"
    static let uuid = "Foundation.UUID"
    static let decimal = "Foundation.Decimal"
}
