import Foundation

/// A subtype's description document (`.entities/Subtypes/<name>.json`) as lucidgen's own tools write it: an
/// enum's cases, an option set's options, or a struct's members, each with its history. Written by
/// ``DescriptionWriter/json(_:)-(SubtypeDocument)``, read by the generator's loader like a hand-written one.
package struct SubtypeDocument: Sendable, Hashable {
    package var name: String
    package var swiftName: String?
    /// `added_at_version`: the first version that has the subtype.
    package var addedAtVersion: String?
    package var kind: Kind

    package init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    package enum Kind: Sendable, Hashable {
        /// `cases`: an enum stored as its case's name.
        case cases([Case])
        /// `options`: an option set stored as an integer.
        case options([String])
        /// `properties`: a struct, stored as JSON or, where a property says `composite`, a column per member.
        case members([Member])
    }

    /// An item of `cases`: written as its bare name when it says nothing more.
    package struct Case: Sendable, Hashable {
        package var name: String
        package var swiftName: String?
        package var addedAtVersion: String?
        package var previousName: String?
        package var renamedAtVersion: String?
        package var removedAtVersion: String?
        /// What rows holding a removed case become: nil, not said (the app's code decides); `.some(nil)`, NULL.
        package var fallback: String??

        package init(
            name: String, swiftName: String? = nil, addedAtVersion: String? = nil, previousName: String? = nil,
            renamedAtVersion: String? = nil, removedAtVersion: String? = nil, fallback: String?? = nil
        ) {
            self.name = name
            self.swiftName = swiftName
            self.addedAtVersion = addedAtVersion
            self.previousName = previousName
            self.renamedAtVersion = renamedAtVersion
            self.removedAtVersion = removedAtVersion
            self.fallback = fallback
        }

        /// Whether the item is more than its name.
        var saysMore: Bool {
            swiftName != nil || addedAtVersion != nil || previousName != nil || renamedAtVersion != nil || removedAtVersion != nil
                || fallback != nil
        }
    }

    /// A struct's member: a scalar or another subtype, with the history a property has.
    package struct Member: Sendable, Hashable {
        package var name: String
        package var swiftName: String?
        /// `property_type`: a scalar type's or a subtype's name (`double`, `point`, `[string]`).
        package var type: String
        package var nullable = false
        package var defaultValue: DescriptionDocument.Value?
        package var addedAtVersion: String?
        package var removedAtVersion: String?
        package var previousName: String?
        package var renamedAtVersion: String?
        /// `type_history`: a member's nullability and default before a version (its type cannot change).
        package var typeHistory: [DescriptionDocument.TypeChange] = []

        package init(name: String, type: String, nullable: Bool = false, defaultValue: DescriptionDocument.Value? = nil) {
            self.name = name
            self.type = type
            self.nullable = nullable
            self.defaultValue = defaultValue
        }
    }
}

extension DescriptionWriter {
    /// A subtype document as its committed text: the subtype's keys on its first line, then each case,
    /// option or member on a line of its own.
    package static func json(_ subtype: SubtypeDocument) -> String {
        var fields: [(String, String)] = [("name", string(subtype.name))]
        if let value = subtype.swiftName { fields.append(("swift_name", string(value))) }
        if let value = subtype.addedAtVersion { fields.append(("added_at_version", string(value))) }
        let items: [String]
        let key: String
        switch subtype.kind {
        case .cases(let cases):
            key = "cases"
            items = cases.map(json)
        case .options(let options):
            key = "options"
            items = options.map(string)
        case .members(let members):
            key = "properties"
            items = members.map(json)
        }
        let head = fields.map { "\(string($0.0)): \($0.1)" }.joined(separator: ", ")
        return "{ " + head + ", " + string(key) + ": [\n    " + items.joined(separator: ",\n    ") + "\n] }\n"
    }

    static func json(_ item: SubtypeDocument.Case) -> String {
        guard item.saysMore else { return string(item.name) }
        var fields = [("name", string(item.name))]
        if let value = item.swiftName { fields.append(("swift_name", string(value))) }
        if let value = item.addedAtVersion { fields.append(("added_at_version", string(value))) }
        if let value = item.previousName { fields.append(("previous_name", string(value))) }
        if let value = item.renamedAtVersion { fields.append(("renamed_at_version", string(value))) }
        if let value = item.removedAtVersion { fields.append(("removed_at_version", string(value))) }
        if let fallback = item.fallback { fields.append(("fallback", fallback.map(string) ?? "null")) }
        return object(fields)
    }

    static func json(_ member: SubtypeDocument.Member) -> String {
        var fields = [("name", string(member.name))]
        if let value = member.swiftName { fields.append(("swift_name", string(value))) }
        fields.append(("property_type", string(member.type)))
        if member.nullable { fields.append(("nullable", "true")) }
        if let value = member.defaultValue { fields.append(("default_value", json(value))) }
        if let value = member.addedAtVersion { fields.append(("added_at_version", string(value))) }
        if let value = member.removedAtVersion { fields.append(("removed_at_version", string(value))) }
        if let value = member.previousName { fields.append(("previous_name", string(value))) }
        if let value = member.renamedAtVersion { fields.append(("renamed_at_version", string(value))) }
        if !member.typeHistory.isEmpty { fields.append(("type_history", json(member.typeHistory))) }
        return object(fields)
    }
}
