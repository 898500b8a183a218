import Foundation
@_spi(Generated) import LucidSchema

/// Why a store could not be opened or migrated. The store file is never changed when one of these is
/// thrown, except where the case says a migration step committed before it.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// The file is not an SQLite database.
    case notADatabase(path: String)
    /// SQLite reports the file damaged (truncated, corrupt).
    case corrupt(path: String, message: String)
    /// The file could not be opened or written (permissions, read-only media).
    case cannotWrite(path: String, message: String)
    /// The disk (or the store's size limit) is full; the step in progress was rolled back.
    ///
    /// `journalLeft`: in rollback-journal mode, SQLite could not roll the step back yet (another
    /// connection held a lock): the file may be half-written and its `-journal` beside it holds the
    /// original pages. SQLite rolls the step back when the store is next read, from the `-journal`,
    /// which must stay beside the file until then.
    case diskFull(path: String, journalLeft: Bool = false)
    /// Another connection (another process migrating or writing the store, or a transaction left open)
    /// held its lock longer than the busy timeout; `waited` is how long this call waited, in seconds: for
    /// a migration step, the sum of the step's lock waits, which ``StoreOptions/busyTimeout`` bounds.
    case locked(path: String, waited: TimeInterval)
    /// The store was written by a newer version of the app.
    case storeIsNewer(storeVersion: SchemaVersion, newestKnown: SchemaVersion)
    /// Under ``StoreOptions/IncompatibleStorePolicy/openIfAdditive``: the store, at `storeVersion`, is
    /// newer than this app's newest version `appVersion`, and a step between them is not additive (see
    /// `AdditiveRule`), or the store's record of `appVersion` is not this app's (another checksum), or its
    /// tables lack what `appVersion` expects. `firstIncompatibleChange` names the first such change, in
    /// words (e.g. `column note.text renamed to body`); `at` is the version it belongs to, when known.
    /// Nothing was changed.
    case newerStoreNotAdditive(storeVersion: SchemaVersion, appVersion: SchemaVersion, firstIncompatibleChange: String, at: SchemaVersion?)
    /// Under ``StoreOptions/IncompatibleStorePolicy/openIfAdditive``: the store, at `storeVersion`, is
    /// newer than this app's newest version `appVersion` and records no compatibility with it (written by
    /// a lucidgen runtime from before compatibility records, or by an app whose history lacks
    /// `appVersion`), so this app cannot know whether its writes are safe. Nothing was changed.
    case newerStoreRecordsNoCompatibility(storeVersion: SchemaVersion, appVersion: SchemaVersion)
    /// The store records a version this app does not know.
    case unknownVersion(SchemaVersion, known: [SchemaVersion])
    /// The store's recorded checksum is not the one this app has for that version: its schema was
    /// made by a different definition of the version.
    case checksumMismatch(version: SchemaVersion, stored: String, expected: String)
    /// The database has tables but no lucidgen bookkeeping, and its tables match no known version.
    case unrecognizedSchema(path: String, differences: [String])
    /// The store records `version` (with that version's checksum), but its tables are not that version's:
    /// `differences` says how, `tablesMatch` names the version they are, when they are exactly one. The
    /// record was edited or copied from another store, or the tables were changed by hand. Checked when
    /// the schema changed since the record was written, and on every open under
    /// ``StoreOptions/VersionRecordCheck/always`` (and by `lucidgen plan`, `status` and `migrate`).
    /// Nothing was changed.
    case recordContradictsTables(path: String, version: SchemaVersion, differences: [String], tablesMatch: SchemaVersion?)
    /// No path from the store's version to the target.
    case planning(PlanningError)
    /// The generated registry and this runtime disagree on a version's DDL checksum (regenerate).
    case registryMismatch(version: SchemaVersion, generated: String, runtime: String)
    /// A step needs an app stage that was not provided. Thrown when the path reaches a stage of
    /// the declared stages lucidgen's own tools pass (known to have no code here, as in `lucidgen migrate`): the steps
    /// before it may have committed. A stage of the app's registry without code is
    /// ``missingStages(path:storeVersion:target:missing:registry:)`` instead, before any step.
    case missingStage(String)
    /// The path from `storeVersion` to `target` runs stages whose code the app did not pass in
    /// ``StoreOptions/stages`` (or passed without a row transform a step needs): `missing` lists every
    /// one, with the Swift each needs. Checked before the path's first step, so nothing was changed and
    /// the store stays at `storeVersion` (under ``LucidStore/openTogether(_:options:)``, every store of the
    /// group). `registry` is the generated registry as `String(reflecting:)` spells it
    /// (`FlightLog.FlightLogSchema`), nil for a history made from versions.
    case missingStages(path: String, storeVersion: SchemaVersion, target: SchemaVersion, missing: [MissingStage], registry: String?)
    /// A step failed and was rolled back; the store stays at `version`.
    case stepFailed(step: String, version: SchemaVersion, message: String)
    /// A step's typed transform read a stored value that is no case of its enum (``UnknownEnumValueError``
    /// names table, row and column); the step was rolled back and the store stays at `version`.
    case unknownEnumValue(step: String, version: SchemaVersion, UnknownEnumValueError)
    /// After a step, the store's tables differ from the version's schema; the step was rolled back.
    case schemaMismatch(version: SchemaVersion, differences: [String])
    /// A step left rows whose foreign keys point nowhere (the first ones found, located); the step was
    /// rolled back.
    case foreignKeyViolation(step: String, violations: [DanglingReference])
    /// A step would lose data (e.g. a to-many relationship with several links becoming to-one); rolled back.
    case dataWouldBeLost(step: String, message: String)
    /// A step makes `columns` of `table` unique (a new `unique` index) but existing rows share values
    /// there: `duplicates` lists the first groups of rows that do (values and rowids), `groupCount` how
    /// many groups there are. The step was rolled back; the store is unchanged.
    case duplicateRows(step: String, table: String, columns: [String], index: String, duplicates: [DuplicateRows], groupCount: Int)
    /// A step rebuilds `table`, whose description declares a CHECK constraint (`constraint`: its name, or its
    /// expression when it has none) that the row of rowid `rowid` breaks. The step was rolled back; the store
    /// is unchanged.
    case checkFailed(step: String, table: String, constraint: String, rowid: Int64)
    /// The step from `from` to `to` cannot keep objects the app keeps in the store (``AppObject``): each
    /// conflict names the object, its SQL, and the column, table or name it stands in the way of. The step
    /// refused before its first statement (after the stage's `willMigrate`, which may drop such objects);
    /// nothing was changed and the store stays at `from`.
    case appObjectsInTheWay(step: String, from: SchemaVersion, to: SchemaVersion, conflicts: [AppObjectConflict])
    /// An object the app keeps in the store (a view or trigger, by SQLite's own check) no longer works
    /// after the step: `message` is SQLite's. The step was rolled back; the store stays at `version`.
    case appObjectBroken(step: String, version: SchemaVersion, kind: String, name: String, sql: String?, message: String)
    /// The SQL that `sqlite_master` holds for an object the app keeps, which a table rebuild must run
    /// again, is not one `CREATE` of that object's kind and name (a second statement after it, another
    /// name or kind): SQLite never stores that, so someone wrote it there. A store is untrusted input: the
    /// step refused before changing anything, and the store stays at `version`.
    case appObjectUnsafe(step: String, version: SchemaVersion, kind: String, name: String, sql: String, problem: String)

    /// ``problem`` then ``nextStep``, as printed by `lucidgen`.
    public var description: String {
        "\(problem)\(nextStep.isEmpty ? "" : ". \(nextStep)")"
    }

    /// What went wrong, in one sentence.
    public var problem: String {
        switch self {
        case .notADatabase(let path): "\(path) is not an SQLite database (nothing was changed)"
        case .corrupt(let path, let message): "\(path) is damaged: \(message) (any step in progress was rolled back)"
        case .cannotWrite(let path, let message): "cannot write \(path): \(message)"
        case .diskFull(let path, false): "the disk is full while migrating \(path); the step was rolled back"
        case .diskFull(let path, true):
            "the disk is full while migrating \(path); the step is not rolled back yet: its `-journal` beside the file holds the original pages, from which SQLite rolls the step back when the store is next opened"
        case .locked(let path, let waited):
            "\(path) is locked by another connection: waited \(String(format: "%.1f", waited)) s (the busy timeout: StoreOptions.busyTimeout, `--busy-timeout` in lucidgen) for another process migrating or writing it, or an app holding a transaction open; nothing was changed by this call"
        case .storeIsNewer(let store, let newest):
            "the store is at version \(store), newer than this app's newest version \(newest)"
        case .newerStoreNotAdditive(let store, let app, let change, let at):
            "the store is at version \(store), newer than this app's newest version \(app), and not additive since \(app): \(change)\(at.map { " (at \($0))" } ?? "") (nothing was changed)"
        case .newerStoreRecordsNoCompatibility(let store, let app):
            "the store is at version \(store), newer than this app's newest version \(app), and does not record whether \(app) may keep working on it (written by an app or lucidgen runtime that does not record compatibility; nothing was changed)"
        case .unknownVersion(let version, let known):
            "the store is at version \(version), which this app does not know (known: \(known.map(\.string).joined(separator: ", ")))"
        case .checksumMismatch(let version, let stored, let expected):
            "the store's schema checksum for version \(version) is \(stored.prefix(12))…, but this app's version \(version) has \(expected.prefix(12))…: the store was made by another definition of \(version)"
        case .unrecognizedSchema(let path, let differences):
            "\(path) has tables but no lucidgen version record, and matches no known version: \(differences.prefix(5).joined(separator: "; "))"
        case .recordContradictsTables(let path, let version, let differences, let tablesMatch):
            "\(path) records version \(version), but its tables are not \(version)'s\(tablesMatch.map { " (they are \($0)'s)" } ?? ""): "
                + differences.prefix(5).joined(separator: "; ") + (differences.count > 5 ? "; and \(differences.count - 5) more" : "")
                + " (nothing was changed)"
        case .planning(let error): error.description
        case .registryMismatch(let version, let generated, let runtime):
            "the generated schema registry says version \(version) has checksum \(generated.prefix(12))…, but this runtime computes \(runtime.prefix(12))…"
        case .missingStage(let label): "the migration needs the app's stage '\(label)', which was not provided"
        case .missingStages(_, let store, let target, let missing, _):
            "the migration from \(store) to \(target) needs the app's code for \(missing.count == 1 ? "a stage" : "\(missing.count) stages") it was not given, "
                + "so no step ran and the store stays at \(store), unchanged: " + missing.map(\.description).joined(separator: "; ")
        case .stepFailed(let step, let version, let message):
            "migration step \(step) failed and was rolled back (the store stays at \(version)): \(message)"
        case .unknownEnumValue(let step, let version, let error):
            "migration step \(step) failed and was rolled back (the store stays at \(version)): \(error)"
        case .schemaMismatch(let version, let differences):
            "after migrating, the store's schema differs from version \(version) (rolled back):\n"
                + differences.map { "  - \($0)" }.joined(separator: "\n")
        case .foreignKeyViolation(let step, let violations):
            "step \(step) left row(s) whose foreign key points at no row (rolled back): \(violations.prefix(5).map(\.description).joined(separator: "; "))\(violations.count > 5 ? "; and more" : "")"
        case .dataWouldBeLost(let step, let message): "step \(step) would lose data (rolled back): \(message)"
        case .appObjectsInTheWay(let step, _, _, let conflicts):
            "step \(step) cannot keep what the app keeps in the store (nothing was changed): "
                + conflicts.map(\.description).joined(separator: "; ")
        case .appObjectBroken(let step, let version, let kind, let name, let sql, let message):
            "after step \(step), the app's \(kind) \(name)\(sql.map { " (\($0))" } ?? "") no longer works: \(message) (rolled back; the store stays at \(version))"
        case .appObjectUnsafe(let step, let version, let kind, let name, let sql, let problem):
            "step \(step) will not run the SQL that the store records for the app's \(kind) \(name): it \(problem) (\(sql)); nothing was changed, the store stays at \(version)"
        case .checkFailed(let step, let table, let constraint, let rowid):
            "step \(step) cannot rebuild \(table) (rolled back, nothing was changed): its row of rowid \(rowid) breaks the CHECK constraint \(constraint)"
        case .duplicateRows(let step, let table, let columns, let index, let duplicates, let groupCount):
            "step \(step) cannot make \(table)(\(columns.joined(separator: ", "))) unique (index \(index); rolled back, nothing was changed): "
                + "\(groupCount) value\(groupCount == 1 ? " is" : "s are") shared by several rows: "
                + duplicates.map(\.description).joined(separator: "; ")
                + (groupCount > duplicates.count ? "; and \(groupCount - duplicates.count) more" : "")
        }
    }

    /// What to do about it.
    public var nextStep: String {
        switch self {
        case .notADatabase:
            "If it should be a store, restore it from a backup; if it is something else, open the right path"
        case .corrupt(let path, _):
            "Restore the store from a backup, or salvage its rows with `sqlite3 \(path) .recover | sqlite3 recovered.sqlite` and open the recovered copy (lucidgen recognises it by its tables)"
        case .cannotWrite(let path, _):
            "Check that the file and its folder (\((path as NSString).deletingLastPathComponent)) are writable by this process and on a volume mounted read-write: SQLite creates its journal or WAL beside the store"
        case .diskFull(let path, true):
            "Keep \(path)-journal beside the file (copying or moving the store without it damages it), free disk space and open the store again; it resumes from the step that failed"
        case .diskFull:
            "Free disk space (a table rebuild needs room for a copy of the table) and open the store again; it resumes from the step that failed"
        case .locked(let path, _):
            "Let the other process finish or close it, then retry (`fuser \(path)` or `lsof \(path)` names it), or wait longer with a larger busy timeout"
        case .storeIsNewer:
            "Open it with a newer version of the app, or read-only (StoreOptions.newerStorePolicy = .openReadOnly, which reads a column of this app's that the store no longer has as its default or NULL, and such a table as empty); never with an older app's migration"
        case .newerStoreNotAdditive:
            "Open it with a newer version of the app (which migrates or reads it correctly), or read-only (StoreOptions.newerStorePolicy = .openReadOnly, which reads a column of this app's that the store no longer has as its default or NULL, and such a table as empty); an older app must not write it"
        case .newerStoreRecordsNoCompatibility:
            "Open it with a newer version of the app, or read-only (StoreOptions.newerStorePolicy = .openReadOnly, which reads a column of this app's that the store no longer has as its default or NULL, and such a table as empty); once a newer app built with a runtime that records compatibility has migrated it, an older app may open it under .openIfAdditive"
        case .unknownVersion:
            "Open it with the app that wrote it, or add that version's description (its snapshot) to this app's history and regenerate (`lucidgen generate`)"
        case .checksumMismatch(let version, _, _):
            "A released version's description was changed after release: restore version \(version)'s description so that `lucidgen generate --check` passes, or if the store was made by a development build, delete it (StoreOptions.unknownStorePolicy = .eraseAndRecreate in development builds)"
        case .unrecognizedSchema(_, let differences) where differences.contains(where: { $0.contains("Core Data") }):
            "A Core Data store converts when the app's history was imported from its model (`lucidgen import coredata`) and StoreOptions.coreDataOrigin is set (`lucidgen migrate` reads .coredata/origin.json beside the descriptions); a store of a model version the import lacks, or whose rows contradict the model, stays as it is: see \"Coming from Core Data\""
        case .unrecognizedSchema:
            "If these tables are an older app's, describe that version (with its tables) as the first of the history so lucidgen can adopt the store; otherwise open the right file"
        case .recordContradictsTables(_, _, _, let tablesMatch?):
            "Do not trust this file's record: if it came from outside the app, refuse it; if it is the app's own, restore it from a backup (a store whose record is removed, `DROP TABLE lucid_store`, is recognised as \(tablesMatch) from its tables)"
        case .recordContradictsTables:
            "Do not trust this file's record: if it came from outside the app, refuse it; if it is the app's own, restore it from a backup, or salvage its rows into a store the app creates"
        case .planning(.duplicateStage):
            "Pass each stage once in StoreOptions.stages; with several stores (openTogether), give each StoreSpec its own options, so that one store's stages are not another's"
        case .planning(.unknownVersion):
            "Open it with the app that wrote it, or add that version's description (its snapshot) to this app's history and regenerate (`lucidgen generate`)"
        case .planning(.cyclicStage):
            "A stage goes from an older version to a newer one: fix its versions in .lucid.yaml (`stages:`) and run `lucidgen generate`"
        case .planning(.noRoute):
            "Declare a stage for the missing step in .lucid.yaml (`stages:`), implement it in the app, and run `lucidgen generate`"
        case .registryMismatch:
            "Run `lucidgen generate` with the lucidgen version the app links, and rebuild"
        case .missingStage:
            "Pass the stage's code in StoreOptions.stages (the generated registry's stages(using:) makes every stage from the app's implementation), then open the store again; it resumes from that step"
        case .missingStages(_, _, _, _, let registry):
            if let names = registry.map(GeneratedNames.init(reflecting:)), let migrations = names.migrationsProtocol {
                "Pass every stage's code before opening the store: options.stages = \(names.registry).stages(using: migrations), where migrations is a value of the app's type conforming to \(migrations) (both generated in module \(names.module)), which implements each function named above"
            } else {
                "Pass each stage named above in StoreOptions.stages, with the row transforms named, before opening the store"
            }
        case .stepFailed:
            "Fix the cause above (the app's stage or data) and open the store again; it resumes from that step"
        case .unknownEnumValue(_, _, let error):
            "Fix or remove that value of \(error.table).\(error.column) (a newer app or a foreign write stored it), or describe the case in the enum's history with a fallback, and open the store again; it resumes from that step"
        case .schemaMismatch:
            "Report it with the store's `lucidgen plan` output: the step's SQL and the version's schema disagree; the store is unchanged at its previous version"
        case .foreignKeyViolation:
            "Delete or fix the rows named above (or make the app's stage do so) and open the store again"
        case .duplicateRows(_, let table, let columns, _, _, _):
            "Remove or merge the duplicate rows of \(table) before this step (in this step's willMigrate, a stage or a data migration at an earlier version), or drop \"unique\" from the index on \(columns.joined(separator: ", ")) and run `lucidgen generate`; then open the store again"
        case .checkFailed(_, let table, let constraint, let rowid):
            "Fix or remove that row of \(table) (SELECT * FROM \(quoteIdentifier(table)) WHERE rowid = \(rowid)) before this step (in this step's willMigrate, a stage or a data migration at an earlier version), or change the CHECK \(constraint) in the description and run `lucidgen generate`; then open the store again"
        case .appObjectsInTheWay(_, let from, let to, _):
            "Drop each object in the willMigrate hook of a MigrationStage from \(from) to \(to) and recreate it, adapted to the new tables, in its didMigrate hook (StoreOptions.stages; the step's SQL stays inferred), or remove it from the store before migrating; then open the store again"
        case .appObjectBroken(_, let version, let kind, let name, _, _):
            "Drop or adapt the \(kind) \(name) in the willMigrate hook of a MigrationStage for this step (or before migrating from \(version)) and recreate it in didMigrate; then open the store again"
        case .appObjectUnsafe(_, _, let kind, let name, _, _):
            "SQLite stores only what CREATE wrote, so the file was edited (PRAGMA writable_schema) or damaged: if you trust the rest of it, drop the \(kind) \(name) and create it again from the app's own SQL; then open the store again"
        case .dataWouldBeLost:
            "Write a stage for this step that decides what to keep (a row transform or willMigrate), declare it in .lucid.yaml and run `lucidgen generate`"
        }
    }
}

/// Rows that share the values of a new unique index (``StoreError/duplicateRows(step:table:columns:index:duplicates:groupCount:)``).
public struct DuplicateRows: Sendable, Hashable, CustomStringConvertible {
    /// The shared values, one per column, as SQL literals (`'Smith'`, `42`, `x'00ff'`).
    public var values: [String]
    /// The rowids of the first rows that share them, ascending.
    public var rowids: [Int64]
    /// How many rows share them.
    public var count: Int

    package init(values: [String], rowids: [Int64], count: Int) {
        self.values = values
        self.rowids = rowids
        self.count = count
    }

    /// `('Smith', 'Ann') in rows 3, 7 (2 rows)`; `… rows 1, 4, 9, … (12 rows)` past the first few.
    public var description: String {
        let shown = values.count == 1 ? values[0] : "(\(values.joined(separator: ", ")))"
        return "\(shown) in rowid \(rowids.map(String.init).joined(separator: ", "))\(count > rowids.count ? ", …" : "") (\(count) rows)"
    }
}

extension StoreError {
    /// The same error with the file at `path` named `shown`: what a dry run, which migrates a copy, says of
    /// the store it was asked about (the copy's path is in a temporary folder that is gone by then).
    package func naming(_ path: String, as shown: String) -> StoreError {
        func name(_ given: String) -> String { given == path ? shown : given }
        func text(_ given: String) -> String { given.replacingOccurrences(of: path, with: shown) }
        switch self {
        case .notADatabase(let given): return .notADatabase(path: name(given))
        case .corrupt(let given, let message): return .corrupt(path: name(given), message: text(message))
        case .cannotWrite(let given, let message): return .cannotWrite(path: name(given), message: text(message))
        case .diskFull(let given, let journalLeft): return .diskFull(path: name(given), journalLeft: journalLeft)
        case .locked(let given, let waited): return .locked(path: name(given), waited: waited)
        case .unrecognizedSchema(let given, let differences): return .unrecognizedSchema(path: name(given), differences: differences)
        case .recordContradictsTables(let given, let version, let differences, let tablesMatch):
            return .recordContradictsTables(path: name(given), version: version, differences: differences, tablesMatch: tablesMatch)
        case .missingStages(let given, let storeVersion, let target, let missing, let registry):
            return .missingStages(path: name(given), storeVersion: storeVersion, target: target, missing: missing, registry: registry)
        case .stepFailed(let step, let version, let message): return .stepFailed(step: step, version: version, message: text(message))
        case .dataWouldBeLost(let step, let message): return .dataWouldBeLost(step: step, message: text(message))
        default: return self
        }
    }
}
