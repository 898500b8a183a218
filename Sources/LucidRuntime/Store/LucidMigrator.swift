import Foundation
import GRDB
@_spi(Generated) import LucidSchema

/// Migrates a database connection the app already holds (a `DatabaseQueue` or a `DatabasePool`) to
/// the newest version, as GRDB's `DatabaseMigrator.migrate(_:)` does.
///
/// ```swift
/// let pool = try DatabasePool(path: url.path)
/// var options = StoreOptions()
/// options.stages = FlightLogSchema.stages(using: FlightLogStages())
/// try LucidMigrator(registry: FlightLogSchema.self, options: options).migrate(pool)
/// let aircraft = try pool.read { db in try Aircraft.fetchAll(db) }
/// ```
///
/// It decides what the database is exactly as ``LucidStore/open(atPath:registry:options:)`` does (an
/// empty database is created at the newest version, a known version is migrated along the cheapest
/// path, a newer or unknown store is refused with a ``StoreError`` and left unchanged) and runs the
/// same steps, each in its own transaction with the store's version record.
///
/// **Readers.** The whole call runs under one barrier of the writer
/// (`barrierWriteWithoutTransaction`): on a `DatabasePool`, reads started before it finish first,
/// reads started meanwhile wait until the migration is over and then see the newest version; no read
/// ever sees a half-migrated store. On a `DatabaseQueue` every access is serialised anyway.
///
/// **What stays the app's.** The connection's configuration is the app's own: its busy mode (not
/// ``StoreOptions/busyTimeout``; this call does not change it), its `foreignKeysEnabled` (switched off
/// during steps, as SQLite requires for schema changes, and back on after, failing loudly if that
/// fails) and its journal mode.
/// The file policies of ``StoreOptions`` apply as far as a held connection allows:
/// ``StoreOptions/IncompatibleStorePolicy/refuse`` and
/// ``StoreOptions/IncompatibleStorePolicy/openReadOnly`` both throw (a held writer cannot be made
/// read-only: open a read-only connection yourself on ``StoreError/storeIsNewer(storeVersion:newestKnown:)``),
/// and ``StoreOptions/IncompatibleStorePolicy/eraseAndRecreate`` erases the database in place
/// (GRDB's `erase()`) and creates it at the newest version.
/// ``StoreOptions/IncompatibleStorePolicy/openIfAdditive`` works as with a file: a newer store whose
/// steps since this app's newest version are all additive is left as it is for the app to write
/// (``MigrationOutcome/openedNewerAdditiveStore``), any other is refused and unchanged.
///
/// **Locks.** The app's busy mode decides how long a step waits for other connections. With
/// `.timeout(t)`, SQLite waits up to `t` at each lock a step needs: at its `BEGIN IMMEDIATE`, and, in
/// rollback-journal mode while another connection holds a read transaction, at each statement whose
/// page cache spills into the file and again at `COMMIT`; a step can then wait several times `t`
/// (the stores ``LucidStore`` opens bound the whole step by ``StoreOptions/busyTimeout``). In WAL
/// mode readers never block the step. A lock error (``StoreError/locked(path:waited:)``) reports how
/// long the failed step's transaction ran, its work included: the waits are the app's busy handler's,
/// which this call cannot see.
public struct LucidMigrator: Sendable {
    /// Every version and the steps that need the app's code.
    package let history: SchemaHistory
    /// Stages, data migrations, progress, logging (``StoreOptions/configuration`` and
    /// ``StoreOptions/busyTimeout`` do not apply: the connection is already made).
    public var options: StoreOptions

    /// A migrator for a generated registry, after checking that the registry's checksums agree with
    /// this runtime.
    ///
    /// ```swift
    /// let migrator = try LucidMigrator(registry: FlightLogSchema.self, options: FlightLogStages.storeOptions())
    /// ```
    public init<Registry: SchemaRegistry>(registry: Registry.Type, options: StoreOptions = StoreOptions()) throws(StoreError) {
        try LucidStore.checkRegistry(registry)
        self.init(history: SchemaHistory(registry: registry), options: options)
    }

    /// A migrator for a schema history.
    ///
    /// ```swift
    /// let migrator = LucidMigrator(history: SchemaHistory(registry: FlightLogSchema.self), options: options)
    /// ```
    package init(history: SchemaHistory, options: StoreOptions = StoreOptions()) {
        self.history = history
        self.options = options
    }

    /// A migrator for a list of versions (oldest first).
    ///
    /// ```swift
    /// let migrator = LucidMigrator(versions: FlightLogSchema.versions)
    /// ```
    package init(versions: [Schema], options: StoreOptions = StoreOptions()) {
        self.init(history: SchemaHistory(versions: versions), options: options)
    }

    /// Brings the database of `writer` to the newest version (see the type's documentation).
    ///
    /// ```swift
    /// let queue = try DatabaseQueue(path: path)
    /// try LucidMigrator(registry: FlightLogSchema.self).migrate(queue)
    /// ```
    ///
    /// Returns what this call did (see ``MigrationOutcome``).
    @discardableResult
    public func migrate(_ writer: some DatabaseWriter) throws(StoreError) -> MigrationOutcome {
        let path = writer.path
        var migrator = try StoreMigrator(path: path, history: history, options: options)
        // The app's connection keeps the app's busy mode (see "What stays the app's").
        migrator.lockDeadline = nil
        do {
            return try migrator.bringUpToDate(writer)
        } catch let refusal as StoreMigrator.Refusal {
            guard refusal.policy == .eraseAndRecreate else { throw refusal.error }
            options.logger.warning("erasing the database, as the app's policy asks: \(refusal.error)")
            do {
                try writer.erase()
                var outcome = try migrator.bringUpToDate(writer)
                outcome.erased = true
                return outcome
            } catch {
                let mapped = StoreMigrator.storeError(error, path: path, step: "create", version: nil)
                if case .diskFull = mapped { throw StoreMigrator.diskFull(path: path, afterReading: writer) }
                throw mapped
            }
        } catch {
            let mapped = StoreMigrator.storeError(error, path: path, step: "open", version: nil)
            // In rollback-journal mode a full disk can leave the step's `-journal` hot: one read on the
            // app's writer rolls it back, unless another connection of the app holds a lock past its
            // busy timeout (then the error says the `-journal` must stay).
            if case .diskFull = mapped { throw StoreMigrator.diskFull(path: path, afterReading: writer) }
            throw mapped
        }
    }
}
