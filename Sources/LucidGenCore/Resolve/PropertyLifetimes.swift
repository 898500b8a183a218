import Foundation
@_spi(Generated) import LucidSchema

/// Property lifetimes: the version range of each property (`added_at_version`, `removed_at_version`), its
/// renames (`previous_name`, `renamed_at_version` or inferred from the snapshots) and its `type_history`.
extension ShapeBuilder {
    /// When each property was added, removed and renamed, by name, the versions checked against the history.
    func lifetimes(of timeline: EntityTimeline, _ diagnostics: inout DiagnosticCollector) -> [String: EntityTimeline.PropertyLifetime] {
        var lifetimes: [String: EntityTimeline.PropertyLifetime] = [:]
        let entity = timeline.entity
        let history = timeline.historyVersions
        let historyList = history.map(\.string).joined(separator: ", ")
        func inHistory(_ version: SchemaVersion, _ key: String, _ property: PropertyDescription) -> Bool {
            if history.contains(version) { return true }
            diagnostics.error(
                "\(key) \(version) of property '\(property.name)' is not in the version_history of '\(entity.name)' (\(historyList)); add a version_history item for \(version)",
                at: property.location, path: property.path + "." + key)
            return false
        }
        for property in entity.properties {
            let added = property.addedAtVersion ?? timeline.firstVersion
            var lifetime = EntityTimeline.PropertyLifetime(added: added, removed: property.removedAtVersion, renamedAt: nil)
            if property.addedAtVersion != nil { _ = inHistory(added, "added_at_version", property) }
            if let removed = property.removedAtVersion {
                _ = inHistory(removed, "removed_at_version", property)
                if removed <= added {
                    diagnostics.error(
                        "removed_at_version \(removed) of property '\(property.name)' is not after the version it was added at (\(added))",
                        at: property.location, path: property.path)
                }
            }
            if let previous = property.previousName {
                if let renamedAt = property.renamedAtVersion {
                    if inHistory(renamedAt, "renamed_at_version", property), renamedAt <= added {
                        diagnostics.error(
                            "renamed_at_version \(renamedAt) of property '\(property.name)' must be after the version it was added at (\(added))",
                            at: property.location, path: property.path + ".renamed_at_version")
                    }
                    lifetime.renamedAt = renamedAt
                } else {
                    lifetime.renamedAt = inferRename(
                        of: property, from: previous, in: timeline, added: added, removed: property.removedAtVersion, &diagnostics)
                }
            } else if property.renamedAtVersion != nil {
                diagnostics.error(
                    "renamed_at_version needs previous_name (the name before the rename)", at: property.location,
                    path: property.path + ".renamed_at_version")
            }
            var previousUntil: SchemaVersion?
            for item in property.typeHistory {
                if inHistory(item.untilVersion, "until_version", property) {
                    if item.untilVersion <= added {
                        diagnostics.error(
                            "until_version \(item.untilVersion) is not after the version property '\(property.name)' was added at (\(added))",
                            at: item.location, path: item.path)
                    }
                    if let previousUntil, item.untilVersion <= previousUntil {
                        diagnostics.error(
                            "type_history of '\(property.name)' is out of order: \(item.untilVersion) comes after \(previousUntil)",
                            at: item.location, path: item.path)
                    }
                }
                previousUntil = item.untilVersion
            }
            lifetimes[property.name] = lifetime
        }
        return lifetimes
    }

    /// The version of a rename through `previous_name` without `renamed_at_version`: the only history
    /// version after the property was added that agrees with every frozen snapshot.
    private func inferRename(
        of property: PropertyDescription, from previous: String, in timeline: EntityTimeline, added: SchemaVersion, removed: SchemaVersion?,
        _ diagnostics: inout DiagnosticCollector
    ) -> SchemaVersion? {
        let candidates = timeline.historyVersions.filter { version in version > added && (removed.map { version < $0 } ?? true) }
        // Names another property of the entity has or had: a snapshot holding one of them may be that property
        // (a name freed by this rename and taken by a new property at the same version, a swap).
        let othersNames = Set(
            timeline.entity.properties.filter { $0.name != property.name }.flatMap { [$0.name] + ($0.previousName.map { [$0] } ?? []) })
        let consistent = candidates.filter { candidate in
            releasedSnapshots.allSatisfy { version, snapshot in
                let entityName = timeline.name(at: version)
                guard timeline.exists(at: version), version >= added, removed.map({ version < $0 }) ?? true,
                    snapshot.entity(named: entityName) != nil
                else { return true }
                let (expected, gone) = version < candidate ? (previous, property.name) : (property.name, previous)
                // The name it must have then, and not the other one unless another property explains it: a
                // snapshot with the new name before the candidate means the rename happened earlier.
                return snapshot.hasProperty(named: expected, ofEntityNamed: entityName)
                    && (othersNames.contains(gone) || !snapshot.hasProperty(named: gone, ofEntityNamed: entityName))
            }
        }
        if consistent.count == 1 { return consistent[0] }
        if candidates.isEmpty {
            diagnostics.error(
                "property '\(property.name)' has previous_name '\(previous)' but '\(timeline.entity.name)' has no version after the property was added (\(added)) to rename it at; add the version of the rename to version_history",
                at: property.location, path: property.path + ".previous_name")
        } else {
            let options = (consistent.isEmpty ? candidates : consistent).map(\.string).joined(separator: ", ")
            diagnostics.error(
                "ambiguous rename: property '\(property.name)' (previously '\(previous)') of '\(timeline.entity.name)' could have been renamed at any of \(options); add \"renamed_at_version\" to say which",
                at: property.location, path: property.path + ".previous_name")
        }
        return nil
    }
}

extension PropertyDescription {
    /// The property as it was at `version`, with its `type_history` applied.
    func asOf(_ version: SchemaVersion) -> PropertyDescription {
        var result = self
        // Items are oldest first; the one that applies is the first whose until_version is later, but
        // fields it leaves out come from the later items (or the property itself).
        for item in typeHistory.reversed() where version < item.untilVersion {
            if let type = item.type {
                result.type = type
                result.linkTable = item.linkTable
            }
            if let nullable = item.nullable { result.nullable = nullable }
            if let defaultValue = item.defaultValue { result.defaultValue = defaultValue }
        }
        return result
    }
}
