@_spi(Generated) import LucidSchema

/// Enum subtypes with a history (cases added, removed and renamed at versions): the cases at each
/// version, the Swift type each version's records use, and what each changed case's stored values become.
extension SubtypeDescription {
    /// Whether any case of this enum was added, removed or renamed.
    var hasCaseHistory: Bool { caseHistory.contains(where: \.hasHistory) }

    /// The enum's cases at a schema version, by their names then, sorted; nil when this is no enum.
    func cases(at version: SchemaVersion) -> [String]? {
        guard case .enumeration = kind else { return nil }
        return caseHistory.compactMap { item in item.exists(at: version) ? item.name(at: version) : nil }.sorted()
    }

    /// Every name any case ever had (a default value names one of them at some version).
    var everyCaseName: Set<String> { Set(caseHistory.flatMap { [$0.name] + ($0.previousName.map { [$0] } ?? []) }) }

    /// The versions at which a case is added, removed or renamed, oldest first.
    var caseChangeVersions: [SchemaVersion] {
        Set(caseHistory.flatMap { [$0.addedAtVersion, $0.removedAtVersion, $0.renamedAtVersion].compactMap { $0 } }).sorted()
    }

    /// What the stored values of renamed and removed cases become at `version` (relative to the version
    /// before it): renames and removals with a fallback are SQL; a removal without one needs the app's code.
    func caseChanges(at version: SchemaVersion) -> [EnumCaseChange] {
        var changes: [EnumCaseChange] = []
        for item in caseHistory {
            if item.renamedAtVersion == version, let previous = item.previousName, item.exists(at: version) {
                changes.append(EnumCaseChange(from: previous, to: item.name))
            }
            if item.removedAtVersion == version {
                let name = item.renamedAtVersion.map { $0 < version } ?? true ? item.name : (item.previousName ?? item.name)
                switch item.fallback {
                case .some(let fallback): changes.append(EnumCaseChange(from: name, to: fallback, removed: true))
                case nil: changes.append(EnumCaseChange(from: name, byApp: true))
                }
            }
        }
        return changes.sorted { $0.from < $1.from }
    }
}

extension EnumCaseDescription {
    func exists(at version: SchemaVersion) -> Bool {
        (addedAtVersion.map { $0 <= version } ?? true) && (removedAtVersion.map { version < $0 } ?? true)
    }

    func name(at version: SchemaVersion) -> String {
        if let previousName, let renamedAtVersion, version < renamedAtVersion { return previousName }
        return name
    }
}

/// The Swift type of an enum at each schema version: the newest case set keeps the plain name
/// (`AircraftCategory`), an older, different one is named after the first version it held at
/// (`AircraftCategory_1_0`), like record types. Only distinct case sets make types.
struct EnumVersionTypes: Sendable {
    /// One generated Swift enum.
    struct VersionType: Sendable, Equatable {
        var typeName: String
        var cases: [String]
        /// The versions whose records use it, for its doc comment.
        var versions: [SchemaVersion]
    }

    /// Enum name → version → type name, for enums with a history only.
    private var names: [String: [SchemaVersion: String]] = [:]
    /// Enum name → its older types (not the newest), oldest first.
    private(set) var olderTypes: [String: [VersionType]] = [:]

    init(subtypes: [SubtypeDescription], versions: [SchemaVersion]) {
        for subtype in subtypes where subtype.hasCaseHistory {
            let named = VersionedTypeNames(plainName: subtype.swiftTypeName, versions: versions) { subtype.cases(at: $0) ?? [] }
            names[subtype.name] = named.names
            olderTypes[subtype.name] = named.older.map { VersionType(typeName: $0.typeName, cases: $0.shape, versions: $0.versions) }
        }
    }

    /// The Swift type of enum `name` at a version; nil for an enum without history (its plain name).
    func typeName(of name: String, at version: SchemaVersion) -> String? { names[name]?[version] }
}

/// Checks the enum case histories against the schema versions and the entities that use the enums, and
/// gives each version's records the enum's type at that version.
enum EnumHistoryResolver {
    /// Checks that need only the descriptions and the schema versions: versions that exist, renames and
    /// additions in order, case names unique at every version, fallbacks that are cases then.
    static func check(_ subtypes: [SubtypeDescription], versions: [SchemaVersion], _ diagnostics: inout DiagnosticCollector) {
        let known = Set(versions)
        let list = versions.map(\.string).joined(separator: ", ")
        for subtype in subtypes where subtype.hasCaseHistory {
            for item in subtype.caseHistory {
                var valid = true
                for (key, version) in [
                    ("added_at_version", item.addedAtVersion), ("removed_at_version", item.removedAtVersion),
                    ("renamed_at_version", item.renamedAtVersion),
                ] {
                    guard let version, !known.contains(version) else { continue }
                    valid = false
                    diagnostics.error(
                        "\(key) \(version) of case '\(item.name)' of enum '\(subtype.name)' is not a schema version (no entity's version_history lists it; versions: \(list))",
                        at: item.location, path: item.path + "." + key)
                }
                guard valid else { continue }
                let start = item.addedAtVersion
                for (key, version) in [("removed_at_version", item.removedAtVersion), ("renamed_at_version", item.renamedAtVersion)] {
                    if let version, let start, version <= start {
                        diagnostics.error(
                            "\(key) \(version) of case '\(item.name)' is not after its added_at_version \(start)", at: item.location,
                            path: item.path + "." + key)
                    }
                }
                if let removed = item.removedAtVersion, let renamed = item.renamedAtVersion, renamed >= removed {
                    diagnostics.error(
                        "case '\(item.name)' is renamed at \(renamed), at or after its removal at \(removed)", at: item.location,
                        path: item.path + ".renamed_at_version")
                }
                if let removed = item.removedAtVersion, case .some(.some(let fallback)) = item.fallback {
                    let casesThen = subtype.cases(at: removed) ?? []
                    if !casesThen.contains(fallback) {
                        diagnostics.error(
                            "fallback '\(fallback)' of removed case '\(item.name)' is not a case of enum '\(subtype.name)' at \(removed) (\(casesThen.joined(separator: ", ")))",
                            at: item.location, path: item.path + ".fallback")
                    }
                }
            }
            // Two cases may not share a name at any version (a rename onto an existing case, an addition of one).
            for version in versions {
                var seen: Set<String> = []
                for item in subtype.caseHistory where item.exists(at: version) {
                    let name = item.name(at: version)
                    if !seen.insert(name).inserted {
                        let how =
                            item.renamedAtVersion.map { $0 <= version ? " (renamed from '\(item.previousName ?? "")' at \($0))" : "" } ?? ""
                        diagnostics.error(
                            "enum '\(subtype.name)' has two cases named '\(name)' at version \(version)\(how); a case can only be renamed to a name no other case has then",
                            at: item.location, path: item.path)
                        break
                    }
                }
            }
        }
    }

    /// Checks what needs the shapes (which hold each version's enum type, ``ShapeBuilder``): every entity
    /// holding the enum has a version_history item at each version its cases change (its record types see
    /// the change), defaults are cases at each version, a NULL fallback only where every column of the enum
    /// is nullable, and no case history for enums inside arrays or structs.
    static func checkHolders(
        subtypes: [SubtypeDescription], entities: [ResolvedEntity], descriptions: [EntityDescription],
        _ diagnostics: inout DiagnosticCollector
    ) {
        let historied = subtypes.filter(\.hasCaseHistory)
        guard !historied.isEmpty else { return }
        let byName = Dictionary(historied.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for subtype in subtypes {
            guard case .structure(let members) = subtype.kind else { continue }
            for member in members where member.type.mentionsSubtype(in: byName) {
                diagnostics.error(
                    "member '\(member.name)' of struct '\(subtype.name)' holds an enum with a case history, which is not supported inside structs; keep that enum's cases unchanged or use a plain property",
                    at: member.location)
            }
        }
        for entity in entities {
            let description = descriptions.first { $0.name == entity.name }
            for shape in entity.shapes {
                for property in shape.properties {
                    let described = description?.properties.first { $0.name == property.currentName }
                    let location = described?.location ?? description?.location
                    if property.typeDescription.hasPrefix("["), byName[String(property.typeDescription.dropFirst().dropLast())] != nil {
                        diagnostics.error(
                            "property '\(property.name)' of '\(shape.name)' is an array of enum '\(property.typeDescription.dropFirst().dropLast())', whose cases have a history: not supported in arrays; keep the enum's cases unchanged or store a single value",
                            at: location, path: described?.path)
                        continue
                    }
                    guard case .value = property.kind, let subtype = byName[property.typeDescription] else { continue }
                    let cases = subtype.cases(at: shape.version) ?? []
                    if let defaultSQL = property.defaultSQL, defaultSQL != "NULL", !cases.map(quoteLiteral).contains(defaultSQL) {
                        diagnostics.error(
                            "default_value \(defaultSQL) of property '\(property.name)' is not a case of enum '\(subtype.name)' at version \(shape.version) (\(cases.joined(separator: ", "))); give the default it had then in a type_history item",
                            at: location, path: described.map { $0.path + ".default_value" })
                    }
                }
            }
            // Every version at which the enum's cases change must be a version of each entity holding it then.
            for subtype in historied {
                for version in subtype.caseChangeVersions {
                    guard let shape = entity.shape(at: version), shape.version != version,
                        let property = shape.properties.first(where: { $0.typeDescription == subtype.name })
                    else { continue }
                    diagnostics.error(
                        "the cases of enum '\(subtype.name)' change at \(version), but '\(entity.name)' (property '\(property.name)') has no version_history item \(version): add {\"version\": \"\(version)\"} so its records see the change",
                        at: description?.location, path: "$.version_history")
                }
                for item in subtype.caseHistory {
                    guard let removed = item.removedAtVersion, case .some(nil) = item.fallback, let shape = entity.shape(at: removed) else {
                        continue
                    }
                    for property in shape.properties where property.typeDescription == subtype.name && !property.nullable {
                        diagnostics.error(
                            "\"fallback\": null for removed case '\(item.name)' of enum '\(subtype.name)', but '\(entity.name).\(property.name)' is required at \(removed); name a case as fallback, or make the property nullable",
                            at: item.location, path: item.path + ".fallback")
                    }
                }
            }
        }
    }
}

extension PropertyType {
    func mentionsSubtype(in subtypes: [String: SubtypeDescription]) -> Bool {
        switch self {
        case .subtype(let name): subtypes[name] != nil
        case .array(let element): element.mentionsSubtype(in: subtypes)
        case .scalar, .relationship, .composite: false // a composite's members are checked as the struct's
        }
    }
}

extension SchemaSnapshot.SubtypeSnapshot {
    /// The record of every enum's cases at a version, for a snapshot that freezes it.
    static func enums(_ subtypes: [SubtypeDescription], at version: SchemaVersion) -> [SchemaSnapshot.SubtypeSnapshot] {
        subtypes.compactMap { subtype in
            subtype.cases(at: version).map { SchemaSnapshot.SubtypeSnapshot(name: subtype.name, kind: "enum", cases: $0) }
        }
    }
}
