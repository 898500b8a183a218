import Foundation
@_spi(Generated) import LucidSchema

/// When each entity and property exists, and under which name: one entity's timeline, read through the
/// set of timelines it belongs to (for its hierarchy and relationship targets).
///
/// Values only. The Resolve stage's `timelines` phase builds them in steps, each taking the set the one
/// before returned and returning a new one: ``TimelineSet/linked(_:columnNaming:)`` (entities and their
/// hierarchy), ``TimelineSet/withLifetimes(_:)``, ``TimelineSet/withIndexes(_:)``, then
/// ``TimelineSet/withTypeHistories(_:)``. A step can only read what the steps before it made.
struct EntityTimeline: Sendable {
    /// What the timeline knows of its entity, shared by every copy of the timeline.
    final class Entry: Sendable {
        /// The description; the type histories the released snapshots imply added to its properties.
        let entity: EntityDescription
        /// The project's `column_naming`.
        let columnNaming: ColumnNaming
        /// The `version_history` items that rename the entity, in the history's order: ``name(at:)`` is asked
        /// for every entity at every version, and reads these rather than the whole history.
        let renames: [(version: SchemaVersion, previousName: String)]
        /// Its parent's name at its newest version (`parent`), when that entity is described.
        let parent: String?
        /// Its parent before each version where the parent changes (`parent_history`), oldest first.
        let parentHistory: [(until: SchemaVersion, parent: String?)]
        /// Its subentities at some version, by name.
        let children: [String]
        /// For a root: the first version at which a subentity exists. From then on its table has the `kind`
        /// column and its records a `kind` property (a root stays one after its last subentity is removed or
        /// leaves).
        let hierarchySince: SchemaVersion?
        /// The version range of each property (``TimelineSet/withLifetimes(_:)``).
        let propertyLifetimes: [String: PropertyLifetime]
        /// The indexes the descriptions ask for (each `indexed`/`unique` property, then `indexes`), checked
        /// (``TimelineSet/withIndexes(_:)``).
        let indexes: [IndexDescription]
        /// A to-one relationship's index named by the entity's `indexes` (GRDB's `<table>_on_<column>`), by property.
        let toOneIndexNames: [String: String]

        init(
            entity: EntityDescription, columnNaming: ColumnNaming, parent: String? = nil,
            parentHistory: [(until: SchemaVersion, parent: String?)] = [], children: [String] = [], hierarchySince: SchemaVersion? = nil,
            propertyLifetimes: [String: PropertyLifetime] = [:], indexes: [IndexDescription] = [], toOneIndexNames: [String: String] = [:]
        ) {
            self.entity = entity
            self.columnNaming = columnNaming
            self.renames = entity.versionHistory.compactMap { item in item.previousName.map { (item.version, $0) } }
            self.parent = parent
            self.parentHistory = parentHistory
            self.children = children
            self.hierarchySince = hierarchySince
            self.propertyLifetimes = propertyLifetimes
            self.indexes = indexes
            self.toOneIndexNames = toOneIndexNames
        }

        /// A copy with some of its facts replaced.
        func with(
            entity: EntityDescription? = nil, hierarchySince: SchemaVersion?? = nil, propertyLifetimes: [String: PropertyLifetime]? = nil,
            indexes: [IndexDescription]? = nil, toOneIndexNames: [String: String]? = nil
        ) -> Entry {
            Entry(
                entity: entity ?? self.entity, columnNaming: columnNaming, parent: parent, parentHistory: parentHistory, children: children,
                hierarchySince: hierarchySince ?? self.hierarchySince, propertyLifetimes: propertyLifetimes ?? self.propertyLifetimes,
                indexes: indexes ?? self.indexes, toOneIndexNames: toOneIndexNames ?? self.toOneIndexNames)
        }
    }

    struct PropertyLifetime: Sendable {
        var added: SchemaVersion
        var removed: SchemaVersion?
        var renamedAt: SchemaVersion?
    }

    let entry: Entry
    /// The timelines it is linked with (its own set).
    let set: TimelineSet

    var entity: EntityDescription { entry.entity }
    var columnNaming: ColumnNaming { entry.columnNaming }
    var propertyLifetimes: [String: PropertyLifetime] { entry.propertyLifetimes }
    var indexes: [IndexDescription] { entry.indexes }
    var toOneIndexNames: [String: String] { entry.toOneIndexNames }
    var hierarchySince: SchemaVersion? { entry.hierarchySince }

    /// Whether two timelines are the same entity's.
    func isSame(as other: EntityTimeline) -> Bool { entity.name == other.entity.name }

    var firstVersion: SchemaVersion { entity.versionHistory[0].version }
    var historyVersions: [SchemaVersion] { entity.versionHistory.map(\.version) }

    func exists(at version: SchemaVersion) -> Bool {
        version >= firstVersion && (entity.removedAtVersion.map { version < $0 } ?? true)
    }

    /// The history version whose shape applies at a schema version.
    func historyVersion(at version: SchemaVersion) -> SchemaVersion? {
        guard exists(at: version) else { return nil }
        // A binary search of the history (oldest first), without copying it: asked for every entity at every
        // version, and for every property at every released version.
        let history = entity.versionHistory
        var low = 0, high = history.count
        while low < high {
            let middle = (low + high) / 2
            if history[middle].version <= version { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : history[low - 1].version
    }

    /// The entity's name at a version: the `previous_name` of the first later rename, else its current name.
    func name(at version: SchemaVersion) -> String {
        entry.renames.first { $0.version > version }?.previousName ?? entity.name
    }

    /// The table at a version: a subentity's rows are in its root's table.
    func tableName(at version: SchemaVersion) -> String {
        if let parent = parent(at: version) { return parent.tableName(at: version) }
        return entity.persistedName ?? name(at: version)
    }

    // MARK: Entity inheritance

    /// The entity this one is a subentity of (`parent`) at its newest version.
    var parent: EntityTimeline? { entry.parent.flatMap { set[$0] } }

    /// The parent at a version.
    func parent(at version: SchemaVersion) -> EntityTimeline? {
        if let item = entry.parentHistory.first(where: { version < $0.until }) { return item.parent.flatMap { set[$0] } }
        return parent
    }

    /// Its subentities at some version.
    var children: [EntityTimeline] { entry.children.compactMap { set[$0] } }

    /// The root of its hierarchy at a version (itself when it has no parent then).
    func root(at version: SchemaVersion) -> EntityTimeline {
        var current = self
        var seen: Set<String> = [entity.name]
        while let next = current.parent(at: version), seen.insert(next.entity.name).inserted { current = next }
        return current
    }

    /// The root of its hierarchy at its newest version.
    var root: EntityTimeline { parent?.root ?? self }

    /// Its ancestors at a version, root first (empty for a root).
    func ancestors(at version: SchemaVersion) -> [EntityTimeline] {
        var result: [EntityTimeline] = []
        var current = self
        while let next = current.parent(at: version), !result.contains(where: { $0.isSame(as: next) }), !next.isSame(as: self) {
            result.insert(next, at: 0)
            current = next
        }
        return result
    }

    /// Its subentities at any depth at a version, depth first, each level by name.
    func descendants(at version: SchemaVersion) -> [EntityTimeline] {
        children.filter { $0.parent(at: version)?.isSame(as: self) == true }.flatMap { [$0] + $0.descendants(at: version) }
    }

    /// Its subentities at any depth at any version (each once).
    var everyDescendant: [EntityTimeline] {
        var result: [EntityTimeline] = []
        var pending = children
        while !pending.isEmpty {
            let next = pending.removeFirst()
            guard !next.isSame(as: self), !result.contains(where: { $0.isSame(as: next) }) else { continue }
            result.append(next)
            pending += next.children
        }
        return result
    }

    /// Whether the rows of this entity's table say their entity in a `kind` column at `version`.
    func hasKind(at version: SchemaVersion) -> Bool { root(at: version).hierarchySince.map { $0 <= version } ?? false }

    /// The description of property `name` (current name) of this entity or an ancestor, with the timeline
    /// that owns it (for its names and lifetime).
    func owner(ofProperty name: String) -> (timeline: EntityTimeline, property: PropertyDescription)? {
        if let property = entity.properties.first(where: { $0.name == name }) { return (self, property) }
        return parent?.owner(ofProperty: name)
    }

    /// Its own properties, then each ancestor's (nearest first): what an index of a subentity may name.
    var propertiesWithInherited: [PropertyDescription] { entity.properties + (parent?.propertiesWithInherited ?? []) }

    func properties(at version: SchemaVersion) -> [PropertyDescription] {
        entity.properties.filter { property in
            guard !property.unused, let lifetime = propertyLifetimes[property.name] else { return false }
            return lifetime.added <= version && (lifetime.removed.map { version < $0 } ?? true)
        }
    }

    /// The names of its own properties at a version, not its ancestors' (a property that moved down the
    /// hierarchy has one name in both).
    func ownPropertyNames(at version: SchemaVersion) -> Set<String> { Set(properties(at: version).map(\.name)) }

    func propertyName(_ property: PropertyDescription, at version: SchemaVersion) -> String {
        if let previous = property.previousName, let renamedAt = propertyLifetimes[property.name]?.renamedAt, version < renamedAt {
            return previous
        }
        return property.name
    }

    func columnName(_ property: PropertyDescription, at version: SchemaVersion) -> String {
        // The column as the earliest type_history item after `version` that names it says, else as described now.
        let earlier = property.typeHistory.filter { $0.untilVersion > version && $0.persistedName != nil }.min {
            $0.untilVersion < $1.untilVersion
        }
        if let earlier, let name = earlier.persistedName { return name ?? columnNaming.column(propertyName(property, at: version)) }
        return property.persistedName ?? columnNaming.column(propertyName(property, at: version))
    }
}

/// Every entity's timeline, as one step of the `timelines` phase left them. Immutable: a step that adds to
/// the timelines returns a new set, so what a step reads was made by the steps before it.
final class TimelineSet: Sendable {
    let entries: [String: EntityTimeline.Entry]
    /// The entities' names, sorted: the order ``values`` gives.
    let names: [String]

    init(entries: [String: EntityTimeline.Entry]) {
        self.entries = entries
        self.names = entries.keys.sorted()
    }

    subscript(name: String) -> EntityTimeline? { entries[name].map { EntityTimeline(entry: $0, set: self) } }

    /// Every timeline, by entity name.
    var values: [EntityTimeline] { names.map { EntityTimeline(entry: entries[$0]!, set: self) } }

    /// The first step: each entity's timeline, linked to its parent and children at every version (after
    /// ``Hierarchy/check(_:unpersisted:_:)`` found no error); each root given the first version at which
    /// it has a subentity.
    static func linked(_ entities: [EntityDescription], columnNaming: ColumnNaming) -> TimelineSet {
        let described = Set(entities.map(\.name))
        var children: [String: [String]] = [:]
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            for parentName in entity.allParents where described.contains(parentName) && children[parentName]?.contains(entity.name) != true
            {
                children[parentName, default: []].append(entity.name)
            }
        }
        let links = TimelineSet(
            entries: Dictionary(
                uniqueKeysWithValues: entities.map { entity in
                    (
                        entity.name,
                        EntityTimeline.Entry(
                            entity: entity, columnNaming: columnNaming, parent: entity.parent.flatMap { described.contains($0) ? $0 : nil },
                            parentHistory: entity.parentHistory.map { item in
                                (until: item.untilVersion, parent: item.parent.flatMap { described.contains($0) ? $0 : nil })
                            },
                            children: children[entity.name] ?? [])
                    )
                }))
        // A root's hierarchy begins where an entity first exists below it: at its first version, or where
        // its parent changes.
        var since: [String: SchemaVersion] = [:]
        for timeline in links.values {
            let moments =
                [timeline.firstVersion] + timeline.entity.parentChanges.filter { $0 > timeline.firstVersion && timeline.exists(at: $0) }
            for moment in moments {
                let root = timeline.root(at: moment)
                guard !root.isSame(as: timeline) else { continue }
                since[root.entity.name] = min(since[root.entity.name] ?? moment, moment)
            }
        }
        return links.replacing { name, entry in since[name].map { entry.with(hierarchySince: .some($0)) } }
    }

    /// Each property's lifetime, by entity (``ShapeBuilder/lifetimes(of:_:)``).
    func withLifetimes(_ lifetimes: [String: [String: EntityTimeline.PropertyLifetime]]) -> TimelineSet {
        replacing { name, entry in lifetimes[name].map { entry.with(propertyLifetimes: $0) } }
    }

    /// Each entity's checked indexes (``ShapeBuilder/checkedIndexes(of:_:)``).
    func withIndexes(_ indexes: [String: ShapeBuilder.CheckedIndexes]) -> TimelineSet {
        replacing { name, entry in indexes[name].map { entry.with(indexes: $0.indexes, toOneIndexNames: $0.toOneIndexNames) } }
    }

    /// The type histories the released snapshots imply, added to the properties
    /// (``ShapeBuilder/inferredTypeHistories(of:currentVersion:)``).
    func withTypeHistories(_ inferred: [String: ShapeBuilder.InferredTypeHistories]) -> TimelineSet {
        replacing { name, entry in
            guard let result = inferred[name], !result.typeHistories.isEmpty else { return nil }
            var entity = entry.entity
            for (index, items) in result.typeHistories { entity.properties[index].typeHistory = items }
            return entry.with(entity: entity)
        }
    }

    /// A new set, each entry `change` returns in place of the old one (nil: unchanged).
    private func replacing(_ change: (String, EntityTimeline.Entry) -> EntityTimeline.Entry?) -> TimelineSet {
        TimelineSet(entries: Dictionary(uniqueKeysWithValues: entries.map { name, entry in (name, change(name, entry) ?? entry) }))
    }
}
