import Foundation
@_spi(Generated) import LucidSchema

/// The Resolve stage: turns the descriptions' version histories into the shape of every entity at
/// every version and one ``Schema`` per version, and checks them against the frozen snapshots.
///
/// Nothing is guessed: a rename needs `previous_name`, and where the annotations allow more than one
/// reading (a rename whose version the history does not pin down) the stage says which key settles it.
package enum Resolver {
    /// The phases in order, each taking what the one before returned: which entities are described, their
    /// versions, their timelines (lifetimes, hierarchy, inferred type histories), the resolved entities,
    /// one schema and snapshot per version, then the steps that need the app's code.
    /// `requirements`: the row transforms the app's build already requires (nil: read from the generated folder).
    package static func resolve(
        _ input: LoadedInput, requirements: GeneratedRequirements? = nil, tableReuse: TableReuse = .fromEnvironment
    ) throws(GenerationFailed) -> ResolvedModel {
        var diagnostics = DiagnosticCollector()
        diagnostics.append(contentsOf: input.diagnostics)
        var times = StageTimes()
        let described = try times.measure("descriptions") { () throws(GenerationFailed) in try describedEntities(input, &diagnostics) }
        let versioned = try times.measure("versions and snapshots") { () throws(GenerationFailed) in
            try versions(of: described, config: input.config, unpersisted: input.entities.filter { !$0.persist }, &diagnostics)
        }
        var complete = try times.measure("timelines") { () throws(GenerationFailed) in
            try timelines(of: versioned, subtypes: input.subtypes, &diagnostics)
        }
        complete.context.tableReuse = tableReuse
        let entities = try times.measure("shapes") { () throws(GenerationFailed) in
            try resolvedEntities(versioned, complete, subtypes: input.subtypes, &diagnostics)
        }
        let versionSchemas = try times.measure("schemas") { () throws(GenerationFailed) in
            try schemas(versioned, entities: entities, subtypes: input.subtypes, context: &complete.context, &diagnostics)
        }
        let requirements = requirements ?? GeneratedRequirements.read(config: versioned.config)
        let steps = times.measure("custom steps") {
            customSteps(versioned, versionSchemas.schemas, entities: entities, requirements: requirements, &diagnostics)
        }
        for (version, entry) in versioned.frozen where !versioned.versionSet.contains(version) {
            diagnostics.error(
                "snapshot of version \(version) matches no version in any entity's version_history (a released version cannot be removed)",
                at: SourceLocation(file: displayPath(entry.file)))
        }
        try diagnostics.throwIfErrors()
        var model = ResolvedModel(
            config: versioned.config, versions: versioned.versions, currentVersion: versioned.currentVersion, entities: entities,
            subtypes: input.subtypes,
            schemas: versionSchemas.schemas, snapshots: versionSchemas.snapshots, snapshotBases: versionSchemas.snapshotBases,
            customSteps: steps, diagnostics: diagnostics.diagnostics)
        model.checksums = versionSchemas.checksums
        model.reusedTables = complete.context.reusedTables
        model.times = times
        model.enumTypes = complete.context.enumTypes
        model.structTypes = complete.context.structTypes
        model.releasedVersions = versioned.versions.filter { version in
            version < versioned.currentVersion
                || (version == versioned.currentVersion && versioned.frozen[version]?.snapshot.released == true)
        }
        return model
    }

    /// The entities that get a table, checked for names taken twice.
    struct DescribedEntities {
        var entities: [EntityDescription]
        var subtypes: [String: SubtypeDescription]
    }

    static func describedEntities(_ input: LoadedInput, _ diagnostics: inout DiagnosticCollector) throws(GenerationFailed)
        -> DescribedEntities
    {
        for entity in input.entities where !entity.persist {
            diagnostics.note("entity '\(entity.name)' has \"persist\": false; it gets no table or record type", at: entity.location)
        }
        let described = input.entities.filter(\.persist)
        let subtypes = Dictionary(input.subtypes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        checkUniqueness(described, input.subtypes, moduleName: input.config.app.moduleName, &diagnostics)
        try diagnostics.throwIfErrors()
        return DescribedEntities(entities: described, subtypes: subtypes)
    }

    /// Every version of the histories in one spelling, the descriptions and config respelled to it and the
    /// subentities' histories completed, with the frozen snapshots.
    struct VersionedEntities {
        var entities: [EntityDescription]
        var subtypes: [String: SubtypeDescription]
        var config: Config
        /// Every history version and every removal.
        var versionSet: Set<SchemaVersion>
        /// `versionSet` sorted; never empty.
        var versions: [SchemaVersion]
        var currentVersion: SchemaVersion
        var frozen: [SchemaVersion: (snapshot: SchemaSnapshot, file: String)]
    }

    static func versions(
        of described: DescribedEntities, config: Config, unpersisted: [EntityDescription], _ diagnostics: inout DiagnosticCollector
    ) throws(GenerationFailed) -> VersionedEntities {
        var config = config
        var entities = described.entities
        // Versions: every history version, every removal.
        var versionSet = Set<SchemaVersion>()
        for entity in entities {
            checkHistory(entity, &diagnostics)
            versionSet.formUnion(entity.versionHistory.map(\.version))
            if let removed = entity.removedAtVersion { versionSet.insert(removed) }
            // A parent that changes at a version changes the entity's records there (its history gets the version).
            versionSet.formUnion(entity.parentChanges)
        }
        try diagnostics.throwIfErrors()

        var snapshotDiagnostics = DiagnosticCollector()
        let frozen = SnapshotStore.load(from: config.schemaPath, &snapshotDiagnostics)
        diagnostics.append(contentsOf: snapshotDiagnostics.diagnostics)
        // One spelling per version from here on: a respelled version keeps its snapshot's file and type names.
        let spellings = VersionSpellings(snapshots: frozen.values.map(\.snapshot.version), entities: entities, config: config)
        spellings.notes(entities: entities, config: config, &diagnostics)
        entities = entities.map(spellings.canonical)
        config = spellings.canonical(config)
        versionSet = Set(versionSet.map(spellings.callAsFunction))
        // Entity inheritance: parents checked, then each subentity gets a record wherever an ancestor changes.
        Hierarchy.check(entities, unpersisted: unpersisted, &diagnostics)
        try diagnostics.throwIfErrors()
        entities = Hierarchy.completingHistories(entities)

        let versions = versionSet.sorted()
        guard let newest = versions.last else { throw GenerationFailed(diagnostics: diagnostics.diagnostics) }
        let currentVersion = config.currentVersion ?? newest
        if let configured = config.currentVersion {
            for entity in entities {
                for item in entity.versionHistory where item.version > configured {
                    diagnostics.error(
                        "version \(item.version) of '\(entity.name)' is newer than current_version \(configured) in \(displayPath(config.file)): "
                            + "to make \(item.version), set current_version to \"\(item.version)\" there",
                        at: item.location)
                }
            }
        }
        return VersionedEntities(
            entities: entities, subtypes: described.subtypes, config: config, versionSet: versionSet, versions: versions,
            currentVersion: currentVersion,
            frozen: frozen)
    }

    /// Each entity's timeline, complete: linked into its hierarchy, its properties' lifetimes resolved, its
    /// indexes, search and subtypes checked and the type histories the released snapshots imply added; with
    /// the shape builder (each subtype version's Swift type named) that turns them into shapes and schemas.
    struct Timelines {
        var timelines: TimelineSet
        var context: ShapeBuilder
    }

    /// The timelines in steps, each a new ``TimelineSet`` from the one before: linked into their hierarchy,
    /// then every property's lifetime, then the indexes and the other checks that read lifetimes, then the
    /// type histories the released snapshots imply (worked out for every entity at once, reading only).
    /// Diagnostics keep the order of one entity's findings after another's.
    static func timelines(
        of versioned: VersionedEntities, subtypes described: [SubtypeDescription], _ diagnostics: inout DiagnosticCollector
    ) throws(GenerationFailed) -> Timelines {
        let entities = versioned.entities, versions = versioned.versions, subtypes = versioned.subtypes
        let linked = TimelineSet.linked(entities, columnNaming: versioned.config.columnNaming)
        // Only released snapshots bind: the current version's snapshot is rewritten as the descriptions change,
        // until `lucidgen release` marks it released.
        let released = versioned.frozen.filter { $0.key < versioned.currentVersion || $0.value.snapshot.released == true }.mapValues(
            \.snapshot)
        var context = ShapeBuilder(timelines: linked, subtypes: subtypes, frozen: released)
        // Subtypes with a history: checked, then each version's Swift type named before any shape is built.
        StructHistoryResolver.check(described, versions: versions, &diagnostics)
        EnumHistoryResolver.check(described, versions: versions, &diagnostics)
        try diagnostics.throwIfErrors()
        context.structTypes = StructVersionTypes(subtypes: subtypes, versions: versions)
        context.enumTypes = EnumVersionTypes(subtypes: described, versions: versions)

        var lifetimeFindings: [String: DiagnosticCollector] = [:]
        var lifetimes: [String: [String: EntityTimeline.PropertyLifetime]] = [:]
        for entity in entities {
            lifetimes[entity.name] = context.lifetimes(
                of: linked[entity.name]!, &lifetimeFindings[entity.name, default: DiagnosticCollector()])
        }
        context = context.with(linked.withLifetimes(lifetimes))
        var indexes: [String: ShapeBuilder.CheckedIndexes] = [:]
        for entity in entities {
            diagnostics.append(contentsOf: lifetimeFindings[entity.name]?.diagnostics ?? [])
            let timeline = context.timelines[entity.name]!
            indexes[entity.name] = context.checkedIndexes(of: timeline, &diagnostics)
            context.checkSearchVersions(of: timeline, &diagnostics)
            context.checkElementsFrom(of: timeline, &diagnostics)
            Self.checkSubtypesExist(for: timeline, versions: versions, subtypes: subtypes, &diagnostics)
        }
        try diagnostics.throwIfErrors()
        context = context.with(context.timelines.withIndexes(indexes))

        let builder = context
        let inferred = Parallel.map(count: entities.count) {
            builder.inferredTypeHistories(of: builder.timelines[entities[$0].name]!, currentVersion: versioned.currentVersion)
        }
        for result in inferred { diagnostics.append(contentsOf: result.diagnostics.diagnostics) }
        context = context.with(
            context.timelines.withTypeHistories(Dictionary(uniqueKeysWithValues: zip(entities.map(\.name), inferred))))
        StructHistoryResolver.checkEntities(
            context.timelines, types: context.structTypes, subtypes: subtypes, versions: versions, &diagnostics)
        try diagnostics.throwIfErrors()
        return Timelines(timelines: context.timelines, context: context)
    }

    /// Each entity's shape at each of its history versions, with its hierarchy; the Swift names checked.
    static func resolvedEntities(
        _ versioned: VersionedEntities, _ timelines: Timelines, subtypes: [SubtypeDescription], _ diagnostics: inout DiagnosticCollector
    ) throws(GenerationFailed) -> [ResolvedEntity] {
        let context = timelines.context, versions = versioned.versions
        var entities: [ResolvedEntity] = []
        for entity in versioned.entities {
            let timeline = timelines.timelines[entity.name]!
            let shapes = entity.versionHistory.compactMap { item in context.shape(of: timeline, at: item.version, &diagnostics) }
            var resolved = ResolvedEntity(
                name: entity.name, typeName: entity.swiftTypeName, file: entity.location.file, shapes: shapes,
                removedAtVersion: entity.removedAtVersion,
                checkExclusions: checkExclusions(of: entity))
            resolved.parent = entity.parent
            resolved.parentHistory = entity.parentHistory.map { (until: $0.untilVersion, parent: $0.parent) }
            resolved.abstract = entity.abstract
            if timeline.root.hierarchySince != nil {
                resolved.kinds = ([timeline] + timeline.descendants(at: versions.last!)).filter { $0.entity.removedAtVersion == nil }.map(
                    \.entity.name)
            }
            entities.append(resolved)
        }
        EnumHistoryResolver.checkHolders(subtypes: subtypes, entities: entities, descriptions: versioned.entities, &diagnostics)
        checkSwiftNames(
            entities, subtypes: subtypes, config: versioned.config, descriptions: versioned.entities, enumTypes: context.enumTypes,
            structTypes: context.structTypes, versions: versions, &diagnostics)
        try diagnostics.throwIfErrors()
        return entities
    }

    /// One schema per version, and the snapshots to write: released ones checked against the derived shape.
    struct VersionSchemas {
        var schemas: [Schema]
        var snapshots: [SchemaSnapshot]
        /// The snapshot each of `snapshots` continues (its version's before, as its file reads), parallel to it.
        var snapshotBases: [SchemaSnapshot?]
        /// Each schema's checksum (its snapshot's), parallel to `schemas`.
        var checksums: [String]
    }

    static func schemas(
        _ versioned: VersionedEntities, entities: [ResolvedEntity], subtypes: [SubtypeDescription], context: inout ShapeBuilder,
        _ diagnostics: inout DiagnosticCollector
    ) throws(GenerationFailed) -> VersionSchemas {
        var schemas: [Schema] = []
        var snapshots: [SchemaSnapshot] = []
        var snapshotBases: [SchemaSnapshot?] = []
        var checksums: [String] = []
        var previous: SchemaVersion?
        // The previous version's snapshot as its file will read once this run is written: a file written
        // now holds what changed since it.
        var previousFile: SchemaSnapshot?
        var matched = ReleaseMatches()
        func write(_ snapshot: SchemaSnapshot) {
            snapshots.append(snapshot)
            snapshotBases.append(previousFile)
            previousFile = snapshot
        }
        for version in versioned.versions {
            var (schema, snapshot) = context.schema(
                at: version, previous: previous, previousSchema: schemas.last, entities: entities, &diagnostics)
            snapshot.subtypes =
                (SchemaSnapshot.SubtypeSnapshot.enums(subtypes, at: version) + SchemaSnapshot.SubtypeSnapshot.structs(subtypes, at: version))
                .sorted { $0.name < $1.name }
            previous = version
            schemas.append(schemas.last.map { Self.sharingTables(schema, with: $0) } ?? schema)
            checksums.append(snapshot.checksum)
            if let existing = versioned.frozen[version] {
                // `lucidgen release`'s mark is the file's, not the descriptions'.
                snapshot.released = existing.snapshot.released
                let releasedCurrent = version == versioned.currentVersion && existing.snapshot.released == true
                if version < versioned.currentVersion || releasedCurrent {
                    // The entries that matched at a version before are not compared again (``ReleaseMatches``).
                    if !matched.matches(
                        frozen: existing.snapshot, derived: snapshot,
                        aligning: { context.aligningRelationshipTargets(of: $0, with: snapshot) })
                    {
                        let released = context.aligningRelationshipTargets(of: existing.snapshot, with: snapshot)
                            .completingColumnAnnotations(from: snapshot)
                        let derived = SnapshotStore.comparable(snapshot, with: released)
                        if released != derived {
                            reportChanges(
                                of: version, frozen: released, derived: derived, file: existing.file, releasedCurrent: releasedCurrent,
                                versioned, subtypes: subtypes,
                                &diagnostics)
                        }
                    }
                    previousFile = existing.snapshot
                } else if existing.snapshot != snapshot {
                    write(snapshot)
                } else {
                    previousFile = existing.snapshot
                }
            } else {
                if version < versioned.currentVersion {
                    diagnostics.note(
                        "froze released version \(version) from the descriptions' annotations into \(displayPath(versioned.config.schemaPath))/\(SchemaSnapshot.fileName(for: version))"
                    )
                }
                write(snapshot)
            }
        }
        checkIndexNames(schemas, versioned.entities, &diagnostics)
        try diagnostics.throwIfErrors()
        return VersionSchemas(schemas: schemas, snapshots: snapshots, snapshotBases: snapshotBases, checksums: checksums)
    }

    /// A released version whose derived shape differs from its snapshot: an error per difference, at the
    /// property's description, else the entity's, else (a description deleted) the snapshot's entry.
    private static func reportChanges(
        of version: SchemaVersion, frozen released: SchemaSnapshot, derived: SchemaSnapshot, file: String, releasedCurrent: Bool,
        _ versioned: VersionedEntities,
        subtypes: [SubtypeDescription], _ diagnostics: inout DiagnosticCollector
    ) {
        let changes = SnapshotStore.differences(frozen: released, derived: derived)
        for change in changes.isEmpty ? [SnapshotStore.Difference(message: "the derived shape differs from the snapshot")] : changes {
            let description = change.entity.flatMap { name in versioned.entities.first { $0.name == name } }
            let property = change.property.flatMap { name in
                description?.properties.first { $0.name == name } ?? description?.properties.first { $0.previousName == name }
            }
            let subtype = change.subtype.flatMap { name in subtypes.first { $0.name == name } }
            let location =
                property?.location ?? description?.location ?? subtype?.location ?? SnapshotStore.location(of: change, inSnapshotAt: file)
                ?? SourceLocation(file: displayPath(file))
            // Released but still current: the change belongs in the next version.
            // The next version may be in the histories already (only current_version was not bumped).
            let described = versioned.entities.flatMap { $0.versionHistory.map(\.version) }.filter { $0 > version }.min()
            let bump =
                described.map {
                    "set current_version to \"\($0)\" in .lucid.yaml (the version_history of the entities you change has it already)"
                }
                ?? "set current_version to the next version in .lucid.yaml and add it to the version_history of each entity you change"
            let next =
                releasedCurrent
                ? "; \(version) was released (`lucidgen release`): \(bump) "
                    + "(if \(version) never shipped, delete its fixture and .sha256 and the snapshot's \"released\" line to edit it)"
                : ""
            diagnostics.error(
                "released version \(version) was changed (frozen in \(displayPath(file))): \(change.message)\(next)", at: location)
        }
    }

    /// `schema` with each table that equals the previous version's table of its name replaced by that very
    /// value: the versions then share its arrays, and comparing them (planning, the schema check, every
    /// pair of versions that `plan --format markdown` draws) stops at the shared storage.
    static func sharingTables(_ schema: Schema, with previous: Schema) -> Schema {
        let before = Dictionary(previous.tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return Schema(
            version: schema.version, tables: schema.tables.map { table in before[table.name].flatMap { $0 == table ? $0 : nil } ?? table })
    }

    /// Index names share SQLite's one namespace with tables: two indexes (or an index and a table) of one
    /// version may not take the same name. Reported once per name, at the index's description.
    private static func checkIndexNames(_ schemas: [Schema], _ described: [EntityDescription], _ diagnostics: inout DiagnosticCollector) {
        var reported: Set<String> = []
        for schema in schemas {
            var owners: [String: String] = [:]
            for table in schema.tables { owners[sqlNameKey(table.name)] = "table '\(table.name)'" }
            for table in schema.tables {
                // A UNIQUE … ON CONFLICT is the table's constraint, which SQLite names itself: its name is none.
                for index in table.indexes where index.onConflict == nil {
                    let key = sqlNameKey(index.name)
                    if let other = owners[key] {
                        guard reported.insert(key).inserted else { continue }
                        let item = described.lazy.flatMap(\.indexes).first { $0.name.map(sqlNameKey) == key }
                        diagnostics.error(
                            "index '\(index.name)' on \(table.name) at version \(schema.version) takes the name of \(other) (tables and indexes share one namespace in SQLite); give it another \"name\"",
                            at: item?.location ?? described.first { $0.tableName == table.name }?.location, path: item?.path)
                    } else {
                        owners[key] = "index '\(index.name)' on \(table.name)"
                    }
                }
            }
        }
    }

    /// An entity's `takes_name_of`: the entity named is another one, removed before this one is added,
    /// whose table is this one's.
    private static func checkTablesTaken(_ entities: [EntityDescription], _ diagnostics: inout DiagnosticCollector) {
        for entity in entities {
            guard let name = entity.takesNameOf else { continue }
            guard let earlier = entities.first(where: { $0.name == name && $0.name != entity.name }) else {
                diagnostics.error("takes_name_of '\(name)' names no other entity", at: entity.location, path: "$.takes_name_of")
                continue
            }
            // Two subentities live in their root's table: the name taken is their kind's.
            if entity.parent == nil || earlier.parent == nil, earlier.tableName.lowercased() != entity.tableName.lowercased() {
                diagnostics.error(
                    "entity '\(entity.name)' (table '\(entity.tableName)') takes_name_of '\(name)', whose table is '\(earlier.tableName)': give '\(name)' \"persisted_name\": \"\(entity.tableName)\"",
                    at: entity.location, path: "$.takes_name_of")
            }
            let added = entity.versionHistory.first?.version
            if earlier.removedAtVersion == nil || added == nil || earlier.removedAtVersion! > added! {
                diagnostics.error(
                    "entity '\(entity.name)' takes_name_of '\(name)', which must be removed (removed_at_version) at or before this one's first version",
                    at: entity.location, path: "$.takes_name_of")
            }
        }
    }

    /// `takes_name_of`: the property named is one of the entity's, removed before this one is added, with
    /// this one's column; this one is new (no `previous_name`: that would be a rename).
    private static func checkNamesTaken(of entity: EntityDescription, _ diagnostics: inout DiagnosticCollector) {
        for property in entity.properties {
            guard let name = property.takesNameOf else { continue }
            let path = property.path + ".takes_name_of"
            guard let earlier = entity.properties.first(where: { $0.name == name && $0.name != property.name }) else {
                diagnostics.error("takes_name_of '\(name)' names no other property of '\(entity.name)'", at: property.location, path: path)
                continue
            }
            if property.previousName != nil {
                diagnostics.error(
                    "property '\(property.name)' has both previous_name (a rename: the values carry over) and takes_name_of (a new property: they do not); keep the one that says what happened",
                    at: property.location, path: path)
            }
            if earlier.columnName.lowercased() != property.columnName.lowercased() {
                diagnostics.error(
                    "property '\(property.name)' (column '\(property.columnName)') takes_name_of '\(name)', whose column is '\(earlier.columnName)': give '\(name)' \"persisted_name\": \"\(property.columnName)\"",
                    at: property.location, path: path)
            }
            if earlier.removedAtVersion == nil || property.addedAtVersion == nil || earlier.removedAtVersion! > property.addedAtVersion! {
                diagnostics.error(
                    "property '\(property.name)' takes_name_of '\(name)', which must be removed (removed_at_version) at or before this one is added (added_at_version)",
                    at: property.location, path: path)
            }
        }
    }

    /// Names taken twice (entities and their tables, Swift types, properties and their columns), and Swift
    /// type names that cannot be used: keywords, names other code uses unqualified, scalar type names and
    /// module names.
    private static func checkUniqueness(
        _ entities: [EntityDescription], _ subtypes: [SubtypeDescription], moduleName: String, _ diagnostics: inout DiagnosticCollector
    ) {
        checkTablesTaken(entities, &diagnostics)
        var types = claimEntityNames(entities, &diagnostics)
        checkUnusableTypeNames(entities, subtypes, &diagnostics)
        checkModuleNameClashes(entities, subtypes, moduleName: moduleName, claimingSubtypesIn: &types, &diagnostics)
    }

    /// `key` for `what` at `location`, unless an earlier one has it: then an error, and false.
    @discardableResult
    private static func claim(
        _ key: String, in table: inout [String: SourceLocation], _ what: String, at location: SourceLocation,
        _ diagnostics: inout DiagnosticCollector
    ) -> Bool {
        if let first = table[key] {
            diagnostics.error("\(what) is already used by \(first)", at: location)
            return false
        }
        table[key] = location
        return true
    }

    /// How to get another Swift name: `swift_name` (or, when it is set already, another one).
    private static func renaming(_ what: String, swiftName: String?, keeps: String) -> String {
        swiftName == nil ? "give the \(what) a \"swift_name\" (\(keeps))" : "choose another \"swift_name\""
    }

    /// Each entity's name, table, Swift type, properties and columns, in file order (so the error lands on
    /// the later file): the Swift types claimed.
    private static func claimEntityNames(_ entities: [EntityDescription], _ diagnostics: inout DiagnosticCollector) -> [String:
        SourceLocation]
    {
        var names: [String: SourceLocation] = [:]
        var types: [String: SourceLocation] = [:]
        // The entities that take the table of one removed earlier: claimed by that one already.
        let takenOver = Set(
            entities.compactMap { entity in
                entity.takesNameOf.flatMap { name in
                    entities.first { $0.name == name && $0.tableName.lowercased() == entity.tableName.lowercased() }
                }.map { _ in entity.name }
            })
        for entity in entities.sorted(by: { $0.location < $1.location }) {
            guard claim(entity.name.lowercased(), in: &names, "entity name '\(entity.name)'", at: entity.location, &diagnostics) else {
                continue
            }
            // A table named as the entity but for case (`ZITEM` for `zitem`) is the entity's own name to SQLite.
            if entity.persistedName != nil, entity.tableName.lowercased() != entity.name.lowercased(), !takenOver.contains(entity.name) {
                claim(entity.tableName.lowercased(), in: &names, "table name '\(entity.tableName)'", at: entity.location, &diagnostics)
            }
            claim(
                entity.swiftTypeName, in: &types, "Swift type name '\(entity.swiftTypeName)' (from entity '\(entity.name)')",
                at: entity.location, &diagnostics)
            var properties: [String: SourceLocation] = [:]
            var columns: [String: SourceLocation] = [:]
            for property in entity.properties {
                claim(property.name.lowercased(), in: &properties, "property name '\(property.name)'", at: property.location, &diagnostics)
                // A new property that takes the column an earlier one gave up (checked in checkNamesTaken).
                if property.takesNameOf != nil { continue }
                if !claim(
                    property.columnName.lowercased(), in: &columns, "column name '\(property.columnName)'", at: property.location,
                    &diagnostics),
                    let earlier = entity.properties.first(where: {
                        $0.columnName.lowercased() == property.columnName.lowercased() && $0.name != property.name
                    }),
                    let removed = earlier.removedAtVersion, let added = property.addedAtVersion, removed <= added
                {
                    diagnostics.error(
                        "property '\(property.name)' takes the column of '\(earlier.name)', removed at \(removed): if it is a new property (no values carried over), say \"takes_name_of\": \"\(earlier.name)\"; if it is the same one, describe one property",
                        at: property.location, path: property.path)
                }
            }
            checkNamesTaken(of: entity, &diagnostics)
            if case .property = entity.identifier.kind {
            } else if let clash = entity.properties.first(where: { $0.columnName.lowercased() == "id" }) {
                diagnostics.error(
                    "property '\(clash.name)' clashes with the identifier column 'id'; use \"identifier\": {\"type\": \"property\", \"property_name\": \"\(clash.name)\"} to make it the identifier, or rename it",
                    at: clash.location, path: clash.path)
            }
        }
        return types
    }

    /// Swift type names Swift refuses (keywords), that other code uses unqualified, or that a scalar type
    /// always means.
    private static func checkUnusableTypeNames(
        _ entities: [EntityDescription], _ subtypes: [SubtypeDescription], _ diagnostics: inout DiagnosticCollector
    ) {
        for entity in entities where Naming.unusableTypeNames.contains(entity.swiftTypeName) {
            diagnostics.error(
                "entity '\(entity.name)' would be the Swift type '\(entity.swiftTypeName)', a keyword Swift does not accept as a type name; \(renaming("entity", swiftName: entity.swiftName, keeps: "its table keeps its name"))",
                at: entity.location, path: "$.name")
        }
        for entity in entities {
            guard let why = Naming.typeNamesOthersUseUnqualified[entity.swiftTypeName] else { continue }
            diagnostics.error(
                "entity '\(entity.name)' would be the Swift type '\(entity.swiftTypeName)', \(why); \(renaming("entity", swiftName: entity.swiftName, keeps: "its table keeps its name")), e.g. \"\(entity.swiftTypeName)Record\"",
                at: entity.location, path: entity.swiftName == nil ? "$.name" : "$.swift_name")
        }
        for subtype in subtypes {
            guard let why = Naming.typeNamesOthersUseUnqualified[subtype.swiftTypeName] else { continue }
            diagnostics.error(
                "subtype '\(subtype.name)' would be the Swift type '\(subtype.swiftTypeName)', \(why); \(renaming("subtype", swiftName: subtype.swiftName, keeps: "stored values keep their form")), e.g. \"\(subtype.swiftTypeName)Kind\"",
                at: subtype.location, path: subtype.swiftName == nil ? "$.name" : "$.swift_name")
        }
        // `"property_type": "date"` is the scalar: a subtype of that name could never be used (and its name
        // would make scalar columns look like its own).
        for subtype in subtypes {
            guard let scalar = ScalarType(name: subtype.name) else { continue }
            diagnostics.error(
                "subtype '\(subtype.name)' is named like the scalar type '\(scalar.rawValue)', which a property_type \"\(subtype.name)\" always means; rename the subtype",
                at: subtype.location, path: "$.name")
        }
        for subtype in subtypes where Naming.unusableTypeNames.contains(subtype.swiftTypeName) {
            diagnostics.error(
                "subtype '\(subtype.name)' would be the Swift type '\(subtype.swiftTypeName)', a keyword Swift does not accept as a type name; \(renaming("subtype", swiftName: subtype.swiftName, keeps: "stored values keep their form"))",
                at: subtype.location, path: "$.name")
        }
    }

    /// Generated code qualifies outside types with their modules (`Foundation.Date`) and the generated
    /// tests the app's types with the app's module (`App.Unit`): a type named like one of these modules
    /// hides it, and no qualification reaches past that. Any other name (`Date`, `Unit`, `Column`) is fine.
    /// Each subtype's Swift type is claimed in `types` (beside the entities') after its check.
    private static func checkModuleNameClashes(
        _ entities: [EntityDescription], _ subtypes: [SubtypeDescription], moduleName: String,
        claimingSubtypesIn types: inout [String: SourceLocation],
        _ diagnostics: inout DiagnosticCollector
    ) {
        func moduleClash(_ type: String) -> String? {
            if type == moduleName {
                return
                    "the app's module (targets.app.module_name), which the generated tests qualify the app's types with (`\(moduleName).\(type)` would look inside the type)"
            }
            guard Naming.qualifyingModuleNames.contains(type) else { return nil }
            return "the module \(type), which generated code qualifies its types with (`\(type).…` would look inside the type)"
        }
        for entity in entities {
            guard let module = moduleClash(entity.swiftTypeName) else { continue }
            diagnostics.error(
                "entity '\(entity.name)' would be the Swift type '\(entity.swiftTypeName)', named like \(module); \(renaming("entity", swiftName: entity.swiftName, keeps: "its table keeps its name")), e.g. \"\(entity.swiftTypeName)Record\"",
                at: entity.location, path: entity.swiftName == nil ? "$.name" : "$.swift_name")
        }
        for subtype in subtypes {
            if let module = moduleClash(subtype.swiftTypeName) {
                diagnostics.error(
                    "subtype '\(subtype.name)' would be the Swift type '\(subtype.swiftTypeName)', named like \(module); \(renaming("subtype", swiftName: subtype.swiftName, keeps: "stored values keep their form")), e.g. \"\(subtype.swiftTypeName)Value\"",
                    at: subtype.location, path: subtype.swiftName == nil ? "$.name" : "$.swift_name")
            }
            claim(
                subtype.swiftTypeName, in: &types, "Swift type name '\(subtype.swiftTypeName)' (from subtype '\(subtype.name)')",
                at: subtype.location, &diagnostics)
        }
    }

    /// Names that pass the description checks but would not compile: a property whose Swift name another
    /// property of the same record (at any version) or a member every record has already takes, enum cases
    /// and struct members whose Swift names clash, and Swift type names taken twice among records,
    /// entities, subtypes (each version's type) and the generated types. Each error is located at the
    /// later of the two and suggests `swift_name`, which changes no database name.
    private static func checkSwiftNames(
        _ entities: [ResolvedEntity], subtypes: [SubtypeDescription], config: Config, descriptions: [EntityDescription],
        enumTypes: EnumVersionTypes, structTypes: StructVersionTypes, versions: [SchemaVersion], _ diagnostics: inout DiagnosticCollector
    ) {
        var report = NameReport()
        for entity in entities {
            guard let description = descriptions.first(where: { $0.name == entity.name }) else { continue }
            for shape in entity.shapes {
                checkCompositeColumns(of: shape, entity: entity, description: description, &report)
                checkRecordMembers(of: shape, entity: entity, description: description, &report)
            }
        }
        checkSubtypeMemberNames(subtypes, enumTypes: enumTypes, structTypes: structTypes, newest: versions.last) {
            report.error($0, at: $1, path: $2)
        }
        checkTypeNames(
            entities, subtypes: subtypes, config: config, descriptions: descriptions, enumTypes: enumTypes, structTypes: structTypes,
            &report)
        diagnostics.append(contentsOf: report.diagnostics.diagnostics)
    }

    /// The findings of ``checkSwiftNames``: each error once (a clash found at several versions is one),
    /// each warning once per key.
    struct NameReport {
        var diagnostics = DiagnosticCollector()
        private var reported = Set<String>()
        private var warned = Set<String>()

        mutating func error(_ message: String, at location: SourceLocation, path: String?) {
            if reported.insert(message).inserted { diagnostics.error(message, at: location, path: path) }
        }

        mutating func warning(_ message: String, once key: String, at location: SourceLocation, path: String?) {
            if warned.insert(key).inserted { diagnostics.warning(message, at: location, path: path) }
        }
    }

    /// A composite's columns are `<column>_<member>`: none may be another property's column.
    private static func checkCompositeColumns(
        of shape: EntityShape, entity: ResolvedEntity, description: EntityDescription, _ report: inout NameReport
    ) {
        func described(_ name: String) -> PropertyDescription? { description.properties.first { $0.name == name } }
        var columns: [String: String] = [sqlNameKey(shape.identifier.column): "the identifier"]
        var compositeColumns: Set<String> = []
        for property in shape.properties {
            let at = shape.version == entity.shapes.last?.version ? "" : " at version \(shape.version)"
            var names: [String] = []
            switch property.kind {
            case .composite(let composite): names = composite.leaves(optional: true).map(\.column)
            case .toMany: break
            case .value, .toOne: names = [property.column]
            }
            let isComposite = if case .composite = property.kind { true } else { false }
            for name in names {
                // Plain columns that clash are reported elsewhere; here, clashes with a composite's.
                if let other = columns[sqlNameKey(name)], other != "property '\(property.name)'",
                    isComposite || compositeColumns.contains(sqlNameKey(name))
                {
                    report.error(
                        "property '\(property.name)' of '\(shape.name)'\(at) would have the column `\(name)`, as would \(other); rename one of them (or give it a persisted_name)",
                        at: described(property.currentName)?.location ?? description.location, path: described(property.currentName)?.path)
                } else {
                    columns[sqlNameKey(name)] = "property '\(property.name)'"
                    if isComposite { compositeColumns.insert(sqlNameKey(name)) }
                }
            }
        }
    }

    /// The record's Swift properties (the identifier's first: `id`, or the identifier property), and its
    /// relationships' GRDB associations.
    private static func checkRecordMembers(
        of shape: EntityShape, entity: ResolvedEntity, description: EntityDescription, _ report: inout NameReport
    ) {
        func described(_ name: String) -> PropertyDescription? { description.properties.first { $0.name == name } }
        var members: [(name: String, current: String, swiftName: String)] = []
        var taken: [String: String] = [:]
        if case .property(let key) = shape.identifier.kind, case .property(let current) = description.identifier.kind {
            members.append((key, current, shape.identifier.swiftName))
        } else {
            taken["id"] = "the identifier `id`"
        }
        members += shape.properties.map { ($0.name, $0.currentName, $0.swiftName) }
        let at = shape.version == entity.shapes.last?.version ? "" : " at version \(shape.version)"
        // A relationship's GRDB association is a static member of the record: one named like a member
        // every record has (`order`, `filter`…) is left out, which compiles but surprises; say so once.
        for property in shape.properties {
            guard let taken = property.associationNames.first(where: { Naming.recordStaticMembers.contains($0) }) else { continue }
            let described = described(property.currentName)
            let suggestion = "linked" + property.swiftName.prefix(1).uppercased() + property.swiftName.dropFirst()
            let message =
                "relationship '\(property.name)' of '\(entity.name)' gets no GRDB association: every record has GRDB's static `\(taken)` already; "
                + "give it a \"swift_name\" (e.g. \"\(suggestion)\"; its column keeps its name) to have the association under that name"
            report.warning(
                message, once: "\(entity.name).\(property.currentName)", at: described?.location ?? description.location,
                path: described?.path)
        }
        for member in members {
            let property = described(member.current)
            let location = property?.location ?? description.location
            let fix = property?.swiftName == nil ? "give it a \"swift_name\" (its column keeps its name)" : "choose another \"swift_name\""
            if let clash = Naming.recordMemberNames[member.swiftName] {
                report.error(
                    "property '\(member.name)' of '\(shape.name)'\(at) would be the Swift property `\(member.swiftName)`, which clashes with \(clash); \(fix)",
                    at: location, path: property?.path)
            } else if let other = taken[member.swiftName] {
                report.error(
                    "property '\(member.name)' of '\(shape.name)'\(at) would be the Swift property `\(member.swiftName)`, as would \(other); give one of them a \"swift_name\" (a column keeps its name)",
                    at: location, path: property?.path)
            } else {
                taken[member.swiftName] = "property '\(member.name)'"
            }
        }
    }

    /// Top-level Swift types: each record of each version, the newest alias, subtypes (each version's
    /// type) and the generated types.
    private static func checkTypeNames(
        _ entities: [ResolvedEntity], subtypes: [SubtypeDescription], config: Config, descriptions: [EntityDescription],
        enumTypes: EnumVersionTypes, structTypes: StructVersionTypes, _ report: inout NameReport
    ) {
        let module = config.app.moduleName
        var types: [String: String] = [
            "\(module)Schema": "the generated schema registry", "\(module)Migrations": "the generated migrations protocol",
        ]
        if config.appTests != nil {
            // The generated tests' own types hide the app's types of the same name there.
            types["\(module)MigrationExpectations"] = "the generated tests' expectations protocol"
            types["\(module)MigrationTests"] = "the generated test suite"
            types["\(module)MigrationSeeds"] = "the generated tests' seeds"
        }
        if let provider = config.migrationsProvider { types[provider] = "the migrations_provider" }
        var nestedTypes: [String: String] = Dictionary(
            uniqueKeysWithValues: Naming.recordNestedTypeNames.map { ($0, "a type every record declares") })
        for entity in entities {
            for shape in entity.shapes {
                for property in shape.properties {
                    if case .toMany = property.kind {
                        nestedTypes[property.linkTypeName] = "the link type of '\(shape.name).\(property.name)'"
                    }
                }
            }
        }
        func claim(_ type: String, _ what: String, at location: SourceLocation, swiftName: String?) {
            let fix = swiftName == nil ? "give one of them a \"swift_name\"" : "choose another \"swift_name\""
            if let other = types[type] {
                report.error("\(what) would be the Swift type '\(type)', as would \(other); \(fix)", at: location, path: "$.name")
            } else if let nested = nestedTypes[type] {
                report.error(
                    "\(what) would be the Swift type '\(type)', which is \(nested) (a nested type of that name hides it inside records); \(swiftName == nil ? "give it a \"swift_name\"" : "choose another \"swift_name\"")",
                    at: location, path: "$.name")
            } else {
                types[type] = what
            }
        }
        for entity in entities {
            guard let description = descriptions.first(where: { $0.name == entity.name }) else { continue }
            for shape in entity.shapes {
                claim(
                    shape.typeName, "the record of entity '\(entity.name)' at version \(shape.version)", at: description.location,
                    swiftName: description.swiftName)
            }
            claim(entity.typeName, "entity '\(entity.name)'", at: description.location, swiftName: description.swiftName)
        }
        for subtype in subtypes {
            claim(subtype.swiftTypeName, "subtype '\(subtype.name)'", at: subtype.location, swiftName: subtype.swiftName)
            for older in enumTypes.olderTypes[subtype.name] ?? [] {
                claim(
                    older.typeName, "enum '\(subtype.name)' at version \(older.versions.map(\.string).joined(separator: ", "))",
                    at: subtype.location, swiftName: subtype.swiftName)
            }
            for older in structTypes.olderTypes[subtype.name] ?? [] {
                claim(
                    older.typeName, "struct '\(subtype.name)' at version \(older.versions.map(\.string).joined(separator: ", "))",
                    at: subtype.location, swiftName: subtype.swiftName)
            }
        }
    }

    /// Enum cases, option set options and struct members whose Swift names clash with each other (in one
    /// generated type: the newest or a version's) or with a member the generated type has already.
    private static func checkSubtypeMemberNames(
        _ subtypes: [SubtypeDescription], enumTypes: EnumVersionTypes, structTypes: StructVersionTypes, newest: SchemaVersion?,
        _ report: (String, SourceLocation, String?) -> Void
    ) {
        for subtype in subtypes {
            switch subtype.kind {
            case .enumeration(let cases):
                // The newest cases, then each older case set (`Theme_1_0`) at the first version it holds at.
                let sets: [(cases: [String], version: SchemaVersion?)] =
                    [(cases, nil)] + (enumTypes.olderTypes[subtype.name] ?? []).map { ($0.cases, $0.versions.first) }
                // In the description's order, so that an error lands on the later case.
                let order = Dictionary(subtype.caseHistory.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
                for (cases, version) in sets {
                    let at = version.map { " at version \($0)" } ?? ""
                    var taken: [String: String] = [:]
                    let items = cases.map { (raw: $0, item: subtype.caseItem(named: $0, at: version)) }
                        .sorted { (order[$0.item?.name ?? ""] ?? .max, $0.raw) < (order[$1.item?.name ?? ""] ?? .max, $1.raw) }
                    for (raw, item) in items {
                        let swiftName = subtype.swiftCaseName(raw, at: version)
                        let location = item?.location ?? subtype.location
                        let fix =
                            item?.swiftName == nil
                            ? "give it a \"swift_name\" (its stored value stays '\(raw)')" : "choose another \"swift_name\""
                        if let clash = Naming.enumMemberNames[swiftName] {
                            report(
                                "case '\(raw)' of enum '\(subtype.name)'\(at) would be the Swift case `\(swiftName)`, which clashes with \(clash); \(fix)",
                                location, item?.path)
                        } else if let other = taken[swiftName] {
                            report(
                                "case '\(raw)' of enum '\(subtype.name)'\(at) would be the Swift case `\(swiftName)`, as would case '\(other)'; give one of them a \"swift_name\" (stored values stay as they are)",
                                location, item?.path)
                        } else {
                            taken[swiftName] = raw
                        }
                    }
                }
            case .optionSet(let options):
                var taken: [String: String] = [:]
                for (index, option) in options.enumerated() {
                    let swiftName = Naming.propertyName(option)
                    if let clash = Naming.optionSetMemberNames[swiftName] {
                        report(
                            "option '\(option)' of '\(subtype.name)' would be the Swift option `\(swiftName)`, which clashes with \(clash); rename the option",
                            subtype.location, "$.options[\(index)]")
                    } else if let other = taken[swiftName] {
                        report(
                            "option '\(option)' of '\(subtype.name)' would be the Swift option `\(swiftName)`, as would option '\(other)'; rename one of them",
                            subtype.location, "$.options[\(index)]")
                    } else {
                        taken[swiftName] = option
                    }
                }
            case .structure:
                // The newest members, then each older member set (`Point_1_0`) at the first version it holds at.
                let sets: [(members: [SubtypeProperty]?, version: SchemaVersion?)] =
                    [(newest.flatMap { subtype.members(at: $0) }, nil)]
                    + (structTypes.olderTypes[subtype.name] ?? []).map { (subtype.members(at: $0.version), $0.version) }
                for (members, version) in sets {
                    let at = version.map { " at version \($0)" } ?? ""
                    var taken: [String: String] = [:]
                    for member in members ?? [] {
                        let swiftName = member.swiftMemberName
                        let fix =
                            member.swiftName == nil
                            ? "give it a \"swift_name\" (its JSON key or column keeps its name)" : "choose another \"swift_name\""
                        if let clash = Naming.recordMemberNames[swiftName] {
                            report(
                                "member '\(member.name)' of '\(subtype.name)'\(at) would be the Swift property `\(swiftName)`, which clashes with \(clash); \(fix)",
                                member.location, member.path)
                        } else if let other = taken[swiftName] {
                            report(
                                "member '\(member.name)' of '\(subtype.name)'\(at) would be the Swift property `\(swiftName)`, as would member '\(other)'; give one of them a \"swift_name\" (JSON keys and columns keep their names)",
                                member.location, member.path)
                        } else {
                            taken[swiftName] = member.name
                        }
                    }
                }
            }
        }
    }

    private static func checkHistory(_ entity: EntityDescription, _ diagnostics: inout DiagnosticCollector) {
        var previous: VersionHistoryItem?
        for item in entity.versionHistory {
            if let previous, item.version <= previous.version {
                diagnostics.error(
                    item.version == previous.version
                        ? "version \(item.version) appears twice in the version_history of '\(entity.name)'"
                        : "version_history of '\(entity.name)' is out of order: \(item.version) comes after \(previous.version)",
                    at: item.location)
            }
            previous = item
        }
        if let first = entity.versionHistory.first {
            if first.previousName != nil {
                diagnostics.error(
                    "the first version_history item of '\(entity.name)' cannot have previous_name: there is no earlier version to rename from",
                    at: first.location)
            }
            if let removed = entity.removedAtVersion, removed <= first.version {
                diagnostics.error(
                    "removed_at_version \(removed) of '\(entity.name)' is not after its first version \(first.version)", at: entity.location
                )
            }
            if let removed = entity.removedAtVersion, let last = entity.versionHistory.last, last.version >= removed {
                diagnostics.error(
                    "version_history of '\(entity.name)' lists \(last.version), at or after its removal at \(removed)", at: last.location)
            }
        }
        if let first = entity.versionHistory.first, first.ignoreMigrationChecks || !first.ignorePropertyMigrationChecksOn.isEmpty {
            diagnostics.error(
                "the first version_history item of '\(entity.name)' cannot ignore migration checks: no store is older than the entity",
                at: first.location)
        }
        let propertyNames = Set(entity.properties.map(\.name))
        for item in entity.versionHistory {
            for name in item.ignorePropertyMigrationChecksOn where !propertyNames.contains(name) {
                diagnostics.warning(
                    "ignore_property_migration_checks_on names '\(name)', which is not a property of '\(entity.name)'", at: item.location)
            }
        }
    }
}

extension Resolver {
    /// Lucid's `ignore_migration_checks` and `ignore_property_migration_checks_on`, as version ranges of
    /// the stores whose values the generated tests do not check, as Lucid reads them:
    /// - the whole entity, for stores older than the newest history item with `ignore_migration_checks`;
    /// - each listed property, for stores from the previous item that listed properties (or the entity's
    ///   first version) up to, not including, the item that lists it. Every property of one item gets the
    ///   same range (Lucid advances the start inside its loop, so a second property gets an empty range).
    static func checkExclusions(of entity: EntityDescription) -> [CheckExclusionSpec] {
        var exclusions: [CheckExclusionSpec] = []
        if let checkpoint = entity.versionHistory.last(where: \.ignoreMigrationChecks) {
            exclusions.append(CheckExclusionSpec(property: nil, from: nil, before: checkpoint.version))
        }
        var start = entity.versionHistory.first?.version
        for item in entity.versionHistory where !item.ignorePropertyMigrationChecksOn.isEmpty {
            for name in item.ignorePropertyMigrationChecksOn {
                exclusions.append(CheckExclusionSpec(property: name, from: start, before: item.version))
            }
            start = item.version
        }
        return exclusions
    }
}

extension Resolver {
    /// A property that uses a subtype at a version before the subtype's `added_at_version`: an error at the
    /// property, naming the subtype and where its version is written (once per property and subtype).
    static func checkSubtypesExist(
        for timeline: EntityTimeline, versions: [SchemaVersion], subtypes: [String: SubtypeDescription],
        _ diagnostics: inout DiagnosticCollector
    ) {
        func named(_ type: PropertyType) -> [String] {
            switch type {
            case .subtype(let name), .composite(let name): [name]
            case .array(let element): named(element)
            case .scalar, .relationship: []
            }
        }
        for property in timeline.entity.properties {
            guard let lifetime = timeline.propertyLifetimes[property.name] else { continue }
            var reported: Set<String> = []
            for version in versions where version >= lifetime.added && (lifetime.removed.map { version < $0 } ?? true) {
                for name in named(property.asOf(version).type) where !reported.contains(name) {
                    guard let subtype = subtypes[name], let added = subtype.addedAtVersion, version < added else { continue }
                    reported.insert(name)
                    let file = subtype.addedAtLocation.map { " (its added_at_version in \(displayPath($0.file)):\($0.line))" } ?? ""
                    diagnostics.error(
                        "property '\(property.name)' of '\(timeline.entity.name)' uses subtype '\(name)' at \(version), but '\(name)' is added at \(added)\(file): add the property at \(added) or later (\"added_at_version\"), or the subtype earlier",
                        at: property.location, path: property.path)
                }
            }
        }
    }
}
