import Foundation
@_spi(Generated) import LucidSchema

/// The entity whose properties ``ShapeBuilder/addColumns(of:to:_:_:)`` adds to a table: a root, or a
/// subentity whose own properties are columns of its root's table.
struct ColumnOwner {
    /// The entity at the schema's version.
    let shape: EntityShape
    /// The entity at the previous schema version, if it existed then.
    let previousShape: EntityShape?
    let timeline: EntityTimeline
    /// `shape`'s version in its entity's history.
    let historyVersion: SchemaVersion
    /// A subentity's columns are nullable in SQL: rows of other kinds hold NULL there.
    let isSubentity: Bool
    /// Properties that moved to this entity from another one of its hierarchy at this version
    /// (`moved_from`), by current name, as that one had them at the previous schema version.
    var movedIn: [String: PropertyShape] = [:]

    /// The property as it was at the previous schema version (in the entity it moved from, if it moved).
    func previousProperty(of property: PropertyShape) -> PropertyShape? {
        previousShape?.properties.first { $0.currentName == property.currentName } ?? movedIn[property.currentName]
    }

    /// The property's column at the previous schema version, when it had another name.
    func previousColumn(of property: PropertyShape) -> String? {
        guard let old = previousProperty(of: property), old.column != property.column else { return nil }
        return old.column
    }

    func description(of property: PropertyShape) -> PropertyDescription? {
        timeline.entity.properties.first { $0.name == property.currentName }
    }
}

extension ShapeBuilder {
    /// Adds the columns (foreign keys, indexes) of `owner`'s properties to `table`, and their join tables
    /// to `draft`, noting in `draft` which ones have no predecessor.
    func addColumns(
        of owner: ColumnOwner, to table: inout TableDraft, _ draft: inout VersionSchemaDraft, _ diagnostics: inout DiagnosticCollector
    ) {
        let own = owner.timeline.ownPropertyNames(at: owner.historyVersion)
        let properties = owner.shape.properties.filter { !$0.isKind && (!owner.isSubentity || own.contains($0.currentName)) }
        draft.recordNew(properties, of: owner)
        for property in properties {
            checkCompositeKept(property, of: owner, at: draft.version, &diagnostics)
            switch property.kind {
            case .value:
                table.columns.append(valueColumn(property, of: owner, draft))
            case .toOne(let targetEntity, _, let targetColumn):
                addToOneColumn(property, target: targetEntity, targetColumn: targetColumn, of: owner, at: draft.version, to: &table)
            case .composite(let composite):
                // In a subentity's composite, every column is nullable (rows of other kinds hold NULL), as an optional composite's.
                var columnsOf = property
                if owner.isSubentity { columnsOf.nullable = true }
                var columns = compositeColumns(
                    composite, of: columnsOf, previous: owner.previousProperty(of: property), previousSchemaVersion: draft.previous)
                takeOverElementsFrom(property, composite, optional: columnsOf.nullable, of: owner, columns: &columns)
                table.columns += columns
            case .toMany(let targetEntity, _, let targetColumn, let joinTable, let targetStorage, _, let ordered):
                draft.tables.append(
                    linkTable(
                        joinTable, of: property, owner, target: targetEntity, targetColumn: targetColumn, targetStorage: targetStorage,
                        ordered: ordered, at: draft.version))
            }
        }
    }

    /// A composite stays that composite: nothing would carry its values into other storage, so a change is
    /// refused, not lost.
    func checkCompositeKept(
        _ property: PropertyShape, of owner: ColumnOwner, at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector
    ) {
        guard let old = owner.previousProperty(of: property), case .composite(let was) = old.kind else { return }
        let now: String? = if case .composite(let composite) = property.kind { composite.subtype } else { nil }
        if now != was.subtype, let description = owner.description(of: property) {
            diagnostics.error(
                "property '\(property.name)' of '\(owner.shape.name)' changes at \(version) from composite \(was.subtype) to \(property.typeDescription): lucidgen converts a struct stored as JSON into a composite, not a composite into anything else; add a new property and move the values in a stage",
                at: description.typeLocation, path: description.path + ".property_type")
        }
    }

    /// The column of a value or a to-one relationship: name, storage, nullability, default, the column it
    /// was, and its value types.
    func column(of property: PropertyShape, _ owner: ColumnOwner) -> SchemaColumn {
        let annotations = valueTypeAnnotations(of: property, in: owner.timeline, shape: owner.shape, previousShape: owner.previousShape)
        var column = SchemaColumn(
            name: property.column, type: property.storage, notNull: !property.nullable && !owner.isSubentity,
            defaultSQL: property.defaultSQL,
            renamedFrom: owner.previousColumn(of: property), valueType: annotations.valueType,
            lossyConversionFrom: annotations.lossyConversionFrom)
        let described = owner.description(of: property)
        if column.notNull { column.notNullConflict = described?.onConflict }
        column.check = described?.check
        if let generated = described?.generated {
            column.generatedSQL = generated.expression
            column.generatedStored = generated.stored ? true : nil
        }
        return column
    }

    /// A value's column, with what its values become when its enum's cases change at this version, what
    /// its JSON cannot follow when its struct's members change, and the type and collation it declares.
    func valueColumn(_ property: PropertyShape, of owner: ColumnOwner, _ draft: VersionSchemaDraft) -> SchemaColumn {
        let version = draft.version
        var column = column(of: property, owner)
        // An enum whose cases change at this version: what its stored values become.
        if owner.historyVersion == version, let subtype = subtypes[property.typeDescription], subtype.hasCaseHistory,
            owner.previousShape?.properties.contains(where: {
                $0.currentName == property.currentName && $0.typeDescription == property.typeDescription
            }) == true
        {
            let changes = subtype.caseChanges(at: version)
            if !changes.isEmpty { column.caseChanges = changes }
        }
        let described = owner.description(of: property)
        if property.storedAsJSON, let previous = draft.previous, let old = owner.previousProperty(of: property),
            old.storedAsJSON, old.typeDescription == property.typeDescription, old.swiftType != property.swiftType,
            let structName = described?.asOf(version).type.structName(in: subtypes)
        {
            // A struct stored as JSON whose members changed in a way its JSON cannot follow: the app's to convert.
            let problems = StructVersionTypes.jsonIncompatibilities(structName, from: previous, to: version, subtypes)
            if !problems.isEmpty {
                column.jsonStructChange = "\(old.swiftType) → \(property.swiftType): \(problems.joined(separator: ", "))"
            }
        }
        column.declaredType = described?.columnType
        column.collation = described?.collation
        return column
    }

    /// A to-one relationship's column, its foreign key and its index. A to-many relationship that becomes
    /// this column at this version gives it its join table's single link per row.
    func addToOneColumn(
        _ property: PropertyShape, target: String, targetColumn: String, of owner: ColumnOwner, at version: SchemaVersion,
        to table: inout TableDraft
    ) {
        var column = column(of: property, owner)
        if case .toMany(_, _, _, let oldJoin, _, _, _)? = owner.previousProperty(of: property)?.kind {
            column.renamedFrom = nil
            column.convertedFromJoinTable = oldJoin
        }
        table.columns.append(column)
        let described = owner.description(of: property)
        table.foreignKeys.append(
            SchemaForeignKey(
                columns: [property.column], table: timelines[target]!.tableName(at: version), tableColumns: [targetColumn],
                onDelete: described?.onDelete ?? (property.nullable ? .setNull : .cascade), onUpdate: described?.onUpdate))
        let indexName =
            owner.timeline.toOneIndexNames[property.currentName]
            ?? Self.defaultIndexName(
                table: owner.shape.tableName, columns: [property.column], unique: false, naming: owner.timeline.columnNaming)
        table.indexes.append(SchemaIndex(name: indexName, columns: [property.column]))
    }

    /// The join table of a to-many relationship: a link per related pair (and its place, when ordered),
    /// renamed from its previous name or converted from the to-one column it was at the previous version.
    func linkTable(
        _ name: String, of property: PropertyShape, _ owner: ColumnOwner, target: String, targetColumn: String,
        targetStorage: SchemaColumn.StorageType, ordered: Bool,
        at version: SchemaVersion
    ) -> SchemaTable {
        let shape = owner.shape
        let previousProperty = owner.previousProperty(of: property)
        let oldJoin = previousProperty.flatMap { old -> String? in
            if case .toMany(_, _, _, let oldJoinTable, _, _, _) = old.kind, oldJoinTable != name { return oldJoinTable }
            return nil
        }
        var convertedFromColumn: String?
        if let previousProperty, case .toOne = previousProperty.kind { convertedFromColumn = previousProperty.column }
        let link = property.linkColumns ?? .lucid(name)
        var linkColumns = [
            SchemaColumn(name: link.source, type: shape.identifier.storage, notNull: true),
            SchemaColumn(name: link.target, type: targetStorage, notNull: true),
        ]
        // An ordered relationship's links keep their place: after the keys, so that an unordered
        // table's DDL (and every existing checksum) is what it was.
        if ordered { linkColumns.append(SchemaColumn(name: LinkTable.positionColumn, type: .integer, notNull: true)) }
        var table = SchemaTable(
            name: name, kind: .join,
            columns: linkColumns,
            primaryKey: [link.source, link.target],
            foreignKeys: [
                SchemaForeignKey(
                    columns: [link.source], table: shape.tableName, tableColumns: [shape.identifier.column], onDelete: .cascade,
                    onUpdate: link.sourceOnUpdate),
                SchemaForeignKey(
                    columns: [link.target], table: timelines[target]!.tableName(at: version), tableColumns: [targetColumn],
                    onDelete: .cascade, onUpdate: link.targetOnUpdate),
            ],
            indexes: link.targetIndex.map { [SchemaIndex(name: $0, columns: [link.target])] } ?? [], renamedFrom: oldJoin,
            convertedFromColumn: convertedFromColumn)
        // The app's STRICT join table stays STRICT (lucidgen's own are not: their DDL and checksums are unchanged).
        if link.strict { table.strict = true }
        return table
    }

    /// The `kind` column of a hierarchy's root table at `version` (nil before its first subentity): TEXT NOT
    /// NULL, its default the root's name (rows that were there before the hierarchy are the root's), with
    /// the entities of the hierarchy renamed (their rows' kind rewritten) and removed (their rows deleted)
    /// since the previous version as ``SchemaColumn/caseChanges``.
    func kindColumn(of root: EntityTimeline, at version: SchemaVersion, previous: SchemaVersion?) -> SchemaColumn? {
        guard root.hasKind(at: version) else { return nil }
        var column = SchemaColumn(
            name: Hierarchy.kindColumn, type: .text, notNull: true, defaultSQL: quoteLiteral(root.name(at: version)), valueType: .kind)
        if let previous, root.hasKind(at: previous) {
            var changes: [EnumCaseChange] = []
            for member in [root] + root.descendants(at: previous) where member.exists(at: previous) {
                let before = member.name(at: previous)
                // An entity that leaves the hierarchy (its parent changes) takes its rows to its new root's
                // table first (``SchemaTable/movedRows``): here they are gone, as a removed entity's are.
                if !member.exists(at: version) || !member.root(at: version).isSame(as: root) {
                    changes.append(EnumCaseChange(from: before, to: nil, removed: true))
                } else if member.name(at: version) != before {
                    changes.append(EnumCaseChange(from: before, to: member.name(at: version)))
                }
            }
            if !changes.isEmpty { column.caseChanges = changes.sorted { $0.from < $1.from } }
        }
        return column
    }

    /// A composite's columns at a version. Relative to the previous version, an element keeps its column
    /// through a rename of the property (`renamedFrom`), and a struct that was stored as JSON gives each
    /// element its member's value (`extractedFrom`/`jsonPath`, read by `json_extract` in the rebuild).
    private func compositeColumns(
        _ composite: CompositeShape, of property: PropertyShape, previous: PropertyShape?, previousSchemaVersion: SchemaVersion?
    ) -> [SchemaColumn] {
        // Elements by identity (their current names): a member renamed at this version keeps its column.
        var previousColumns: [[String]: String] = [:]
        var jsonSource: String?
        switch previous?.kind {
        case .composite(let old)?:
            for leaf in old.leaves(optional: false) { previousColumns[leaf.identityPath] = leaf.column }
        case .value? where previous!.storedAsJSON && previous!.typeDescription == composite.subtype:
            jsonSource = previous!.column
        default: break
        }
        return composite.leaves(optional: property.nullable).map { leaf in
            var column = SchemaColumn(
                name: leaf.column, type: leaf.storage, notNull: leaf.notNull, defaultSQL: leaf.defaultSQL, valueType: leaf.valueType)
            column.compositeGroup = leaf.group
            column.requiredWhenPresent = leaf.requiredWhenPresent ? true : nil
            if let old = previousColumns[leaf.identityPath], old != leaf.column { column.renamedFrom = old }
            // The JSON was written with the members as they were at the previous version; a member new at
            // this version has no value there (its column takes its default).
            if let jsonSource, let before = previousSchemaVersion,
                let names = SubtypeDescription.members(along: leaf.identityPath, from: composite.subtype, in: subtypes, at: before)?.map(
                    \.name)
            {
                column.extractedFrom = jsonSource
                column.jsonPath = "$." + names.joined(separator: ".")
            }
            return column
        }
    }
}
