import Foundation
import GRDB
@_spi(Generated) import LucidSchema

/// Writes a store's compatibility record (``LedgerTables/Compatibility``): for every version V of the
/// history up to the store's version N, V's checksum and the first change between V and N that breaks
/// ``AdditiveRule`` (NULL when every step V → … → N is additive). What an older app at V reads to decide
/// whether it may keep working on the store (``StoreOptions/IncompatibleStorePolicy/openIfAdditive``).
///
/// Each consecutive step of the history is classified once per recorder, lazily: a migration from N−1
/// to N classifies one step, and the record is updated (not rewritten) when it already has N−1's row,
/// which it has whenever this runtime wrote it. A full rewrite happens when a store is created, adopted,
/// or migrated for the first time by a runtime that records compatibility.
///
/// A step is classified by ``AdditiveRule/changes(from:to:appCode:dataMigration:)``, with `appCode` when
/// a stage (the history's, or one the app declares or provides in ``StoreOptions``) spans the step and
/// `dataMigration` when a ``DataMigration`` runs at a version of the step.
package final class CompatibilityRecorder {
    let history: SchemaHistory
    private let stages: [(from: SchemaVersion, to: SchemaVersion, label: String)]
    private let dataMigrations: [(version: SchemaVersion, label: String)]
    /// The first breaking change of step i (versions[i] → versions[i + 1]); `.some(nil)`: additive.
    private var classified: [Int: AdditiveRule.Change?] = [:]
    private var indexes: [SchemaVersion: Int] = [:]

    init(history: SchemaHistory, options: StoreOptions) {
        self.history = history
        self.stages =
            history.stages.map { ($0.from, $0.to, $0.label) } + options.declaredStages.map { ($0.from, $0.to, $0.label) }
            + options.stages.map { ($0.from, $0.to, $0.label) }
        self.dataMigrations = options.dataMigrations.map { ($0.version, $0.label) }
        for (index, schema) in history.versions.enumerated() where indexes[schema.version] == nil { indexes[schema.version] = index }
    }

    convenience init(history: SchemaHistory, dataMigrations: [DataMigration]) {
        var options = StoreOptions()
        options.dataMigrations = dataMigrations
        self.init(history: history, options: options)
    }

    /// The first change of step `index` (versions[index] → versions[index + 1]) that breaks the rule.
    func firstChange(ofStep index: Int) -> AdditiveRule.Change? {
        if let known = classified[index] { return known }
        let old = history.versions[index]
        let new = history.versions[index + 1]
        var appCode: [String] = []
        // A stage the history declares and the app provides is one stage.
        for stage in stages where stage.from < new.version && stage.to > old.version && !appCode.contains(stage.label) {
            appCode.append(stage.label)
        }
        let data = dataMigrations.filter { $0.version > old.version && $0.version <= new.version }.map(\.label)
        let first = AdditiveRule.changes(
            from: old, to: new, appCode: appCode.isEmpty ? nil : appCode.joined(separator: ", "),
            dataMigration: data.isEmpty ? nil : data.joined(separator: ", ")
        ).first
        classified[index] = .some(first)
        return first
    }

    /// One row of the record for the store at `versions[target]`.
    struct Row: Equatable {
        var version: SchemaVersion
        var checksum: String
        var firstIncompatibleChange: String?
        var firstIncompatibleAt: SchemaVersion?
    }

    /// The rows for versions[from...target], relative to versions[target]: walking back from the target,
    /// each version keeps the earliest breaking step between it and the target.
    func rows(from start: Int = 0, target: Int) -> [Row] {
        var rows: [Row] = []
        var first: (change: AdditiveRule.Change, at: SchemaVersion)?
        var index = target
        while index >= start {
            if index < target, let change = firstChange(ofStep: index) { first = (change, history.versions[index + 1].version) }
            let schema = history.versions[index]
            // The generated checksum by position (`checksum(of:)` would look the version up).
            let checksum = history.checksums?[index] ?? schema.checksum
            rows.append(
                Row(
                    version: schema.version, checksum: checksum, firstIncompatibleChange: first?.change.message,
                    firstIncompatibleAt: first?.at))
            index -= 1
        }
        return rows.reversed()
    }

    /// The store's row of `version` (what an older app at `version` reads), or nil when the store has no
    /// such row or no compatibility record at all (written before it existed). Reads only.
    static func row(of version: SchemaVersion, _ db: Database) throws -> Row? {
        typealias K = LedgerTables.Compatibility
        let row: GRDB.Row?
        do {
            row = try GRDB.Row.fetchOne(
                db,
                sql: "SELECT \(K.checksum), \(K.firstIncompatibleChange), \(K.firstIncompatibleAt) FROM \(K.name) WHERE \(K.version) = ?",
                arguments: [version.string])
        } catch let error as DatabaseError where Bookkeeping.isMissingObject(error) {
            return nil
        }
        return row.map { row in
            Row(
                version: version, checksum: row[K.checksum], firstIncompatibleChange: row[K.firstIncompatibleChange],
                firstIncompatibleAt: (row[K.firstIncompatibleAt] as String?).flatMap { try? SchemaVersion(parsing: $0) })
        }
    }

    /// A data migration at version V ran on a store already past V (added by an app update): every older
    /// version whose first breaking change was later than V (or that had none) now has this one. A store
    /// without the record (written before it existed) is left so: older apps refuse it anyway.
    static func recordLateDataMigration(_ migration: DataMigration, _ db: Database) throws {
        typealias K = LedgerTables.Compatibility
        guard try db.tableExists(K.name) else { return }
        let change = AdditiveRule.Change(.dataMigration, "a data migration runs at \(migration.version) (\(migration.label))")
        let rows = try GRDB.Row.fetchAll(db, sql: "SELECT \(K.version), \(K.firstIncompatibleAt) FROM \(K.name)")
        for row in rows {
            guard let version = try? SchemaVersion(parsing: row[0] as String), version < migration.version else { continue }
            let at = (row[1] as String?).flatMap { try? SchemaVersion(parsing: $0) }
            if let at, at <= migration.version { continue }
            try db.execute(
                sql: "UPDATE \(K.name) SET \(K.firstIncompatibleChange) = ?, \(K.firstIncompatibleAt) = ? WHERE \(K.version) = ?",
                arguments: [change.message, migration.version.string, row[0] as String])
        }
    }

    /// Records compatibility for the store now at `version`, in the caller's transaction (the one that
    /// writes the version record; the ledger tables exist). `previous`: the version the store was at
    /// before this transaction's step, when the record has its row (``Bookkeeping/StepStart``): then
    /// only the rows that change are written.
    package func record(_ db: Database, at version: SchemaVersion, previous: SchemaVersion? = nil) throws {
        typealias K = LedgerTables.Compatibility
        guard let target = indexes[version] else { return }
        let insert = try db.cachedStatement(
            sql:
                "INSERT OR REPLACE INTO \(K.name) (\(K.version), \(K.checksum), \(K.firstIncompatibleChange), \(K.firstIncompatibleAt)) VALUES (?, ?, ?, ?)"
        )
        func write(_ rows: [Row]) throws {
            for row in rows {
                try insert.execute(arguments: [
                    row.version.string, row.checksum, row.firstIncompatibleChange, row.firstIncompatibleAt?.string,
                ])
            }
        }
        if let previous, let start = indexes[previous], start <= target {
            // Rows up to `previous` keep their first breaking change; the additive ones take this path's first.
            if let first = (start..<target).lazy.compactMap({ index in
                self.firstChange(ofStep: index).map { ($0, self.history.versions[index + 1].version) }
            }).first {
                try db.execute(
                    sql:
                        "UPDATE \(K.name) SET \(K.firstIncompatibleChange) = ?, \(K.firstIncompatibleAt) = ? WHERE \(K.firstIncompatibleChange) IS NULL",
                    arguments: [first.0.message, first.1.string])
            }
            if start < target { try write(rows(from: start + 1, target: target)) }
            return
        }
        try db.execute(sql: "DELETE FROM \(K.name)")
        try write(rows(target: target))
    }
}
