import Foundation
import GRDB
import LucidCoreData
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// `lucidgen status`'s work for one store: what it records about itself, and with a project's config how
/// it stands against the project's versions. Reads the file without changing it.
package enum StoreInspection {
    /// What `status` reports, as printed by `--format json`.
    package struct Report: Encodable {
        package var path: String
        package var fileSize: Int
        package var journalMode: String?
        package var ledger: StoreLedger?
        /// With a config: `current`, `needs migration`, `missing`, `empty`, `empty file`.
        package var projectState: String?
        package var stepsToNewest: [String]?
        /// With a config: what the app keeps in the store beside lucidgen's tables.
        package var appObjects: [AppObject]?
        /// With a config, a Core Data store: the model version it converts from.
        package var coreDataModel: String?
        /// With a config, a Core Data store at no imported version: how it differs from ``coreDataModel``.
        package var coreDataDrift: [String]?
        /// With a config, for a store without lucidgen's record: how its `PRAGMA user_version` disagrees
        /// with the version its tables are recognised at (as `plan` notes it).
        package var userVersionNote: String?
        /// A store the project cannot open: why, and what to do (`--format json` prints the report with it, exit code 3).
        package var refusal: Refusal?
        /// A store refused as drifted: what `--accept-drift` would do with it.
        package var drift: DriftAssessment?

        package struct Refusal: Encodable {
            package var problem: String
            package var nextStep: String?
        }
    }

    /// The report of the store at `database` (as given; shown so), compared with the project of `config`
    /// when given. Throws a ``StoreError`` (no such file, a store the project cannot open) or a
    /// ``StoreWorkError`` (the project's descriptions).
    package static func report(database: String, config configPath: String?, busyTimeout: Double) throws -> Report {
        let path = absolutePath(database)
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError.cannotWrite(path: path, message: "no such file") }
        var report = Report(path: database, fileSize: (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        var history: SchemaHistory?
        if let configPath {
            let resolved = try ProjectVersions.resolve(config: configPath, to: nil, lint: false)
            history = resolved.history
            let status = try LucidStore.inspect(
                atPath: path, history: resolved.history, busyTimeout: busyTimeout,
                coreDataOrigin: try ProjectVersions.coreDataOrigin(config: configPath))
            if status.version != nil { report.appObjects = status.appObjects }
            report.coreDataModel = status.coreDataModel
            if let drift = status.coreDataConversion?.drift, !drift.isEmpty { report.coreDataDrift = drift }
            report.userVersionNote = status.userVersionDisagreement
            switch status.start {
            case .newFile: report.projectState = "missing"
            case .emptyDatabase: report.projectState = "empty"
            case .emptyFile: report.projectState = "empty file"
            case .version where !status.needsMigration: report.projectState = "current"
            case .version:
                report.projectState = "needs migration"
                report.stepsToNewest = status.steps.map(\.label)
            }
        }
        if report.fileSize > 0 {
            report.ledger = try LucidStore.ledger(atPath: path, history: history, busyTimeout: busyTimeout)
            report.journalMode = try journalMode(path)
        }
        return report
    }

    /// What `--accept-drift` (``StoreOptions/acceptsInferableDrift``) would do with a store refused as drifted.
    package struct DriftAssessment: Encodable, Equatable {
        /// Whether `--accept-drift` takes it.
        package var inferable: Bool
        /// The version it would be brought to first (when inferable).
        package var nearestVersion: String?
        /// Each repair, in order (when inferable).
        package var repairs: [String]
        /// The steps after the repair to the newest version (when inferable).
        package var stepsAfter: [String]
        /// The differences `--accept-drift` refuses too (when not inferable; empty when no one version is nearest).
        package var notInferable: [String]
        /// The line `plan`, `status` and `migrate` print after the refusal (`note: …`).
        package var note: String
    }

    /// The report of a store the project cannot open: its path and size, the refusal, and the drift's assessment.
    package static func refusalReport(database: String, error: StoreError, drift: DriftAssessment?) -> Report {
        let size = (try? FileManager.default.attributesOfItem(atPath: absolutePath(database))[.size] as? Int) ?? 0
        var report = Report(path: database, fileSize: size)
        report.refusal = .init(problem: error.problem, nextStep: error.nextStep)
        report.drift = drift
        return report
    }

    /// For a store refused as drifted (``StoreError/unrecognizedSchema(path:differences:)``, or
    /// ``StoreError/recordContradictsTables(path:version:differences:tablesMatch:)``): what `--accept-drift`
    /// (``StoreOptions/acceptsInferableDrift``) would do with it; nil for another error. Reads the file without
    /// changing it.
    package static func driftAssessment(
        for error: StoreError, path: String, versions: [Schema], stages: [ExplicitStage], busyTimeout: Double,
        coreDataOrigin: CoreDataOrigin?
    ) -> DriftAssessment? {
        switch error {
        case .unrecognizedSchema, .recordContradictsTables: break
        default: return nil
        }
        // A Core Data store's inferable drift is taken by its conversion, with or without --accept-drift: its refusal says why not.
        guard !isCoreDataStore(path) else { return nil }
        do {
            let status = try LucidStore.inspect(
                atPath: path, versions: versions, stages: stages, busyTimeout: busyTimeout, coreDataOrigin: coreDataOrigin,
                acceptsInferableDrift: true)
            guard let version = status.version, !status.drift.isEmpty else { return nil }
            let path =
                status.steps.isEmpty
                ? "" : ", then \(status.steps.count) step\(status.steps.count == 1 ? "" : "s") to \(versions.last!.version)"
            return DriftAssessment(
                inferable: true, nearestVersion: version.string, repairs: status.drift, stepsAfter: status.steps.map(\.label),
                notInferable: [],
                note:
                    "every difference is inferable: with --accept-drift (StoreOptions.acceptsInferableDrift) migrate brings it to \(version) first (\(status.drift.joined(separator: "; ")))\(path); `lucidgen plan --accept-drift` shows the steps"
            )
        } catch {
            let differences: [String]
            switch error {
            case .unrecognizedSchema(_, let found), .recordContradictsTables(_, _, let found, _): differences = found
            default: return nil
            }
            let prefix = "not inferable (StoreOptions.acceptsInferableDrift): "
            let left = differences.compactMap { line in
                line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : line.hasSuffix(": not inferable") ? line : nil
            }
            return DriftAssessment(
                inferable: false, nearestVersion: nil, repairs: [], stepsAfter: [], notInferable: left,
                note: left.isEmpty
                    ? "--accept-drift would refuse it too: its tables are nearest no one version"
                    : "--accept-drift would refuse it too, not inferable: \(left.joined(separator: "; "))")
        }
    }

    /// Whether the file has Core Data's bookkeeping tables (read-only; false when it cannot be read).
    static func isCoreDataStore(_ path: String) -> Bool {
        var configuration = Configuration()
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return false }
        defer { try? queue.close() }
        return (try? queue.read { db in try CoreDataStoreLayout.read(db) != nil }) ?? false
    }

    /// ``driftAssessment(for:path:versions:stages:busyTimeout:coreDataOrigin:)``'s line for the refusal.
    package static func driftNote(
        for error: StoreError, path: String, versions: [Schema], stages: [ExplicitStage], busyTimeout: Double,
        coreDataOrigin: CoreDataOrigin?
    ) -> String? {
        driftAssessment(
            for: error, path: path, versions: versions, stages: stages, busyTimeout: busyTimeout, coreDataOrigin: coreDataOrigin)?.note
    }

    /// ``driftAssessment(for:path:versions:stages:busyTimeout:coreDataOrigin:)`` for the project of `config` (status's refusal).
    package static func driftAssessment(for error: StoreError, database: String, config configPath: String?, busyTimeout: Double)
        -> DriftAssessment?
    {
        guard let configPath, let resolved = try? ProjectVersions.resolve(config: configPath, to: nil, lint: false) else {
            return nil
        }
        return driftAssessment(
            for: error, path: absolutePath(database), versions: resolved.versions, stages: resolved.stages, busyTimeout: busyTimeout,
            coreDataOrigin: try? ProjectVersions.coreDataOrigin(config: configPath))
    }

    /// The journal mode as recorded in the file's header (WAL: bytes 18–19 are 2), so that the file is
    /// never opened in a way that could change it.
    package static func journalMode(_ path: String) throws -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try handle.read(upToCount: 20), header.count == 20 else { return nil }
        return header[18] == 2 && header[19] == 2 ? "wal" : "rollback journal"
    }
}
