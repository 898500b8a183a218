@_spi(Generated) import LucidSchema

/// Struct subtypes with a history (members added, removed and renamed at versions, optional ↔ required):
/// the members at each version, and the Swift type each version's records use.
extension SubtypeDescription {
    /// Whether any member of this struct has a history.
    var hasMemberHistory: Bool {
        if case .structure(let members) = kind { return members.contains(where: \.hasHistory) }
        return false
    }

    /// The struct's members at a schema version: named as then (`identity` keeps the current name), with
    /// their nullability and default as then; nil when this is no struct.
    func members(at version: SchemaVersion) -> [SubtypeProperty]? {
        guard case .structure(let members) = kind else { return nil }
        return members.compactMap { member in member.exists(at: version) ? member.asOf(version) : nil }
    }

    /// The members along `identities` (current names) from struct `name` down through nested structs: as
    /// they were at `version`, or (nil) as described, removed ones included; nil when one is missing.
    static func members(
        along identities: [String], from name: String, in subtypes: [String: SubtypeDescription], at version: SchemaVersion?
    ) -> [SubtypeProperty]? {
        var type = name
        var result: [SubtypeProperty] = []
        for identity in identities {
            let members: [SubtypeProperty]?
            if let version {
                members = subtypes[type]?.members(at: version)
            } else if case .structure(let all)? = subtypes[type]?.kind {
                members = all
            } else {
                members = nil
            }
            guard let member = members?.first(where: { $0.identity == identity }) else { return nil }
            result.append(member)
            if case .subtype(let nested) = member.type { type = nested }
        }
        return result
    }

    /// The versions at which a member is added, removed, renamed or changes nullability or default, oldest first.
    var memberChangeVersions: [SchemaVersion] {
        guard case .structure(let members) = kind else { return [] }
        return Set(
            members.flatMap {
                [$0.addedAtVersion, $0.removedAtVersion, $0.renamedAtVersion].compactMap { $0 } + $0.typeHistory.map(\.untilVersion)
            }
        ).sorted()
    }
}

extension PropertyType {
    /// The struct subtype this type holds: itself (stored as JSON or as a composite), or an array's element.
    func structName(in subtypes: [String: SubtypeDescription]) -> String? {
        switch self {
        case .subtype(let name), .composite(let name):
            if case .structure? = subtypes[name]?.kind { return name }
            return nil
        case .array(let element): return element.structName(in: subtypes)
        case .scalar, .relationship: return nil
        }
    }
}

extension SubtypeProperty {
    func exists(at version: SchemaVersion) -> Bool {
        (addedAtVersion.map { $0 <= version } ?? true) && (removedAtVersion.map { version < $0 } ?? true)
    }

    /// The member as it was at `version`: its name then, nullability and default from its `type_history`.
    func asOf(_ version: SchemaVersion) -> SubtypeProperty {
        var result = self
        if let previousName, let renamedAtVersion, version < renamedAtVersion { result.name = previousName }
        for item in typeHistory.reversed() where version < item.untilVersion {
            if let nullable = item.nullable { result.nullable = nullable }
            if let defaultValue = item.defaultValue { result.defaultValue = defaultValue }
        }
        return result
    }
}

/// The Swift type of a struct at each schema version: the newest member set keeps the plain name
/// (`ColorScheme`), an older, different one is named after the first version it held at
/// (`ColorScheme_1_0`), like record types. A struct whose nested struct changed changes with it. Only
/// distinct member sets make types.
struct StructVersionTypes: Sendable {
    struct VersionType: Sendable, Equatable {
        var typeName: String
        /// The version whose members it has (the first it held at).
        var version: SchemaVersion
        var versions: [SchemaVersion]
    }

    /// Struct name → version → type name, for structs whose members differ at some version only.
    private var names: [String: [SchemaVersion: String]] = [:]
    /// Struct name → its older types (not the newest), oldest first.
    private(set) var olderTypes: [String: [VersionType]] = [:]
    /// Struct name → its plain Swift type (`swift_name`), where it is not the derived one.
    private var plainNames: [String: String] = [:]

    init(subtypes: [String: SubtypeDescription], versions: [SchemaVersion]) {
        for (name, subtype) in subtypes where subtype.swiftName != nil { plainNames[name] = subtype.swiftTypeName }
        guard subtypes.values.contains(where: \.hasMemberHistory) else { return }
        // A version's member set, with each nested struct by its key at that version (so a change inside
        // a nested struct changes the outer one too).
        var keys: [String: String] = [:]
        func key(_ name: String, at version: SchemaVersion, _ stack: [String]) -> String {
            let memo = "\(name)@\(version)"
            if let known = keys[memo] { return known }
            guard let members = subtypes[name]?.members(at: version), !stack.contains(name) else { return name }
            func typeKey(_ type: PropertyType) -> String {
                switch type {
                case .subtype(let nested), .composite(let nested):
                    if case .structure? = subtypes[nested]?.kind { return "{\(key(nested, at: version, stack + [name]))}" }
                    return nested
                case .array(let element): return "[\(typeKey(element))]"
                default: return type.description
                }
            }
            let result = members.map { "\($0.name):\(typeKey($0.type))\($0.nullable ? "?" : "")" }.joined(separator: ",")
            keys[memo] = result
            return result
        }
        for (name, subtype) in subtypes.sorted(by: { $0.key < $1.key }) {
            guard case .structure = subtype.kind else { continue }
            let named = VersionedTypeNames(plainName: subtype.swiftTypeName, versions: versions) { key(name, at: $0, []) }
            guard !named.older.isEmpty else { continue }
            names[name] = named.names
            olderTypes[name] = named.older.map { VersionType(typeName: $0.typeName, version: $0.first, versions: $0.versions) }
        }
    }

    /// The Swift type of struct `name` at a version (its plain name when it never changes).
    func typeName(of name: String, at version: SchemaVersion) -> String {
        names[name]?[version] ?? plainNames[name] ?? Naming.typeName(name)
    }

    /// What of struct `name`'s members changed from `old` to `new` that its stored JSON cannot follow: a
    /// renamed member (its key), a required member added or a member made required (old JSON lacks the
    /// value), in nested structs too. Decoding follows the rest by itself: an optional member added reads
    /// as nil, a removed one is ignored, one made optional still reads. Empty: the JSON decodes as is.
    static func jsonIncompatibilities(
        _ name: String, from old: SchemaVersion, to new: SchemaVersion, _ subtypes: [String: SubtypeDescription], path: String = ""
    ) -> [String] {
        guard let before = subtypes[name]?.members(at: old), let after = subtypes[name]?.members(at: new) else { return [] }
        var result: [String] = []
        for member in after {
            let label = path.isEmpty ? member.name : path + "." + member.name
            guard let was = before.first(where: { $0.identity == member.identity }) else {
                if !member.nullable { result.append("\(name).\(member.name) is added as required") }
                continue
            }
            if was.name != member.name { result.append("\(name).\(was.name) is renamed to \(member.name)") }
            if was.nullable && !member.nullable { result.append("\(name).\(member.name) becomes required") }
            if let inner = member.type.structName(in: subtypes) {
                result += jsonIncompatibilities(inner, from: old, to: new, subtypes, path: label)
            }
        }
        return result
    }

    /// Whether struct `name` has a different Swift type at `a` and `b`.
    func differs(_ name: String, _ a: SchemaVersion, _ b: SchemaVersion) -> Bool {
        typeName(of: name, at: a) != typeName(of: name, at: b)
    }
}

/// Checks the struct member histories against the schema versions and the entities that hold the structs.
enum StructHistoryResolver {
    static func check(_ subtypes: [SubtypeDescription], versions: [SchemaVersion], _ diagnostics: inout DiagnosticCollector) {
        let known = Set(versions)
        let list = versions.map(\.string).joined(separator: ", ")
        for subtype in subtypes where subtype.hasMemberHistory {
            guard case .structure(let members) = subtype.kind else { continue }
            for member in members {
                let changes =
                    [
                        ("added_at_version", member.addedAtVersion), ("removed_at_version", member.removedAtVersion),
                        ("renamed_at_version", member.renamedAtVersion),
                    ]
                    + member.typeHistory.map { ("until_version", Optional($0.untilVersion)) }
                var valid = true
                for (key, version) in changes {
                    guard let version, !known.contains(version) else { continue }
                    valid = false
                    diagnostics.error(
                        "\(key) \(version) of member '\(member.name)' of struct '\(subtype.name)' is not a schema version (no entity's version_history lists it; versions: \(list))",
                        at: member.location, path: member.path + "." + key)
                }
                guard valid else { continue }
                if let added = member.addedAtVersion {
                    for (key, version) in [
                        ("removed_at_version", member.removedAtVersion), ("renamed_at_version", member.renamedAtVersion),
                    ] {
                        if let version, version <= added {
                            diagnostics.error(
                                "\(key) \(version) of member '\(member.name)' is not after its added_at_version \(added)",
                                at: member.location, path: member.path + "." + key)
                        }
                    }
                }
                if let removed = member.removedAtVersion, let renamed = member.renamedAtVersion, renamed >= removed {
                    diagnostics.error(
                        "member '\(member.name)' is renamed at \(renamed), at or after its removal at \(removed)", at: member.location,
                        path: member.path + ".renamed_at_version")
                }
            }
            for version in versions {
                var seen: Set<String> = []
                for member in members where member.exists(at: version) {
                    let name = member.asOf(version).name
                    if !seen.insert(name).inserted {
                        diagnostics.error(
                            "struct '\(subtype.name)' has two members named '\(name)' at version \(version); a member can only be renamed to (or added with) a name no other member has then",
                            at: member.location, path: member.path)
                        break
                    }
                }
            }
        }
    }

    /// The structs a property type holds, nested ones included.
    static func structs(in type: PropertyType, _ subtypes: [String: SubtypeDescription], into result: inout Set<String>) {
        guard let name = type.structName(in: subtypes), result.insert(name).inserted, case .structure(let members)? = subtypes[name]?.kind
        else { return }
        for member in members { structs(in: member.type, subtypes, into: &result) }
    }

    /// Every entity holding a struct at a version where the struct's members change must have a
    /// version_history item there: its record types are per history version, and the change must show.
    static func checkEntities(
        _ timelines: TimelineSet, types: StructVersionTypes, subtypes: [String: SubtypeDescription], versions: [SchemaVersion],
        _ diagnostics: inout DiagnosticCollector
    ) {
        guard subtypes.values.contains(where: \.hasMemberHistory) else { return }
        for timeline in timelines.values {
            for version in versions where timeline.exists(at: version) {
                guard let history = timeline.historyVersion(at: version), history != version else { continue }
                var held: Set<String> = []
                for property in timeline.properties(at: version) { structs(in: property.asOf(version).type, subtypes, into: &held) }
                for name in held.sorted() where types.differs(name, history, version) {
                    diagnostics.error(
                        "struct '\(name)' changes its members at \(version), which '\(timeline.entity.name)' holds: add { \"version\": \"\(version)\" } to the version_history of '\(timeline.entity.name)' so that its records at \(version) see the change",
                        at: timeline.entity.location)
                }
            }
        }
    }
}

extension SchemaSnapshot.SubtypeSnapshot {
    /// The record of every struct's members at a version, for a snapshot that freezes it: editing a
    /// released struct without history is then an error naming it (its JSON would no longer decode).
    static func structs(_ subtypes: [SubtypeDescription], at version: SchemaVersion) -> [SchemaSnapshot.SubtypeSnapshot] {
        subtypes.compactMap { subtype in
            guard let members = subtype.members(at: version) else { return nil }
            return SchemaSnapshot.SubtypeSnapshot(
                name: subtype.name, kind: "struct", cases: nil,
                members: members.map { SchemaSnapshot.MemberSnapshot(name: $0.name, type: $0.type.description, nullable: $0.nullable) })
        }
    }
}
