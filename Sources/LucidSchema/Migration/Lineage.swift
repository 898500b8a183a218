import Foundation

/// Follows tables and columns back through the versions of a registry, using each version's
/// `renamedFrom` and `convertedFrom…` annotations: the stable identities that let a step from 1.0
/// straight to 3.0 know that `log_entry.notes` was `flight.remarks`.
///
/// A walk moves in positions, not names: each version's *back links* (where each of its tables and
/// columns was one version earlier, as positions in that version) are resolved by name once, the first
/// time a walk crosses the version, and every later walk through it reads integers. A jump over 150
/// versions traces each of its columns back in a few array reads per version (by name, a walk cost a
/// dictionary lookup per version, table and column, and the table was traced again for each column).
package struct Lineage: Sendable {
    package let versions: [Schema]
    private let links: BackLinks

    package init(versions: [Schema]) {
        self.versions = versions
        self.links = BackLinks(versions)
    }

    /// Where something at a later version came from at an earlier one.
    package enum Origin: Hashable, Sendable {
        case table(String)
        case column(table: String, name: String)
        /// The member at `path` of the JSON text in `column` (a composite element that was a struct
        /// member stored as JSON).
        case jsonMember(table: String, column: String, path: String)
    }

    /// The origin at version index `earlier` of table `name` at version index `later`, or nil when the
    /// table did not exist (under any name) at `earlier`.
    package func origin(ofTable name: String, at later: Int, in earlier: Int) -> Origin? {
        guard let table = links.table(name, at: later) else { return nil }
        return links.trace(.table(table), from: later, to: earlier).map { origin($0.place, at: $0.version) }
    }

    /// The origin at `earlier` of column `column` of table `table` at `later`.
    package func origin(ofColumn column: String, table: String, at later: Int, in earlier: Int) -> Origin? {
        guard let place = links.column(column, of: table, at: later) else { return nil }
        return links.trace(.column(table: place.table, column: place.column), from: later, to: earlier).map {
            origin($0.place, at: $0.version)
        }
    }

    /// The column at `earlier` and at each later version up to `later` where it may differ from the
    /// version before (a version left out holds the previous version's column as it is: a jump over 150
    /// versions reads a handful), oldest first; nil unless it is a column (under any name) at every
    /// version between.
    package func columnChanges(ofColumn column: String, table: String, at later: Int, in earlier: Int) -> [ColumnVersion]? {
        guard let place = links.column(column, of: table, at: later),
            let places = links.columnChanges(from: place, at: later, to: earlier)
        else { return nil }
        return places.map { place in
            let table = versions[place.source].table(at: place.table)
            return ColumnVersion(version: place.version, table: table.name, column: table.columns[place.column])
        }
    }

    /// A column as one version has it (see ``columnChanges(ofColumn:table:at:in:)``).
    package struct ColumnVersion: Sendable {
        /// The version's index in the registry.
        package var version: Int
        /// The column's table's name at that version.
        package var table: String
        package var column: SchemaColumn
    }

    /// The table named `name` at version index `index`, by name in constant time.
    func table(_ name: String, at index: Int) -> SchemaTable? {
        links.table(name, at: index).map { versions[index].table(at: $0) }
    }

    /// Where the table named `name` at `later` starts being, equal and under that name, the table of every
    /// version up to `later` (a generated registry's shared constant is identical without being built).
    func identicalSince(tableNamed name: String, at later: Int) -> Int? {
        links.identicalSince(tableNamed: name, at: later)
    }

    /// Whether every column of the table named `name` at `later` traces back to `earlier` through that
    /// table's own versions only (no column made from a join table on the way): then what a step does to
    /// it depends on that table's versions alone.
    func staysInItsTable(_ name: String, at later: Int, from earlier: Int) -> Bool {
        links.staysInItsTable(name, at: later, from: earlier)
    }

    /// The names of the tables of version index `later` that are, equal and under their name, the table of
    /// every version since `earlier`.
    func unchangedTables(from earlier: Int, to later: Int) -> Set<String> {
        links.unchangedTables(from: earlier, to: later)
    }

    private func origin(_ place: Place, at index: Int) -> Origin {
        let schema = versions[index]
        switch place {
        case .table(let table): return .table(schema.tableName(at: table))
        case .column(let table, let column):
            let table = schema.table(at: table)
            return .column(table: table.name, name: table.columns[column].name)
        case .jsonMember(let table, let column, let path):
            let table = schema.table(at: table)
            return .jsonMember(table: table.name, column: table.columns[column].name, path: path)
        }
    }
}

/// A table or column as positions in one version's schema (``Lineage/Origin`` without names).
enum Place: Hashable {
    case table(Int)
    case column(table: Int, column: Int)
    case jsonMember(table: Int, column: Int, path: String)
}

/// Each version's back links and name indexes, made the first time a walk needs them (a path touches
/// only the versions it crosses: a store one version behind, two of 150). Shared by the copies of a
/// ``Lineage`` and guarded by one lock per walk.
private final class BackLinks: @unchecked Sendable {
    private let versions: [Schema]
    private let lock = NSLock()
    /// Per version: its tables' names, read once (a version's tables are built only where a walk reads them).
    @exclusivity(unchecked) private var tableNames: [[String]?]
    /// Per version: each table's position by ``sqlNameKey(_:)``.
    @exclusivity(unchecked) private var tableIndex: [[String: Int]?]
    /// Per version and table: each column's position by ``sqlNameKey(_:)``.
    @exclusivity(unchecked) private var columnIndex: [[[String: Int]?]?]
    /// Per version (from 1) and table: where the table was one version earlier (a table, or the column it
    /// was converted from), `.some(nil)` when it did not exist; nil when not resolved yet.
    @exclusivity(unchecked) private var tableBack: [[Place??]?]
    /// Per version (from 1) and table: where each column was one version earlier (a column of the
    /// table's earlier table, a member of a JSON column of it, or the join table it collapsed).
    @exclusivity(unchecked) private var columnBack: [[TableLinks?]?]
    /// Per version and table: the first version from which it is identical (see ``identicalSince(tableNamed:at:)``),
    /// when asked for (``StepInference`` with `remembersTableSteps`).
    @exclusivity(unchecked) private var identicalFrom: [[Int?]?]
    /// Per version and table: its position one version earlier when identical there (`.some(nil)`: not).
    @exclusivity(unchecked) private var identicalBack: [[Int??]?]
    /// Per version and table: where its run of unchanged versions starts (see ``runStart(table:at:)``).
    @exclusivity(unchecked) private var runStarts: [[(version: Int, table: Int)?]?]
    /// Each column's walk back (``columnChanges(from:at:to:)``) by the version and place it starts from.
    @exclusivity(unchecked) private var columnChains: [ChainKey: ColumnChain] = [:]
    /// Per distinct deferred table (the versions' schemas keep each alive): whether a column states a change.
    @exclusivity(unchecked) private var tableStatesChange: [ObjectIdentifier: Bool] = [:]

    /// One table's column back links at one version.
    private struct TableLinks {
        /// The table's position one version earlier, when it was a table.
        var previousTable: Int?
        /// Each column's back link; nil when every column is at its own position in `previousTable`.
        var columns: [Place?]?
        /// The table has its previous version's name, and its columns are the previous version's, equal
        /// and stating no change.
        var unchanged: Bool

        subscript(column: Int) -> Place? {
            if let columns { return columns[column] }
            return previousTable.map { .column(table: $0, column: column) }
        }
    }

    init(_ versions: [Schema]) {
        self.versions = versions
        tableNames = Array(repeating: nil, count: versions.count)
        tableIndex = Array(repeating: nil, count: versions.count)
        columnIndex = Array(repeating: nil, count: versions.count)
        tableBack = Array(repeating: nil, count: versions.count)
        columnBack = Array(repeating: nil, count: versions.count)
        runStarts = Array(repeating: nil, count: versions.count)
        identicalFrom = Array(repeating: nil, count: versions.count)
        identicalBack = Array(repeating: nil, count: versions.count)
    }

    func table(_ name: String, at version: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        return tablePosition(name, at: version)
    }

    func column(_ column: String, of table: String, at version: Int) -> (table: Int, column: Int)? {
        lock.lock()
        defer { lock.unlock() }
        guard let table = tablePosition(table, at: version), let column = columnPosition(column, table: table, at: version) else {
            return nil
        }
        return (table, column)
    }

    /// The first version from which the table named `name` at `version` is the table of every version, equal
    /// and under its name; nil when `version` has no such table.
    func identicalSince(tableNamed name: String, at version: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        return tablePosition(name, at: version).map { identicalSince(table: $0, at: version) }
    }

    /// ``Lineage/staysInItsTable(_:at:from:)``: the table's runs of unchanged versions walked back, each
    /// run's first version checked for a column that was a join table.
    func staysInItsTable(_ name: String, at later: Int, from earlier: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard var position = tablePosition(name, at: later) else { return false }
        var version = later
        while version > earlier {
            let run = runStart(table: position, at: version)
            if run.version <= earlier { return true }
            let links = columnStepBack(table: run.table, at: run.version)
            if links.columns?.contains(where: { if case .table? = $0 { true } else { false } }) == true { return false }
            guard let previous = links.previousTable else { return false }
            position = previous
            version = run.version - 1
        }
        return true
    }

    /// ``Lineage/unchangedTables(from:to:)``, by position (no name looked up).
    func unchangedTables(from earlier: Int, to later: Int) -> Set<String> {
        lock.lock()
        defer { lock.unlock() }
        let names = names(later)
        return Set(names.indices.lazy.filter { self.isIdentical(table: $0, from: earlier, to: later) }.map { names[$0] })
    }

    /// `start` (at version `later`) traced back to version `earlier`, or nil where it did not exist: the
    /// place as positions at the returned version, which is `earlier` or a version of the same run of
    /// unchanged versions of its table (same name, equal columns), so its names are the ones at `earlier`.
    ///
    /// A table or column skips its table's runs (``runStart(table:at:)``) rather than stepping each version:
    /// a store at the oldest of 1,000 versions jumps straight to the newest, and each of its columns is
    /// traced in a few reads per change of its table, not one per version.
    func trace(_ start: Place, from later: Int, to earlier: Int) -> (place: Place, version: Int)? {
        lock.lock()
        defer { lock.unlock() }
        var current = start
        var version = later
        while version > earlier {
            let table: Int
            switch current {
            case .table(let position), .column(let position, _): table = position
            case .jsonMember:
                guard let previous = stepBack(current, at: version) else { return nil }
                current = previous
                version -= 1
                continue
            }
            let run = runStart(table: table, at: version)
            if run.version <= earlier { return (current, version) }
            let first: Place =
                switch current {
                case .table: .table(run.table)
                case .column(_, let column): .column(table: run.table, column: column)
                case .jsonMember: current
                }
            guard let previous = stepBack(first, at: run.version) else { return nil }
            current = previous
            version = run.version - 1
        }
        return (current, version)
    }

    /// The column at `earlier`, then at each later version up to `later` where it differs from the version
    /// before (or states a change: enum cases, a struct's members; with deferred tables, where its table
    /// changes), oldest first, each as the version and the
    /// column's (table, column) positions at `source` (a version of the same run, where the table and the
    /// column are as they are at `version`); nil unless it is a column at every version. The versions left
    /// out hold the previous version's column as it is.
    ///
    /// Walks the table's runs of unchanged versions (``runStart(table:at:)``), not its versions, and keeps
    /// the walk from each start (``ColumnChain``): the routes ask each column of a table at the newest version
    /// about every earlier run of its table, so a walk made again for each cost time quadratic in the
    /// history, as listing every run its table went through did.
    func columnChanges(from start: (table: Int, column: Int), at later: Int, to earlier: Int) -> [(
        version: Int, source: Int, table: Int, column: Int
    )]? {
        lock.lock()
        defer { lock.unlock() }
        guard later > earlier else { return [(earlier, later, start.table, start.column)] }
        let key = ChainKey(version: later, table: start.table, column: start.column)
        var chain = columnChains.removeValue(forKey: key) ?? ColumnChain(next: (start.table, start.column, later))
        defer { columnChains[key] = chain }
        // The first of its runs that `earlier` is in (the runs go back in time), made as far as needed.
        let first: (source: Int, table: Int, column: Int)
        // How many of the steps are after `earlier`'s run.
        var after = 0
        while true {
            if let last = chain.steps.last, last.run <= earlier {
                var low = 0
                var high = chain.steps.count - 1
                while low < high {
                    let middle = (low + high) / 2
                    if chain.steps[middle].run <= earlier { high = middle } else { low = middle + 1 }
                }
                first = (chain.steps[low].source, chain.steps[low].table, chain.steps[low].column)
                after = low
                break
            }
            guard let next = chain.next else { return nil }
            if next.version <= earlier {
                first = (next.version, next.table, next.column)
                after = chain.steps.count
                break
            }
            let run = runStart(table: next.table, at: next.version)
            let step = ColumnChain.Step(run: run.version, source: next.version, table: next.table, column: next.column)
            chain.steps.append(step)
            chain.next = nil
            // The change that starts the run: where the column was the version before.
            guard run.version > 0, case .column(let table, let column)? = columnStepBack(table: run.table, at: run.version)[step.column]
            else { continue }
            chain.next = (table, column, run.version - 1)
            if states(step, differentFrom: (run.version - 1, table, column)) { chain.changed.append(chain.steps.count - 1) }
        }
        var places = [(earlier, first.source, first.table, first.column)]
        // The runs after it where the column changed, oldest first.
        for index in chain.changed.reversed() where index < after {
            let step = chain.steps[index]
            places.append((step.run, step.source, step.table, step.column))
        }
        return places
    }

    /// Whether `newer` (a run of a column's walk back) holds the column otherwise than `older`, the run
    /// before it: another table name or column, or one stating a change (then each run counts).
    private func states(_ newer: ColumnChain.Step, differentFrom older: (source: Int, table: Int, column: Int)) -> Bool {
        // A generated registry's deferred tables are built only where a step reads them: every run counts.
        guard versions[newer.source].deferredTable(at: newer.table) == nil, versions[older.source].deferredTable(at: older.table) == nil
        else { return true }
        let newTable = versions[newer.source].table(at: newer.table)
        let oldTable = versions[older.source].table(at: older.table)
        let column = newTable.columns[newer.column]
        return newTable.name != oldTable.name || column != oldTable.columns[older.column] || column.caseChanges != nil
            || column.jsonStructChange != nil
    }

    /// A column's walk back from one version, run by run, made as far as a question needed and kept.
    private struct ColumnChain {
        struct Step {
            /// The run's first version.
            var run: Int
            /// The version the place is read at (the run's last one the walk reached), and the place.
            var source: Int
            var table: Int
            var column: Int
        }

        /// Newest first.
        var steps: [Step] = []
        /// The positions `i` (ascending) whose step holds the column otherwise than step `i + 1`.
        var changed: [Int] = []
        /// Where the column was the version before the last step's run (or `later` itself, before the first
        /// step), not yet walked; nil when it was no column there (or the run starts at the first version).
        var next: (table: Int, column: Int, version: Int)?
    }

    private struct ChainKey: Hashable {
        var version: Int
        var table: Int
        var column: Int
    }

    // MARK: Under the lock

    private func stepBack(_ place: Place, at version: Int) -> Place? {
        switch place {
        case .table(let table):
            return tableStepBack(table, at: version)
        case .column(let table, let column):
            return columnStepBack(table: table, at: version)[column]
        case .jsonMember(let table, let column, let path):
            // The JSON column's own lineage, the member path unchanged.
            guard case .column(let previousTable, let previousColumn)? = columnStepBack(table: table, at: version)[column] else {
                return nil
            }
            return .jsonMember(table: previousTable, column: previousColumn, path: path)
        }
    }

    private func tableStepBack(_ table: Int, at version: Int) -> Place? {
        if let known = tableBack[version]?[table] { return known }
        if tableBack[version] == nil { tableBack[version] = Array(repeating: nil, count: names(version).count) }
        let resolved = resolveTableBack(table, at: version)
        tableBack[version]![table] = .some(resolved)
        return resolved
    }

    private func resolveTableBack(_ position: Int, at version: Int) -> Place? {
        let table = table(position, at: version)
        guard table.reusesName != true else { return nil }
        if let column = table.convertedFromColumn {
            guard let owner = table.foreignKeys.first(where: { $0.columns == [LinkTable.columns(of: table).source] })?.table,
                let ownerNow = tablePosition(owner, at: version),
                case .table(let previousOwner)? = tableStepBack(ownerNow, at: version),
                let previousColumn = columnPosition(column, table: previousOwner, at: version - 1)
            else { return nil }
            return .column(table: previousOwner, column: previousColumn)
        }
        // Most tables are where they were, under their name: no lookup.
        let previous = names(version - 1)
        if table.renamedFrom == nil, position < previous.count, previous[position] == table.name { return .table(position) }
        return tablePosition(table.renamedFrom ?? table.name, at: version - 1).map(Place.table)
    }

    private func identicalSince(table position: Int, at version: Int) -> Int {
        if let known = identicalFrom[version]?[position] { return known }
        if identicalFrom[version] == nil { identicalFrom[version] = Array(repeating: nil, count: names(version).count) }
        let since = identicalPrevious(table: position, at: version).map { identicalSince(table: $0, at: version - 1) } ?? version
        identicalFrom[version]![position] = since
        return since
    }

    /// Whether the table at `position` of `later` is identical at every version back to `earlier`, walked
    /// no further back than `earlier` (a store one version behind asks one version of each table).
    private func isIdentical(table position: Int, from earlier: Int, to later: Int) -> Bool {
        var position = position
        var version = later
        while version > earlier {
            if let since = identicalFrom[version]?[position] { return since <= earlier }
            guard let previous = identicalPrevious(table: position, at: version) else { return false }
            position = previous
            version -= 1
        }
        return true
    }

    /// The position at `version - 1` of the table at `position` of `version` when the two are identical
    /// (same name, equal), else nil.
    private func identicalPrevious(table position: Int, at version: Int) -> Int? {
        if let known = identicalBack[version]?[position] { return known }
        if identicalBack[version] == nil { identicalBack[version] = Array(repeating: nil, count: names(version).count) }
        var result: Int?
        let name = names(version)[position]
        if version > 0, let previous = tablePosition(name, at: version - 1), names(version - 1)[previous] == name {
            // A generated registry states each distinct table once: the same constant is the same table, two
            // constants two tables, and neither is built to know it. Built tables are compared.
            let same: Bool
            switch (versions[version].deferredTable(named: name), versions[version - 1].deferredTable(named: name)) {
            case (let constant?, let before?): same = constant === before
            default: same = table(previous, at: version - 1) == table(position, at: version)
            }
            if same { result = previous }
        }
        identicalBack[version]![position] = .some(result)
        return result
    }

    /// The first version of the run of versions, ending at `version`, where the table at position `table`
    /// states no change (``TableLinks/unchanged``: same name, equal columns), and its position there. Within
    /// a run every column is at the same position and equal.
    private func runStart(table position: Int, at version: Int) -> (version: Int, table: Int) {
        if let known = runStarts[version]?[position] { return known }
        if runStarts[version] == nil { runStarts[version] = Array(repeating: nil, count: names(version).count) }
        var start = (version: version, table: position)
        if version > 0 {
            let links = columnStepBack(table: position, at: version)
            if links.unchanged, let previous = links.previousTable { start = runStart(table: previous, at: version - 1) }
        }
        runStarts[version]![position] = start
        return start
    }

    /// Every column's back links of one table at `version`, resolved together (a walk asks for most of
    /// them, and they share the table's own back link).
    private func columnStepBack(table position: Int, at version: Int) -> TableLinks {
        if let known = columnBack[version]?[position] { return known }
        if columnBack[version] == nil { columnBack[version] = Array(repeating: nil, count: names(version).count) }
        let resolved = resolveColumnBack(table: position, at: version)
        columnBack[version]![position] = resolved
        return resolved
    }

    private func resolveColumnBack(table position: Int, at version: Int) -> TableLinks {
        let columns = table(position, at: version).columns
        guard case .table(let previousTable)? = tableStepBack(position, at: version) else {
            // Only a column that was a join table has an origin in a table that did not exist before.
            return TableLinks(
                previousTable: nil,
                columns: columns.map { column in
                    column.reusesName != true
                        ? column.convertedFromJoinTable.flatMap { tablePosition($0, at: version - 1) }.map(Place.table) : nil
                }, unchanged: false)
        }
        // Most tables of a long history are the previous version's table itself (a generated registry
        // shares it, and equal arrays of the same storage compare in constant time): their columns are
        // where they were, and nothing is looked up by name.
        if names(version - 1)[previousTable] == names(version)[position], table(previousTable, at: version - 1).columns == columns,
            !statesChange(table: position, at: version, columns: columns)
        {
            return TableLinks(previousTable: previousTable, columns: nil, unchanged: true)
        }
        return TableLinks(
            previousTable: previousTable,
            columns: columns.map { column -> Place? in
                guard column.reusesName != true else { return nil }
                if let join = column.convertedFromJoinTable { return tablePosition(join, at: version - 1).map(Place.table) }
                if let source = column.extractedFrom, let path = column.jsonPath {
                    return columnPosition(source, table: previousTable, at: version - 1).map {
                        .jsonMember(table: previousTable, column: $0, path: path)
                    }
                }
                return columnPosition(column.renamedFrom ?? column.name, table: previousTable, at: version - 1).map {
                    .column(table: previousTable, column: $0)
                }
            }, unchanged: false)
    }

    /// Whether a column of the table at `position` of `version` states a change (``changesAtItsVersion(_:)``):
    /// once per distinct deferred table (a generated registry's constant, which the versions that have it share:
    /// a long history asks of every table at every version, and each asking read every column).
    private func statesChange(table position: Int, at version: Int, columns: [SchemaColumn]) -> Bool {
        guard let deferred = versions[version].deferredTable(at: position) else { return columns.contains(where: Self.changesAtItsVersion) }
        let key = ObjectIdentifier(deferred)
        if let known = tableStatesChange[key] { return known }
        let states = columns.contains(where: Self.changesAtItsVersion)
        tableStatesChange[key] = states
        return states
    }

    /// Whether a column states a change made at its version (then it cannot be the previous version's
    /// column as it is, even when the two are equal).
    private static func changesAtItsVersion(_ column: SchemaColumn) -> Bool {
        column.reusesName == true || column.renamedFrom != nil || column.convertedFromJoinTable != nil || column.extractedFrom != nil
            || column.caseChanges != nil || column.jsonStructChange != nil
    }

    private func names(_ version: Int) -> [String] {
        if let known = tableNames[version] { return known }
        let names = versions[version].tableNames
        tableNames[version] = names
        return names
    }

    private func table(_ position: Int, at version: Int) -> SchemaTable {
        versions[version].table(at: position)
    }

    private func tablePosition(_ name: String, at version: Int) -> Int? {
        if let index = tableIndex[version] { return index[sqlNameKey(name)] }
        let names = names(version)
        let index = Dictionary(names.indices.map { (sqlNameKey(names[$0]), $0) }, uniquingKeysWith: { first, _ in first })
        tableIndex[version] = index
        return index[sqlNameKey(name)]
    }

    private func columnPosition(_ name: String, table: Int, at version: Int) -> Int? {
        if let index = columnIndex[version]?[table] { return index[sqlNameKey(name)] }
        if columnIndex[version] == nil { columnIndex[version] = Array(repeating: nil, count: names(version).count) }
        let columns = self.table(table, at: version).columns
        let index = Dictionary(columns.indices.map { (sqlNameKey(columns[$0].name), $0) }, uniquingKeysWith: { first, _ in first })
        columnIndex[version]![table] = index
        return index[sqlNameKey(name)]
    }
}
