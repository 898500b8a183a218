import Foundation
@_spi(Generated) import LucidSchema

/// The descriptions as a user keeps them while working through a ``History``: edits are applied release
/// by release, then written as description files and a `.lucid.yaml`, exactly what a user commits.
struct Workspace: Sendable {
    struct HistoryItem: Sendable {
        var version: String
        /// How the description spells it (the same version).
        var spelling: String
        var ignoreChecks = false
        var previousName: String?
        var ignoredProperties: [String] = []
    }

    struct Property: Sendable {
        var key: Int
        var name: String
        var kind: PropertyKind
        var nullable: Bool
        var defaultJSON: String?
        var addedAt: String?
        var removedAt: String?
        var previousName: String?
        var renamedAt: String?
        /// The release that last changed the property in place (at most one change a release).
        var changedAt: String?
        /// `type_history` written by hand: what the property was before `until`.
        var typeHistory: [TypeHistoryItem] = []
        /// `"indexed": true`.
        var indexed = false
        /// `"unique": true` (with `indexed`).
        var unique = false
        /// For a composite: the elements an entity `indexes` item names (`"origin.x"`).
        var elementIndexes: [String] = []
    }

    /// A case of `status` and its history.
    struct EnumCase: Sendable {
        var key: Int
        /// The newest name.
        var name: String
        var addedAt: String?
        var removedAt: String?
        /// For a removal: the fallback case's key and its name at the removal (nil: `"fallback": null`).
        var fallbackKey: Int?
        var fallbackName: String?
        /// A removal without fallback: the app's code decides (the explorer's app maps it to ``Subtypes/appFallback``).
        var byApp = false
        var previousName: String?
        var renamedAt: String?
    }

    /// The scalar types whose seeded values stay distinct: 12 edge values or more (6 for floats), more
    /// than a release's fixture holds (`Explorer.fixtureRows`), then values derived from the row.
    static let distinctScalars: Set<String> = ["string", "int", "double", "float", "date", "seconds", "milliseconds", "color"]

    /// Whether `"unique": true` keeps every store of the history migratable: a scalar seeded with distinct
    /// values (the seeders' rule), never converted in place (a conversion may merge values), and present
    /// since its entity's first version, or nullable without a default (older rows get NULL, not one default).
    static func canBeUnique(_ property: Property) -> Bool {
        guard case .scalar(let name) = property.kind, distinctScalars.contains(name) else { return false }
        return property.changedAt == nil && property.typeHistory.isEmpty
            && (property.addedAt == nil || (property.nullable && property.defaultJSON == nil))
    }

    struct TypeHistoryItem: Sendable {
        var until: String
        var kind: PropertyKind?
        var nullable: Bool?
        var defaultJSON: String?
    }

    struct Entity: Sendable {
        var key: Int
        var name: String
        var identifier: IdentifierKind
        var history: [HistoryItem]
        var properties: [Property]
        var removedAt: String?
        /// For `identifier: property`: the key of that property.
        var identifierProperty: Int?
        /// Set when a release changed a column's type through the app's code: no other edit of the entity in that release.
        var lockedAt: String?

        var firstVersion: String { history[0].version }
        func property(_ key: Int) -> Property? { properties.first { $0.key == key } }
        func propertyIndex(_ key: Int) -> Int? { properties.firstIndex { $0.key == key } }
    }

    /// A type change that needs the app's code: the explorer supplies the transform.
    struct CodeChange: Sendable, Hashable {
        var entity: Int
        var property: Int
        var conversion: Conversion

        enum Conversion: Sendable, Hashable, CustomStringConvertible {
            case type(from: PropertyKind, to: PropertyKind)
            /// An enum column at a version that removes a case without fallback: every stored case's value
            /// then (renamed and removed cases mapped, the others unchanged).
            case cases([String: String?])
            /// A struct stored as JSON whose members change: the app converts each value (``StructDiff``).
            case structMembers(root: String, diffs: [String: StructDiff])

            var description: String {
                switch self {
                case .type(let from, let to): "\(from) → \(to)"
                case .cases(let mapping):
                    "status cases " + mapping.sorted { $0.key < $1.key }.map { "\($0.key) → \($0.value ?? "NULL")" }.joined(separator: ", ")
                case .structMembers(let root, let diffs):
                    "\(root) members " + diffs.sorted { $0.key < $1.key }.map { "\($0.key) { \($0.value) }" }.joined(separator: "; ")
                }
            }
        }
    }

    var entities: [Entity] = []
    /// The release being edited.
    var version = ""
    /// Entities that spell this release's version differently.
    var respelledBy: Set<Int> = []
    /// Whether this release's in-place changes get a hand-written `type_history` item.
    var typeHistoryByHand = false
    /// Per release: the type changes in it (version → changes).
    var typeChanges: [String: [CodeChange]] = [:]
    /// The edits that applied, per release (for reports).
    var applied: [String: [Edit]] = [:]
    /// The cases of `status`, with their history.
    var statusCases = Subtypes.initialStatusCases
    /// Releases that remove a case of `status` with `"fallback": null`: every `status` property is nullable then.
    var nullFallbackAt: Set<String> = []
    /// Per release that changes the cases of `status`: the properties holding it before and after (entity, property keys).
    var caseHolders: [String: [(entity: Int, property: Int)]] = [:]
    /// The struct subtypes' members, with their history (``StructMember``).
    var structs: StructState = Subtypes.initialStructs
    /// At the start of the release being edited: the structs and entities as the previous version had them.
    var structsBefore: StructState = [:]
    var entitiesBefore: [Entity] = []
    /// Per release: the structs and entities as the release left them.
    var structsAt: [String: StructState] = [:]
    var entitiesAt: [String: [Entity]] = [:]
    /// Entities whose JSON structs the app converts in this release: nothing else of them changes in it.
    var structLocked: Set<Int> = []

    func entity(_ key: Int) -> Entity? { entities.first { $0.key == key } }
    func index(of key: Int) -> Int? { entities.firstIndex { $0.key == key } }
    func isLive(_ key: Int) -> Bool { entity(key).map { $0.removedAt == nil } ?? false }
    func isLive(_ property: Property) -> Bool { property.removedAt == nil }

    var liveEntities: [Entity] { entities.filter { $0.removedAt == nil } }

    // MARK: Applying edits

    /// Applies one release. Edits that do not apply to the current descriptions are skipped.
    mutating func apply(_ release: History.Release) {
        begin(release.version)
        respelledBy = Set(release.respelledBy)
        typeHistoryByHand = release.typeHistoryByHand
        for edit in release.edits { applyEdit(edit) }
        finishRelease()
    }

    mutating func begin(_ version: String) {
        self.version = version
        respelledBy = []
        typeHistoryByHand = false
        applied[version] = []
        structsBefore = structs
        entitiesBefore = entities
        structLocked = []
    }

    /// Applies one edit of the current release, if it applies; its entities get a history item at once.
    @discardableResult
    mutating func applyEdit(_ edit: Edit) -> Bool {
        guard apply(edit) else { return false }
        for key in edit.touchedEntities { addHistoryItem(key) }
        applied[version, default: []].append(edit)
        return true
    }

    /// The version must exist: some entity lists it (a removal alone also makes it a version).
    mutating func finishRelease() {
        finishMembers()
        if changesCases(at: version) {
            let holders = statusHolders()
            for holder in holders { addHistoryItem(holder.entity) }
            caseHolders[version] = holders.filter { holder in
                let property = entity(holder.entity)?.property(holder.property)
                return property?.addedAt != version
            }
            if statusCases.contains(where: { $0.removedAt == version && $0.byApp }) {
                typeChanges[version, default: []] += caseHolders[version]!.map {
                    CodeChange(entity: $0.entity, property: $0.property, conversion: .cases(caseMapping(at: version)))
                }
            }
        }
        if !entities.contains(where: { $0.history.contains { $0.version == version } || $0.removedAt == version }),
            let first = liveEntities.first
        {
            addHistoryItem(first.key)
            applied[version, default: []].append(.touch(first.key))
        }
    }

    // MARK: The cases of status

    func changesCases(at version: String) -> Bool {
        statusCases.contains { $0.addedAt == version || $0.removedAt == version || $0.renamedAt == version }
    }

    /// Every name a case of `status` ever had.
    var everyCaseName: Set<String> { Set(statusCases.flatMap { [$0.name] + ($0.previousName.map { [$0] } ?? []) }) }

    /// The `status` properties of entities that had rows before this release (entity, property keys).
    func statusHolders() -> [(entity: Int, property: Int)] {
        liveEntities.filter { !isNew($0) }.flatMap { entity in
            entity.properties.filter { $0.removedAt == nil && $0.kind == .subtype("status") }.map { (entity.key, $0.key) }
        }
    }

    /// What each stored value of a renamed or removed case becomes at `version` (the app's choice for a removal without fallback).
    func caseMapping(at version: String) -> [String: String?] {
        var mapping: [String: String?] = [:]
        for item in statusCases {
            if item.renamedAt == version, let previous = item.previousName { mapping[previous] = .some(item.name) }
            if item.removedAt == version { mapping[item.name] = item.byApp ? Subtypes.appFallback : item.fallbackName }
        }
        return mapping
    }

    /// The case changes the registry must record on every column holding `status` at `version`, as lucidgen orders them.
    func caseChanges(at version: String) -> [EnumCaseChange] {
        var changes: [EnumCaseChange] = []
        for item in statusCases {
            if item.renamedAt == version, let previous = item.previousName { changes.append(EnumCaseChange(from: previous, to: item.name)) }
            if item.removedAt == version {
                changes.append(
                    item.byApp
                        ? EnumCaseChange(from: item.name, byApp: true)
                        : EnumCaseChange(from: item.name, to: item.fallbackName, removed: true))
            }
        }
        return changes.sorted { $0.from < $1.from }
    }

    /// A case whose name can still change: not one the defaults use, not new, renamed or removed in this
    /// release, and no fallback of a removal in it.
    private func caseCanChange(_ item: EnumCase) -> Bool {
        !Subtypes.permanentCases.contains(item.key) && item.removedAt == nil && item.addedAt != version && item.renamedAt != version
            && !statusCases.contains { $0.removedAt == version && $0.fallbackKey == item.key }
    }

    mutating func addHistoryItem(_ key: Int) {
        guard let index = index(of: key), entities[index].removedAt == nil else { return }
        if !entities[index].history.contains(where: { $0.version == version }) {
            entities[index].history.append(HistoryItem(version: version, spelling: spelling(for: key)))
        }
    }

    private func spelling(for key: Int) -> String {
        respelledBy.contains(key) && version.split(separator: ".").count == 2 ? version + ".0" : version
    }

    private func isNew(_ entity: Entity) -> Bool { entity.firstVersion == version }
    private func isLocked(_ entity: Entity) -> Bool { entity.lockedAt == version }
    private func historyItemNow(_ entity: Entity) -> Bool { entity.history.contains { $0.version == version } }

    /// Whether a new entity may take `name`: no description uses it (nor its Swift type name).
    func entityNameIsFree(_ name: String) -> Bool {
        !entities.contains { $0.removedAt == nil && ($0.name.lowercased() == name.lowercased() || camel($0.name) == camel(name)) }
            && !entities.contains { $0.name.lowercased() == name.lowercased() }
    }

    /// Whether `entity` may get a property named `name`: no property of its description uses it.
    func propertyNameIsFree(_ name: String, in entity: Entity) -> Bool {
        if entity.identifier != .property && name.lowercased() == "id" { return false }
        return !entity.properties.contains { property in
            property.name.lowercased() == name.lowercased() || camel(property.name).lowercased() == camel(name).lowercased()
        }
    }

    private mutating func apply(_ edit: Edit) -> Bool {
        switch edit {
        case .addEntity(let spec):
            guard entity(spec.key) == nil, entityNameIsFree(spec.name) else { return false }
            var properties: [Property] = []
            for property in spec.properties {
                if let target = property.kind.target, target != spec.key, !isLive(target) { continue }
                if nullFallbackAt.contains(version) && property.kind == .subtype("status") && !property.nullable { continue }
                guard
                    !properties.contains(where: {
                        $0.name.lowercased() == property.name.lowercased()
                            || camel($0.name).lowercased() == camel(property.name).lowercased()
                    }),
                    spec.identifier == .property || property.name.lowercased() != "id"
                else { continue }
                properties.append(
                    Property(
                        key: property.key, name: property.name, kind: property.kind, nullable: property.nullable,
                        defaultJSON: property.defaultJSON))
            }
            var identifierProperty: Int?
            var identifier = spec.identifier
            if identifier == .property {
                if let key = properties.first(where: { !$0.nullable && ($0.kind == .scalar("int") || $0.kind == .scalar("string")) })?.key {
                    identifierProperty = key
                } else {
                    identifier = .int
                }
            }
            entities.append(
                Entity(
                    key: spec.key, name: spec.name, identifier: identifier,
                    history: [HistoryItem(version: version, spelling: spelling(for: spec.key))], properties: properties,
                    identifierProperty: identifierProperty))
            return true

        case .removeEntity(let key):
            guard let index = index(of: key), entities[index].removedAt == nil, !isNew(entities[index]), !historyItemNow(entities[index]),
                liveEntities.count > 1
            else { return false }
            // Relationships that point at it go with it; one added in this release cannot (nothing to remove).
            for other in entities where other.removedAt == nil && other.key != key {
                for property in other.properties where property.removedAt == nil && property.kind.target == key {
                    if property.addedAt == version || isNew(other) || isLocked(other) || property.renamedAt == version
                        || property.changedAt == version
                    {
                        return false
                    }
                }
            }
            for otherIndex in entities.indices where entities[otherIndex].removedAt == nil && entities[otherIndex].key != key {
                for propertyIndex in entities[otherIndex].properties.indices
                where entities[otherIndex].properties[propertyIndex].removedAt == nil
                    && entities[otherIndex].properties[propertyIndex].kind.target == key
                {
                    entities[otherIndex].properties[propertyIndex].removedAt = version
                    addHistoryItem(entities[otherIndex].key)
                }
            }
            entities[index].removedAt = version
            return true

        case .renameEntity(let key, let name):
            guard let index = index(of: key), entities[index].removedAt == nil, !isNew(entities[index]), !isLocked(entities[index]),
                !entities[index].history.contains(where: { $0.version == version && $0.previousName != nil }), entityNameIsFree(name)
            else { return false }
            let old = entities[index].name
            addHistoryItem(key)
            let item = entities[index].history.firstIndex { $0.version == version }!
            entities[index].history[item].previousName = old
            entities[index].name = name
            return true

        case .addProperty(let key, let spec):
            guard let index = index(of: key), entities[index].removedAt == nil, !isLocked(entities[index]),
                propertyNameIsFree(spec.name, in: entities[index]), !entities[index].properties.contains(where: { $0.key == spec.key })
            else { return false }
            if let target = spec.kind.target, target != key, !isLive(target) { return false }
            if nullFallbackAt.contains(version) && spec.kind == .subtype("status") && !spec.nullable { return false }
            entities[index].properties.append(
                Property(
                    key: spec.key, name: spec.name, kind: spec.kind, nullable: spec.nullable, defaultJSON: spec.defaultJSON,
                    addedAt: isNew(entities[index]) ? nil : version))
            return true

        case .removeProperty(let key, let propertyKey):
            guard let index = index(of: key), entities[index].removedAt == nil, !isNew(entities[index]), !isLocked(entities[index]),
                let p = entities[index].propertyIndex(propertyKey), entities[index].identifierProperty != propertyKey
            else { return false }
            let property = entities[index].properties[p]
            guard property.removedAt == nil, property.addedAt != version, property.renamedAt != version, property.changedAt != version
            else { return false }
            entities[index].properties[p].removedAt = version
            entities[index].properties[p].elementIndexes = []
            return true

        case .renameProperty(let key, let propertyKey, let name, let explicit):
            guard let index = index(of: key), entities[index].removedAt == nil, !isNew(entities[index]), !isLocked(entities[index]),
                let p = entities[index].propertyIndex(propertyKey), propertyNameIsFree(name, in: entities[index])
            else { return false }
            let property = entities[index].properties[p]
            // Descriptions hold one previous_name: a property is renamed once.
            guard property.removedAt == nil, property.previousName == nil, property.addedAt != version, property.changedAt != version,
                !entities[index].properties.contains(where: { $0.previousName?.lowercased() == name.lowercased() })
            else { return false }
            entities[index].properties[p].previousName = property.name
            entities[index].properties[p].name = name
            entities[index].properties[p].renamedAt = version
            if !explicit { entities[index].properties[p].renamedAt = nil }
            entities[index].properties[p].changedAt = version
            return true

        case .changeType(let key, let propertyKey, let kind):
            guard let index = index(of: key), entities[index].removedAt == nil, !isNew(entities[index]), !historyItemNow(entities[index]),
                let p = entities[index].propertyIndex(propertyKey), entities[index].identifierProperty != propertyKey
            else { return false }
            let property = entities[index].properties[p]
            // A unique column keeps its seeded values: a conversion, a default or NULLs made required could merge them.
            if property.unique { return false }
            guard property.removedAt == nil, property.addedAt != version, property.changedAt != version, property.kind != kind,
                TypeChanges.isAllowed(from: property.kind, to: kind), property.defaultJSON == nil || !kind.isRelationship
            else { return false }
            entities[index].properties[p].kind = kind
            if property.defaultJSON != nil { entities[index].properties[p].defaultJSON = TypeChanges.defaultJSON(for: kind) }
            if typeHistoryByHand {
                entities[index].properties[p].typeHistory.append(
                    TypeHistoryItem(
                        until: version, kind: property.kind, defaultJSON: property.defaultJSON != nil ? property.defaultJSON : nil))
            }
            entities[index].properties[p].changedAt = version
            if TypeChanges.needsCode(from: property.kind, to: kind) {
                entities[index].lockedAt = version
                typeChanges[version, default: []].append(
                    CodeChange(entity: key, property: propertyKey, conversion: .type(from: property.kind, to: kind)))
            }
            return true

        case .setNullable(let key, let propertyKey, let nullable, let defaultJSON):
            guard let index = index(of: key), entities[index].removedAt == nil, !isNew(entities[index]), !isLocked(entities[index]),
                let p = entities[index].propertyIndex(propertyKey), entities[index].identifierProperty != propertyKey
            else { return false }
            let property = entities[index].properties[p]
            // A unique column keeps its seeded values: a conversion, a default or NULLs made required could merge them.
            if property.unique { return false }
            guard property.removedAt == nil, property.addedAt != version, property.changedAt != version, property.nullable != nullable
            else { return false }
            if case .toMany = property.kind { return false }
            if !nullable && defaultJSON == nil && property.defaultJSON == nil { return false }
            if !nullable && property.kind.isRelationship { return false }
            if !nullable && property.kind == .subtype("status") && nullFallbackAt.contains(version) { return false }
            entities[index].properties[p].nullable = nullable
            if !nullable, property.defaultJSON == nil { entities[index].properties[p].defaultJSON = defaultJSON }
            // A default that did not exist cannot be written as an earlier value: the generator infers that part.
            if typeHistoryByHand {
                entities[index].properties[p].typeHistory.append(TypeHistoryItem(until: version, nullable: property.nullable))
            }
            entities[index].properties[p].changedAt = version
            return true

        case .setDefault(let key, let propertyKey, let defaultJSON):
            guard let index = index(of: key), entities[index].removedAt == nil, !isNew(entities[index]), !isLocked(entities[index]),
                let p = entities[index].propertyIndex(propertyKey), entities[index].identifierProperty != propertyKey
            else { return false }
            let property = entities[index].properties[p]
            // A unique column keeps its seeded values: a conversion, a default or NULLs made required could merge them.
            if property.unique { return false }
            guard property.removedAt == nil, property.addedAt != version, property.changedAt != version, !property.kind.isRelationship,
                property.defaultJSON != defaultJSON, defaultJSON != nil || property.nullable
            else { return false }
            entities[index].properties[p].defaultJSON = defaultJSON
            entities[index].properties[p].changedAt = version
            if typeHistoryByHand, let old = property.defaultJSON {
                entities[index].properties[p].typeHistory.append(TypeHistoryItem(until: version, defaultJSON: old))
            }
            return true

        case .ignoreChecks(let key, let propertyKey):
            guard let index = index(of: key), entities[index].removedAt == nil, !isNew(entities[index]),
                let property = entities[index].property(propertyKey), property.removedAt == nil
            else { return false }
            addHistoryItem(key)
            let item = entities[index].history.firstIndex { $0.version == version }!
            if !entities[index].history[item].ignoredProperties.contains(property.name) {
                entities[index].history[item].ignoredProperties.append(property.name)
            }
            return true

        case .ignoreEntityChecks(let key):
            guard let index = index(of: key), entities[index].removedAt == nil, !isNew(entities[index]) else { return false }
            addHistoryItem(key)
            let item = entities[index].history.firstIndex { $0.version == version }!
            entities[index].history[item].ignoreChecks = true
            return true

        case .setIndexed(let key, let propertyKey, let indexed, let unique):
            guard let index = index(of: key), entities[index].removedAt == nil, !isLocked(entities[index]),
                let p = entities[index].propertyIndex(propertyKey), entities[index].identifierProperty != propertyKey
            else { return false }
            let property = entities[index].properties[p]
            let unique = indexed && unique
            guard property.removedAt == nil, property.indexed != indexed || property.unique != unique, case .scalar = property.kind,
                !unique || Self.canBeUnique(property)
            else { return false }
            entities[index].properties[p].indexed = indexed
            entities[index].properties[p].unique = unique
            return true

        case .makeComposite(let key, let propertyKey):
            guard let index = index(of: key), entities[index].removedAt == nil, !isNew(entities[index]), !isLocked(entities[index]),
                let p = entities[index].propertyIndex(propertyKey)
            else { return false }
            let property = entities[index].properties[p]
            guard property.removedAt == nil, property.addedAt != version, property.changedAt != version,
                case .subtype(let name) = property.kind, structs[name] != nil
            else { return false }
            entities[index].properties[p].kind = .composite(name)
            entities[index].properties[p].changedAt = version
            return true

        case .setElementIndexed(let key, let propertyKey, let element, let indexed):
            guard let index = index(of: key), entities[index].removedAt == nil, !isLocked(entities[index]),
                let p = entities[index].propertyIndex(propertyKey)
            else { return false }
            let property = entities[index].properties[p]
            guard property.removedAt == nil, case .composite(let name) = property.kind, elementPaths(of: name).contains(element),
                property.elementIndexes.contains(element) != indexed
            else { return false }
            if indexed {
                entities[index].properties[p].elementIndexes.append(element)
            } else {
                entities[index].properties[p].elementIndexes.removeAll { $0 == element }
            }
            return true

        // The app converts JSON structs in this release: a case change would change its tables in the same step.
        case .addCase where !structLocked.isEmpty, .renameCase where !structLocked.isEmpty, .removeCase where !structLocked.isEmpty:
            return false

        case .addCase(let key, let name):
            guard !statusCases.contains(where: { $0.key == key }), !everyCaseName.contains(name) else { return false }
            statusCases.append(EnumCase(key: key, name: name, addedAt: version))
            for holder in statusHolders() { addHistoryItem(holder.entity) }
            return true

        case .renameCase(let key, let name):
            guard let c = statusCases.firstIndex(where: { $0.key == key }), caseCanChange(statusCases[c]),
                statusCases[c].previousName == nil,
                !everyCaseName.contains(name)
            else { return false }
            statusCases[c].previousName = statusCases[c].name
            statusCases[c].name = name
            statusCases[c].renamedAt = version
            for holder in statusHolders() { addHistoryItem(holder.entity) }
            return true

        case .removeCase(let key, let fallback):
            guard let c = statusCases.firstIndex(where: { $0.key == key }), caseCanChange(statusCases[c]) else { return false }
            let holders = statusHolders()
            switch fallback {
            case .toCase(let target):
                // A case at this version that stays one (it is not removed in this release).
                guard target != key, let other = statusCases.first(where: { $0.key == target }), other.removedAt == nil else {
                    return false
                }
                statusCases[c].fallbackKey = target
                statusCases[c].fallbackName = other.name
            case .null:
                // Every status column is nullable at this version (and stays so in this release: see `nullFallbackAt`).
                let required = liveEntities.contains {
                    $0.properties.contains { $0.removedAt == nil && $0.kind == .subtype("status") && !$0.nullable }
                }
                guard !required else { return false }
                nullFallbackAt.insert(version)
            case .appCode:
                // The app's row transform sees the table unchanged otherwise: its entities change nothing else in this release.
                guard holders.allSatisfy({ holder in !historyItemNow(entity(holder.entity)!) }) else { return false }
                statusCases[c].byApp = true
                for holder in holders { entities[index(of: holder.entity)!].lockedAt = version }
            }
            statusCases[c].removedAt = version
            for holder in holders { addHistoryItem(holder.entity) }
            return true

        case .touch(let key):
            guard let entity = entity(key), entity.removedAt == nil else { return false }
            return true

        case .addMember, .removeMember, .renameMember, .setMemberNullable:
            return applyMemberEdit(edit)
        }
    }

    // MARK: Writing

    /// The description files: path (relative to the input folder) → contents.
    func descriptionFiles() -> [String: String] {
        var files: [String: String] = [:]
        for entity in entities {
            files["entity_\(entity.key).json"] = DescriptionWriter.json(document(of: entity), layout: .versionHistoryOnLines)
        }
        for (name, contents) in Subtypes.files { files["Subtypes/\(name).json"] = contents }
        for name in structs.keys { files["Subtypes/\(name).json"] = structFile(name) }
        files["Subtypes/status.json"] = statusFile()
        return files
    }

    /// `status` with its case history so far: plain names for cases that never changed.
    func statusFile() -> String {
        let cases = statusCases.map { item in
            var entry = SubtypeDocument.Case(name: item.name, addedAtVersion: item.addedAt)
            if let previous = item.previousName, let renamed = item.renamedAt {
                entry.previousName = previous
                entry.renamedAtVersion = renamed
            }
            if let removed = item.removedAt {
                entry.removedAtVersion = removed
                if !item.byApp { entry.fallback = .some(item.fallbackName) }
            }
            return entry
        }
        return DescriptionWriter.json(SubtypeDocument(name: "status", kind: .cases(cases)))
    }

    /// An entity as its description document: what the writer of `describe` and `import coredata` writes.
    func document(of entity: Entity) -> DescriptionDocument {
        var document = DescriptionDocument(name: entity.name)
        switch entity.identifier {
        case .local: break
        case .int: document.identifier = .init(type: "int")
        case .string: document.identifier = .init(type: "string")
        case .property: document.identifier = .init(type: "property", propertyName: entity.property(entity.identifierProperty!)!.name)
        }
        document.versionHistory = entity.history.map {
            .init(
                version: $0.spelling, previousName: $0.previousName, ignoreMigrationChecks: $0.ignoreChecks,
                ignorePropertyMigrationChecksOn: $0.ignoredProperties)
        }
        document.removedAtVersion = entity.removedAt
        document.properties = entity.properties.map { property in
            var item = DescriptionDocument.Property(name: property.name, type: documentType(property.kind))
            if case .composite = property.kind { item.composite = true }
            item.nullable = property.nullable
            item.defaultValue = property.defaultJSON.map(documentValue)
            item.unique = property.unique
            item.indexed = property.indexed
            item.addedAtVersion = property.addedAt
            item.removedAtVersion = property.removedAt
            item.previousName = property.previousName
            item.renamedAtVersion = property.renamedAt
            item.typeHistory = property.typeHistory.map {
                .init(
                    untilVersion: $0.until, propertyType: $0.kind.map(documentType), nullable: $0.nullable,
                    defaultValue: $0.defaultJSON.map(documentValue))
            }
            return item
        }
        document.indexes = entity.properties.filter { $0.removedAt == nil }.flatMap { property in
            property.elementIndexes.map { DescriptionDocument.Index(properties: [property.name + "." + $0]) }
        }
        return document
    }

    func documentType(_ kind: PropertyKind) -> DescriptionDocument.PropertyType {
        switch kind {
        case .scalar(let name), .subtype(let name), .composite(let name): .scalar(name)
        case .array(let name): .scalar("[\(name)]")
        case .toOne(let key): .relationship(.init(entityName: entity(key)!.name, association: .toOne))
        case .toMany(let key): .relationship(.init(entityName: entity(key)!.name, association: .toMany))
        }
    }
}

/// A default as the history spells it (JSON text: `"it's"`, `-7`, `true`) as a document's value.
func documentValue(_ jsonText: String) -> DescriptionDocument.Value {
    switch try! JSONSerialization.jsonObject(with: Data(jsonText.utf8), options: [.fragmentsAllowed]) {
    case let text as String: return .string(text)
    case is NSNull: return .null
    case _ where jsonText == "true" || jsonText == "false": return .bool(jsonText == "true")
    default: return .number(jsonText)
    }
}

/// A JSON string literal, escaped as every description is.
func json(_ text: String) -> String { DescriptionWriter.string(text) }

/// `tail_number` → `tailNumber`, as the generator names Swift members.
func camel(_ name: String) -> String {
    let parts = name.split(separator: "_")
    guard let first = parts.first else { return name }
    return first.prefix(1).lowercased() + first.dropFirst() + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
}

/// The subtypes every explored project has. `status` has a case history (``Workspace/statusFile()``); the others never change.
enum Subtypes {
    /// The cases of `status` at first, keyed -1…-4. Defaults use only the permanent ones (never renamed nor removed),
    /// so that a default is a case at every version.
    static let initialStatusCases = ["active", "archived", "select", "default"].enumerated().map {
        Workspace.EnumCase(key: -1 - $0.offset, name: $0.element)
    }
    static let permanentCases: Set<Int> = [-1, -2]
    static let defaultCases = ["active", "archived"]
    /// What the explorer's app makes of a case removed without fallback.
    static let appFallback = "active"
    /// Names cases may take (added or renamed), keywords among them.
    static let caseNames = ["pending", "closed", "draft", "case", "on_hold", "public", "repeat", "paused"]
    static let options = ["read", "write", "share"]
    /// The struct subtypes at first (members keyed -11…, their files written with their history by
    /// ``Workspace/structFile(_:)``): `frame` nests `point` as `origin`.
    static let initialStructs: Workspace.StructState = [
        "point": [
            Workspace.StructMember(key: -11, name: "x", type: "double", nullable: false),
            Workspace.StructMember(key: -12, name: "label", type: "string", nullable: true),
        ],
        "frame": [
            Workspace.StructMember(key: -21, name: "origin", type: "point", nullable: false),
            Workspace.StructMember(key: -22, name: "size", type: "double", nullable: false),
            Workspace.StructMember(key: -23, name: "tag", type: "permissions", nullable: true),
        ],
    ]
    /// Names members may take (added or renamed), keywords among them.
    static let memberNames = ["y", "note", "depth", "weight", "hint", "default", "kind", "scale"]
    /// The scalar types of added members (those with a default in ``TypeChanges/defaultJSON(for:)``).
    static let memberTypes = ["string", "int", "double", "bool"]
    static let files: [String: String] = [
        "permissions": DescriptionWriter.json(SubtypeDocument(name: "permissions", kind: .options(options)))
    ]
}

/// Which type changes the explorer makes, and which of them need the app's code.
enum TypeChanges {
    /// Value-type changes a user may make by editing `property_type`.
    static let valuePairs: [(String, String)] = [
        ("int", "string"), ("bool", "int"), ("string", "int"), ("double", "string"), ("int", "double"), ("double", "int"),
        ("int", "bool"), ("seconds", "double"), ("uuid", "data"),
    ]

    static func isAllowed(from old: PropertyKind, to new: PropertyKind) -> Bool {
        switch (old, new) {
        case (.scalar(let a), .scalar(let b)): valuePairs.contains { $0 == (a, b) }
        case (.toOne(let a), .toMany(let b)): a == b
        default: false
        }
    }

    /// Conversions that are exact for every value, which lucidgen infers; the others need the app's code.
    static func needsCode(from old: PropertyKind, to new: PropertyKind) -> Bool {
        switch (old, new) {
        case (.scalar("int"), .scalar("string")), (.scalar("bool"), .scalar("int")), (.scalar("seconds"), .scalar("double")),
            (.scalar("uuid"), .scalar("data")):
            false
        case (.toOne, .toMany): false
        default: true
        }
    }

    static func defaultJSON(for kind: PropertyKind) -> String? {
        switch kind {
        case .scalar("string"): "\"it's\""
        case .scalar("int"): "-7"
        case .scalar("double"), .scalar("seconds"): "2.5"
        case .scalar("bool"): "true"
        default: nil
        }
    }
}
