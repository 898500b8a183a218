import Foundation
@_spi(Generated) import LucidSchema

/// Whether ``Resolver`` takes a root's table at a version where nothing of its hierarchy changed from the
/// version before (``QuietTable``) instead of building it again.
package enum TableReuse: Sendable {
    case on
    /// Every table built again (what the reuse is compared with).
    case off
    /// Taken, and built again too: a difference stops the run, naming the table and version.
    /// `LUCIDGEN_VERIFY_TABLE_REUSE=1` sets it, to check the reuse on a history by hand.
    case verified

    package static var fromEnvironment: TableReuse {
        ProcessInfo.processInfo.environment["LUCIDGEN_VERIFY_TABLE_REUSE"] == "1" ? .verified : .on
    }
}

/// A root entity's table (with its join tables) as built at a version where nothing of its hierarchy
/// changed since the version before: no member's history version, name, parent or existence. Such a table
/// has none of a step's markers (renames, conversions, moved rows, case changes), so at the next version
/// that is as quiet it is the same table, unless one of the few things it reads at its version differs
/// (its ``QuietTableKey``).
///
/// A long history changes a few entities per version; building every table of every version again was
/// most of a first `generate` at a thousand versions.
struct QuietTable {
    /// The version it was built (or last reused) at.
    var version: SchemaVersion
    let key: QuietTableKey
    let table: SchemaTable
    /// The join tables of its to-many relationships, in the order they were added.
    let linkTables: [SchemaTable]
    /// Its default-named indexes (nil when the version's indexes are a released snapshot's).
    let defaultNamedIndexes: Set<String>?
}

/// What a quiet root's table reads at its schema version rather than from its entities' shapes: the
/// tables its relationships point to (a target renamed), its `checks` (each with its versions), and the
/// released snapshot's table (its indexes and search).
struct QuietTableKey: Equatable {
    var targetTables: [String]
    var checks: [SchemaCheck]
    var frozenTable: SchemaTable?
}

extension ShapeBuilder {
    /// The key of `owner`'s table at `version` when its hierarchy is quiet there (see ``QuietTable``), nil
    /// otherwise. A hierarchy with a composite is never quiet: a struct's members change by schema version.
    func quietTableKey(
        of owner: ColumnOwner, frozenTable: SchemaTable?, resolvedByName: [String: ResolvedEntity], at version: SchemaVersion,
        previous: SchemaVersion?
    ) -> QuietTableKey? {
        guard let previous, owner.previousShape?.version == owner.shape.version else { return nil }
        let root = owner.timeline
        let members = root.descendants(at: version)
        guard members.map(\.entity.name) == root.descendants(at: previous).map(\.entity.name),
            root.hasKind(at: version) == root.hasKind(at: previous)
        else { return nil }
        var targets: [String] = []
        for member in [root] + members {
            guard member.exists(at: previous), let history = member.historyVersion(at: version),
                history == member.historyVersion(at: previous), member.name(at: version) == member.name(at: previous),
                member.root(at: previous).isSame(as: root),
                member.parent(at: version)?.entity.name == member.parent(at: previous)?.entity.name,
                let shape = resolvedByName[member.entity.name]?.shapes.first(where: { $0.version == history })
            else { return nil }
            for property in shape.properties {
                switch property.kind {
                case .value: continue
                case .composite: return nil
                case .toOne(let target, _, _), .toMany(let target, _, _, _, _, _, _):
                    guard let timeline = timelines[target] else { return nil }
                    targets.append(timeline.tableName(at: version))
                }
            }
        }
        guard root.tableName(at: version) == root.tableName(at: previous) else { return nil }
        return QuietTableKey(
            targetTables: targets, checks: root.entity.checks.filter { $0.holds(at: version) }.map(\.check), frozenTable: frozenTable)
    }

    /// The table of `entity` built at `previous` under the same key, if there is one.
    func reusedTable(of entity: String, _ key: QuietTableKey, previous: SchemaVersion?) -> QuietTable? {
        guard let built = quietTables[entity], built.version == previous, built.key == key else { return nil }
        return built
    }

    /// ``TableReuse/verified``: builds the reused table again, on a copy of the draft, and stops on
    /// any difference (a diagnostic the build would add included), naming the table and version.
    mutating func verifyReused(
        _ reused: QuietTable, of owner: ColumnOwner, frozenTable: SchemaTable?, resolvedByName: [String: ResolvedEntity],
        _ draft: VersionSchemaDraft, _ diagnostics: inout DiagnosticCollector
    ) {
        var scratch = draft
        var scratchDiagnostics = DiagnosticCollector()
        let table = rootTableWithMovedRows(
            of: owner, frozenTable: frozenTable, resolvedByName: resolvedByName, &scratch, &scratchDiagnostics)
        let links = Array(scratch.tables[draft.tables.count...])
        let same =
            table == reused.table && links == reused.linkTables
            && scratch.defaultNamedIndexes[owner.shape.tableName] == reused.defaultNamedIndexes && scratch.newTables == draft.newTables
            && scratch.newColumns == draft.newColumns
            && scratchDiagnostics.diagnostics.allSatisfy(diagnostics.diagnostics.contains)
        precondition(
            same,
            "LUCIDGEN_VERIFY_TABLE_REUSE: the table of \(owner.shape.name) at \(draft.version) differs from the one reused from \(reused.version)"
        )
    }
}
