import Foundation
import GRDB
@_spi(Generated) import LucidSchema

// What a store is and the path opening it would take, without changing it.
extension StoreMigrator {
    func inspect() throws(StoreError) -> StoreStatus {
        var decision = try decide()
        // With acceptsInferableDrift a drifted store is what opening it makes it first: the version it is
        // brought to, with each repair (read here, made by the open); refused with what is not inferable.
        var drift: [String] = []
        if options.acceptsInferableDrift, let (schema, recorded, differences, tablesMatch) = drifted(decision) {
            drift = try previewDrift(to: schema, differences: differences, tablesMatch: tablesMatch, recorded: recorded)
            decision = .known(schema, recorded: recorded)
        }
        if let (error, _) = decision.refusal(path: path, versions: versions, options: options) { throw error }
        if case .coreData(let layout) = decision, let conversion = options.conversion {
            return try conversion.inspect(layout: layout, by: self)
        }
        guard case .known(let schema, let recorded, _) = decision else {
            return StoreStatus(
                start: decision.state!, version: nil, checksum: nil, adopted: false, steps: [], rowCounts: [:], pendingCleanup: 0)
        }
        let steps: [MigrationStep]
        do {
            steps = try plan(from: schema.version)
        } catch {
            throw .planning(error)
        }
        let queue = try makeQueue()
        defer { Self.closeLeavingFilesAsTheyAre(queue) }
        let began = Date()
        do {
            return try queue.read { db in
                try db.withoutAttaching {
                    // Damage anywhere in the file: what a migration could meet in any page it reads. `lucidgen
                    // migrate` inspects first too, so `plan` and `migrate` refuse a damaged store alike.
                    try checkPages(db)
                    let pending = try PendingCleanup.items(db, accounting: cleanupAccounting(at: schema))
                    let owned = OwnedNames([schema], pendingCleanup: pending)
                    var counts: [String: Int] = [:]
                    for table in try StoreSchemaReader.tables(db, owned: owned).values {
                        counts[table.name] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(table.name))") ?? 0
                    }
                    var status = StoreStatus(
                        start: decision.state!, version: schema.version, checksum: history.checksum(of: schema), adopted: !recorded,
                        steps: steps,
                        rowCounts: counts, pendingCleanup: try PendingCleanup.rows(db).count)
                    status.drift = drift
                    status.appObjects = try AppObjects.read(db, owned: owned)
                    if !recorded { status.userVersionDisagreement = try rungDisagreement(db, recognised: schema.version) }
                    // Step after step, with the objects as each step leaves them (renames followed); a step's
                    // pending cleanup runs first, as when migrating.
                    var objects = status.appObjects
                    var cleanup = pending
                    for step in steps {
                        guard let source = versions.first(where: { $0.version == step.from }) else { continue }
                        let tables = Set(step.operations.flatMap(\.tableNames))
                        let mine = cleanup.filter { item in tables.contains { sameSQLName($0, item.table) } }
                        cleanup.removeAll { item in tables.contains { sameSQLName($0, item.table) } }
                        let conflicts = AppObjectConflict.find(
                            in: AppObjectConflict.operations(of: mine) + step.operations, from: source, objects: &objects)
                        if !conflicts.isEmpty { status.appObjectConflicts.append(.init(step: step, conflicts: conflicts)) }
                    }
                    return status
                }
            }
        } catch {
            throw Self.storeError(error, path: path, step: "inspect", version: schema.version, since: began)
        }
    }

    /// Reads every page of the store (`PRAGMA quick_check`) and throws ``StoreError/corrupt(path:message:)``
    /// for damage anywhere, without changing it.
    package func checkPages() throws(StoreError) {
        let queue = try makeQueue()
        defer { Self.closeLeavingFilesAsTheyAre(queue) }
        let began = Date()
        do {
            try queue.read { db in try checkPages(db) }
        } catch {
            throw Self.storeError(error, path: path, step: "inspect", version: nil, since: began)
        }
    }

    private func checkPages(_ db: Database) throws {
        let problems = try String.fetchAll(db, sql: "PRAGMA quick_check(5)")
        if problems != ["ok"] {
            let lines = problems.flatMap { $0.split(separator: "\n") }.filter { !$0.hasPrefix("***") }
            throw StoreError.corrupt(path: path, message: "PRAGMA quick_check: " + lines.prefix(3).joined(separator: "; "))
        }
    }
}

extension StoreMigrator {
    /// A drifted store's version, whether it records it, and its differences: a record its tables contradict,
    /// or no record and tables nearest one version's (what ``StoreOptions/acceptsInferableDrift`` may repair).
    func drifted(_ decision: Decision) -> (Schema, recorded: Bool, differences: [String], tablesMatch: SchemaVersion?)? {
        switch decision {
        case .contradicted(let version, let differences, let tablesMatch):
            versions.first { $0.version == version }.map { ($0, true, differences, tablesMatch) }
        case .unrecognized(let differences, let version?):
            versions.first { $0.version == version }.map { ($0, false, differences, nil) }
        default: nil
        }
    }

    /// The repairs opening a drifted store would make (``driftRepairPlan(_:to:)``), without changing it;
    /// throws the open's refusal when one difference is not inferable.
    func previewDrift(to schema: Schema, differences: [String], tablesMatch: SchemaVersion?, recorded: Bool) throws(StoreError)
        -> [String]
    {
        let queue = try makeQueue()
        defer { Self.closeLeavingFilesAsTheyAre(queue) }
        let plan: DriftRepairPlan
        do {
            plan = try queue.read { db in try db.withoutAttaching { try driftRepairPlan(db, to: schema) } }
        } catch {
            throw Self.storeError(error, path: path, step: "inspect", version: schema.version, since: Date())
        }
        guard plan.left.isEmpty, !plan.repairs.isEmpty else {
            let left =
                differences
                + (plan.left.isEmpty ? [] : ["not inferable (StoreOptions.acceptsInferableDrift): " + plan.left.joined(separator: "; ")])
            throw recorded
                ? .recordContradictsTables(path: path, version: schema.version, differences: left, tablesMatch: tablesMatch)
                : .unrecognizedSchema(path: path, differences: left)
        }
        return plan.repairs.map(\.words)
    }
}
