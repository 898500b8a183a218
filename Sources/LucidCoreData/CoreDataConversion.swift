import Foundation
import GRDB
import Logging
import LucidRuntime
@_spi(Generated) import LucidSchema

extension StoreOptions {
    /// The Core Data model versions the app's history was imported from (`lucidgen import coredata`):
    /// with it, a Core Data store (`Z_PRIMARYKEY`, `Z_METADATA`) is recognised at the model version its
    /// layout is and converted, in one transaction, into lucidgen's tables of that version, then migrated
    /// to the newest. The conversion is one-way: the Core Data app cannot open the store again. Without
    /// it, a Core Data store is refused, unchanged. See <doc:ComingFromCoreData>.
    public var coreDataOrigin: CoreDataOrigin? {
        get { coreData.origin }
        set { coreData.origin = newValue }
    }

    /// Whether a copy of a Core Data store is kept before its conversion: `<store>.coredata-backup` (made
    /// with SQLite's backup, so what its WAL held is in it), and its `.<name>_SUPPORT` folder as
    /// `.<name>_SUPPORT.coredata-backup`. Default `true`; a copy from an earlier attempt is kept as it is.
    public var keepsCoreDataBackup: Bool {
        get { coreData.keepsBackup }
        set { coreData.keepsBackup = newValue }
    }

    /// The runtime holds the two settings above as its conversion of a Core Data store.
    private var coreData: CoreDataConversion {
        get { conversion as? CoreDataConversion ?? CoreDataConversion() }
        set { conversion = newValue }
    }
}

extension MigrationOutcome {
    /// A Core Data store this call converted: each entity's rows and each to-many's links, counted
    /// against the Core Data rows before the conversion committed, and what was not as Core Data had it.
    public var coreDataConversion: CoreDataConversionReport? {
        get { conversionReport?.value as? CoreDataConversionReport }
        set { conversionReport = newValue.map(ConversionReport.init) }
    }
}

extension StoreStatus {
    /// With `coreDataModel`: what the conversion will write, each entity's rows and each to-many's
    /// links as the Core Data rows give them, and what will not be as Core Data had it.
    public var coreDataConversion: CoreDataConversionReport? {
        get { conversionReport?.value as? CoreDataConversionReport }
        set { conversionReport = newValue.map(ConversionReport.init) }
    }
}

extension LucidStore {
    /// ``LucidRuntime/LucidStore/inspect(atPath:history:busyTimeout:conversion:)`` with a Core Data origin (lucidgen's own tools and tests).
    package static func inspect(
        atPath path: String, history: SchemaHistory, busyTimeout: TimeInterval = 60, coreDataOrigin: CoreDataOrigin?,
        acceptsInferableDrift: Bool = false
    ) throws(StoreError) -> StoreStatus {
        var options = StoreOptions()
        options.coreDataOrigin = coreDataOrigin
        return try inspect(
            atPath: path, history: history, busyTimeout: busyTimeout, conversion: options.conversion,
            acceptsInferableDrift: acceptsInferableDrift)
    }

    /// The same, for a list of versions and the stages that need the app's code.
    package static func inspect(
        atPath path: String, versions: [Schema], stages: [ExplicitStage] = [], busyTimeout: TimeInterval = 60,
        coreDataOrigin: CoreDataOrigin?, acceptsInferableDrift: Bool = false
    ) throws(StoreError) -> StoreStatus {
        try inspect(
            atPath: path, history: SchemaHistory(versions: versions, stages: stages), busyTimeout: busyTimeout,
            coreDataOrigin: coreDataOrigin, acceptsInferableDrift: acceptsInferableDrift)
    }
}

/// The Core Data settings of `StoreOptions`, which the runtime asks to convert or inspect a Core Data store.
struct CoreDataConversion: StoreConversion {
    var origin: CoreDataOrigin?
    var keepsBackup = true

    var converts: Bool { origin != nil }

    func convert(_ db: Database, layout: CoreDataStoreLayout, by migrator: StoreMigrator) throws -> MigrationOutcome {
        try migrator.convertCoreData(db, layout: layout, origin: origin!, keepsBackup: keepsBackup)
    }

    func inspect(layout: CoreDataStoreLayout, by migrator: StoreMigrator) throws(StoreError) -> StoreStatus {
        try migrator.inspectCoreData(layout, origin: origin!)
    }
}

// A Core Data store converted into lucidgen's tables, then migrated on.
extension StoreMigrator {
    /// A Core Data store: recognised from its layout, its path to the newest version planned and its
    /// stages checked (nothing is written before), a copy kept beside it, converted in one transaction
    /// into lucidgen's tables of its version (a step of the outcome), then migrated on like any store.
    func convertCoreData(_ db: Database, layout: CoreDataStoreLayout, origin: CoreDataOrigin, keepsBackup: Bool) throws -> MigrationOutcome
    {
        let converter = CoreDataConverter(origin: origin, versions: versions, path: path)
        let recognition: CoreDataConverter.Recognition
        do {
            recognition = try converter.recognise(db, layout: layout)
        } catch let refusal as CoreDataConverter.Refusal {
            throw Refusal(error: .unrecognizedSchema(path: path, differences: [refusal.description]), policy: .refuse)
        }
        let schema = recognition.schema
        var outcome = MigrationOutcome(start: .version(schema.version, adopted: true), finalVersion: schema.version)
        let route = schema.version == newest.version ? [] : try plan(from: schema.version)
        try checkStagesProvided(route, storeVersion: schema.version)
        if keepsBackup { try CoreDataBackup.keep(db, path: path) }
        let drift =
            recognition.drift.isEmpty ? "" : ", drifted: \(recognition.drift.count) difference\(recognition.drift.count == 1 ? "" : "s")"
        let label = "converted from Core Data (model \(recognition.version.model)\(drift)) at \(schema.version)"
        if !recognition.drift.isEmpty {
            logger.notice(
                "\(path): a Core Data store whose layout is none of the imported model versions, taken as model \(recognition.version.model) drifted: \(recognition.drift.joined(separator: "; "))"
            )
        }
        let began = Date()
        var log: [String] = []
        var report: CoreDataConversionReport?
        do {
            try db.withForeignKeysOff {
                try stepTransaction(db) {
                    // Another process may have converted it meanwhile.
                    if try Bookkeeping.record(db) != nil { return .rollback }
                    let progress = options.progress
                    progress?(MigrationProgress(totalSteps: route.count, step: 0, stepLabel: label, operation: "starting"))
                    let converted = try converter.convert(db, recognition, layout: layout) { line in
                        log.append(line)
                        progress?(MigrationProgress(totalSteps: route.count, step: 0, stepLabel: label, operation: line))
                    }
                    progress?(MigrationProgress(totalSteps: route.count, step: 0, stepLabel: label, operation: "done"))
                    let dangling = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                    if let first = dangling.first {
                        throw CoreDataConverter.Refusal(
                            description:
                                "\(dangling.count) row\(dangling.count == 1 ? "" : "s") of the Core Data store point at rows that do not exist (first: \(first["table"] as String? ?? "?") rowid \(first["rowid"] as Int64? ?? 0) → \(first["parent"] as String? ?? "?")): nothing was changed"
                        )
                    }
                    try Bookkeeping.write(
                        schema, checksum: history.checksum(of: schema), from: nil, kind: "coredata", label: label, started: began, db)
                    try compatibility.record(db, at: schema.version)
                    logger.info("\(label): \(log.joined(separator: "; "))")
                    report = converted
                    return .commit
                }
            }
        } catch let refusal as CoreDataConverter.Refusal {
            throw Refusal(error: .unrecognizedSchema(path: path, differences: [refusal.description]), policy: .refuse)
        } catch {
            // Rolled back: the store is still the Core Data store it was, never at a version of lucidgen's.
            let mapped = Self.storeError(error, path: path, step: "convert from Core Data", version: schema.version)
            guard case .stepFailed = mapped else { throw mapped }
            let message = (error as? DatabaseError)?.message ?? "\(error)"
            throw Refusal(
                error: .unrecognizedSchema(
                    path: path,
                    differences: [
                        "converting the Core Data store (model \(recognition.version.model)) into lucidgen's tables at \(schema.version) failed and was rolled back: \(message); the store is the Core Data store it was, unchanged"
                    ]), policy: .refuse)
        }
        outcome.steps.append(MigrationOutcome.Step(from: schema.version, to: schema.version, label: label))
        outcome.coreDataConversion = report
        if !route.isEmpty { try migrate(db, outcome: &outcome, route: route) }
        return outcome
    }

    /// A Core Data store: the version its layout is, and the path from there (nothing is written).
    func inspectCoreData(_ layout: CoreDataStoreLayout, origin: CoreDataOrigin) throws(StoreError) -> StoreStatus {
        let queue = try makeQueue(readOnly: true)
        defer { Self.closeLeavingFilesAsTheyAre(queue) }
        let recognition: CoreDataConverter.Recognition
        let report: CoreDataConversionReport
        do {
            (recognition, report) = try queue.read { db in
                try db.withoutAttaching {
                    let converter = CoreDataConverter(origin: origin, versions: versions, path: path)
                    let recognition = try converter.recognise(db, layout: layout)
                    return (recognition, try converter.account(db, recognition, layout: layout).report(recognition))
                }
            }
        } catch let refusal as CoreDataConverter.Refusal {
            throw .unrecognizedSchema(path: path, differences: [refusal.description])
        } catch {
            throw Self.storeError(error, path: path, step: "inspect", version: nil)
        }
        let steps: [MigrationStep]
        do {
            steps = try plan(from: recognition.schema.version)
        } catch {
            throw .planning(error)
        }
        return .converting(
            recognition.version.model, into: recognition.schema, checksum: history.checksum(of: recognition.schema), steps: steps,
            report: ConversionReport(report))
    }
}
