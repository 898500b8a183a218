import Foundation
@_spi(Generated) import LucidSchema

/// What one call that opened or migrated a store did — not what the store needed when it was looked
/// at, which another process may have done meanwhile.
///
/// ```swift
/// let outcome = try LucidStore.open(atPath: path, registry: FlightLogSchema.self).outcome
/// print(outcome)   // "migrated from 1.0 to 3.0 in 3 steps: 1.0 → 2.0, moveFlightData, 2.1 → 3.0"
///                  // or "waited 0.8 s for another process, which migrated the store from 1.0 to 3.0; nothing left to do"
/// ```
public struct MigrationOutcome: Sendable, Equatable, CustomStringConvertible {
    /// What the store was when this call first looked at it: ``StoreState``, which ``StoreStatus`` shares.
    @available(*, deprecated, renamed: "StoreState")
    public typealias Start = StoreState

    /// One step this call ran and committed.
    public struct Step: Sendable, Equatable {
        /// The version before the step.
        public var from: SchemaVersion
        /// The version after the step.
        public var to: SchemaVersion
        /// The step's label, e.g. `1.0 → 2.0 (inferred)`.
        public var label: String

        package init(from: SchemaVersion, to: SchemaVersion, label: String) {
            self.from = from
            self.to = to
            self.label = label
        }
    }

    /// What the store was when this call first looked at it.
    public var start: StoreState
    /// The store's version when the call returned.
    public var finalVersion: SchemaVersion
    /// Whether this call created the schema (a new file, an empty file or an empty database).
    public var created: Bool
    /// The steps this call ran, in order.
    public var steps: [Step]
    /// A change another process made while this call waited for its lock: the version this call had
    /// seen (nil: no schema yet) and the one it found after the wait.
    public struct Elsewhere: Sendable, Equatable {
        /// The version this call had seen (nil: no schema yet).
        public var from: SchemaVersion?
        /// The version it found after waiting.
        public var to: SchemaVersion
    }

    /// A store this call converted from Core Data: its report (LucidCoreData's `coreDataConversion`).
    package var conversionReport: ConversionReport?
    /// A store whose tables contradicted its record, brought back to the recorded version
    /// (``StoreOptions/acceptsInferableDrift``): each repair, e.g. `added column note.pinned (its default 0)`.
    /// Empty otherwise.
    public var drift: [String] = []
    /// What other processes did while this call waited, in order.
    public var elsewhere: [Elsewhere] = []
    /// Time spent waiting for another connection's lock (`BEGIN IMMEDIATE`), in seconds.
    public var lockWait: TimeInterval
    /// The store could not be migrated and ``StoreOptions/IncompatibleStorePolicy/openReadOnly`` opened
    /// it read-only, unchanged.
    public var openedReadOnly = false
    /// With ``openedReadOnly``: what the store lacks of this app's newest version, which the connection
    /// reads through temporary views of the tables' names (in memory, never in the file): a missing
    /// column as its default or NULL (`pilot.rank (its default 1)`, `pilot.nickname (NULL)`), a missing
    /// table as no rows (`badge (no such table: no rows)`). Empty when the store has every table and
    /// column this app reads: then no view was made.
    public var readOnlyStandIns: [String] = []
    /// ``StoreOptions/IncompatibleStorePolicy/eraseAndRecreate`` erased the store before creating it.
    public var erased = false
    /// The store was written by a newer app (at ``finalVersion``), every step from this app's newest
    /// version to it is additive, and ``StoreOptions/IncompatibleStorePolicy/openIfAdditive`` opened it
    /// read-write, unmigrated: its version record, schema and ledger are unchanged. This app's newest
    /// version is the one ``start`` does not name: see ``olderAppVersion``.
    public var openedNewerAdditiveStore = false
    /// With ``openedNewerAdditiveStore``: this app's newest version, which the store is compatible with.
    public var olderAppVersion: SchemaVersion?

    package init(start: StoreState, finalVersion: SchemaVersion) {
        self.start = start
        self.finalVersion = finalVersion
        self.created = false
        self.steps = []
        self.lockWait = 0
    }

    /// Whether this call changed the store's schema or version.
    public var changedTheStore: Bool { created || !steps.isEmpty || erased }

    /// One sentence, e.g. "migrated from 1.0 to 2.0 in 1 step: 1.0 → 2.0" or "waited 0.8 s for another
    /// process, which migrated the store from 1.0 to 2.0; nothing left to do".
    public var description: String {
        if openedNewerAdditiveStore {
            return
                "opened the store at \(finalVersion), newer than this app's \(olderAppVersion?.string ?? "newest version"), read-write and unmigrated: every step since is additive (the app's newer-store policy)"
        }
        if openedReadOnly {
            let standIns =
                readOnlyStandIns.isEmpty ? "" : "; what it lacks of this app's tables reads as: " + readOnlyStandIns.joined(separator: ", ")
            return "opened read-only at \(finalVersion), unmigrated (the app's policy for a store it cannot migrate)\(standIns)"
        }
        var parts: [String] = erased ? ["erased the store (the app's policy for a store it cannot migrate)"] : []
        if lockWait >= 0.05 || !elsewhere.isEmpty {
            let by = elsewhere.map { item in
                item.from.map { "migrated the store from \($0) to \(item.to)" } ?? "created the store at \(item.to)"
            }
            parts.append(
                "waited \(String(format: lockWait < 0.1 ? "%.3f" : "%.1f", lockWait)) s for another process"
                    + (by.isEmpty ? "" : ", which " + by.joined(separator: " and ")))
        }
        let origin: String =
            switch start {
            case .newFile: "created the store at \(finalVersion)"
            case .emptyFile: "the file was empty (0 bytes), as SQLite reads a new database; created the store at \(finalVersion) in it"
            case .emptyDatabase: "initialised the database (no lucidgen table in it) at \(finalVersion)"
            case .version(let version, _): "migrated from \(steps.first?.from ?? version) to \(finalVersion)"
            }
        if case .version(let version, let adopted) = start, !drift.isEmpty {
            parts.append(
                adopted
                    ? "brought the store's tables to \(version), the nearest version (\(drift.joined(separator: "; "))), and adopted it"
                    : "brought the store's tables back to \(version), the version it records (\(drift.joined(separator: "; ")))")
        }
        if created {
            parts.append(origin)
        } else if !steps.isEmpty {
            // A Core Data store's first step is its conversion, which says how it was recognised.
            let converted = steps[0].from == steps[0].to && steps[0].label.hasPrefix("converted from Core Data")
            let adopted =
                if case .version(_, true) = start, !converted, drift.isEmpty { "recognised the store from its tables, " } else { "" }
            let how =
                converted && steps.count == 1
                ? steps[0].label
                : "\(adopted)\(origin) in \(steps.count) step\(steps.count == 1 ? "" : "s"): \(steps.map(\.label).joined(separator: ", "))"
            parts.append(how)
        } else if case .version(_, true) = start, !drift.isEmpty {
            // Said above: brought to the version, and adopted.
        } else if case .version(let version, true) = start, elsewhere.isEmpty {
            // An adopted store: this call wrote lucidgen's record into a store that had none.
            parts.append("adopted the store at \(version): its tables are \(version)'s, and lucidgen's record of it is written")
        } else if elsewhere.isEmpty {
            parts.append("already at \(finalVersion)")
        } else {
            parts.append("nothing left to do")
        }
        return parts.joined(separator: "; ")
    }
}
