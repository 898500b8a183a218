import Foundation
import LucidSchema

/// The struct subtypes' member history (`point`, and `frame`, which nests `point` as `origin`): members
/// added, removed, renamed and made optional or required at versions, as the struct files write them.
extension Workspace {
    /// A member of a struct subtype and its history.
    struct StructMember: Sendable, Equatable {
        var key: Int
        /// The newest name.
        var name: String
        /// A scalar type name, or a subtype's name (`point`, `permissions`).
        var type: String
        var nullable: Bool
        var defaultJSON: String?
        var addedAt: String?
        var removedAt: String?
        var previousName: String?
        var renamedAt: String?
        /// The release that last changed it (at most one change a release).
        var changedAt: String?
        /// `type_history`: its nullability and default before `until`.
        var typeHistory: [MemberHistoryItem] = []

        var isLive: Bool { removedAt == nil }
    }

    struct MemberHistoryItem: Sendable, Equatable {
        var until: String
        var nullable: Bool
        var defaultJSON: String?
    }

    /// Struct name → its members, in file order.
    typealias StructState = [String: [StructMember]]

    /// A composite's column at some version, by member keys (identity) and names (as then).
    struct Leaf: Sendable, Equatable {
        var identity: [Int]
        var path: [String]
        var notNull: Bool
        var requiredWhenPresent: Bool
        var hasDefault: Bool
    }

    /// The columns of a composite of struct `name` in a state, as lucidgen flattens it (depth first in member
    /// order, live members only; `optional`: the composite itself is optional).
    static func leaves(of name: String, in state: StructState, optional: Bool) -> [Leaf] {
        var result: [Leaf] = []
        func walk(_ name: String, optional: Bool, grouped: Bool, path: [String], identity: [Int]) {
            for member in state[name] ?? [] where member.isLive {
                if state[member.type] != nil {
                    walk(
                        member.type, optional: optional || member.nullable, grouped: grouped || member.nullable, path: path + [member.name],
                        identity: identity + [member.key])
                } else {
                    result.append(
                        Leaf(
                            identity: identity + [member.key], path: path + [member.name], notNull: !optional && !member.nullable,
                            requiredWhenPresent: grouped && !member.nullable, hasDefault: member.defaultJSON != nil))
                }
            }
        }
        walk(name, optional: optional, grouped: optional, path: [], identity: [])
        return result
    }

    /// The elements of a composite of struct `name` now, as `indexes` items name them (`origin.x`).
    func elementPaths(of name: String) -> [String] {
        Self.leaves(of: name, in: structs, optional: false).map { $0.path.joined(separator: ".") }
    }

    /// Every name a member of struct `name` ever had (names are never reused: a member's identity is its newest name).
    func everyMemberName(of name: String) -> Set<String> {
        Set((structs[name] ?? []).flatMap { [$0.name] + ($0.previousName.map { [$0] } ?? []) })
    }

    /// `name` and the structs that hold it through any member (removed ones too: lucidgen asks their holders for history items).
    func containers(of name: String, everMember: Bool) -> Set<String> {
        var result: Set<String> = [name]
        var changed = true
        while changed {
            changed = false
            for (outer, members) in structs where !result.contains(outer) {
                if members.contains(where: { result.contains($0.type) && (everMember || $0.isLive) }) {
                    result.insert(outer)
                    changed = true
                }
            }
        }
        return result
    }

    /// The structs whose members (or a live nested struct's members) change in this release: their Swift types differ.
    func changedStructs(before: StructState) -> Set<String> {
        var changed = Set(
            structs.keys.filter { structs[$0] != before[$0] && Self.memberSetKey(structs[$0]!) != Self.memberSetKey(before[$0] ?? []) })
        var grew = true
        while grew {
            grew = false
            for (outer, members) in structs where !changed.contains(outer) {
                if members.contains(where: { $0.isLive && changed.contains($0.type) }) {
                    changed.insert(outer)
                    grew = true
                }
            }
        }
        return changed
    }

    /// What makes a struct's Swift type: its live members' names, types and optionality.
    static func memberSetKey(_ members: [StructMember]) -> String {
        members.filter(\.isLive).map { "\($0.name):\($0.type)\($0.nullable ? "?" : "")" }.joined(separator: ",")
    }

    /// The (entity, property) keys of live properties holding one of `names`, as a composite or as JSON.
    func holders(of names: Set<String>) -> [(entity: Int, property: Int, composite: Bool)] {
        liveEntities.flatMap { entity in
            entity.properties.compactMap { property -> (Int, Int, Bool)? in
                guard property.removedAt == nil else { return nil }
                switch property.kind {
                case .subtype(let name) where names.contains(name): return (entity.key, property.key, false)
                case .composite(let name) where names.contains(name): return (entity.key, property.key, true)
                default: return nil
                }
            }
        }
    }

    /// Every struct keeps a required scalar member at every version: an optional composite (or optional
    /// nested struct) that is present then always has a non-NULL column, so "all NULL" means nil.
    func structsKeepARequiredScalar() -> Bool {
        structs.values.allSatisfy { members in members.contains { $0.isLive && !$0.nullable && structs[$0.type] == nil } }
    }

    /// How the stored JSON of each struct changes in this release (the app's conversion): per struct.
    func structDiffs(before: StructState, changed: Set<String>) -> [String: StructDiff] {
        var diffs: [String: StructDiff] = [:]
        for name in changed {
            var diff = StructDiff()
            let old = (before[name] ?? []).filter(\.isLive)
            for member in structs[name] ?? [] {
                let was = old.first { $0.key == member.key }
                if !member.isLive {
                    if let was { diff.removed.append(was.name) }
                    continue
                }
                guard let was else {
                    if !member.nullable, let value = member.defaultJSON { diff.fills[member.name] = value }
                    continue
                }
                if was.name != member.name { diff.renamed[was.name] = member.name }
                if changed.contains(member.type) { diff.nested[was.name] = member.type }
                if was.nullable && !member.nullable, let value = member.defaultJSON { diff.fills[member.name] = value }
            }
            diff.removed.sort()
            diffs[name] = diff
        }
        return diffs
    }

    /// The struct files with their member history so far.
    func structFile(_ name: String) -> String {
        let members = (structs[name] ?? []).map { member in
            var item = SubtypeDocument.Member(
                name: member.name, type: member.type, nullable: member.nullable, defaultValue: member.defaultJSON.map(documentValue))
            item.addedAtVersion = member.addedAt
            item.removedAtVersion = member.removedAt
            if let previous = member.previousName, let renamed = member.renamedAt {
                item.previousName = previous
                item.renamedAtVersion = renamed
            }
            item.typeHistory = member.typeHistory.map {
                .init(untilVersion: $0.until, nullable: $0.nullable, defaultValue: $0.defaultJSON.map(documentValue) ?? .null)
            }
            return item
        }
        return DescriptionWriter.json(SubtypeDocument(name: name, kind: .members(members)))
    }

    // MARK: Applying member edits

    /// Whether a change of struct `name`'s members may be made now: its holders are not locked by a lossy
    /// change, and its JSON holders (whose rows the app's code converts) change nothing else in this release.
    private func memberChangeAllowed(_ name: String) -> Bool {
        let affected = containers(of: name, everMember: false)
        let all = holders(of: containers(of: name, everMember: true))
        let json = holders(of: affected).filter { !$0.composite && !isNewEntity($0.entity) }
        let jsonEntities = Set(json.map(\.entity))
        for holder in all where entity(holder.entity)?.lockedAt == version && !structLocked.contains(holder.entity) { return false }
        if !json.isEmpty && changesCases(at: version) { return false }
        for key in jsonEntities {
            guard let entity = entity(key) else { continue }
            if !structLocked.contains(key) && entity.history.contains(where: { $0.version == version }) { return false }
            // The app's transform converts the JSON; the table's composites of the same structs do not change with it.
            if all.contains(where: { $0.entity == key && $0.composite }) { return false }
        }
        return true
    }

    private func isNewEntity(_ key: Int) -> Bool { entity(key)?.firstVersion == version }

    /// Applies a member edit; false when it does not apply.
    mutating func applyMemberEdit(_ edit: Edit) -> Bool {
        let name: String
        switch edit {
        case .addMember(let structName, let key, let memberName, let type, let nullable, let defaultJSON):
            guard structs[structName] != nil, !structs.values.joined().contains(where: { $0.key == key }),
                !everyMemberName(of: structName).contains(memberName),
                nullable || defaultJSON != nil, memberChangeAllowed(structName)
            else { return false }
            structs[structName]!.append(
                StructMember(
                    key: key, name: memberName, type: type, nullable: nullable, defaultJSON: defaultJSON, addedAt: version,
                    changedAt: version))
            name = structName
        case .removeMember(let structName, let key):
            guard let m = structs[structName]?.firstIndex(where: { $0.key == key }), memberChangeAllowed(structName) else { return false }
            let member = structs[structName]![m]
            guard member.isLive, member.changedAt != version, !indexesReach(structName, member: key) else { return false }
            var after = self
            after.structs[structName]![m].removedAt = version
            guard after.structsKeepARequiredScalar() else { return false }
            structs[structName]![m].removedAt = version
            structs[structName]![m].changedAt = version
            name = structName
        case .renameMember(let structName, let key, let newName):
            guard let m = structs[structName]?.firstIndex(where: { $0.key == key }), !everyMemberName(of: structName).contains(newName),
                memberChangeAllowed(structName)
            else { return false }
            let member = structs[structName]![m]
            guard member.isLive, member.changedAt != version, member.previousName == nil, !indexesReach(structName, member: key) else {
                return false
            }
            structs[structName]![m].previousName = member.name
            structs[structName]![m].name = newName
            structs[structName]![m].renamedAt = version
            structs[structName]![m].changedAt = version
            name = structName
        case .setMemberNullable(let structName, let key, let nullable, let defaultJSON):
            guard let m = structs[structName]?.firstIndex(where: { $0.key == key }), memberChangeAllowed(structName) else { return false }
            let member = structs[structName]![m]
            guard member.isLive, member.changedAt != version, member.nullable != nullable else { return false }
            if !nullable {
                guard ["string", "int", "double", "bool"].contains(member.type), member.defaultJSON != nil || defaultJSON != nil else {
                    return false
                }
            }
            var changed = member
            changed.nullable = nullable
            if !nullable && member.defaultJSON == nil { changed.defaultJSON = defaultJSON }
            changed.typeHistory.append(MemberHistoryItem(until: version, nullable: member.nullable, defaultJSON: member.defaultJSON))
            changed.changedAt = version
            var after = self
            after.structs[structName]![m] = changed
            guard after.structsKeepARequiredScalar() else { return false }
            structs[structName]![m] = changed
            name = structName
        default:
            return false
        }
        touchStructHolders(name)
        return true
    }

    /// Every entity holding the struct (through any member, removed ones too) gets a history item; its JSON
    /// holders are locked for the rest of the release (the app's transform sees their tables otherwise unchanged).
    mutating func touchStructHolders(_ name: String) {
        for holder in holders(of: containers(of: name, everMember: true)) { addHistoryItem(holder.entity) }
        for holder in holders(of: containers(of: name, everMember: false)) where !holder.composite && !isNewEntity(holder.entity) {
            structLocked.insert(holder.entity)
            if let index = index(of: holder.entity) { entities[index].lockedAt = version }
        }
    }

    /// Whether an element index of a live property goes through the member (its rename or removal would break the index item).
    private func indexesReach(_ structName: String, member key: Int) -> Bool {
        let through = containers(of: structName, everMember: true)
        return liveEntities.contains { entity in
            entity.properties.contains { property in
                guard property.removedAt == nil, case .composite(let name) = property.kind, through.contains(name),
                    !property.elementIndexes.isEmpty
                else { return false }
                let leaves = Self.leaves(of: name, in: structs, optional: false)
                return leaves.contains { leaf in
                    leaf.identity.contains(key) && property.elementIndexes.contains(leaf.path.joined(separator: "."))
                }
            }
        }
    }

    /// At the end of a release: the history items, the app's conversions of JSON holders, and what lint and
    /// the registry must say about the composites whose structs changed.
    mutating func finishMembers() {
        let before = structsBefore
        let changed = changedStructs(before: before)
        structsAt[version] = structs
        entitiesAt[version] = entities
        guard !changed.isEmpty else { return }
        for name in changed { touchStructHolders(name) }
        let diffs = structDiffs(before: before, changed: changed)
        for entity in liveEntities where !isNewEntity(entity.key) {
            guard let old = entitiesBefore.first(where: { $0.key == entity.key }) else { continue }
            for property in entity.properties where property.removedAt == nil && property.addedAt != version {
                guard case .subtype(let name) = property.kind, changed.contains(name),
                    let was = old.property(property.key), was.removedAt == nil, was.kind == property.kind
                else { continue }
                // Decoding follows an optional member added, a member removed or made optional by itself (the
                // JSON stays as it is); a rename or a new requirement is the app's code.
                guard StructDiff.needsCode(name, diffs) else { continue }
                typeChanges[version, default: []].append(
                    CodeChange(entity: entity.key, property: property.key, conversion: .structMembers(root: name, diffs: diffs)))
            }
        }
    }
}

/// How a struct's stored JSON changes at a version (the explorer's app): members renamed, removed, filled
/// with their default (added required, or became required), and nested structs converted in turn.
struct StructDiff: Sendable, Hashable, CustomStringConvertible {
    var renamed: [String: String] = [:]
    var removed: [String] = []
    var fills: [String: String] = [:]
    /// Old member name → its struct, for nested structs that change too.
    var nested: [String: String] = [:]

    var description: String {
        (renamed.sorted { $0.key < $1.key }.map { "\($0.key) → \($0.value)" } + removed.map { "-\($0)" }
            + fills.sorted { $0.key < $1.key }.map { "\($0.key) ?? \($0.value)" }
            + nested.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }).joined(separator: ", ")
    }

    /// Whether struct `name`'s JSON (or a nested struct's) cannot follow the change by decoding alone: a
    /// member renamed, or one filled with its default (added required, or made required).
    static func needsCode(_ name: String, _ diffs: [String: StructDiff], seen: Set<String> = []) -> Bool {
        guard let diff = diffs[name], !seen.contains(name) else { return false }
        if !diff.renamed.isEmpty || !diff.fills.isEmpty { return true }
        return diff.nested.values.contains { needsCode($0, diffs, seen: seen.union([name])) }
    }

    /// Converts one struct value (a JSON object) with the diffs of its struct and nested ones.
    static func convert(_ object: [String: Any], _ name: String, _ diffs: [String: StructDiff]) -> [String: Any] {
        guard let diff = diffs[name] else { return object }
        var result: [String: Any] = [:]
        for (key, value) in object where !diff.removed.contains(key) {
            var converted = value
            if let nested = diff.nested[key], let inner = value as? [String: Any] { converted = convert(inner, nested, diffs) }
            result[diff.renamed[key] ?? key] = converted
        }
        for (key, json) in diff.fills where result[key] == nil || result[key] is NSNull {
            result[key] = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        }
        return result
    }
}
