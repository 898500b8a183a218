import Foundation
import LucidSchema
@_spi(Generated) import LucidSchema

/// Builds entity shapes and per-version schemas from the entity timelines: the core of the Resolve
/// stage, driven by ``Resolver``. This file makes the shapes (an entity, its identifier and its
/// properties at one of its history versions); each other concept is a file of its own in `Resolve/`:
///
/// - `PropertyLifetimes.swift`: when each property is added, removed and renamed; `type_history`.
/// - `ElementsFrom.swift`: separate properties becoming the elements of a composite.
/// - `CompositeShapes.swift`: a composite's elements, flattened into columns.
/// - `DescribedIndexes.swift`, `DescribedSearch.swift`: the indexes and search the descriptions ask for.
/// - `SwiftTypeMapping.swift`: the storage class and Swift type of each property type.
/// - `DefaultLiterals.swift`: a `default_value` as SQL and as Swift.
/// - `ValueTypes.swift`: the value type each column records.
/// - `RelationshipTargets.swift`: how snapshots name a relationship's target.
/// - `VersionSchema.swift`, `TableColumns.swift`: the schema (tables, DDL) and snapshot of a version.
struct ShapeBuilder {
    /// The timelines as the `timelines` phase's last step left them (``with(_:)`` gives the next step's).
    private(set) var timelines: TimelineSet
    let subtypes: [String: SubtypeDescription]
    let frozen: [SchemaVersion: SchemaSnapshot]
    /// The same snapshots oldest first, each with its entities and properties by name: properties are
    /// compared with them one by one.
    let releasedSnapshots: [(version: SchemaVersion, index: SnapshotIndex)]
    /// The Swift type of each struct at each version (structs whose members have a history).
    var structTypes = StructVersionTypes(subtypes: [:], versions: [])
    /// The Swift type of each enum at each version (enums whose cases have a history).
    var enumTypes = EnumVersionTypes(subtypes: [], versions: [])
    /// Each table's DDL as last built, for checksumming the next version (most tables repeat).
    var ddlCache: [String: (table: SchemaTable, statements: [String])] = [:]
    /// Each root entity's table as last built where nothing of its hierarchy had changed since the version
    /// before (``QuietTable``): the next such version takes it instead of building it again.
    var quietTables: [String: QuietTable] = [:]
    /// Whether quiet tables are taken from the version before (``TableReuse``; ``Resolver/resolve(_:requirements:tableReuse:)`` sets it).
    var tableReuse = TableReuse.on
    /// How many tables were taken so.
    var reusedTables = 0
    /// Each entity's snapshot as last made, with the history version it was made at.
    var entitySnapshots: [String: (version: SchemaVersion, ownPropertiesOnly: Bool, snapshot: SchemaSnapshot.EntitySnapshot)] = [:]
    /// Entities already reported wider than SQLite allows (once each, not once per version).
    var tooWide: Set<String> = []
    /// Columns of strict entities already reported with a type a STRICT table refuses (`entity.column`).
    var strictTypeErrors: Set<String> = []

    /// SQLite's default `SQLITE_MAX_COLUMN`: a table with more columns cannot be created (nor read by
    /// builds of SQLite with a lower limit), so the descriptions are refused where they say so.
    static let maximumColumns = 2000

    init(timelines: TimelineSet, subtypes: [String: SubtypeDescription], frozen: [SchemaVersion: SchemaSnapshot]) {
        self.timelines = timelines
        self.subtypes = subtypes
        self.frozen = frozen
        releasedSnapshots = frozen.sorted { $0.key < $1.key }.map { ($0.key, SnapshotIndex($0.value)) }
    }

    /// The same builder over the timelines a later step of the `timelines` phase made.
    func with(_ timelines: TimelineSet) -> ShapeBuilder {
        var next = self
        next.timelines = timelines
        return next
    }

    /// The entity at one of its history versions.
    func shape(of timeline: EntityTimeline, at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector) -> EntityShape? {
        let entity = timeline.entity
        guard let identifier = identifierShape(of: timeline, at: version, &diagnostics) else { return nil }
        var properties: [PropertyShape] = []
        // A subentity's record has its ancestors' properties first (root first), as they are at this version;
        // each ancestor reports their problems in its own shapes.
        var inherited = DiagnosticCollector()
        for ancestor in timeline.ancestors(at: version) {
            for property in ancestor.properties(at: version) {
                if case .property(let key) = ancestor.entity.identifier.kind, key == property.name { continue }
                if let shape = propertyShape(property.asOf(version), of: ancestor, at: version, &inherited) { properties.append(shape) }
            }
        }
        for property in timeline.properties(at: version) {
            if case .property(let key) = timeline.root(at: version).entity.identifier.kind, key == property.name { continue }
            if let shape = propertyShape(property.asOf(version), of: timeline, at: version, &diagnostics) { properties.append(shape) }
        }
        let name = timeline.name(at: version)
        if timeline.hasKind(at: version) {
            // Which entity of the hierarchy the row is: its description name (an abstract entity's records name it).
            var kind = PropertyShape(
                name: Hierarchy.kindColumn, currentName: Hierarchy.kindColumn, swiftName: Hierarchy.kindColumn,
                column: Hierarchy.kindColumn, storage: .text,
                swiftType: SwiftTypes.string, nullable: false, defaultSQL: nil,
                defaultSwift: entity.abstract ? nil : swiftStringLiteral(name),
                typeDescription: "string", kind: .value)
            kind.isKind = true
            properties.append(kind)
        }
        // `swift_name` renames the records of the versions with the entity's current name; older names keep theirs.
        let base = name == entity.name ? entity.swiftTypeName : Naming.typeName(name)
        var result = EntityShape(
            entityName: entity.name, name: name, version: version, typeName: "\(base)_\(version.identifierSuffix)",
            tableName: timeline.tableName(at: version), identifier: identifier, properties: properties)
        result.abstract = entity.abstract
        if timeline.hasKind(at: version) { result.kinds = Self.kinds(of: timeline, from: version) }
        return result
    }

    /// The kinds the records of `timeline`'s shape at history version `version` read: its own and its
    /// subentities', at every version until its next history version (a subentity added, renamed or
    /// removed in between changes no record of this entity, only the rows it reads).
    static func kinds(of timeline: EntityTimeline, from version: SchemaVersion) -> [String] {
        let next = (timeline.historyVersions.filter { $0 > version } + (timeline.entity.removedAtVersion.map { [$0] } ?? [])).min()
        let members = [timeline] + timeline.everyDescendant
        var moments: Set<SchemaVersion> = [version]
        for member in members {
            for candidate in member.historyVersions + member.entity.parentChanges + (member.entity.removedAtVersion.map { [$0] } ?? [])
            where candidate > version && next.map({ candidate < $0 }) ?? true {
                moments.insert(candidate)
            }
        }
        var kinds: [String] = []
        for moment in moments.sorted() {
            for member in [timeline] + timeline.descendants(at: moment)
            where member.exists(at: moment) && !kinds.contains(member.name(at: moment)) {
                kinds.append(member.name(at: moment))
            }
        }
        return kinds
    }

    /// `keying`: the entities whose key is being found through key-relationships (a key that is a to-one to
    /// an entity whose key is a to-one back would never end).
    func identifierShape(
        of timeline: EntityTimeline, at version: SchemaVersion, keying: Set<String> = [], _ diagnostics: inout DiagnosticCollector
    ) -> IdentifierShape? {
        // A subentity's rows are its root's: so is its key (relationships to it reference the root's table).
        if timeline.parent(at: version) != nil {
            let root = timeline.root(at: version)
            return identifierShape(of: root, at: root.historyVersion(at: version) ?? version, keying: keying, &diagnostics)
        }
        let entity = timeline.entity
        switch entity.identifier.kind {
        case .local:
            return IdentifierShape(kind: .local, column: "id", storage: .integer, swiftType: SwiftTypes.int64)
        case .scalar(let scalar):
            let (storage, swiftType) = Self.storage(of: scalar)
            return IdentifierShape(kind: .scalar(scalar), column: "id", storage: storage, swiftType: swiftType)
        case .property(let key):
            guard let property = entity.properties.first(where: { $0.name == key }) else {
                diagnostics.error("identifier property '\(key)' is not a property of '\(entity.name)'", at: entity.identifier.location)
                return nil
            }
            if case .relationship(let targetName, false, _) = property.type {
                return relationshipKeyShape(property, to: targetName, of: timeline, at: version, keying: keying, &diagnostics)
            }
            guard case .scalar(let scalar) = property.type, [.int, .string, .uuid].contains(scalar), !property.nullable, !property.lazy
            else {
                diagnostics.error(
                    "identifier property '\(key)' must be a required int, string or uuid, or a required to-one relationship",
                    at: property.location, path: property.path)
                return nil
            }
            if entity.identifier.autoincrement, scalar != .int {
                diagnostics.error(
                    "\"autoincrement\" needs an int identifier property (SQLite's INTEGER PRIMARY KEY AUTOINCREMENT); '\(key)' is a \(scalar.rawValue)",
                    at: entity.identifier.autoincrementLocation ?? entity.identifier.location, path: "$.identifier.autoincrement")
                return nil
            }
            guard timeline.properties(at: version).contains(where: { $0.name == key }) else {
                diagnostics.error(
                    "identifier property '\(key)' does not exist at version \(version)", at: property.location, path: property.path)
                return nil
            }
            let name = timeline.propertyName(property, at: version)
            return IdentifierShape(
                kind: .property(name), column: timeline.columnName(property, at: version),
                storage: Self.storage(of: scalar).0, swiftType: Self.storage(of: scalar).1,
                swiftName: property.swiftPropertyName(as: name))
        }
    }

    /// The key of an entity whose identifier property is a required to-one relationship (a one-to-one extension
    /// table, keyed by its parent row's key): the target's key type, and the foreign key the column is.
    func relationshipKeyShape(
        _ property: PropertyDescription, to targetName: String, of timeline: EntityTimeline, at version: SchemaVersion, keying: Set<String>,
        _ diagnostics: inout DiagnosticCollector
    ) -> IdentifierShape? {
        let key = property.name
        guard !property.nullable, !property.lazy else {
            diagnostics.error(
                "identifier property '\(key)' must be a required int, string or uuid, or a required to-one relationship",
                at: property.location, path: property.path)
            return nil
        }
        guard let target = timelines[targetName], target.exists(at: version), let targetVersion = target.historyVersion(at: version) else {
            diagnostics.error(
                "identifier property '\(key)' refers to '\(targetName)', which is no entity at version \(version)",
                at: property.typeLocation, path: property.path + ".property_type")
            return nil
        }
        guard !keying.contains(timeline.entity.name) else {
            diagnostics.error(
                "identifier property '\(key)' is keyed by '\(targetName)', whose key is keyed back by '\(timeline.entity.name)': one of them needs a key of its own",
                at: property.location, path: property.path)
            return nil
        }
        guard timeline.properties(at: version).contains(where: { $0.name == key }) else {
            diagnostics.error(
                "identifier property '\(key)' does not exist at version \(version)", at: property.location, path: property.path)
            return nil
        }
        guard let targetKey = identifierShape(of: target, at: targetVersion, keying: keying.union([timeline.entity.name]), &diagnostics)
        else { return nil }
        let name = timeline.propertyName(property, at: version)
        let column = timeline.columnName(property, at: version)
        return IdentifierShape(
            kind: .property(name), column: column, storage: targetKey.storage, swiftType: targetKey.swiftType,
            swiftName: property.swiftPropertyName(as: name),
            foreignKey: SchemaForeignKey(
                columns: [column], table: target.tableName(at: version), tableColumns: [targetKey.column],
                onDelete: property.onDelete ?? .cascade, onUpdate: property.onUpdate))
    }

    func propertyShape(
        _ property: PropertyDescription, of timeline: EntityTimeline, at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector
    )
        -> PropertyShape?
    {
        let name = timeline.propertyName(property, at: version)
        let column = timeline.columnName(property, at: version)
        let nullable = property.nullable || property.lazy
        var shape = PropertyShape(
            name: name, currentName: property.name, swiftName: property.swiftPropertyName(as: name), column: column, storage: .text,
            swiftType: SwiftTypes.string,
            nullable: nullable, defaultSQL: nil, defaultSwift: nil, typeDescription: property.type.description, kind: .value)
        shape.generated = property.generated != nil
        switch property.type {
        case .relationship(let targetName, let toMany, let ordered):
            guard let target = timelines[targetName] else {
                let hint =
                    timelines.values.first { $0.entity.versionHistory.contains { $0.previousName == targetName } }.map {
                        " (did you mean '\($0.entity.name)', its current name?)"
                    }
                    ?? KeySuggestion.nearest(to: targetName, among: timelines.names).map { "; did you mean '\($0)'?" } ?? ""
                diagnostics.error(
                    "relationship '\(property.name)' refers to unknown entity '\(targetName)'\(hint)", at: property.typeLocation,
                    path: property.path + ".property_type")
                return nil
            }
            guard target.exists(at: version) else {
                diagnostics.error(
                    "relationship '\(property.name)' refers to '\(targetName)', which does not exist at version \(version)",
                    at: property.location, path: property.path)
                return nil
            }
            guard let targetIdentifier = identifierShape(of: target, at: target.historyVersion(at: version)!, &diagnostics) else {
                return nil
            }
            // The target as it was named at this version: a rename of the target keeps the relationship.
            shape.typeDescription = Self.relationshipDescription(target: target.name(at: version), toMany: toMany, ordered: ordered)
            if property.defaultValue != nil && property.defaultValue != .null {
                diagnostics.error(
                    "relationship '\(property.name)' cannot have a default_value", at: property.location,
                    path: property.path + ".default_value")
            }
            if toMany {
                let joinTable = property.linkTable?.name ?? LinkTable.name(owner: timeline.tableName(at: version), relationship: column)
                shape.linkColumns = property.linkTable?.columns ?? .lucid(joinTable)
                shape.kind = .toMany(
                    entity: targetName, table: target.tableName(at: version), column: targetIdentifier.column, joinTable: joinTable,
                    targetStorage: targetIdentifier.storage, targetSwiftType: targetIdentifier.swiftType, ordered: ordered)
                shape.swiftType = "[\(targetIdentifier.swiftType)]"
                shape.nullable = false
            } else {
                shape.kind = .toOne(entity: targetName, table: target.tableName(at: version), column: targetIdentifier.column)
                shape.storage = targetIdentifier.storage
                shape.swiftType = targetIdentifier.swiftType
                if property.defaultValue == .null { shape.defaultSQL = "NULL"; shape.defaultSwift = "nil" }
            }
            return shape
        case .composite(let name):
            guard let composite = compositeShape(name, prefix: column, of: property, at: version, stack: [], &diagnostics) else {
                return nil
            }
            if let value = property.defaultValue, value != .null {
                diagnostics.error(
                    "composite '\(property.name)' cannot have a default_value: give its elements default_value in the subtype '\(name)'",
                    at: property.location, path: property.path + ".default_value")
                return nil
            }
            if nullable, !composite.hasRequiredColumn {
                diagnostics.error(
                    "optional composite '\(property.name)' has no required element: nil and a '\(name)' whose elements are all nil would both be stored as NULL in every column; make one element of '\(name)' required, or the composite required",
                    at: property.location, path: property.path + ".nullable")
                return nil
            }
            shape.kind = .composite(composite)
            shape.swiftType = composite.swiftType
            // An optional composite defaults to nil (the view model says so); a required one to its elements' defaults.
            if !nullable { shape.defaultSwift = composite.defaultSwift }
            return shape
        default:
            guard let (storage, swiftType) = storageAndSwiftType(of: property.type, property, at: version, &diagnostics) else { return nil }
            shape.storage = storage
            shape.swiftType = swiftType
            shape.storedAsJSON = isStoredAsJSON(property.type)
            if let value = property.defaultValue {
                guard let (sql, swift) = defaultLiterals(value, for: property, nullable: nullable, at: version, &diagnostics) else {
                    return nil
                }
                shape.defaultSQL = sql
                shape.defaultSwift = swift
            }
            return shape
        }
    }
}
