@_spi(Generated) import LucidSchema

/// One thing `lucidgen check` reports about a step of the history.
package struct LintFinding: Sendable, Hashable {
    package var code: LintCode
    /// After `lint.severity`; an acknowledged finding is a note.
    package var severity: LintSeverity
    /// What happens in this step, e.g. `aircraft.flight_data is removed at 3.0`.
    package var message: String
    /// The entity's current name.
    package var entity: String
    /// The property's current name, for property findings.
    package var property: String?
    package var from: SchemaVersion
    package var to: SchemaVersion
    /// Where the change is described (the property or entity, or the history item that says it).
    package var location: SourceLocation?
    /// The reason given in `.lucid.yaml` when the finding is acknowledged.
    package var acknowledgement: String?

    /// The one line printed after the severity: `[DS102] … ; instead, …` (or the acknowledgement).
    package var text: String {
        if let acknowledgement { return "[\(code.id)] \(message) (acknowledged: \(acknowledgement))" }
        return "[\(code.id)] \(message): \(code.consequence); instead, \(code.instead)"
    }
}

/// The lint stage of `lucidgen check`: every step between neighbouring versions of a resolved model,
/// compared entity by entity and property by property (identities follow renames), each change that
/// loses data, breaks older apps or depends on the rows present reported with its code and its place
/// in the descriptions.
package struct Linter {
    package var model: ResolvedModel
    /// The descriptions as loaded, for locations.
    package var descriptions: [EntityDescription]
    package var settings: LintSettings

    package init(model: ResolvedModel, descriptions: [EntityDescription], settings: LintSettings? = nil) {
        self.model = model
        self.descriptions = descriptions
        self.settings = settings ?? model.config.lint
    }

    package struct Result: Sendable {
        /// Every finding not turned off, in history order, then by entity, property and code.
        package var findings: [LintFinding]
        /// Acknowledgements in `.lucid.yaml` that match no finding (a stale acknowledgement hides nothing
        /// and should go), as warnings at their place.
        package var diagnostics: [Diagnostic]
    }

    /// Lints every step after `settings.since` (all when nil); with `additiveOnly`, also CloudKit's rule;
    /// with `sqliteData`, also SQLiteData's sync rules (the newest version's tables, and every step).
    package func run() -> Result {
        var findings: [LintFinding] = []
        let versions = model.schemas.map(\.version)
        for index in versions.indices.dropFirst() {
            let (from, to) = (versions[index - 1], versions[index])
            if let since = settings.since, from < since { continue }
            findings += stepFindings(from: from, to: to)
            if settings.additiveOnly { findings += additiveFindings(old: model.schemas[index - 1], new: model.schemas[index]) }
            if settings.sqliteData { findings += syncStepFindings(old: model.schemas[index - 1], new: model.schemas[index]) }
        }
        if settings.sqliteData, let newest = model.schemas.last {
            findings += syncSchemaFindings(newest, after: model.schemas.dropLast().last?.version ?? newest.version)
        }
        var used = Set<Int>()
        for index in findings.indices {
            let finding = findings[index]
            if let match = settings.acknowledgements.firstIndex(where: {
                $0.code == finding.code.id && $0.version == finding.to && sameSQLName($0.entity, finding.entity)
                    && ($0.property.map { property in finding.property.map { sameSQLName($0, property) } ?? false } ?? true)
            }) {
                used.insert(match)
                findings[index].acknowledgement = settings.acknowledgements[match].reason
                findings[index].severity = min(findings[index].severity, .note)
            }
        }
        let diagnostics = settings.acknowledgements.indices.filter { !used.contains($0) }.map { index in
            let item = settings.acknowledgements[index]
            return Diagnostic(
                .warning,
                "acknowledgement of \(item.code) for \(item.entity)\(item.property.map { ".\($0)" } ?? "") at \(item.version) matches no finding; remove it",
                at: item.location)
        }
        return Result(findings: findings.filter { $0.severity != .off }, diagnostics: diagnostics)
    }

    // MARK: One step

    private func description(of entity: String) -> EntityDescription? {
        descriptions.first { $0.name == entity }
    }

    private func property(_ name: String, of entity: String) -> PropertyDescription? {
        description(of: entity)?.properties.first { $0.name == name }
    }

    private func finding(
        _ code: LintCode, _ message: String, entity: String, property: String? = nil, from: SchemaVersion, to: SchemaVersion,
        at location: SourceLocation?
    ) -> LintFinding {
        LintFinding(
            code: code, severity: settings.severity(of: code), message: message, entity: entity, property: property, from: from, to: to,
            location: location ?? description(of: entity)?.location)
    }

    /// What changes between two versions, entity by entity.
    private func stepFindings(from: SchemaVersion, to: SchemaVersion) -> [LintFinding] {
        let appCode = model.customSteps.first { $0.from == from && $0.to == to }
        return model.entities.flatMap { entityFindings($0, from: from, to: to, appCode: appCode) }
    }

    /// One entity's findings of a step: removed, renamed, moved to another table; then each property's
    /// removal or change, its uniqueness, and the required properties it adds.
    private func entityFindings(_ entity: ResolvedEntity, from: SchemaVersion, to: SchemaVersion, appCode: CustomStep?) -> [LintFinding] {
        var findings: [LintFinding] = []
        let old = entity.shape(at: from)
        let new = entity.shape(at: to)
        guard let old else { return [] }
        let name = entity.name
        // Entity inheritance: a subentity's rows are in its root's table, and its inherited properties are its ancestors' findings.
        let parent = entity.parent(at: from)
        guard let new else {
            let rows = parent == nil ? "table \(old.tableName)" : "its rows, of kind \(old.name) in table \(old.tableName)"
            findings.append(
                finding(
                    .entityRemoved, "entity \(name) (\(rows)) is removed at \(to)", entity: name, from: from, to: to,
                    at: description(of: name)?.location))
            return findings
        }
        if parent != nil, old.name != new.name {
            let item = description(of: name)?.versionHistory.first { $0.version == to }
            findings.append(
                finding(
                    .entityRenamed,
                    "entity \(old.name) is renamed to \(new.name) at \(to) (the kind of its rows in table \(new.tableName) becomes \(new.name))",
                    entity: name, from: from, to: to, at: item?.location))
        }
        let own = Set(description(of: name)?.properties.map(\.name) ?? [])
        func linted(_ property: PropertyShape) -> Bool { !property.isKind && (parent == nil || own.contains(property.currentName)) }
        if old.tableName != new.tableName,
            entity.parent(at: from) != entity.parent(at: to)
                || entity.parentHistory.contains(where: { $0.until > from && $0.until <= to })
        {
            // Its parent changes on the way: its rows move to its new root's table.
            let item = description(of: name)?.parentHistory.first { $0.untilVersion > from && $0.untilVersion <= to }
            let parents = [entity.parent(at: from), entity.parent(at: to)].map { $0 ?? "none" }
            findings.append(
                finding(
                    .parentChanged,
                    "entity \(name) moves from table \(old.tableName) to \(new.tableName) at \(to) (its parent: \(parents[0]) → \(parents[1]))",
                    entity: name, from: from, to: to, at: item?.location ?? description(of: name)?.location))
        } else if old.tableName != new.tableName {
            let item = description(of: name)?.versionHistory.first { $0.version == to }
            findings.append(
                finding(
                    .entityRenamed, "entity \(old.name) is renamed to \(new.name) at \(to) (table \(old.tableName) → \(new.tableName))",
                    entity: name, from: from, to: to, at: item?.location))
        }
        let transformed = appCode?.tables.contains { $0.table == new.tableName } ?? false
        let newTable = model.schemas.first { $0.version == to }?.table(named: new.tableName)
        for before in old.properties where linted(before) {
            if let after = new.properties.first(where: { $0.currentName == before.currentName }) {
                findings += changeFindings(
                    of: entity, before: before, after: after, newTable: newTable, transformed: transformed, from: from, to: to)
            } else {
                findings += removalFindings(of: entity, before: before, new: new, newTable: newTable, from: from, to: to)
            }
        }
        findings += uniquenessFindings(entity: name, old: old, new: new, from: from, to: to)
        for after in new.properties where linted(after) && !old.properties.contains(where: { $0.currentName == after.currentName }) {
            findings += additionFindings(of: entity, after: after, from: from, to: to)
        }
        return findings
    }

    /// A property of `from` that `to`'s shape has no more: removed, unless its column became a composite's
    /// element (`elements_from`) or it moved down to a subentity (`moved_from`).
    private func removalFindings(
        of entity: ResolvedEntity, before: PropertyShape, new: EntityShape, newTable: SchemaTable?, from: SchemaVersion, to: SchemaVersion
    ) -> [LintFinding] {
        let name = entity.name, current = before.currentName
        let where_ = property(current, of: name)
        var findings: [LintFinding] = []
        // Its column became a composite's element (`elements_from`): moved, not lost.
        if case .value = before.kind, let column = newTable?.columns.first(where: { $0.renamedFrom == before.column }),
            let composite = new.properties.first(where: { property in
                if case .composite(let shape) = property.kind {
                    return shape.leaves(optional: true).contains { $0.column == column.name }
                }
                return false
            })
        {
            findings.append(
                finding(
                    .propertyRenamed,
                    "property \(name).\(before.name) becomes an element of composite \(composite.name) at \(to) (column \(before.column) → \(column.name))",
                    entity: name, property: current, from: from, to: to,
                    at: property(composite.currentName, of: name)?.elementsFromLocation ?? where_?.location))
            return findings
        }
        // It moved down to a subentity (`moved_from`), whose column it still is: nothing is dropped.
        let movedDown = model.entities.contains { other in
            other.parent != nil
                && description(of: other.name)?.properties.contains { $0.movedFrom == name && $0.name == current } == true
        }
        if movedDown, newTable?.column(named: before.column) != nil { return [] }
        findings.append(
            finding(
                .propertyRemoved, "property \(name).\(before.name) is removed at \(to)", entity: name, property: current,
                from: from, to: to,
                at: where_?.location))
        return findings
    }

    /// A property in both versions: its rename, enum cases, type, storage or association, and whether it
    /// becomes required.
    private func changeFindings(
        of entity: ResolvedEntity, before: PropertyShape, after: PropertyShape, newTable: SchemaTable?, transformed: Bool,
        from: SchemaVersion, to: SchemaVersion
    ) -> [LintFinding] {
        let name = entity.name, current = before.currentName
        let where_ = property(current, of: name)
        var findings: [LintFinding] = []
        // Older apps read and write the column: a rename that keeps it (`persisted_name` holding the old column
        // name, a Swift-only rename) changes nothing for them.
        if before.column != after.column {
            let columns = !after.column.isEmpty ? " (column \(before.column) → \(after.column))" : ""
            findings.append(
                finding(
                    .propertyRenamed, "property \(name).\(before.name) is renamed to \(after.name) at \(to)\(columns)",
                    entity: name, property: current, from: from, to: to, at: where_?.location))
        }
        let typeLocation = where_?.typeHistory.first { $0.untilVersion == to }?.location ?? where_?.typeLocation
        findings += enumCaseFindings(
            entity: name, property: after, column: newTable?.column(named: after.column), from: from, to: to)
        switch (before.kind, after.kind) {
        case (.value, .value):
            if before.typeDescription != after.typeDescription {
                let change =
                    "property \(name).\(after.name) changes type from \(before.typeDescription) to \(after.typeDescription) at \(to)"
                findings.append(
                    finding(.typeChanged, change, entity: name, property: current, from: from, to: to, at: typeLocation))
                if newTable?.column(named: after.column)?.lossyConversionFrom != nil {
                    findings.append(
                        finding(.lossyConversion, change, entity: name, property: current, from: from, to: to, at: typeLocation))
                } else if transformed {
                    findings.append(
                        finding(
                            .convertedByAppCode, change + " through the app's code", entity: name, property: current, from: from,
                            to: to, at: typeLocation))
                }
            }
        case (.composite(let old), .composite(let composite)) where old.subtype == composite.subtype:
            // The struct's members changed: element by element, as for properties.
            findings += elementFindings(entity: name, property: after, before: before, old: old, new: composite, from: from, to: to)
        case (.value, .composite(let composite)), (.composite, .composite(let composite)):
            // A struct's storage changes (JSON text → a column per element), or its elements do.
            let columns = composite.leaves(optional: after.nullable).map(\.column)
            let oldColumns: [String]
            // A rename renames every element's column (BC102); the storage changes when the elements do.
            var elementsChanged = true
            if case .composite(let old) = before.kind {
                oldColumns = old.leaves(optional: before.nullable).map(\.column)
                elementsChanged =
                    old.leaves(optional: before.nullable).map(\.memberPath)
                    != composite.leaves(optional: after.nullable).map(\.memberPath)
            } else {
                oldColumns = [before.column]
            }
            if before.typeDescription != after.typeDescription || elementsChanged {
                let change =
                    "property \(name).\(after.name) changes from \(before.typeDescription) to \(after.typeDescription) at \(to) (column\(oldColumns.count == 1 ? "" : "s") \(oldColumns.joined(separator: ", ")) → \(columns.joined(separator: ", ")))"
                findings.append(
                    finding(.typeChanged, change, entity: name, property: current, from: from, to: to, at: typeLocation))
                if transformed {
                    findings.append(
                        finding(
                            .convertedByAppCode, change + " through the app's code", entity: name, property: current, from: from,
                            to: to, at: typeLocation))
                }
            }
        default:
            let (a, b) = (Self.association(before.kind), Self.association(after.kind))
            if a != b {
                findings.append(
                    finding(
                        .associationChanged, "property \(name).\(after.name) changes from \(a) to \(b) at \(to)",
                        entity: name, property: current, from: from, to: to, at: typeLocation))
                if case .toMany = before.kind, case .toOne = after.kind {
                    findings.append(
                        finding(
                            .toManyBecomesToOne, "property \(name).\(after.name) changes from \(a) to \(b) at \(to)",
                            entity: name, property: current, from: from, to: to, at: typeLocation))
                }
            }
        }
        if before.nullable && !after.nullable {
            if case .toMany = after.kind {
            } else {
                let change = "property \(name).\(after.name) becomes required at \(to)"
                findings.append(
                    finding(.becameRequired, change, entity: name, property: current, from: from, to: to, at: typeLocation))
                findings.append(
                    finding(
                        .nullsFilled, change + (after.defaultSQL.map { " (NULLs become \($0))" } ?? " without a default"),
                        entity: name, property: current, from: from, to: to, at: typeLocation))
            }
        }
        return findings
    }

    /// A property `to` adds: required without a default (or a composite with required elements without one).
    private func additionFindings(of entity: ResolvedEntity, after: PropertyShape, from: SchemaVersion, to: SchemaVersion) -> [LintFinding]
    {
        let name = entity.name
        if case .toMany = after.kind { return [] }
        if after.nullable { return [] }
        var findings: [LintFinding] = []
        // A composite has no default_value of its own: existing rows take its elements' defaults
        // (an optional element is NULL), so only required elements without one are a problem.
        if case .composite(let composite) = after.kind {
            let missing = composite.leaves(optional: false).filter { $0.notNull && $0.defaultSQL == nil }.map(\.column)
            if !missing.isEmpty {
                findings.append(
                    finding(
                        .requiredAddedWithoutDefault,
                        "required composite \(name).\(after.name) is added at \(to) with required elements without a default_value (columns \(missing.joined(separator: ", ")))",
                        entity: name, property: after.currentName, from: from, to: to,
                        at: property(after.currentName, of: name)?.location))
            }
        } else if after.defaultSQL == nil {
            findings.append(
                finding(
                    .requiredAddedWithoutDefault,
                    "required property \(name).\(after.name) is added at \(to) without a default_value",
                    entity: name, property: after.currentName, from: from, to: to,
                    at: property(after.currentName, of: name)?.location))
        }
        return findings
    }

    /// A composite whose struct's members changed: a removed element is DS102, a renamed one BC102 (a
    /// rename of the property itself is reported for the property), one that becomes required BC105 and
    /// MF102, a required one added without a default MF101; each located at the member in the struct's file.
    private func elementFindings(
        entity name: String, property after: PropertyShape, before: PropertyShape, old: CompositeShape, new: CompositeShape,
        from: SchemaVersion, to: SchemaVersion
    ) -> [LintFinding] {
        var findings: [LintFinding] = []
        let oldLeaves = Dictionary(old.leaves(optional: before.nullable).map { ($0.identityPath, $0) }, uniquingKeysWith: { a, _ in a })
        let newLeaves = new.leaves(optional: after.nullable)
        let newPaths = Set(newLeaves.map(\.identityPath))
        let subtypes = Dictionary(model.subtypes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func member(_ identityPath: [String]) -> SubtypeProperty? {
            SubtypeDescription.members(along: identityPath, from: new.subtype, in: subtypes, at: nil)?.last
        }
        func element(_ leaf: CompositeShape.Leaf) -> String { "\(name).\(after.name).\(leaf.memberPath.joined(separator: "."))" }
        for leaf in old.leaves(optional: before.nullable) where !newPaths.contains(leaf.identityPath) {
            findings.append(
                finding(
                    .propertyRemoved,
                    "element \(name).\(before.name).\(leaf.memberPath.joined(separator: ".")) is removed at \(to) (column \(leaf.column))",
                    entity: name, property: after.currentName, from: from, to: to, at: member(leaf.identityPath)?.location))
        }
        for leaf in newLeaves {
            let location = member(leaf.identityPath)?.location
            guard let was = oldLeaves[leaf.identityPath] else {
                if leaf.notNull && leaf.defaultSQL == nil {
                    findings.append(
                        finding(
                            .requiredAddedWithoutDefault,
                            "required element \(element(leaf)) is added at \(to) without a default_value (column \(leaf.column))",
                            entity: name, property: after.currentName, from: from, to: to, at: location))
                }
                continue
            }
            if was.memberPath != leaf.memberPath {
                findings.append(
                    finding(
                        .propertyRenamed,
                        "element \(name).\(after.name).\(was.memberPath.joined(separator: ".")) is renamed to \(leaf.memberPath.joined(separator: ".")) at \(to) (column \(was.column) → \(leaf.column))",
                        entity: name, property: after.currentName, from: from, to: to, at: location))
            }
            if leaf.notNull && !was.notNull {
                let change = "element \(element(leaf)) becomes required at \(to)"
                findings.append(
                    finding(.becameRequired, change, entity: name, property: after.currentName, from: from, to: to, at: location))
                findings.append(
                    finding(
                        .nullsFilled, change + (leaf.defaultSQL.map { " (NULLs become \($0))" } ?? " without a default"),
                        entity: name, property: after.currentName, from: from, to: to, at: location))
            }
        }
        return findings
    }

    /// An enum column whose enum renames (BC106) or removes cases (MF106 with a fallback, MF107 without) at
    /// `to`, located at the case's item in the enum's description.
    private func enumCaseFindings(
        entity name: String, property: PropertyShape, column: SchemaColumn?, from: SchemaVersion, to: SchemaVersion
    ) -> [LintFinding] {
        guard let changes = column?.caseChanges, let subtype = model.subtypes.first(where: { $0.name == property.typeDescription }) else {
            return []
        }
        return changes.map { change in
            let code: LintCode =
                change.byApp == true ? .enumCaseRemovedByAppCode : change.removed == true ? .enumCaseRemovedWithFallback : .enumCaseRenamed
            return finding(
                code, "property \(name).\(property.name) (enum \(subtype.name)): \(change) at \(to)", entity: name,
                property: property.currentName,
                from: from, to: to, at: Self.location(of: change, in: subtype, at: to))
        }
    }

    /// Where an enum case change is described: the item of the enum's case history that renames or
    /// removes the case at `to`, else the enum.
    static func location(of change: EnumCaseChange, in subtype: SubtypeDescription, at to: SchemaVersion) -> SourceLocation {
        let item = subtype.caseHistory.first { $0.name == change.from || ($0.previousName == change.from && $0.renamedAtVersion == to) }
        return item?.location ?? subtype.location
    }

    /// Where the case change that an AO112 finding reports is described (as for its BC106, MF106 or MF107
    /// finding): found through the column's case changes and the enum its property holds.
    private func enumCaseLocation(of change: AdditiveRule.Change, entity: String?, property: String?, at version: SchemaVersion)
        -> SourceLocation?
    {
        guard let entity, let property, let table = change.table, let column = change.column,
            let shape = model.entities.first(where: { $0.name == entity })?.shape(at: version)?.properties.first(where: {
                $0.currentName == property
            }),
            let subtype = model.subtypes.first(where: { $0.name == shape.typeDescription }),
            let caseChange = model.schemas.first(where: { $0.version == version })?.table(named: table)?.column(named: column)?.caseChanges?
                .first(where: { change.message.hasSuffix(": \($0)") })
        else { return nil }
        return Self.location(of: caseChange, in: subtype, at: version)
    }

    /// A unique index at `to` that the entity's table did not have at `from` (over the same columns,
    /// through renames), unless a column of it is new in this step and NULL in every existing row (NULLs
    /// never clash): existing rows may share its values (MF105).
    private func uniquenessFindings(entity name: String, old: EntityShape, new: EntityShape, from: SchemaVersion, to: SchemaVersion)
        -> [LintFinding]
    {
        guard let oldTable = model.schemas.first(where: { $0.version == from })?.table(named: old.tableName),
            let newTable = model.schemas.first(where: { $0.version == to })?.table(named: new.tableName)
        else { return [] }
        var findings: [LintFinding] = []
        for index in newTable.indexes where index.unique {
            let oldColumns = index.columns.map { column -> String? in
                guard let property = new.properties.first(where: { $0.column == column }) else {
                    return column == new.identifier.column ? old.identifier.column : nil
                }
                return old.properties.first { $0.currentName == property.currentName }?.column
            }
            if oldTable.indexes.contains(where: { $0.unique && $0.columns.map(Optional.some) == oldColumns }) { continue }
            let allNull = zip(index.columns, oldColumns).contains { column, old in
                old == nil
                    && (newTable.column(named: column).map { !$0.notNull && ($0.defaultSQL == nil || $0.defaultSQL == "NULL") } ?? false)
            }
            if allNull { continue }
            let (properties, location) = uniqueIndex(index, of: name, shape: new)
            findings.append(
                finding(
                    .uniquenessAdded,
                    "\(index.columns.count == 1 ? "property \(name).\(properties[0])" : "properties \(name).(\(properties.joined(separator: ", ")))") becomes unique at \(to) (index \(index.name) on \(newTable.name))",
                    entity: name, property: properties.count == 1 ? properties[0] : nil, from: from, to: to, at: location))
        }
        return findings
    }

    /// The properties a unique index is over (their current names), and where it is described: its
    /// `indexes` item, else (one property) the property that says `unique`.
    private func uniqueIndex(_ index: SchemaIndex, of name: String, shape: EntityShape) -> (properties: [String], location: SourceLocation?)
    {
        let properties = index.columns.map { column in
            shape.properties.first { $0.column == column }?.currentName
                ?? {
                    if case .property(let key) = shape.identifier.kind { return key }
                    return column
                }()
        }
        let item = description(of: name)?.indexes.first { $0.unique && $0.properties == properties }?.location
        return (properties, properties.count == 1 ? item ?? property(properties[0], of: name)?.location : item)
    }

    /// `a value`, `a to-one relationship to pilot`, `a to-many relationship to pilot`, `an ordered to-many relationship to pilot`.
    static func association(_ kind: PropertyShape.Kind) -> String {
        switch kind {
        case .value: "a value"
        case .composite(let composite): "a composite \(composite.subtype)"
        case .toOne(let entity, _, _): "a to-one relationship to \(entity)"
        case .toMany(let entity, _, _, _, _, _, let ordered): "\(ordered ? "an ordered" : "a") to-many relationship to \(entity)"
        }
    }

    // MARK: Additive only

    private func additiveFindings(old: Schema, new: Schema) -> [LintFinding] {
        let step = model.customSteps.first { $0.from == old.version && $0.to == new.version }
        return AdditiveRule.changes(from: old, to: new, appCode: step?.label).map { change in
            var (entity, property) = owner(of: change, old: old.version, new: new.version)
            var location =
                property.flatMap { self.property($0, of: entity ?? "")?.location } ?? entity.flatMap { description(of: $0)?.location }
            if change.kind == .enumCaseChanged {
                location = enumCaseLocation(of: change, entity: entity, property: property, at: new.version) ?? location
            }
            if change.kind == .appCode, let step {
                // The stage's declaration in .lucid.yaml when it has one, else the first entity it transforms.
                if let table = step.tables.first?.table { entity = owner(ofTable: table, at: new.version) }
                location =
                    step.hookName.flatMap { name in model.config.hookStages.first { $0.name == name }?.location }
                    ?? entity.flatMap { description(of: $0)?.location }
            }
            return finding(
                .additiveOnly(change.kind), "\(change.message) at \(new.version)", entity: entity ?? change.table ?? "", property: property,
                from: old.version, to: new.version, at: location)
        }
    }

    private func owner(ofTable table: String, at version: SchemaVersion) -> String? {
        model.entities.first { entity in entity.shape(at: version).map { sameSQLName($0.tableName, table) } ?? false }?.name
    }

    /// The entity (and property) whose table (and column) a change names, at either version of the step.
    private func owner(of change: AdditiveRule.Change, old: SchemaVersion, new: SchemaVersion) -> (String?, String?) {
        guard let table = change.table else { return (nil, nil) }
        var tableOwner: String?
        for version in [new, old] {
            for entity in model.entities {
                guard let shape = entity.shape(at: version) else { continue }
                if sameSQLName(shape.tableName, table) {
                    tableOwner = tableOwner ?? entity.name
                    guard let column = change.column else { return (entity.name, nil) }
                    if let property = shape.properties.first(where: { sameSQLName($0.column, column) }) {
                        return (entity.name, property.currentName)
                    }
                }
                for property in shape.properties {
                    if case .toMany(_, _, _, let join, _, _, _) = property.kind, sameSQLName(join, table) {
                        return (entity.name, property.currentName)
                    }
                }
            }
        }
        return (tableOwner, nil)
    }

    // MARK: SQLiteData's sync rules

    /// A step SQLiteData's `SyncEngine` refuses: a table or column removed or renamed (SD106), a required
    /// column without a default added (SD105). Devices on the older version keep syncing records of it.
    private func syncStepFindings(old: Schema, new: Schema) -> [LintFinding] {
        AdditiveRule.changes(from: old, to: new, appCode: nil).compactMap { change in
            let code: LintCode
            switch change.kind {
            case .tableRemoved, .tableRenamed, .columnRemoved, .columnRenamed: code = .syncRemovedOrRenamed
            case .requiredColumnAdded: code = .syncRequiredColumnAdded
            default: return nil
            }
            let (entity, property) = owner(of: change, old: old.version, new: new.version)
            var location = property.flatMap { self.property($0, of: entity ?? "")?.location }
            if property == nil, let entity, change.kind == .tableRenamed {
                location = description(of: entity)?.versionHistory.first { $0.version == new.version }?.location
            }
            return finding(
                code, "\(change.message) at \(new.version)", entity: entity ?? change.table ?? "", property: property,
                from: old.version, to: new.version, at: location)
        }
    }

    /// What SQLiteData's `SyncEngine` refuses in the tables the app runs with (the newest version's): a
    /// uniqueness but the primary key (SD101), a foreign key ON DELETE RESTRICT or NO ACTION (SD102), a
    /// cycle of foreign keys between tables (SD103), a primary key that is not one uuid column (SD104).
    private func syncSchemaFindings(_ schema: Schema, after previous: SchemaVersion) -> [LintFinding] {
        let version = schema.version
        var findings: [LintFinding] = []
        func add(_ code: LintCode, _ message: String, entity: String, property: String? = nil, at location: SourceLocation?) {
            findings.append(finding(code, message, entity: entity, property: property, from: previous, to: version, at: location))
        }
        /// The entity and shape whose table this is, or for a join table the entity and to-many property that links through it.
        func owner(of table: SchemaTable) -> (entity: String, shape: EntityShape, property: String?)? {
            for entity in model.entities where entity.parent(at: version) == nil {
                guard let shape = entity.shape(at: version) else { continue }
                if sameSQLName(shape.tableName, table.name) { return (entity.name, shape, nil) }
                for property in shape.properties {
                    if case .toMany(_, _, _, let join, _, _, _) = property.kind, sameSQLName(join, table.name) {
                        return (entity.name, shape, property.currentName)
                    }
                }
            }
            return nil
        }
        /// The property (or identifier) whose column a foreign key is, and where it is described.
        func foreignKeyOwner(_ key: SchemaForeignKey, in table: SchemaTable) -> (
            entity: String, property: String?, location: SourceLocation?
        )? {
            guard let (entity, shape, link) = owner(of: table) else { return nil }
            if let link { return (entity, link, property(link, of: entity)?.location) }
            if let column = key.columns.first, let shaped = shape.properties.first(where: { sameSQLName($0.column, column) }) {
                return (entity, shaped.currentName, property(shaped.currentName, of: entity)?.location)
            }
            return (entity, nil, description(of: entity)?.identifier.location)
        }
        for table in schema.tables {
            guard let (entity, shape, link) = owner(of: table) else { continue }
            let keyColumn = table.primaryKey.count == 1 ? table.column(named: table.primaryKey[0]) : nil
            if let link {
                add(
                    .syncPrimaryKey,
                    "to-many \(entity).\(link) links through join table \(table.name), keyed by (\(table.primaryKey.joined(separator: ", ")))",
                    entity: entity, property: link, at: property(link, of: entity)?.location)
            } else if keyColumn == nil || shape.identifier.swiftType != SwiftTypes.uuid {
                let key =
                    keyColumn.map { "column \($0.name) (identifier \(ShapeBuilder.describe(shape.identifier)))" }
                    ?? "(\(table.primaryKey.joined(separator: ", ")))"
                add(
                    .syncPrimaryKey, "entity \(entity) is keyed by \(key) in table \(table.name)", entity: entity,
                    at: description(of: entity)?.identifier.location)
            }
            if link == nil {
                for index in table.indexes where index.unique {
                    let (properties, location) = uniqueIndex(index, of: entity, shape: shape)
                    add(
                        .syncUniqueness,
                        "\(properties.count == 1 ? "property \(entity).\(properties[0]) is" : "properties \(entity).(\(properties.joined(separator: ", "))) are") unique at \(version) (index \(index.name) on \(table.name))",
                        entity: entity, property: properties.count == 1 ? properties[0] : nil,
                        at: location ?? description(of: entity)?.location)
                }
            }
            for key in table.foreignKeys where key.onDelete == .restrict || key.onDelete == .noAction {
                guard let (owner, property, location) = foreignKeyOwner(key, in: table) else { continue }
                add(
                    .syncRestrictingForeignKey,
                    "\(property.map { "relationship \(owner).\($0)" } ?? "the identifier of \(owner)") references \(key.table) ON DELETE \(key.onDelete.rawValue) (table \(table.name), column \(key.columns.joined(separator: ", ")))",
                    entity: owner, property: property, at: location)
            }
        }
        for cycle in Self.foreignKeyCycles(schema) {
            // Reported once, at the first table's foreign key to the next one.
            guard let first = schema.table(named: cycle[0]),
                let key = first.foreignKeys.first(where: { sameSQLName($0.table, cycle[1 % cycle.count]) }),
                let (owner, property, location) = foreignKeyOwner(key, in: first)
            else { continue }
            add(
                .syncForeignKeyCycle,
                "tables \((cycle + [cycle[0]]).joined(separator: " → ")) reference each other in a cycle of foreign keys at \(version)",
                entity: owner, property: property, at: location)
        }
        return findings
    }

    /// Each set of tables that reference each other through foreign keys (a table referencing itself, a
    /// tree of rows, is no cycle between tables): its tables in the order of one cycle through them,
    /// starting at the first by name.
    static func foreignKeyCycles(_ schema: Schema) -> [[String]] {
        let names = schema.tables.map(\.name).sorted()
        var edges: [String: [String]] = [:]
        for table in schema.tables {
            edges[table.name] = table.foreignKeys.compactMap { key in names.first { sameSQLName($0, key.table) } }.filter {
                $0 != table.name
            }
        }
        func path(from start: String, to goal: String, avoiding seen: inout Set<String>) -> [String]? {
            for next in (edges[start] ?? []).sorted() {
                if next == goal { return [start] }
                if seen.insert(next).inserted, let rest = path(from: next, to: goal, avoiding: &seen) { return [start] + rest }
            }
            return nil
        }
        var covered = Set<String>()
        var cycles: [[String]] = []
        for name in names where !covered.contains(name) {
            var seen: Set<String> = [name]
            guard let cycle = path(from: name, to: name, avoiding: &seen) else { continue }
            covered.formUnion(cycle)
            cycles.append(cycle)
        }
        return cycles
    }
}
