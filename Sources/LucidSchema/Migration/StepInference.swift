import Foundation

/// Works out the SQL operations that take a store from one version of a registry to any later one, or
/// why that change needs the app's code.
///
/// The combined change is computed directly between the two versions (through the lineage of every
/// table and column), so changes that cancel out cost nothing: a column added in 1.1 and removed in
/// 1.3 is never created for a store at 1.0. Each table gets at most one rebuild.
package struct StepInference: Sendable {
    package let versions: [Schema]
    /// Built once: its index of every version's tables serves every step and column asked about.
    private let lineage: Lineage
    /// What a step does to one table, by the table's runs of identical versions at both ends (see
    /// ``TableStep``): every pair of versions of a long history (``MigrationPlanner/edges(from:to:)``) asks
    /// the same few questions of each table thousands of times.
    private let tableSteps: TableStepMemo?
    /// Each version's tables whose rows come from other tables there, found the first time a jump over the
    /// version asks (``rowMoves(into:from:to:newNames:transformedTables:reasons:failingTables:)``): the routes
    /// of a long history jump from every version to the newest, over most versions each.
    private let movingTables: MovingTablesMemo

    /// `remembersTableSteps`: keep what each step did to each table for the steps asked about later
    /// (``MigrationPlanner/edges(from:to:)`` asks every pair of versions; one path asks each question once).
    package init(versions: [Schema], remembersTableSteps: Bool = false) {
        self.versions = versions
        lineage = Lineage(versions: versions)
        tableSteps = remembersTableSteps ? TableStepMemo() : nil
        movingTables = MovingTablesMemo(count: versions.count)
    }

    /// The version indexes of `range` where rows move between tables (an entity's parent changes): a step
    /// that moves them ends there, so no jump goes over one (``MigrationPlanner`` restarts its jumps from them).
    package func versionsWithMovingRows(in range: ClosedRange<Int>) -> [Int] {
        movingTables.tables(in: range, of: versions).map(\.index)
    }

    /// The conversion of each version's step for a column that exists (as a column) from version index
    /// `earlier` to `later`, oldest first: exactness is decided per step, never between the two ends
    /// (int → double with the loss accepted → string is not int → string). A failure names every step
    /// that needs the app's code.
    package func conversions(ofColumn column: String, table: String, at later: Int, in earlier: Int) -> Result<
        [ValueConversion], ConversionRefusal
    >? {
        lineage.columnChanges(ofColumn: column, table: table, at: later, in: earlier).map {
            conversions(along: $0, label: "\(table).\(column)", at: later, in: earlier)
        }
    }

    /// ``conversions(ofColumn:table:at:in:)`` along a column's changes (``Lineage/columnChanges(ofColumn:table:at:in:)``:
    /// a version left out holds the previous version's column, which converts nothing).
    func conversions(along path: [Lineage.ColumnVersion], label: String, at later: Int, in earlier: Int) -> Result<
        [ValueConversion], ConversionRefusal
    > {
        var conversions: [ValueConversion] = []
        var refusals: [String] = []
        for offset in path.indices.dropFirst() {
            let version = versions[path[offset].version]
            switch ValueConversion.between(path[offset - 1].column, path[offset].column, label: label) {
            case .success(let conversion): conversions.append(conversion)
            case .failure(let refusal): refusals.append(later - earlier > 1 ? "\(refusal) (at \(version.version))" : refusal.description)
            }
        }
        return refusals.isEmpty ? .success(conversions) : .failure(ConversionRefusal(refusals.joined(separator: "; ")))
    }

    /// What each stored value of an enum column becomes from version index `earlier` to `later`: every
    /// version's ``SchemaColumn/caseChanges`` applied to the previous one's result, so a jump over several
    /// versions composes them (`a` renamed to `b`, then `b` removed with fallback `c`: `a` → `c`). Values
    /// no change touches are left out; `needsApp` lists the values a removal without a fallback reaches.
    package func caseMapping(ofColumn column: String, table: String, at later: Int, in earlier: Int) -> (
        mapping: [(from: String, to: String?)], needsApp: [String]
    ) {
        lineage.columnChanges(ofColumn: column, table: table, at: later, in: earlier).map(caseMapping(along:)) ?? (
            mapping: [], needsApp: []
        )
    }

    /// ``caseMapping(ofColumn:table:at:in:)`` along a column's changes (a version left out states no case change).
    func caseMapping(along path: [Lineage.ColumnVersion]) -> (mapping: [(from: String, to: String?)], needsApp: [String]) {
        guard path.dropFirst().contains(where: { $0.column.caseChanges != nil }) else { return ([], []) }
        // Each value a store at `earlier` may hold that some change reaches, in first-seen order: its value now
        // (nil: NULL), or needing the app's code.
        var order: [String] = []
        var current: [String: String?] = [:]
        var needsApp: Set<String> = []
        for step in path.lazy.dropFirst().map(\.column) {
            // A version's changes apply at once (two cases may swap names): each finds its values first.
            let changes = step.caseChanges ?? []
            let reached = changes.map { change in
                order.filter { value in !needsApp.contains(value) && current[value].map { $0 == change.from } == true }
                    + (current[change.from] == nil ? [change.from] : [])
            }
            for (change, values) in zip(changes, reached) {
                for value in values {
                    if current[value] == nil { order.append(value) }
                    if change.byApp == true {
                        needsApp.insert(value); current[value] = .some(nil)
                    } else {
                        current[value] = .some(change.to)
                    }
                }
            }
        }
        let mapping = order.filter { !needsApp.contains($0) && current[$0] != .some($0) }.map { (from: $0, to: current[$0] ?? nil) }
        return (mapping, order.filter(needsApp.contains))
    }

    /// `CASE <value> WHEN 'old' THEN 'new' … ELSE <value> END`.
    static func caseExpression(_ source: String, mapping: [(from: String, to: String?)]) -> String {
        guard !mapping.isEmpty else { return source }
        let branches = mapping.map { "WHEN \(quoteLiteral($0.from)) THEN \($0.to.map(quoteLiteral) ?? "NULL")" }
        return "CASE \(source) \(branches.joined(separator: " ")) ELSE \(source) END"
    }

    /// The SQL of a column's value after a chain of conversions.
    static func expression(_ source: String, through conversions: [ValueConversion]) -> String {
        conversions.reduce(source) { expression, conversion in
            switch conversion {
            case .unchanged: expression
            case .cast(let storage): "CAST(\(expression) AS \(storage.rawValue))"
            }
        }
    }

    /// The operations from version index `from` to version index `to` (`from < to`). Tables named in
    /// `transformedTables` (as at `to`) are rebuilt through the app's row transform instead of SQL.
    ///
    /// In phases: which old table each new one continues, what the step does to each table that exists at
    /// both versions, the rows that move between tables, then the tables that go.
    package func operations(from: Int, to: Int, transformedTables: Set<String> = []) -> Result<[MigrationOperation], NotInferable> {
        let old = versions[from]
        let new = versions[to]
        // Tables that are the same at every version of the step (most tables of a real app's step) have
        // nothing to do, and are not even built when a generated registry states them with one constant: a
        // store one version behind on a 60-table app reads the two that changed. Over a jump, every version
        // between must hold the table too, since a column may change and change back (exactness is decided
        // per version).
        let untouched = lineage.unchangedTables(from: from, to: to)
        let oldTables = old.tables(skipping: untouched)
        let newTables = new.tables(skipping: untouched)
        var tables = tableMatches(newTables, from: from, to: to, untouched: untouched)
        var changes = tableChanges(tables, from: from, to: to, transformedTables: transformedTables)
        // Entities that gain, lose or change their parent: their rows move to their new root's table, ids kept.
        let moves = rowMoves(
            into: newTables, from: from, to: to, newNames: tables.newNames,
            transformedTables: transformedTables.subtracting(tables.matched.map(\.new.name)),
            reasons: &changes.reasons, failingTables: &changes.failingTables)
        tables.fills += moves
        changes.alterations = Self.keepingMovedKinds(changes.alterations, moves: moves)
        if !changes.reasons.isEmpty {
            return .failure(NotInferable(from: old.version, to: new.version, reasons: changes.reasons, tables: changes.failingTables))
        }
        let drops = Self.tableDrops(
            oldTables, surviving: tables.survivingOldTables, consumed: changes.consumedJoinTables, targetNames: new.tableNames)
        let searchDrops = changes.searchDrops + drops.searchDrops
        // A renamed table keeps its indexes' old names, which a new table may take at this version (one that
        // reuses the renamed table's name): those indexes go first (`DROP INDEX IF EXISTS`, so a rebuild
        // that drops them with its table is unaffected).
        var earlyIndexDrops: [MigrationOperation] = []
        for (oldTable, newTable) in tables.matched where oldTable.name != newTable.name {
            let kept = Set(newTable.indexes.map(\.name))
            for index in oldTable.indexes.sorted(by: { $0.name < $1.name }) where !kept.contains(index.name) {
                earlyIndexDrops.append(.dropIndex(index.name))
            }
        }
        if !earlyIndexDrops.isEmpty {
            changes.indexOperations.removeAll { earlyIndexDrops.contains($0) }
            changes.alterations.removeAll { earlyIndexDrops.contains($0) }
        }
        // One array, appended to: a jump over a long history has thousands of operations, and a chain of
        // `+` copied them once per part.
        let parts = [
            searchDrops, drops.early, Self.ordered(tables.renames), earlyIndexDrops, tables.creates, tables.fills, changes.alterations,
            drops.late, changes.indexOperations, changes.searchCreates,
        ]
        var operations: [MigrationOperation] = []
        operations.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for part in parts { operations.append(contentsOf: part) }
        return .success(operations)
    }

    /// Which old table each new table of a step continues (renamed or not), and the tables it creates
    /// (a join table made from a to-one column is filled from it).
    struct TableMatches {
        /// Each old table's name at `to` (the first new table it became).
        var newNames: [String: String] = [:]
        /// Tables that exist at both versions.
        var matched: [(old: SchemaTable, new: SchemaTable)] = []
        var renames: [MigrationOperation] = []
        var creates: [MigrationOperation] = []
        var fills: [MigrationOperation] = []
        /// The old tables that some new table continues (and the untouched ones).
        var survivingOldTables: Set<String>
    }

    private func tableMatches(_ newTables: [SchemaTable], from: Int, to: Int, untouched: Set<String>) -> TableMatches {
        var tables = TableMatches(survivingOldTables: untouched)
        // Each old table's name at `to`, once per step: looking it up per foreign key made a step quadratic
        // in the number of tables.
        var origins: [Lineage.Origin?] = []
        for table in newTables {
            let origin = lineage.origin(ofTable: table.name, at: to, in: from)
            origins.append(origin)
            if case .table(let oldName)? = origin, tables.newNames[oldName] == nil { tables.newNames[oldName] = table.name }
        }
        for (table, origin) in zip(newTables, origins) {
            switch origin {
            case .table(let oldName)?:
                guard let oldTable = lineage.table(oldName, at: from) else { continue }
                tables.survivingOldTables.insert(oldTable.name)
                if oldTable.name != table.name { tables.renames.append(.renameTable(from: oldTable.name, to: table.name)) }
                tables.matched.append((oldTable, table))
            case .column(let ownerOld, let column)?:
                tables.creates.append(.createTable(table))
                let ownerNew = tables.newNames[ownerOld] ?? ownerOld
                let key = lineage.table(ownerNew, at: to)?.primaryKey.first ?? "id"
                tables.fills.append(.fillJoinTable(join: table.name, ownerTable: ownerNew, ownerKey: key, fromColumn: column))
            case .jsonMember?, nil: // a table's origin is a table or a column
                tables.creates.append(.createTable(table))
            }
        }
        return tables
    }

    /// What a step does to the tables that exist at both versions, or why it needs the app's code.
    struct TableChanges {
        var alterations: [MigrationOperation] = []
        var indexOperations: [MigrationOperation] = []
        var reasons: [String] = []
        var failingTables: [String] = []
        /// Join tables whose single link became a to-one column.
        var consumedJoinTables: Set<String> = []
        /// Declared search whose index must be made again goes first and comes back last (see `searchKept`).
        var searchDrops: [MigrationOperation] = []
        var searchCreates: [MigrationOperation] = []

        mutating func renewSearch(old: SchemaTable, new: SchemaTable) {
            if old.search != nil { searchDrops.append(.dropSearch(table: old.name)) }
            if new.search != nil { searchCreates.append(.createSearch(new)) }
        }
    }

    private func tableChanges(_ tables: TableMatches, from: Int, to: Int, transformedTables: Set<String>) -> TableChanges {
        var changes = TableChanges()
        for (oldTable, newTable) in tables.matched {
            if transformedTables.contains(newTable.name) {
                changes.alterations.append(.transformTable(table: newTable, sourceTable: newTable.name))
                // The app's code may change any value: the index is read again.
                changes.renewSearch(old: oldTable, new: newTable)
                continue
            }
            let result = tableResult(old: oldTable, new: newTable, from: from, to: to, newNames: tables.newNames)
            if !result.reasons.isEmpty { changes.failingTables.append(newTable.name) }
            if !Self.searchKept(old: oldTable, new: newTable, copied: result.copiedColumns) {
                changes.renewSearch(old: oldTable, new: newTable)
            }
            changes.reasons += result.reasons
            changes.alterations += result.operations
            changes.consumedJoinTables.formUnion(result.collapsedJoinTables)
            changes.indexOperations += result.indexOperations
        }
        return changes
    }

    /// The kinds whose rows moved out of a table that stays are deleted there, as moved, not lost.
    private static func keepingMovedKinds(_ alterations: [MigrationOperation], moves: [MigrationOperation]) -> [MigrationOperation] {
        var alterations = alterations
        for case .moveRows(let move) in moves where move.sourceKindColumn != nil {
            alterations = alterations.map { operation in
                guard case .rewriteKinds(var rewrite) = operation, rewrite.table == move.source else { return operation }
                let kinds = Set(move.kinds.map(\.from))
                rewrite.moved += rewrite.deleted.filter(kinds.contains)
                rewrite.deleted.removeAll(where: kinds.contains)
                return .rewriteKinds(rewrite)
            }
        }
        return alterations
    }

    /// The old tables no new table continues. One that goes while the target has a table of its name (a
    /// jump over versions where it was renamed away or removed and another took its name) goes first, and
    /// at once: the rename or create that takes its name would fail. Others go last (a collapsed join table
    /// is still read).
    private static func tableDrops(
        _ oldTables: [SchemaTable], surviving: Set<String>, consumed: Set<String>, targetNames: [String]
    ) -> (early: [MigrationOperation], late: [MigrationOperation], searchDrops: [MigrationOperation]) {
        var drops: [MigrationOperation] = []
        var earlyDrops: [MigrationOperation] = []
        var searchDrops: [MigrationOperation] = []
        let targetNames = Set(targetNames.map { sqlNameKey($0) })
        for table in oldTables where !surviving.contains(table.name) {
            // Its index would outlive it (the triggers go with the table).
            if table.search != nil { searchDrops.append(.dropSearch(table: table.name)) }
            if targetNames.contains(sqlNameKey(table.name)) && !consumed.contains(table.name) {
                earlyDrops.append(.dropTable(table.name, deferrable: false))
            } else {
                drops.append(.dropTable(table.name, deferrable: !consumed.contains(table.name)))
            }
        }
        return (earlyDrops, drops, searchDrops)
    }

    /// The rows that move between tables in the step (``SchemaTable/movedRows``): copied after the tables
    /// are created and before any table is altered (the kind rewrite that deletes them from their old
    /// table comes after). Over a jump, a version where rows move is a reason: the step goes through it.
    /// Rows moving into a table of `transformedTables` (new at `to`) are made by the app's row transform
    /// (``RowMove/transformed``): what SQL cannot copy (a moved column whose type changes) is the app's code.
    private func rowMoves(
        into newTables: [SchemaTable], from: Int, to: Int, newNames: [String: String], transformedTables: Set<String> = [],
        reasons: inout [String],
        failingTables: inout [String]
    ) -> [MigrationOperation] {
        if to - from > 1 {
            for (index, moving) in movingTables.tables(in: (from + 1)...to, of: versions) {
                reasons.append(
                    "rows move between tables at \(versions[index].version) (an entity's parent changes: \(moving.joined(separator: ", "))); the migration steps through that version"
                )
                failingTables += moving
            }
            return []
        }
        let old = versions[from]
        var result: [MigrationOperation] = []
        for table in newTables {
            for moved in table.movedRows ?? [] {
                guard let source = old.table(named: moved.table) else {
                    reasons.append("\(table.name): its rows come from \(moved.table), which is no table at \(old.version)")
                    failingTables.append(table.name)
                    continue
                }
                let kindColumn = table.columns.first(where: \.isKindColumn)
                let sourceKind = source.columns.first(where: \.isKindColumn)
                if transformedTables.contains(table.name) {
                    // The app's code makes each row (ids kept): no column needs to copy.
                    let columns = table.columns.filter {
                        !$0.isKindColumn && source.column(named: $0.name).map { !$0.isKindColumn } == true
                    }.map(\.name)
                    result.append(
                        .moveRows(
                            RowMove(
                                table: table.name, source: newNames[source.name] ?? source.name, columns: columns,
                                kindColumn: kindColumn?.name,
                                sourceKindColumn: moved.kinds == nil ? nil : sourceKind?.name, kinds: moved.kinds ?? [], kind: moved.kind,
                                transformed: true)))
                    continue
                }
                var columns: [String] = []
                for column in table.columns where !column.isKindColumn {
                    if let sourceColumn = source.column(named: column.name), !sourceColumn.isKindColumn {
                        if sourceColumn.type != column.type {
                            reasons.append(
                                "\(table.name).\(column.name): the rows moved from \(source.name) hold \(sourceColumn.type.rawValue) values there, not \(column.type.rawValue)"
                            )
                            failingTables.append(table.name)
                        }
                        columns.append(column.name)
                    } else if column.notNull && column.defaultSQL == nil {
                        reasons.append("\(table.name).\(column.name) is required without a default for the rows moved from \(source.name)")
                        failingTables.append(table.name)
                    }
                }
                for key in table.primaryKey where !columns.contains(key) {
                    reasons.append("\(table.name): the rows moved from \(source.name) have no \(key) (their ids are kept)")
                    failingTables.append(table.name)
                }
                result.append(
                    .moveRows(
                        RowMove(
                            table: table.name, source: newNames[source.name] ?? source.name, columns: columns, kindColumn: kindColumn?.name,
                            sourceKindColumn: moved.kinds == nil ? nil : sourceKind?.name, kinds: moved.kinds ?? [], kind: moved.kind)))
            }
        }
        return result
    }

    /// ``tableOperations(old:new:lineage:from:to:newNames:)``, answered once per ``TableStep``. What a step
    /// does to a table depends on the table at both ends and the versions between where it changes, which
    /// its runs of identical versions at both ends determine (no version where it changes lies between a
    /// run's first version and the step's end); on whether the step spans versions (messages name them);
    /// and on the names its foreign keys' tables have at the end. A table whose columns trace through a
    /// join table depends on that table too, and is not remembered.
    private func tableResult(old: SchemaTable, new: SchemaTable, from: Int, to: Int, newNames: [String: String]) -> TableResult {
        guard let tableSteps, let oldSince = lineage.identicalSince(tableNamed: old.name, at: from),
            let newSince = lineage.identicalSince(tableNamed: new.name, at: to)
        else { return tableOperationsAndIndexes(old: old, new: new, from: from, to: to, newNames: newNames) }
        let key = TableStep(
            old: old.name, oldSince: oldSince, new: new.name, newSince: newSince, spansVersions: to - from > 1,
            foreignKeyTables: old.foreignKeys.map { newNames[$0.table] ?? $0.table })
        // Only results that stayed in their table were kept, and staying is the key's too.
        if let known = tableSteps[key] { return known }
        let result = tableOperationsAndIndexes(old: old, new: new, from: from, to: to, newNames: newNames)
        if lineage.staysInItsTable(new.name, at: to, from: from) { tableSteps[key] = result }
        return result
    }

    /// ``tableOperations(old:new:lineage:from:to:newNames:)`` with the index changes of a table altered in place.
    private func tableOperationsAndIndexes(old: SchemaTable, new: SchemaTable, from: Int, to: Int, newNames: [String: String])
        -> TableResult
    {
        var result = tableOperations(old: old, new: new, lineage: lineage, from: from, to: to, newNames: newNames)
        // An entity hierarchy's kinds renamed or removed: rewritten before anything else changes the table.
        if let rewrite = result.kindRewrite, result.reasons.isEmpty { result.operations.insert(.rewriteKinds(rewrite), at: 0) }
        if !result.rebuilt {
            result.indexOperations = indexChanges(old: old, new: new, renamedColumns: result.renamedColumns).filter { operation in
                if case .dropIndex(let index) = operation { return !result.droppedIndexes.contains(index) }
                return true
            }
        }
        return result
    }

    /// What decides a step's operations on one table (see ``tableResult(old:new:from:to:newNames:)``).
    struct TableStep: Hashable {
        var old: String
        var oldSince: Int
        var new: String
        var newSince: Int
        var spansVersions: Bool
        var foreignKeyTables: [String]
    }

    /// ``movingTables``: per version index, the names of its tables with ``SchemaTable/movedRows`` once read.
    final class MovingTablesMemo: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [[String]?]

        init(count: Int) { names = Array(repeating: nil, count: count) }

        /// The versions of `range` with such tables, in order, with their names.
        func tables(in range: ClosedRange<Int>, of versions: [Schema]) -> [(index: Int, names: [String])] {
            lock.lock()
            defer { lock.unlock() }
            var result: [(index: Int, names: [String])] = []
            for index in range {
                let moving =
                    names[index]
                    ?? {
                        let made = versions[index].tables.filter { $0.movedRows != nil }.map(\.name)
                        names[index] = made
                        return made
                    }()
                if !moving.isEmpty { result.append((index, moving)) }
            }
            return result
        }
    }

    final class TableStepMemo: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [TableStep: TableResult] = [:]

        subscript(key: TableStep) -> TableResult? {
            get {
                lock.lock()
                defer { lock.unlock() }
                return results[key]
            }
            set {
                lock.lock()
                defer { lock.unlock() }
                results[key] = newValue
            }
        }
    }

    /// Whether a table's declared search stays valid through a step as it is (then a rebuild of the table
    /// only recreates its triggers, and nothing else touches it): same table name (the index names its
    /// content table in a string that `RENAME` does not rewrite), same tokenizer, and the same searched
    /// columns, each copied unchanged (`copied`: new column → old column whose values it keeps). A searched
    /// column added, removed, renamed or converted, a tokenizer change, search added or removed: the index
    /// is dropped first and made again from the rows last (`dropSearch` … `createSearch`).
    static func searchKept(old: SchemaTable, new: SchemaTable, copied: [String: String]) -> Bool {
        guard let before = old.search, let after = new.search else { return old.search == nil && new.search == nil }
        guard old.name == new.name, before.tokenizer == after.tokenizer, before.columns.count == after.columns.count else { return false }
        return zip(before.columns, after.columns).allSatisfy { oldColumn, newColumn in
            oldColumn == newColumn && copied[newColumn] == oldColumn
        }
    }

    /// Table renames in an order where none takes a name another has not left yet (`a → b` after `b → c`).
    /// A cycle of renames (names swapped across a jump) keeps its order and fails in SQLite, changing nothing.
    static func ordered(_ renames: [MigrationOperation]) -> [MigrationOperation] {
        var pending = renames.compactMap { operation -> (from: String, to: String)? in
            if case .renameTable(let from, let to) = operation { return (from, to) }
            return nil
        }
        var result: [MigrationOperation] = []
        while !pending.isEmpty {
            let index =
                pending.firstIndex { rename in !pending.contains { sqlNameKey($0.from) == sqlNameKey(rename.to) && $0.from != rename.from }
                } ?? 0
            result.append(.renameTable(from: pending[index].from, to: pending[index].to))
            pending.remove(at: index)
        }
        return result
    }

    struct TableResult {
        var operations: [MigrationOperation] = []
        var reasons: [String] = []
        var rebuilt = false
        var renamedColumns: [String: String] = [:]
        var collapsedJoinTables: [String] = []
        /// Indexes already dropped with their columns.
        var droppedIndexes: Set<String> = []
        /// Each new column whose values are the old column's, unchanged and under the same name (new → old).
        var copiedColumns: [String: String] = [:]
        /// The table's index changes when it is altered in place (a rebuild makes its indexes anew).
        var indexOperations: [MigrationOperation] = []
        /// The kinds of an entity hierarchy's rows renamed or removed (``MigrationOperation/rewriteKinds(_:)``).
        var kindRewrite: KindRewrite?
    }

    /// The changes of one table that exists at both versions (already renamed to its new name), in three
    /// phases: where each new column's values come from, what about the table's keys and constraints
    /// changes, then the operations (one rebuild, or changes in place) or why the app's code is needed.
    private func tableOperations(old: SchemaTable, new: SchemaTable, lineage: Lineage, from: Int, to: Int, newNames: [String: String])
        -> TableResult
    {
        var columns = columnSources(old: old, new: new, lineage: lineage, from: from, to: to)
        let dropped = old.columns.filter { !columns.matchedOld.contains($0.name) }
        columns.rebuildReasons += Self.constraintChanges(old: old, new: new, dropped: dropped, columns: columns, newNames: newNames)
        return Self.tableResult(old: old, new: new, columns: columns, dropped: dropped)
    }

    /// Where each column of a table's new version takes its values from in the rebuild's `SELECT`, and
    /// what the columns' changes say about the step.
    struct ColumnSources {
        /// One SQL expression per new column, in order, reading the old row as `src`.
        var sources: [String] = []
        /// Why the table must be rebuilt (nothing here that the app's code must do).
        var rebuildReasons: [String] = []
        /// Why the step needs the app's code.
        var reasons: [String] = []
        /// The old columns that a new column continues.
        var matchedOld: Set<String> = []
        var adds: [SchemaColumn] = []
        /// Old name → new name.
        var renames: [(String, String)] = []
        var renamedColumns: [String: String] = [:]
        /// The old JSON struct columns that became composite columns.
        var extracted: Set<String> = []
        /// The join tables whose single link becomes a to-one column.
        var collapsed: [String] = []
        /// Each new column's old column, and the columns extracted from JSON: what the store already holds
        /// (for the elements of optional composites only; most tables have none).
        var previousOf: [String: SchemaColumn] = [:]
        var extractedColumns: Set<String> = []
        /// Columns kept under their name (their values may still be converted): what an FTS index may keep.
        var sameNamed: Set<String> = []
        var kindRewrite: KindRewrite?
        /// Each new column whose values are the old column's, unchanged and under the same name (new → old).
        var copiedColumns: [String: String] = [:]
    }

    /// The first phase of ``tableOperations(old:new:lineage:from:to:newNames:)``: each new column by its
    /// origin (an old column of the table, a member of its JSON struct, a join table's link, or none).
    private func columnSources(old: SchemaTable, new: SchemaTable, lineage: Lineage, from: Int, to: Int) -> ColumnSources {
        var columns = ColumnSources()
        let name = new.name
        let hasCompositeGroups = new.columns.contains { $0.compositeGroup != nil }
        // The old table's columns by name: a wide table looks one up for each of its columns.
        let oldColumns = Dictionary(old.columns.map { (sqlNameKey($0.name), $0) }, uniquingKeysWith: { first, _ in first })
        for column in new.columns {
            let label = "\(name).\(column.name)"
            // One walk back per column: its changes when it was a column throughout (most), else its origin.
            let path = lineage.columnChanges(ofColumn: column.name, table: name, at: to, in: from)
            let origin =
                path.map { .column(table: $0[0].table, name: $0[0].column.name) }
                ?? lineage.origin(ofColumn: column.name, table: name, at: to, in: from)
            switch origin {
            case .column(let table, let oldName)? where table == old.name:
                guard let oldColumn = oldColumns[sqlNameKey(oldName)] else { continue }
                columns.matchedOld.insert(oldColumn.name)
                if hasCompositeGroups { columns.previousOf[column.name] = oldColumn }
                if oldColumn.name != column.name {
                    columns.renames.append((oldColumn.name, column.name))
                    columns.renamedColumns[oldColumn.name] = column.name
                }
                let kept = keptColumn(column, from: oldColumn, path: path, table: name, from: from, to: to)
                columns.sources.append(kept.expression)
                columns.rebuildReasons += kept.rebuildReasons
                columns.reasons += kept.reasons
                if let rewrite = kept.kindRewrite { columns.kindRewrite = rewrite }
                if oldColumn.name == column.name { columns.sameNamed.insert(column.name) }
            case .jsonMember(let table, let source, let path)? where table == old.name && oldColumns[sqlNameKey(source)] != nil:
                if hasCompositeGroups { columns.extractedColumns.insert(column.name) }
                switch Self.jsonMemberExpression(column: source, path: path, valueType: column.valueType) {
                case .success(let expression):
                    columns.sources.append(expression)
                    if !columns.extracted.contains(source) {
                        columns.extracted.insert(source)
                        columns.rebuildReasons.append(
                            "the JSON struct in \(old.name).\(source) becomes composite columns (json_extract of each member)")
                    }
                case .failure(let refusal):
                    columns.reasons.append("\(label): \(refusal.description)")
                    columns.sources.append("NULL")
                }
                if column.notNull {
                    if let defaultSQL = column.defaultSQL {
                        columns.sources[columns.sources.count - 1] =
                            "COALESCE(\(columns.sources[columns.sources.count - 1]), \(defaultSQL))"
                    } else if oldColumns[sqlNameKey(source)]?.notNull != true {
                        columns.reasons.append(
                            "\(label) is required but \(old.name).\(source) may be NULL, and it has no default for those rows")
                    }
                }
            case .table(let join)?:
                columns.collapsed.append(join)
                let key = old.primaryKey.first ?? "id"
                let link = LinkTable.columns(of: versions[from].table(named: join))
                columns.sources.append(
                    "(SELECT link.\(quoteIdentifier(link.target)) FROM \(quoteIdentifier(join)) AS link WHERE link.\(quoteIdentifier(link.source)) = src.\(quoteIdentifier(key)))"
                )
                columns.rebuildReasons.append("\(label) takes the single link of \(join) (to-many becomes to-one)")
            default:
                Self.addedColumn(column, old: old, new: new, to: &columns)
            }
        }
        if hasCompositeGroups {
            compositeFills(
                new: new, sources: &columns.sources, previousOf: columns.previousOf, extracted: columns.extractedColumns,
                rebuildReasons: &columns.rebuildReasons,
                reasons: &columns.reasons)
        }
        for (column, source) in zip(new.columns, columns.sources)
        where columns.sameNamed.contains(column.name) && source == "src.\(quoteIdentifier(column.name))" {
            columns.copiedColumns[column.name] = column.name
        }
        return columns
    }

    /// A new column that continues an old column of the table: the expression that reads it, converted
    /// and completed as the new column needs.
    struct KeptColumn {
        var expression: String
        var rebuildReasons: [String] = []
        var reasons: [String] = []
        var kindRewrite: KindRewrite?
    }

    private func keptColumn(
        _ column: SchemaColumn, from oldColumn: SchemaColumn, path: [Lineage.ColumnVersion]?, table name: String, from: Int, to: Int
    ) -> KeptColumn {
        let label = "\(name).\(column.name)"
        var kept = KeptColumn(expression: "src.\(quoteIdentifier(oldColumn.name))")
        // A struct stored as JSON whose members changed on the way: its JSON is the app's to convert.
        for step in (path ?? []).dropFirst() where step.column.jsonStructChange != nil {
            kept.reasons.append(
                "\(label): the members of its struct change (\(step.column.jsonStructChange!)\(to - from > 1 ? " at \(versions[step.version].version)" : "")), and its stored JSON is converted by the app's code"
            )
        }
        switch path.map({ conversions(along: $0, label: label, at: to, in: from) }) {
        case .success(let steps)?:
            let converted = Self.expression(kept.expression, through: steps)
            if converted != kept.expression {
                kept.expression = converted
                let types = [oldColumn, column].map { $0.valueType?.description ?? $0.type.rawValue }
                kept.rebuildReasons.append(
                    "\(label) converts \(types[0]) to \(types[1]) (\(steps.filter { $0 != .unchanged }.map(\.description).joined(separator: ", then ")))"
                )
            } else if oldColumn.type != column.type {
                kept.reasons.append("\(label): \(oldColumn.type.rawValue) cannot become \(column.type.rawValue) without a conversion")
            }
        case .failure(let refusal)?:
            kept.reasons.append(refusal.description)
        case nil:
            if oldColumn.type != column.type {
                kept.reasons.append("\(label): \(oldColumn.type.rawValue) cannot convert to \(column.type.rawValue) without loss")
            }
        }
        let cases = path.map(caseMapping(along:)) ?? (mapping: [], needsApp: [])
        if column.isKindColumn {
            // An entity hierarchy's kinds: rows of removed entities deleted, renamed ones rewritten, in place.
            let deleted = cases.mapping.filter { $0.to == nil }.map(\.from)
            let renamed = cases.mapping.compactMap { change in change.to.map { KindRewrite.Rename(from: change.from, to: $0) } }
            if !deleted.isEmpty || !renamed.isEmpty {
                kept.kindRewrite = KindRewrite(table: name, column: oldColumn.name, renamed: renamed, deleted: deleted)
            }
        } else if !cases.needsApp.isEmpty {
            let enumName = column.valueType.map { " (\($0))" } ?? ""
            kept.reasons.append(
                "\(label)\(enumName): \(cases.needsApp.count == 1 ? "case" : "cases") \(cases.needsApp.joined(separator: ", ")) removed without a fallback; rows holding \(cases.needsApp.count == 1 ? "it" : "them") need the app's code"
            )
        } else if !cases.mapping.isEmpty {
            kept.expression = Self.caseExpression(kept.expression, mapping: cases.mapping)
            kept.rebuildReasons.append(
                "\(label) rewrites enum values (\(cases.mapping.map { "\($0.from) → \($0.to ?? "NULL")" }.joined(separator: ", ")))")
        }
        Self.declarationChanges(of: column, from: oldColumn, label: label, into: &kept)
        return kept
    }

    /// What changes in a kept column's declaration: required or optional, its default, declared type,
    /// collation, CHECK and generation. Each is a rebuild, except a column that becomes required without a
    /// default for the NULLs it holds.
    private static func declarationChanges(
        of column: SchemaColumn, from oldColumn: SchemaColumn, label: String, into kept: inout KeptColumn
    ) {
        if column.notNull && !oldColumn.notNull {
            if let defaultSQL = column.defaultSQL {
                kept.expression = "COALESCE(\(kept.expression), \(defaultSQL))"
                kept.rebuildReasons.append("\(label) becomes required (NULLs take the default \(defaultSQL))")
            } else {
                kept.reasons.append("\(label) becomes required without a default for the existing NULLs")
            }
        } else if !column.notNull && oldColumn.notNull {
            kept.rebuildReasons.append("\(label) becomes optional")
        }
        if column.defaultSQL != oldColumn.defaultSQL {
            kept.rebuildReasons.append("\(label) default changes to \(column.defaultSQL ?? "none")")
        }
        if column.declaredType != oldColumn.declaredType {
            kept.rebuildReasons.append("\(label) is declared \(column.sqlType)")
        }
        if !SchemaColumn.sameCollation(column.collation, oldColumn.collation) {
            kept.rebuildReasons.append("\(label) collates \(column.collation ?? "BINARY")")
        }
        if column.check != oldColumn.check {
            kept.rebuildReasons.append("\(label) \(column.check.map { "checks (\($0))" } ?? "no longer has a CHECK")")
        }
        if column.generatedSQL != oldColumn.generatedSQL || (column.generatedStored == true) != (oldColumn.generatedStored == true) {
            kept.rebuildReasons.append(
                "\(label) \(column.generatedSQL.map { "is generated as (\($0)) \(column.generatedStored == true ? "STORED" : "VIRTUAL")" } ?? "is no longer generated (it keeps its values)")"
            )
        }
    }

    /// A new column with no origin in the table: added (in place, or by the rebuild when ADD COLUMN cannot
    /// add it), or a join table's new position column numbered from the links' order.
    private static func addedColumn(_ column: SchemaColumn, old: SchemaTable, new: SchemaTable, to columns: inout ColumnSources) {
        let label = "\(new.name).\(column.name)"
        if new.kind == .join, sameSQLName(column.name, LinkTable.positionColumn),
            old.column(named: LinkTable.columns(of: old).source) != nil
        {
            // An unordered to-many relationship becomes ordered: each source's links are numbered from 0
            // in their rowid order (the order they were linked in, which every rebuild keeps).
            let sourceColumn = quoteIdentifier(LinkTable.columns(of: old).source)
            columns.sources.append(
                "(SELECT count(*) FROM \(quoteIdentifier(new.name)) AS earlier WHERE earlier.\(sourceColumn) = src.\(sourceColumn) AND earlier.rowid < src.rowid)"
            )
            columns.adds.append(column)
            columns.rebuildReasons.append("\(label) numbers each source's links in their rowid order (the to-many becomes ordered)")
            return
        }
        if column.notNull && column.defaultSQL == nil && !column.isGenerated {
            columns.reasons.append("\(label) is added as required without a default for existing rows")
        }
        columns.sources.append(column.defaultSQL ?? "NULL")
        columns.adds.append(column)
        if column.generatedStored == true {
            // SQLite's ADD COLUMN refuses a STORED generated column (https://sqlite.org/gencol.html).
            columns.rebuildReasons.append("\(label) is added as a STORED generated column, which ADD COLUMN cannot add")
        } else if new.primaryKey.contains(column.name) {
            columns.rebuildReasons.append("\(label) is a new primary key column")
        } else if !column.hasConstantDefault {
            columns.rebuildReasons.append("\(label) is added with a non-constant default")
        } else if new.foreignKeys.contains(where: { $0.columns.contains(column.name) }), column.defaultSQL != nil,
            column.defaultSQL != "NULL"
        {
            columns.rebuildReasons.append("\(label) is a foreign key added with a non-NULL default")
        }
    }

    /// The second phase: what makes the table's rebuild necessary beyond its columns, the keys and
    /// constraints compared in the new names.
    private static func constraintChanges(
        old: SchemaTable, new: SchemaTable, dropped: [SchemaColumn], columns: ColumnSources, newNames: [String: String]
    ) -> [String] {
        var reasons: [String] = []
        for column in dropped {
            // An index on it goes first (in place); a key cannot be dropped in place.
            if old.primaryKey.contains(column.name) || old.foreignKeys.contains(where: { $0.columns.contains(column.name) }) {
                reasons.append("\(old.name).\(column.name) is removed but is a key")
            }
        }
        let renamed = columns.renamedColumns
        let oldPrimaryKey = old.primaryKey.map { renamed[$0] ?? $0 }
        if oldPrimaryKey != new.primaryKey { reasons.append("the primary key changes") }
        let oldForeignKeys = Set(
            old.foreignKeys.map { key in
                SchemaForeignKey(
                    columns: key.columns.map { renamed[$0] ?? $0 },
                    table: newNames[key.table] ?? key.table,
                    tableColumns: key.tableColumns, onDelete: key.onDelete, onUpdate: key.onUpdate)
            })
        if oldForeignKeys != Set(new.foreignKeys) { reasons.append("foreign keys change") }
        if (old.checks ?? []) != (new.checks ?? []) { reasons.append("its CHECK constraints change") }
        // A UNIQUE … ON CONFLICT is a constraint of the table (no index has one): only a rebuild adds, drops or changes it.
        func conflictConstraints(_ indexes: [SchemaIndex], renamed: [String: String]) -> Set<String> {
            Set(indexes.compactMap { index in index.onConflict.map { "\(index.columns.map { sqlNameKey(renamed[$0] ?? $0) }) \($0)" } })
        }
        if conflictConstraints(old.indexes, renamed: renamed) != conflictConstraints(new.indexes, renamed: [:]) {
            reasons.append("its UNIQUE ON CONFLICT constraints change")
        }
        // A rename onto a name that an old, dropped column still holds cannot be done in place.
        if columns.renames.contains(where: { rename in dropped.contains { sqlNameKey($0.name) == sqlNameKey(rename.1) } }) {
            reasons.append("a column is renamed onto the name of a removed column")
        }
        return reasons
    }

    /// The last phase: the reasons the app's code is needed, else one rebuild, else the changes in place.
    private static func tableResult(old: SchemaTable, new: SchemaTable, columns: ColumnSources, dropped: [SchemaColumn]) -> TableResult {
        let name = new.name
        var result = TableResult()
        result.reasons = columns.reasons
        result.renamedColumns = columns.renamedColumns
        result.copiedColumns = columns.copiedColumns
        result.kindRewrite = columns.kindRewrite
        if !result.reasons.isEmpty { return result }
        if !columns.rebuildReasons.isEmpty || !columns.collapsed.isEmpty {
            result.rebuilt = true
            result.collapsedJoinTables = columns.collapsed
            result.operations = [
                .rebuildTable(
                    TableRebuild(
                        table: new, sourceTable: name, sources: columns.sources, reasons: columns.rebuildReasons,
                        collapsedJoinTables: columns.collapsed,
                        renamedColumns: columns.renamedColumns,
                        droppedColumns: dropped.map(\.name).filter { !columns.extracted.contains($0) },
                        addedColumns: columns.adds.map(\.name)))
            ]
            return result
        }
        // SQLite refuses to drop an indexed column: its indexes (which the new version cannot have) go first.
        let droppedNames = Set(dropped.map(\.name))
        for index in old.indexes.sorted(by: { $0.name < $1.name }) where index.columns.contains(where: droppedNames.contains) {
            result.operations.append(.dropIndex(index.name))
            result.droppedIndexes.insert(index.name)
        }
        result.operations += columns.renames.map { .renameColumn(table: name, from: $0.0, to: $0.1) }
        result.operations += columns.adds.map { .addColumn(table: name, column: $0) }
        result.operations += dropped.map { .dropColumn(table: name, column: $0.name, deferrable: !$0.notNull || $0.defaultSQL != nil) }
        return result
    }

    /// Elements of optional composites: a default fills only the rows where the composite is present (all
    /// its columns NULL is nil, which a `DEFAULT` would turn into a value), for an element added at this
    /// step or one that becomes required in it. Presence is read from the element's siblings that the
    /// store already holds; a required element without a default for present rows is the app's code.
    private func compositeFills(
        new: SchemaTable, sources: inout [String], previousOf: [String: SchemaColumn], extracted: Set<String>,
        rebuildReasons: inout [String], reasons: inout [String]
    ) {
        let known = Set(previousOf.keys).union(extracted)
        let positions = Dictionary(new.columns.indices.map { (new.columns[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
        for (index, column) in new.columns.enumerated() {
            guard let group = column.compositeGroup else { continue }
            let label = "\(new.name).\(column.name)"
            let added = !known.contains(column.name)
            // A member of a JSON struct made composite (extracted) may be missing or null in the JSON.
            let becomesRequired =
                !added && column.requiredWhenPresent == true
                && ((extracted.contains(column.name) && column.defaultSQL != nil)
                    || previousOf[column.name].map { $0.requiredWhenPresent != true && !$0.notNull } == true)
            guard added || becomesRequired else { continue }
            let siblings = group.filter { $0 != column.name && known.contains($0) }.compactMap { positions[$0] }
            let presence = siblings.map { "(\(sources[$0])) IS NOT NULL" }.joined(separator: " OR ")
            if added {
                guard let defaultSQL = column.defaultSQL else {
                    if column.requiredWhenPresent == true, !siblings.isEmpty {
                        reasons.append(
                            "\(label) is added as required in an optional composite without a default for the rows where the composite is present"
                        )
                    }
                    continue
                }
                sources[index] = siblings.isEmpty ? "NULL" : "CASE WHEN \(presence) THEN \(defaultSQL) ELSE NULL END"
                rebuildReasons.append("\(label) is added to an optional composite (rows where it is nil stay NULL)")
            } else if let defaultSQL = column.defaultSQL {
                sources[index] =
                    siblings.isEmpty
                    ? sources[index] : "CASE WHEN \(presence) THEN COALESCE(\(sources[index]), \(defaultSQL)) ELSE \(sources[index]) END"
                // An extracted member's fill is part of the JSON struct's conversion, already a reason.
                if !extracted.contains(column.name) {
                    rebuildReasons.append(
                        "\(label) becomes required in its optional composite (NULLs take the default \(defaultSQL) where it is present)")
                }
            } else if !siblings.isEmpty {
                reasons.append(
                    "\(label) becomes required in an optional composite without a default for the rows where the composite holds NULL")
            }
        }
    }

    /// The SQL that reads a struct member stored as JSON (as GRDB's JSON encoder writes it) in the form the
    /// composite element's column stores: `json_extract` gives text, numbers, and 1/0 for booleans as
    /// they are; a date is milliseconds since 1970 in the JSON and GRDB's `yyyy-MM-dd HH:mm:ss.SSS` text
    /// in a column. Data is base64 in the JSON, which SQLite cannot decode, a uuid its text there but its
    /// 16 bytes in a column, and a decimal a JSON number there, which `json_extract` reads as a REAL (15
    /// significant digits), but GRDB's text in a column: the app's code converts them.
    static func jsonMemberExpression(column: String, path: String, valueType: ValueType?) -> Result<String, ConversionRefusal> {
        let extract = "json_extract(src.\(quoteIdentifier(column)), \(quoteLiteral(path)))"
        switch valueType {
        case .date?: return .success("strftime('%Y-%m-%d %H:%M:%f', \(extract) / 1000.0, 'unixepoch')")
        case .data?:
            return .failure(
                ConversionRefusal("member \(path) of \(column) is data, stored as base64 text in the JSON, which SQLite cannot decode"))
        case .decimal?:
            return .failure(
                ConversionRefusal(
                    "member \(path) of \(column) is a decimal, a JSON number that SQLite reads as a REAL (15 significant digits), not the text a column stores"
                ))
        case .uuid?:
            return .failure(
                ConversionRefusal(
                    "member \(path) of \(column) is a uuid, stored as its text in the JSON and as its 16 bytes in a column, which SQLite cannot convert"
                ))
        default: return .success(extract)
        }
    }

    /// Index changes of a table altered in place: SQLite keeps an index's name through renames, so an
    /// index whose expected name or columns differ is dropped and created again.
    private func indexChanges(old: SchemaTable, new: SchemaTable, renamedColumns: [String: String]) -> [MigrationOperation] {
        let oldIndexes = Set(
            old.indexes.map { SchemaIndex(name: $0.name, columns: $0.columns.map { renamedColumns[$0] ?? $0 }, unique: $0.unique) })
        let newIndexes = Set(new.indexes)
        var operations: [MigrationOperation] = []
        // A UNIQUE … ON CONFLICT is the table's constraint, unchanged here (a change of it rebuilds the table).
        for index in old.indexes.sorted(by: { $0.name < $1.name }) where index.onConflict == nil {
            let mapped = SchemaIndex(name: index.name, columns: index.columns.map { renamedColumns[$0] ?? $0 }, unique: index.unique)
            if !newIndexes.contains(mapped) { operations.append(.dropIndex(index.name)) }
        }
        for index in new.indexes.sorted(by: { $0.name < $1.name }) where !oldIndexes.contains(index) && index.onConflict == nil {
            operations.append(.createIndex(table: new.name, index: index, deferrable: !index.unique))
        }
        return operations
    }
}
