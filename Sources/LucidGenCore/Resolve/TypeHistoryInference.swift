import Foundation
@_spi(Generated) import LucidSchema

/// "Editing is enough": a property whose type, nullability, default, relationship target or
/// association was edited needs no hand-written `type_history`. The released snapshots say what it was;
/// this pass turns them into the `type_history` items a user would have written, so everything after it
/// (shapes, schemas, registry) is exactly what the hand-written history gives.
extension ShapeBuilder {
    /// A property as a released snapshot (or the descriptions) describe it at one version.
    struct DescribedValue: Equatable {
        var type: String
        var nullable: Bool
        var defaultSQL: String?
    }

    /// The `type_history` items each property's released snapshots imply, appended after the
    /// hand-written ones (by property index), with a note per inferred change, for
    /// ``TimelineSet/withTypeHistories(_:)``. It reads timelines that have their lifetimes and indexes, and
    /// only reads, so every entity's can be worked out at once (a long history has one comparison per
    /// property per release).
    func inferredTypeHistories(of timeline: EntityTimeline, currentVersion: SchemaVersion) -> InferredTypeHistories {
        var result = InferredTypeHistories()
        for index in timeline.entity.properties.indices {
            let property = timeline.entity.properties[index]
            guard !property.unused, let lifetime = timeline.propertyLifetimes[property.name] else { continue }
            if case .property(let key) = timeline.entity.identifier.kind, key == property.name { continue }
            let items = inferredItems(for: property, lifetime: lifetime, of: timeline, currentVersion: currentVersion, &result.diagnostics)
            guard !items.isEmpty else { continue }
            // In order of until_version; at one version, the hand-written item first (its fields win).
            let merged = (property.typeHistory.map { ($0, 0) } + items.map { ($0, 1) }).enumerated()
                .sorted { ($0.element.0.untilVersion, $0.element.1, $0.offset) < ($1.element.0.untilVersion, $1.element.1, $1.offset) }
            result.typeHistories.append((index, merged.map(\.element.0)))
        }
        return result
    }

    /// What a scalar property's described value depends on at a version: the `type_history` items that have
    /// ended by then, and its names then.
    struct ScalarValueKey: Hashable {
        var item: Int
        var name: String
        var column: String
    }

    struct InferredTypeHistories: Sendable {
        var typeHistories: [(property: Int, items: [PropertyTypeHistoryItem])] = []
        var diagnostics = DiagnosticCollector()
    }

    private func inferredItems(
        for property: PropertyDescription, lifetime: EntityTimeline.PropertyLifetime, of timeline: EntityTimeline,
        currentVersion: SchemaVersion,
        _ diagnostics: inout DiagnosticCollector
    ) -> [PropertyTypeHistoryItem] {
        // Every released version: hand-written items say what they say, and a key they leave out is
        // inferred from the snapshots like any edit (a type_history written for one change does not
        // have to repeat the others).
        let start = lifetime.added
        var released: [(version: SchemaVersion, history: SchemaVersion, value: DescribedValue)] = []
        for (version, snapshot) in releasedSnapshots where version >= start {
            guard let history = timeline.historyVersion(at: version), lifetime.added <= version,
                lifetime.removed.map({ version < $0 }) ?? true,
                let frozenProperty = snapshot.property(
                    named: timeline.propertyName(property, at: version), ofEntityNamed: timeline.name(at: version))
            else { continue }
            // A snapshot names a relationship's target as it was named at the owner's history version.
            let type = lineageSpelling(frozenProperty.type, namedAt: history)
            released.append(
                (version, history, DescribedValue(type: type, nullable: frozenProperty.nullable, defaultSQL: frozenProperty.defaultValue)))
        }
        guard !released.isEmpty else { return [] }
        // A scalar's value at a version is its type_history item's there, under its name then: asked at every
        // released version, it is made once per item and name (a long history releases hundreds of versions).
        var scalarValues: [ScalarValueKey: DescribedValue?] = [:]
        func described(at version: SchemaVersion) -> DescribedValue? {
            let asOf = property.asOf(version)
            var key: ScalarValueKey?
            if case .scalar = asOf.type {
                key = ScalarValueKey(
                    item: property.typeHistory.count { $0.untilVersion <= version }, name: timeline.propertyName(property, at: version),
                    column: timeline.columnName(property, at: version))
                if let key, let made = scalarValues[key] { return made }
            }
            var scratch = DiagnosticCollector()
            let value = propertyShape(asOf, of: timeline, at: version, &scratch).map {
                DescribedValue(
                    type: lineageSpelling($0.typeDescription, namedAt: version), nullable: $0.nullable, defaultSQL: $0.defaultSQL)
            }
            if let key { scalarValues[key] = value }
            return value
        }
        func same(_ a: DescribedValue, _ b: DescribedValue?, at version: SchemaVersion) -> Bool {
            guard let b else { return false }
            return a.nullable == b.nullable && a.defaultSQL == b.defaultSQL && sameType(a.type, b.type, at: version)
        }
        if released.allSatisfy({ same($0.value, described(at: $0.version), at: $0.version) }) { return [] }

        // One value per history version of the entity: the shape only changes at those.
        var runs: [(history: SchemaVersion, version: SchemaVersion, value: DescribedValue)] = []
        for entry in released {
            if let last = runs.last, last.history == entry.history {
                if !same(last.value, entry.value, at: entry.version) {
                    let until = timeline.historyVersions.first { $0 > entry.history } ?? currentVersion
                    let options = [last.value, entry.value].map {
                        Self.snippet([(until, $0)], current: described(at: until), lineage: { self.lineage(named: $0) })
                    }
                    diagnostics.error(
                        "released snapshots \(last.version) and \(entry.version) disagree about property '\(timeline.propertyName(property, at: entry.version))' of '\(timeline.entity.name)' "
                            + "(\(Self.show(last.value)) and \(Self.show(entry.value))), though '\(timeline.entity.name)' did not change between them, so what it was before \(until) is ambiguous; "
                            + "restore the snapshots from version control, or write the property's type_history by hand: \(options[0]) or \(options[1])",
                        at: property.location, path: property.path)
                    return []
                }
                continue
            }
            runs.append((entry.history, entry.version, entry.value))
        }
        var items: [PropertyTypeHistoryItem] = []
        var shown: [(until: SchemaVersion, value: DescribedValue, next: DescribedValue?)] = []
        for (offset, run) in runs.enumerated() {
            let until: SchemaVersion
            let next: DescribedValue?
            if offset + 1 < runs.count {
                until = runs[offset + 1].history
                next = runs[offset + 1].value
            } else {
                let lastReleased = released.last!.version
                guard let later = timeline.historyVersions.first(where: { $0 > lastReleased }) else {
                    let now = described(at: lastReleased)
                    guard !same(run.value, now, at: lastReleased) else { continue }
                    let snippet = Self.snippet([(currentVersion, run.value)], current: now, lineage: { self.lineage(named: $0) })
                    diagnostics.error(
                        "property '\(property.name)' of '\(timeline.entity.name)' was \(Self.show(run.value)) in released version \(lastReleased) and is now \(now.map(Self.show) ?? "invalid"), "
                            + "but '\(timeline.entity.name)' has no version_history item after \(lastReleased) to change it at; add { \"version\": \"\(currentVersion)\" } to its version_history "
                            + "(the change is then inferred, as if you wrote \(snippet))",
                        at: property.location, path: property.path)
                    return []
                }
                until = later
                next = described(at: later)
            }
            if same(run.value, next, at: run.version) { continue }
            guard
                var item = makeItem(
                    until: until, value: run.value, next: next, at: run.version, property: property, timeline: timeline, &diagnostics)
            else { return [] }
            // What the hand-written item that covers this version (the first one ending after it) states
            // stands: a snapshot that disagrees is the released-version error, never silently overridden.
            // What it leaves out, the snapshots tell.
            // An item describes the state just before its until_version: where a later released version in
            // its range agrees with it, an earlier disagreement is an edit made before (inferred); where none
            // does, the item contradicts the snapshots (the released-version error).
            if let covering = property.typeHistory.first(where: { $0.untilVersion > run.version }) {
                let inRange = released.filter { $0.version > run.version && $0.version < covering.untilVersion }.map {
                    ($0.version, $0.value, described(at: $0.version))
                }
                func confirmed(_ field: (DescribedValue, DescribedValue, SchemaVersion) -> Bool) -> Bool {
                    inRange.contains { version, value, now in now.map { field(value, $0, version) } ?? false }
                }
                if covering.type != nil, !confirmed({ sameType($0.type, $1.type, at: $2) }) { item.type = nil }
                if covering.nullable != nil, !confirmed({ a, b, _ in a.nullable == b.nullable }) { item.nullable = nil }
                if covering.defaultValue != nil, !confirmed({ a, b, _ in a.defaultSQL == b.defaultSQL }) { item.defaultValue = nil }
            }
            if item.type == nil && item.nullable == nil && item.defaultValue == nil { continue }
            items.append(item)
            shown.append((until, run.value, next))
        }
        guard !items.isEmpty else { return [] }
        let json = Self.snippet(
            shown.map { ($0.until, $0.value) }, current: nil, lineage: { self.lineage(named: $0) }, nextValues: shown.map(\.next))
        for entry in shown {
            diagnostics.note(
                "inferred from the released snapshots: property '\(property.name)' of '\(timeline.entity.name)' changed \(Self.changes(from: entry.value, to: entry.next)) at \(entry.until); "
                    + "to say so in the description, add to the property \(json)",
                at: property.location, path: property.path)
        }
        return items
    }

    /// `type`, a relationship naming its target by the target's current name: the name it had at `version`
    /// says which entity it is (another entity may bear that name later, or have borne it before). A
    /// snapshot frozen before relationship types named the target as it was named at their version may
    /// spell it by a newer name; a name no entity had at `version` is looked up among every name.
    func lineageSpelling(_ type: String, namedAt version: SchemaVersion) -> String {
        guard let relationship = Self.relationshipTarget(type),
            let entity = lineage(of: relationship.target, at: version) ?? lineage(named: relationship.target)
        else { return type }
        return Self.relationshipDescription(target: entity, toMany: relationship.toMany, ordered: relationship.ordered)
    }

    /// Two type descriptions, relationships naming their targets by current names (``lineageSpelling(_:namedAt:)``):
    /// equal, or relationships of one association to the same entity (a name no lineage resolved is
    /// looked up among every name).
    func sameType(_ a: String, _ b: String, at version: SchemaVersion) -> Bool {
        if a == b { return true }
        guard let old = Self.relationshipTarget(a), let new = Self.relationshipTarget(b), old.toMany == new.toMany,
            old.ordered == new.ordered
        else { return false }
        let target = entity(named: old.target, at: version)
        return target != nil && target == entity(named: new.target, at: version)
    }

    /// The entity (current name) a relationship type's target names: a current name as it is, else the
    /// name's entity at `version`, else the one entity that ever had it.
    func entity(named name: String, at version: SchemaVersion) -> String? {
        timelines[name] != nil ? name : lineage(of: name, at: version) ?? lineage(named: name)
    }

    /// The entity (current name) named `name` at `version`.
    func lineage(of name: String, at version: SchemaVersion) -> String? {
        // Most targets were never renamed: the entity of that current name, without reading every timeline
        // (asked for each relationship at every released version). Two entities never share a name at one version.
        if let named = timelines[name], named.exists(at: version), named.name(at: version) == name { return name }
        return timelines.values.first { $0.exists(at: version) && $0.name(at: version) == name }?.entity.name
    }

    /// The type_history item that gives `value` before `until`, with only the fields that differ from `next`.
    private func makeItem(
        until: SchemaVersion, value: DescribedValue, next: DescribedValue?, at version: SchemaVersion, property: PropertyDescription,
        timeline: EntityTimeline,
        _ diagnostics: inout DiagnosticCollector
    ) -> PropertyTypeHistoryItem? {
        var item = PropertyTypeHistoryItem(
            untilVersion: until, type: nil, nullable: nil, defaultValue: nil, location: property.location, path: property.path)
        if next.map({ !sameType(value.type, $0.type, at: version) }) ?? true {
            guard let type = parseType(value.type, at: version) else {
                diagnostics.error(
                    "property '\(property.name)' of '\(timeline.entity.name)' was of type \(value.type) before \(until) (released snapshots), a type this lucidgen cannot read back; write its type_history by hand",
                    at: property.location, path: property.path)
                return nil
            }
            item.type = type
        }
        if next?.nullable != value.nullable { item.nullable = value.nullable }
        if next?.defaultSQL != value.defaultSQL || next == nil {
            guard let type = item.type ?? parseType(value.type, at: version),
                let defaultValue = Self.defaultValue(sql: value.defaultSQL, of: type, subtypes: subtypes)
            else {
                diagnostics.error(
                    "property '\(property.name)' of '\(timeline.entity.name)' had the default \(value.defaultSQL ?? "none") before \(until) (released snapshots), which this lucidgen cannot read back; write its type_history by hand",
                    at: property.location, path: property.path)
                return nil
            }
            item.defaultValue = .some(defaultValue)
        }
        return item
    }

    /// A snapshot's type description as a ``PropertyType`` (relationships by the target's current name).
    func parseType(_ description: String, at version: SchemaVersion) -> PropertyType? {
        if let relationship = Self.relationshipTarget(description) {
            guard let entity = entity(named: relationship.target, at: version) else { return nil }
            return .relationship(entity: entity, toMany: relationship.toMany, ordered: relationship.ordered)
        }
        if description.hasPrefix("["), description.hasSuffix("]") {
            return parseType(String(description.dropFirst().dropLast()), at: version).map { .array($0) }
        }
        if let scalar = ScalarType(rawValue: description) { return .scalar(scalar) }
        if description.hasPrefix("composite ") {
            let name = String(description.dropFirst("composite ".count))
            return subtypes[name] != nil ? .composite(name) : nil
        }
        return subtypes[description] != nil ? .subtype(description) : nil
    }

    /// The `default_value` whose SQL literal ``defaultLiterals`` makes `sql` (nil: no default).
    static func defaultValue(sql: String?, of type: PropertyType, subtypes: [String: SubtypeDescription]) -> DefaultValue?? {
        guard let sql else { return .some(nil) }
        if sql == "NULL" { return .null }
        func unquoted() -> String? {
            SQLLexer.stringLiteral(sql)
        }
        if !SchemaColumn.isConstantDefault(sql) && SQLDefaultExpression.problem(with: sql) == nil,
            sql != "(strftime('%Y-%m-%d %H:%M:%f', 'now'))" || type != .scalar(.date)
        {
            if case .scalar = type { return .sqlExpression(sql) }
        }
        switch type {
        case .scalar(let scalar):
            switch scalar {
            case .bool: return sql == "1" ? .bool(true) : sql == "0" ? .bool(false) : nil
            case .int: return Int64(sql).map { .int($0) }
            case .double, .float, .seconds, .milliseconds: return Double(sql).map { .double($0) }
            case .string, .color, .url: return unquoted().map { .string($0) }
            case .date: return sql == "(strftime('%Y-%m-%d %H:%M:%f', 'now'))" ? .currentDate : nil
            case .data: return nil
            case .uuid: return UUIDText.bytes(sqlLiteral: sql).map { .string(UUIDText.string($0)) }
            case .decimal: return unquoted().map { .string($0) }
            }
        case .subtype(let name):
            guard case .enumeration? = subtypes[name]?.kind else { return nil }
            return unquoted().map { .enumCase($0) }
        case .array, .relationship, .composite: return nil
        }
    }

    // MARK: Messages

    static func show(_ value: DescribedValue) -> String {
        "\(value.type), \(value.nullable ? "nullable" : "required"), default \(value.defaultSQL ?? "none")"
    }

    static func changes(from old: DescribedValue, to new: DescribedValue?) -> String {
        guard let new else { return "from \(show(old))" }
        var parts: [String] = []
        if old.type != new.type { parts.append("type from \(old.type) to \(new.type)") }
        if old.nullable != new.nullable {
            parts.append("from \(old.nullable ? "nullable" : "required") to \(new.nullable ? "nullable" : "required")")
        }
        if old.defaultSQL != new.defaultSQL { parts.append("default from \(old.defaultSQL ?? "none") to \(new.defaultSQL ?? "none")") }
        return parts.joined(separator: " and ")
    }

    /// `"type_history": [{ "until_version": "1.1", "property_type": "string" }]`: the items that give `values`,
    /// each with the fields that differ from the next value (every field when that is unknown), written by the
    /// descriptions' own writer.
    static func snippet(
        _ values: [(until: SchemaVersion, value: DescribedValue)], current: DescribedValue?, lineage: (String) -> String?,
        nextValues: [DescribedValue?]? = nil
    ) -> String {
        let items = values.enumerated().map { offset, entry -> DescriptionDocument.TypeChange in
            let next = nextValues?[offset] ?? (offset + 1 < values.count ? values[offset + 1].value : current)
            var item = DescriptionDocument.TypeChange(untilVersion: entry.until.description)
            if next?.type != entry.value.type { item.propertyType = documentType(entry.value.type, lineage: lineage) }
            if next?.nullable != entry.value.nullable { item.nullable = entry.value.nullable }
            if next?.defaultSQL != entry.value.defaultSQL || next == nil { item.defaultValue = documentDefault(entry.value) }
            return item
        }
        return DescriptionWriter.string("type_history") + ": " + DescriptionWriter.json(items)
    }

    static func documentType(_ description: String, lineage: (String) -> String?) -> DescriptionDocument.PropertyType {
        guard let relationship = relationshipTarget(description) else { return .scalar(description) }
        return .relationship(
            DescriptionDocument.Relationship(
                entityName: lineage(relationship.target) ?? relationship.target, association: relationship.toMany ? .toMany : .toOne,
                ordered: relationship.ordered))
    }

    /// A frozen default (its SQL) as a description writes it: `"current_date"`, a string (an enum case's with
    /// its dot), a number, a bool, or `{ "sql": … }` for an expression.
    static func documentDefault(_ value: DescribedValue) -> DescriptionDocument.Value {
        guard let sql = value.defaultSQL else { return .null }
        if sql == "NULL" { return .string("nil") }
        if sql == "(strftime('%Y-%m-%d %H:%M:%f', 'now'))" { return .string("current_date") }
        if value.type == "bool" { return .bool(sql == "1") }
        if value.type == "uuid", let bytes = UUIDText.bytes(sqlLiteral: sql) { return .string(UUIDText.string(bytes)) }
        if let text = SQLLexer.stringLiteral(sql) {
            let isEnumCase = ScalarType(rawValue: value.type) == nil && !value.type.hasPrefix("[")
            return .string(isEnumCase ? "." + text : text)
        }
        if (try? JSONSerialization.jsonObject(with: Data(sql.utf8), options: [.fragmentsAllowed])) is NSNumber { return .number(sql) }
        return .sql(sql)
    }
}
