@_spi(Generated) import LucidSchema

/// Entity inheritance as Core Data stores it: an entity with `"parent": "vehicle"` is a subentity of
/// `vehicle`. The whole hierarchy lives in its root's table: a `kind` column (the entity's description
/// name) says which entity a row is, and each subentity's own properties are columns of that table,
/// nullable in SQL (rows of other kinds hold NULL) while its records require what the description requires.
enum Hierarchy {
    /// The column of a root's table that holds each row's entity name.
    static let kindColumn = "kind"

    /// Checks every `parent`: a persisted entity, no cycle, a subentity's identifier (none, or its root's),
    /// its versions within its parent's lifetime, and property names and columns used once in a hierarchy
    /// (one table holds them all), none of them `kind`. Errors are located at the subentity's description.
    static func check(_ described: [EntityDescription], unpersisted: [EntityDescription], _ diagnostics: inout DiagnosticCollector) {
        let byName = Dictionary(described.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let unpersistedNames = Set(unpersisted.map(\.name))
        var validParent: [String: String] = [:]
        for entity in described {
            guard let parent = entity.parent else { continue }
            let location = entity.parentLocation ?? entity.location
            if byName[parent] == nil {
                if unpersistedNames.contains(parent) {
                    diagnostics.error(
                        "parent '\(parent)' of '\(entity.name)' has \"persist\": false: a subentity's rows live in its root entity's table, so its parent must be persisted",
                        at: location, path: "$.parent")
                } else {
                    let renamed = described.first { $0.versionHistory.contains { $0.previousName == parent } }.map {
                        " (did you mean '\($0.name)', its current name?)"
                    }
                    let suggestion =
                        renamed ?? KeySuggestion.nearest(to: parent, among: byName.keys.sorted()).map { "; did you mean '\($0)'?" } ?? ""
                    diagnostics.error(
                        "parent '\(parent)' of '\(entity.name)' is not an entity\(suggestion)", at: location, path: "$.parent")
                }
                continue
            }
            validParent[entity.name] = parent
        }
        // Cycles: following parents from any entity must end at a root.
        var inCycle: Set<String> = []
        for entity in described where validParent[entity.name] != nil {
            var chain = [entity.name]
            var current = entity.name
            while let next = validParent[current] {
                if let start = chain.firstIndex(of: next) {
                    let cycle = Array(chain[start...]) + [next]
                    if cycle.first == entity.name {
                        diagnostics.error(
                            "entity '\(entity.name)' is its own ancestor (\(cycle.joined(separator: " → "))): the parents of a hierarchy end at a root entity, which has no parent",
                            at: entity.parentLocation ?? entity.location, path: "$.parent")
                    }
                    inCycle.formUnion(cycle)
                    break
                }
                chain.append(next)
                current = next
            }
        }
        func root(of name: String) -> String {
            var current = name
            while let next = validParent[current], !inCycle.contains(current) { current = next }
            return current
        }
        for entity in described where validParent[entity.name] != nil && !inCycle.contains(entity.name) {
            let parent = byName[validParent[entity.name]!]!
            let rootEntity = byName[root(of: entity.name)]!
            if entity.declaresIdentifier, entity.identifier.kind != rootEntity.identifier.kind {
                diagnostics.error(
                    "subentity '\(entity.name)' shares the identifier of its root entity '\(rootEntity.name)' (the rows of a hierarchy are in one table): remove its 'identifier'",
                    at: entity.identifier.location, path: "$.identifier")
            }
            if let first = entity.versionHistory.first?.version, entity.parent(at: first) == parent.name,
                let parentFirst = parent.versionHistory.first?.version, first < parentFirst
            {
                diagnostics.error(
                    "subentity '\(entity.name)' exists at \(first), before its parent '\(parent.name)' (first version \(parentFirst)): a subentity's rows are in its root's table, which must exist",
                    at: entity.versionHistory.first?.location ?? entity.location)
            }
            if let parentRemoved = parent.removedAtVersion, entity.removedAtVersion.map({ $0 > parentRemoved }) ?? true {
                diagnostics.error(
                    "subentity '\(entity.name)' outlives its parent '\(parent.name)', removed at \(parentRemoved): add \"removed_at_version\": \"\(parentRemoved)\" (or earlier) to '\(entity.name)'",
                    at: entity.location)
            }
        }
        checkParentHistories(described, byName: byName, unpersisted: unpersistedNames, &diagnostics)
        func ancestors(_ name: String) -> Set<String> {
            var result: Set<String> = []
            var current = name
            while let next = validParent[current], !inCycle.contains(current), result.insert(next).inserted { current = next }
            return result
        }
        // Names in one table: each hierarchy's properties and columns once, and none of them `kind`.
        var members: [String: [EntityDescription]] = [:]
        for entity in described where !inCycle.contains(entity.name) {
            let rootName = root(of: entity.name)
            if validParent[entity.name] != nil || validParent.values.contains(entity.name) { members[rootName, default: []].append(entity) }
        }
        for rootName in members.keys.sorted() {
            // The root first, then the subentities in file order, so that an error lands on the later one.
            let group = members[rootName]!.sorted {
                ($0.name == rootName ? 0 : 1, $0.location) < ($1.name == rootName ? 0 : 1, $1.location)
            }
            var names: [String: String] = [:]
            var columns: [String: String] = [:]
            let groupNames = Set(group.map(\.name))
            for entity in group {
                for property in entity.properties where !property.unused {
                    if property.name.lowercased() == kindColumn {
                        diagnostics.error(
                            "property 'kind' of '\(entity.name)': in an entity hierarchy, 'kind' is the column (and the records' property) that says which entity a row is; rename the property (a \"persisted_name\" keeps its column's name, unless that is 'kind' too)",
                            at: property.location, path: property.path + ".name")
                        continue
                    }
                    if property.columnName.lowercased() == kindColumn {
                        diagnostics.error(
                            "property '\(property.name)' of '\(entity.name)' has the column 'kind', which in an entity hierarchy says which entity a row is; give it another \"persisted_name\"",
                            at: property.location, path: property.path + ".persisted_name")
                        continue
                    }
                    if let source = property.movedFrom {
                        checkMove(
                            of: property, in: entity, from: source, byName: byName, hierarchy: groupNames, rootName: rootName,
                            ancestors: ancestors(entity.name), &diagnostics)
                    }
                    // A property that moves up or down the hierarchy continues the column of the one it was.
                    func isMove(with other: String) -> Bool {
                        property.movedFrom == other
                            || byName[other]?.properties.contains { $0.movedFrom == entity.name && $0.name == property.name } == true
                    }
                    if let other = names[property.name.lowercased()], isMove(with: other) {
                        continue
                    } else if let other = names[property.name.lowercased()] {
                        diagnostics.error(
                            "property '\(property.name)' of '\(entity.name)' is also a property of '\(other)': the entities of a hierarchy share one table (that of '\(rootName)'), so each property name is used once in it; rename one of them",
                            at: property.location, path: property.path + ".name")
                    } else if let other = columns[property.columnName.lowercased()] {
                        diagnostics.error(
                            "property '\(property.name)' of '\(entity.name)' has the column '\(property.columnName)', as a property of '\(other)' does: the entities of a hierarchy share one table (that of '\(rootName)'); give one of them another \"persisted_name\"",
                            at: property.location, path: property.path)
                    } else {
                        names[property.name.lowercased()] = entity.name
                        columns[property.columnName.lowercased()] = entity.name
                    }
                }
            }
        }
    }

    /// Each `parent_history`: its parents are persisted entities that exist while they are its parent, its
    /// versions within its lifetime, each a change; at no version is an entity its own ancestor; a change
    /// keeps the rows' identifier (the old and the new root's are of one kind) and merges no two
    /// hierarchies (two entities whose rows were in two tables are never put in one, as Core Data's
    /// lightweight migration refuses it too). Errors are located at the item.
    private static func checkParentHistories(
        _ described: [EntityDescription], byName: [String: EntityDescription], unpersisted: Set<String>,
        _ diagnostics: inout DiagnosticCollector
    ) {
        guard described.contains(where: { !$0.parentHistory.isEmpty }) else { return }
        let versions = Set(
            described.flatMap { $0.versionHistory.map(\.version) + ($0.removedAtVersion.map { [$0] } ?? []) + $0.parentChanges }
        ).sorted()
        func exists(_ entity: EntityDescription, at version: SchemaVersion) -> Bool {
            guard let first = entity.versionHistory.first?.version else { return false }
            return first <= version && (entity.removedAtVersion.map { version < $0 } ?? true)
        }
        func root(of name: String, at version: SchemaVersion) -> String? {
            var current = name
            var seen: Set<String> = [name]
            while let next = byName[current]?.parent(at: version) {
                guard seen.insert(next).inserted else { return nil } // a cycle
                current = next
            }
            return current
        }
        for entity in described where !entity.parentHistory.isEmpty {
            var valid = true
            var start = entity.versionHistory.first?.version
            for (offset, item) in entity.parentHistory.enumerated() {
                let path = item.path + ".parent"
                let next = offset + 1 < entity.parentHistory.count ? entity.parentHistory[offset + 1].parent : entity.parent
                if let first = entity.versionHistory.first?.version,
                    item.untilVersion <= first || entity.removedAtVersion.map({ item.untilVersion >= $0 }) == true
                {
                    diagnostics.error(
                        "parent_history of '\(entity.name)': \(item.untilVersion) is not within its lifetime (\(first)\(entity.removedAtVersion.map { " until \($0)" } ?? " on")): a parent changes at a version where the entity exists",
                        at: item.location, path: item.path + ".until_version")
                    valid = false
                } else if next == item.parent {
                    diagnostics.error(
                        "parent_history of '\(entity.name)' says its parent is \(item.parent.map { "'\($0)'" } ?? "none") before \(item.untilVersion), as it is from then on: an item says a change; remove it",
                        at: item.location, path: path)
                    valid = false
                }
                if let parent = item.parent {
                    if let parentEntity = byName[parent] {
                        if let start, let end = Optional(item.untilVersion),
                            !(exists(parentEntity, at: start)
                                && versions.filter { $0 >= start && $0 < end }.allSatisfy { exists(parentEntity, at: $0) })
                        {
                            diagnostics.error(
                                "parent '\(parent)' of '\(entity.name)' before \(item.untilVersion) does not exist at every version from \(start): a subentity's rows are in its root's table, which must exist",
                                at: item.location, path: path)
                            valid = false
                        }
                    } else if unpersisted.contains(parent) {
                        diagnostics.error(
                            "parent '\(parent)' of '\(entity.name)' has \"persist\": false: a subentity's rows live in its root entity's table, so its parent must be persisted",
                            at: item.location, path: path)
                        valid = false
                    } else {
                        let suggestion =
                            KeySuggestion.nearest(to: parent, among: byName.keys.sorted()).map { "; did you mean '\($0)'?" } ?? ""
                        diagnostics.error(
                            "parent '\(parent)' of '\(entity.name)' (parent_history, before \(item.untilVersion)) is not an entity\(suggestion)",
                            at: item.location, path: path)
                        valid = false
                    }
                }
                start = item.untilVersion
            }
            if let parent = entity.parent, let parentEntity = byName[parent], let since = entity.parentHistory.last?.untilVersion,
                !exists(parentEntity, at: since)
            {
                diagnostics.error(
                    "parent '\(parent)' of '\(entity.name)' from \(since) does not exist at \(since): a subentity's rows are in its root's table, which must exist",
                    at: entity.parentLocation ?? entity.location, path: "$.parent")
                valid = false
            }
            guard valid else { continue }
            for item in entity.parentHistory {
                let version = item.untilVersion
                guard let before = versions.last(where: { $0 < version }) else { continue }
                guard let rootNow = root(of: entity.name, at: version), let rootThen = root(of: entity.name, at: before) else {
                    diagnostics.error(
                        "'\(entity.name)' is its own ancestor at \(version) or before it: the parents of a hierarchy end at a root entity, which has no parent",
                        at: item.location, path: item.path + ".parent")
                    continue
                }
                if let now = byName[rootNow], let then = byName[rootThen], now.identifier.kind != then.identifier.kind {
                    diagnostics.error(
                        "'\(entity.name)' moves at \(version) from the table of '\(rootThen)' to that of '\(rootNow)', whose identifiers differ: its rows keep their ids, so both roots need one kind of identifier",
                        at: item.location, path: item.path + ".until_version")
                }
                // A merge: another entity, in another table before, shares a table with it from this version on.
                let other = described.first { other in
                    other.name != entity.name && exists(other, at: before) && exists(other, at: version)
                        && root(of: other.name, at: version) == rootNow && root(of: other.name, at: before) != rootThen
                }
                if let other, rootNow != rootThen {
                    diagnostics.error(
                        "'\(entity.name)' changes its parent at \(version), which puts it in one hierarchy with '\(other.name)' (in the table of '\(rootNow)'), though at \(before) their rows are in two tables ('\(rootThen)' and '\(root(of: other.name, at: before) ?? other.name)'): that merges two hierarchies, whose ids could collide, and Core Data's lightweight migration refuses it too; give the entity a new parent, or move its rows in your own code (a stage)",
                        at: item.location, path: item.path + ".parent")
                }
            }
        }
    }

    /// A property's `moved_from`: the entity named is its ancestor or subentity, whose property of the same
    /// name and column is removed where this one is added; a required property moved up needs a default,
    /// which the rows of the kinds that did not have it hold (the column's `DEFAULT`).
    private static func checkMove(
        of property: PropertyDescription, in entity: EntityDescription, from source: String, byName: [String: EntityDescription],
        hierarchy: Set<String>,
        rootName: String, ancestors: Set<String>, _ diagnostics: inout DiagnosticCollector
    ) {
        let path = property.path + ".moved_from"
        guard let sourceEntity = byName[source], hierarchy.contains(source), source != entity.name else {
            diagnostics.error(
                "moved_from '\(source)' of '\(entity.name).\(property.name)' is not another entity of its hierarchy (that of '\(rootName)'): a property moves up or down a hierarchy, whose rows share one table",
                at: property.location, path: path)
            return
        }
        let movesUp = isDescendant(source, of: entity.name, byName)
        if !movesUp, !ancestors.contains(source) {
            diagnostics.error(
                "moved_from '\(source)' of '\(entity.name).\(property.name)' is neither an ancestor nor a subentity of '\(entity.name)': the rows of '\(source)' are not rows of '\(entity.name)', so its values would belong to no one",
                at: property.location, path: path)
            return
        }
        guard let earlier = sourceEntity.properties.first(where: { $0.name == property.name }) else {
            diagnostics.error(
                "moved_from '\(source)': '\(source)' has no property '\(property.name)' (a property keeps its name when it moves; rename it before or after)",
                at: property.location, path: path)
            return
        }
        if earlier.columnName.lowercased() != property.columnName.lowercased() {
            diagnostics.error(
                "'\(entity.name).\(property.name)' (column '\(property.columnName)') moves from '\(source)', whose column is '\(earlier.columnName)': a property keeps its column when it moves",
                at: property.location, path: path)
        }
        // A property of a subentity new at that version is added with it.
        guard let added = property.addedAtVersion ?? entity.versionHistory.first?.version, earlier.removedAtVersion == added else {
            diagnostics.error(
                "'\(entity.name).\(property.name)' moves from '\(source)': give it \"added_at_version\" the version where '\(source).\(property.name)' has \"removed_at_version\"\(earlier.removedAtVersion.map { " (\($0))" } ?? "")",
                at: property.location, path: path)
            return
        }
        // A to-many's rows of other kinds simply have no links.
        let toMany = if case .relationship(_, true, _) = property.type { true } else { false }
        if movesUp, !toMany, !property.nullable, property.defaultValue == nil {
            diagnostics.error(
                "'\(entity.name).\(property.name)' moves up from '\(source)' and is required: give it a \"default_value\" for the rows of '\(entity.name)' that are not '\(source)' (or make it nullable)",
                at: property.location, path: path)
        }
    }

    private static func isDescendant(_ name: String, of ancestor: String, _ byName: [String: EntityDescription]) -> Bool {
        var seen: Set<String> = []
        var current = byName[name]?.parent
        while let next = current, seen.insert(next).inserted {
            if next == ancestor { return true }
            current = byName[next]?.parent
        }
        return false
    }

    /// The histories completed for inheritance: a subentity's records carry its ancestors' properties, so
    /// it gets a record (a history item) at every version where an ancestor has one within its lifetime;
    /// and a root gets one at the version its first subentity appears (its records gain `kind` there).
    /// The items added carry nothing else (no rename, no ignored checks).
    static func completingHistories(_ described: [EntityDescription]) -> [EntityDescription] {
        let byName = Dictionary(described.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // Its ancestors at a version, nearest first.
        func ancestors(of entity: EntityDescription, at version: SchemaVersion) -> [EntityDescription] {
            var result: [EntityDescription] = []
            var current = entity
            while let name = current.parent(at: version), let parent = byName[name], !result.contains(where: { $0.name == parent.name }),
                parent.name != entity.name
            {
                result.append(parent)
                current = parent
            }
            return result
        }
        // The versions at which an entity's ancestors may change: its first, and where its parent changes.
        func moments(of entity: EntityDescription) -> [SchemaVersion] {
            guard let first = entity.versionHistory.first?.version else { return [] }
            return [first] + entity.parentChanges.filter { $0 > first }
        }
        var hierarchySince: [String: SchemaVersion] = [:]
        for entity in described where !entity.allParents.isEmpty {
            for moment in moments(of: entity) {
                guard let root = ancestors(of: entity, at: moment).last else { continue }
                hierarchySince[root.name] = min(hierarchySince[root.name] ?? moment, moment)
            }
        }
        return described.map { entity in
            var wanted: [SchemaVersion] = []
            if let since = hierarchySince[entity.name] { wanted.append(since) }
            if !entity.allParents.isEmpty, let first = entity.versionHistory.first?.version {
                func within(_ version: SchemaVersion) -> Bool { version > first && (entity.removedAtVersion.map { version < $0 } ?? true) }
                // Its records change where its parent does.
                wanted += entity.parentChanges.filter(within)
                var seen: Set<String> = []
                for moment in moments(of: entity) {
                    for ancestor in ancestors(of: entity, at: moment) where seen.insert(ancestor.name).inserted {
                        wanted += ancestor.versionHistory.map(\.version).filter { version in
                            within(version) && ancestors(of: entity, at: version).contains { $0.name == ancestor.name }
                        }
                        wanted += ancestor.parentChanges.filter(within)
                        if let since = hierarchySince[ancestor.name], since > first { wanted.append(since) }
                    }
                }
            }
            var result = entity
            for version in Set(wanted) where !result.versionHistory.contains(where: { $0.version == version }) {
                let item = VersionHistoryItem(
                    version: version, previousName: nil, ignoreMigrationChecks: false, ignorePropertyMigrationChecksOn: [],
                    location: entity.location)
                result.versionHistory.insert(
                    item, at: result.versionHistory.firstIndex { $0.version > version } ?? result.versionHistory.endIndex)
            }
            return result
        }
    }
}
