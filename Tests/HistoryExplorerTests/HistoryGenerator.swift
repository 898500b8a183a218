import Foundation
import PropertyBased

/// Draws random histories: 2–8 releases over 1–6 entities, each release a few edits drawn from everything
/// descriptions can express. Deterministic for a seed (swift-property-based's Xoshiro generator).
struct HistoryGenerator {
    var rng: Xoshiro
    private var nextKey = 1
    private var workspace = Workspace()
    /// Whether lossy type changes (which need the app's code) are drawn.
    var codeChanges = true

    init(seed: UInt64, codeChanges: Bool = true) {
        self.codeChanges = codeChanges
        // SplitMix64 spreads a small seed over Xoshiro's 256-bit state.
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        rng = Xoshiro(seed: (next(), next(), next(), next()))
    }

    static let entityNames = [
        "writer", "author", "creator", "book", "team", "employee", "order", "select", "group", "table", "index", "node", "default",
        "class", "values", "where", "item", "protocol", "type", "init",
    ]
    static let propertyNames = [
        "name", "title", "value", "count", "order", "select", "default", "type", "notes", "label", "temperature", "tail_number", "parent",
        "lead", "team", "owner", "where", "group", "from", "data", "size", "kind", "index", "key", "level", "class", "init", "protocol",
        "description", "columns",
    ]
    static let scalars = ["string", "int", "double", "bool", "date", "url", "data", "float", "seconds", "milliseconds", "color", "uuid"]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Gen.int(in: range).run(using: &rng) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }

    mutating func key() -> Int {
        defer { nextKey += 1 }
        return nextKey
    }

    // MARK: Versions

    /// Increasing versions with the spellings users write: `1.0`, `1.1`, `1.1.1`, `2.0`; minors and majors
    /// that pass 9 (`1.9` → `1.10`, `9.0` → `10.0`: numeric, not textual, order).
    mutating func versions(count: Int) -> [(version: String, spelling: String)] {
        var components = pick([[1, 0], [1, 8], [9, 0], [0, 9]])
        var result: [(String, String)] = []
        for index in 0..<count {
            if index > 0 {
                switch int(0...3) {
                case 0: components = [components[0] + 1, 0]
                case 1: components = [components[0], components[1] + 1]
                default: components = components.count == 3 ? [components[0], components[1], components[2] + 1] : components + [1]
                }
            }
            let version = components.map(String.init).joined(separator: ".")
            // Sometimes current_version spells the same version with a trailing zero.
            let spelling = components.count == 2 && chance(15) ? version + ".0" : version
            result.append((version, spelling))
        }
        return result
    }

    // MARK: Histories

    mutating func history() -> History {
        let versions = versions(count: int(2...8))
        var releases: [History.Release] = []
        for (index, (version, spelling)) in versions.enumerated() {
            workspace.begin(version)
            var edits: [Edit] = []
            for _ in 0..<(index == 0 ? int(1...4) : int(0...4)) {
                let edit = index == 0 ? .addEntity(entitySpec()) : self.edit()
                edits.append(edit)
                workspace.applyEdit(edit)
            }
            workspace.finishRelease()
            // Now and then an entity spells the version differently (`1.1.0` for `1.1`).
            let respelledBy = chance(15) ? [pick(workspace.liveEntities.map(\.key) + [0])] : []
            releases.append(
                History.Release(
                    version: version, configSpelling: spelling, edits: edits, respelledBy: respelledBy, typeHistoryByHand: chance(40)))
        }
        return History(releases: releases)
    }

    mutating func defaultJSON(for kind: PropertyKind) -> String? {
        switch kind {
        case .scalar("string"): pick(["\"\"", "\"it's \\\"quoted\\\"\"", "\"ünï ✈︎\""])
        case .scalar("int"): pick(["0", "-7", "9223372036854775807"])
        case .scalar("double"): pick(["2.5", "0.1", "-1e300"])
        case .scalar("bool"): pick(["true", "false"])
        case .scalar("date"): "\"current_date\""
        case .scalar("seconds"): "\"30s\""
        case .scalar("milliseconds"): "\"100ms\""
        case .scalar("uuid"): pick(["\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"", "\"00000000-0000-0000-0000-000000000000\""])
        case .subtype("status"): json("." + pick(Subtypes.defaultCases))
        default: nil
        }
    }

    mutating func valueKind() -> PropertyKind {
        switch int(0...11) {
        case 0: .array(pick(["int", "string", "date"]))
        case 1: .subtype(pick(["status", "permissions", "point", "frame"]))
        case 2, 3: .composite(pick(["point", "frame"]))
        default: .scalar(pick(Self.scalars))
        }
    }

    /// A property for a new entity, or (`existing`) one added to an entity that has rows: optional or defaulted.
    mutating func propertySpec(owner: Int, in names: inout Set<String>, existing: Bool = false) -> PropertySpec {
        var name = pick(Self.propertyNames)
        while names.contains(camel(name).lowercased()) { name = pick(Self.propertyNames) + "_\(int(1...9))" }
        names.insert(camel(name).lowercased())
        let live = workspace.liveEntities.map(\.key) + [owner]
        if chance(25) {
            let target = pick(live)
            let toMany = chance(35)
            return PropertySpec(
                key: key(), name: name, kind: toMany ? .toMany(entity: target) : .toOne(entity: target),
                nullable: toMany ? false : existing || chance(60),
                defaultJSON: nil)
        }
        let kind = valueKind()
        let defaultJSON = chance(40) || existing ? defaultJSON(for: kind) : nil
        return PropertySpec(
            key: key(), name: name, kind: kind, nullable: chance(35) || (existing && defaultJSON == nil), defaultJSON: defaultJSON)
    }

    mutating func entitySpec() -> EntitySpec {
        let owner = key()
        var name = pick(Self.entityNames)
        while !workspace.entityNameIsFree(name) { name = pick(Self.entityNames) + "_\(int(1...9))" }
        var names: Set<String> = []
        var properties: [PropertySpec] = []
        let identifier = pick(IdentifierKind.allCases)
        if identifier == .property {
            let code = PropertySpec(key: key(), name: "code", kind: .scalar(pick(["int", "string"])), nullable: false, defaultJSON: nil)
            names.insert("code")
            properties.append(code)
        }
        for _ in 0..<int(1...4) { properties.append(propertySpec(owner: owner, in: &names)) }
        return EntitySpec(key: owner, name: name, identifier: identifier, properties: properties)
    }

    /// A change of the cases of `status`: one added, renamed or removed (with a fallback, null, or through the
    /// app's code when code changes are drawn).
    mutating func caseEdit() -> Edit? {
        let unused = Subtypes.caseNames.filter { !workspace.everyCaseName.contains($0) }
        let changeable = workspace.statusCases.filter { $0.removedAt == nil && !Subtypes.permanentCases.contains($0.key) }
        switch int(0...2) {
        case 0:
            return unused.isEmpty ? nil : .addCase(key: key(), name: pick(unused))
        case 1:
            guard !unused.isEmpty, !changeable.isEmpty else { return nil }
            return .renameCase(key: pick(changeable).key, to: pick(unused))
        default:
            guard !changeable.isEmpty else { return nil }
            let removed = pick(changeable)
            let others = workspace.statusCases.filter { $0.removedAt == nil && $0.key != removed.key }
            let draw = int(0...9)
            let fallback: CaseFallback = draw < 2 ? .null : draw < 4 && codeChanges ? .appCode : .toCase(pick(others).key)
            return .removeCase(key: removed.key, fallback: fallback)
        }
    }

    /// One edit of the current descriptions, drawn among those that apply.
    mutating func edit() -> Edit {
        let live = workspace.liveEntities
        guard !live.isEmpty else { return .addEntity(entitySpec()) }
        let entity = pick(live)
        let properties = entity.properties.filter { $0.removedAt == nil && $0.key != entity.identifierProperty }
        let property = properties.isEmpty ? nil : pick(properties)
        switch int(0...16) {
        case 0: return .addEntity(entitySpec())
        case 1: return .removeEntity(entity.key)
        case 2: return .renameEntity(entity.key, to: pick(Self.entityNames + workspace.entities.map(\.name)))
        case 3, 4:
            var names = Set(entity.properties.map { camel($0.name).lowercased() })
            return .addProperty(entity: entity.key, propertySpec(owner: entity.key, in: &names, existing: true))
        case 5: return property.map { .removeProperty(entity: entity.key, property: $0.key) } ?? .touch(entity.key)
        case 6:
            var name = pick(Self.propertyNames)
            if !workspace.propertyNameIsFree(name, in: entity) { name += "_\(int(1...9))" }
            return property.map { .renameProperty(entity: entity.key, property: $0.key, to: name, explicitVersion: chance(30)) }
                ?? .touch(entity.key)
        case 7, 8:
            guard let property else { return .touch(entity.key) }
            let candidates: [PropertyKind]
            switch property.kind {
            case .scalar(let old):
                candidates = TypeChanges.valuePairs.filter { $0.0 == old }.map { PropertyKind.scalar($0.1) }
                    .filter { codeChanges || !TypeChanges.needsCode(from: property.kind, to: $0) }
            case .toOne(let target): candidates = [.toMany(entity: target)]
            default: candidates = []
            }
            return candidates.isEmpty ? .touch(entity.key) : .changeType(entity: entity.key, property: property.key, to: pick(candidates))
        case 9:
            guard let property else { return .touch(entity.key) }
            return .setNullable(
                entity: entity.key, property: property.key, nullable: !property.nullable, defaultJSON: defaultJSON(for: property.kind))
        case 10:
            guard let property else { return .touch(entity.key) }
            return .setDefault(entity: entity.key, property: property.key, defaultJSON: chance(20) ? nil : defaultJSON(for: property.kind))
        case 11 where chance(20):
            return .ignoreEntityChecks(entity.key)
        case 11:
            return property.map { .ignoreChecks(entity: entity.key, property: $0.key) } ?? .touch(entity.key)
        case 12:
            // A relationship to a renamed entity, or a self-reference.
            var names = Set(entity.properties.map { camel($0.name).lowercased() })
            var spec = propertySpec(owner: entity.key, in: &names, existing: true)
            let target = chance(30) ? entity.key : pick(live).key
            spec.kind = chance(30) ? .toMany(entity: target) : .toOne(entity: target)
            spec.nullable = spec.kind == .toOne(entity: target) ? true : false
            spec.defaultJSON = nil
            return .addProperty(entity: entity.key, spec)
        case 13:
            // Unique where the seeders keep it (`Workspace.canBeUnique`), else a plain index.
            let scalars = properties.filter { if case .scalar = $0.kind { true } else { false } }
            guard !scalars.isEmpty else { return .touch(entity.key) }
            let chosen = pick(scalars)
            let uniqueAllowed = Workspace.canBeUnique(chosen)
            if chosen.indexed {
                if uniqueAllowed && chance(50) {
                    return .setIndexed(entity: entity.key, property: chosen.key, indexed: true, unique: !chosen.unique)
                }
                return .setIndexed(entity: entity.key, property: chosen.key, indexed: false)
            }
            return .setIndexed(entity: entity.key, property: chosen.key, indexed: true, unique: uniqueAllowed && chance(50))
        case 14:
            return (chance(40) ? memberEdit() : caseEdit()) ?? .touch(entity.key)
        case 15:
            // A JSON struct made composite, or an element of a composite indexed (or no longer).
            let structs = properties.filter { if case .subtype(let name) = $0.kind { workspace.structs[name] != nil } else { false } }
            let composites = properties.filter { if case .composite = $0.kind { true } else { false } }
            if let chosen = structs.isEmpty ? nil : pick(structs), composites.isEmpty || chance(50) {
                return .makeComposite(entity: entity.key, property: chosen.key)
            }
            guard !composites.isEmpty else { return .touch(entity.key) }
            let chosen = pick(composites)
            guard case .composite(let name) = chosen.kind, case let elements = workspace.elementPaths(of: name), !elements.isEmpty else {
                return .touch(entity.key)
            }
            let element = pick(elements)
            return .setElementIndexed(
                entity: entity.key, property: chosen.key, element: element, indexed: !chosen.elementIndexes.contains(element))
        default: return memberEdit() ?? .touch(entity.key)
        }
    }

    /// Whether `member` is its struct's only required scalar member.
    func keepsTheStructPresent(_ member: Workspace.StructMember, in live: [Workspace.StructMember]) -> Bool {
        let required = live.filter { !$0.nullable && workspace.structs[$0.type] == nil }
        return required.count == 1 && required[0].key == member.key
    }

    /// A change of a struct's members: one added (optional, or required with a default), removed, renamed,
    /// or made optional or required (with a default). Without code changes, only for structs no property
    /// holds as JSON (their stored JSON is the app's to convert).
    mutating func memberEdit() -> Edit? {
        let name = pick(["point", "frame"])
        if !codeChanges && workspace.holders(of: workspace.containers(of: name, everMember: false)).contains(where: { !$0.composite }) {
            return nil
        }
        let live = (workspace.structs[name] ?? []).filter(\.isLive)
        let unused = Subtypes.memberNames.filter { !workspace.everyMemberName(of: name).contains($0) }
        switch int(0...4) {
        case 0, 1:
            guard !unused.isEmpty else { return nil }
            let type = pick(Subtypes.memberTypes)
            let nullable = chance(50)
            let defaultJSON = !nullable || chance(30) ? TypeChanges.defaultJSON(for: .scalar(type)) : nil
            return .addMember(structName: name, key: key(), name: pick(unused), type: type, nullable: nullable, defaultJSON: defaultJSON)
        case 2:
            // Every struct keeps a required scalar member (``Workspace/structsKeepARequiredScalar()``).
            let removable = live.filter { !keepsTheStructPresent($0, in: live) }
            guard !removable.isEmpty else { return nil }
            return .removeMember(structName: name, key: pick(removable).key)
        case 3:
            guard !live.isEmpty, !unused.isEmpty else { return nil }
            return .renameMember(structName: name, key: pick(live).key, to: pick(unused))
        default:
            let changeable = live.filter { $0.nullable ? Subtypes.memberTypes.contains($0.type) : !keepsTheStructPresent($0, in: live) }
            guard !changeable.isEmpty else { return nil }
            let member = pick(changeable)
            return .setMemberNullable(
                structName: name, key: member.key, nullable: !member.nullable,
                defaultJSON: TypeChanges.defaultJSON(for: .scalar(member.type)))
        }
    }
}
