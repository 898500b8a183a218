import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

/// Opens one store file and brings it to the newest version.
///
/// Its work, one concept per file beside this one:
/// - `StoreDecision`: what the store file is (``decide()``), the one decision every path takes;
/// - `LaunchPath`: an up-to-date store opened in one or two queries (``openIfCurrent(atPath:version:checksum:options:)``);
/// - `OpenAndMigrate`: the decision and what it needs, under one barrier (``bringUpToDate(_:fileStart:)``);
/// - `CreatingAndAdopting`: a store without lucidgen's record (`StoreConversion`: one another framework
///   wrote, which the LucidCoreData product converts);
/// - `MigrateLoop`, `StepRun`, `StepTransaction`, `StagesProvidedCheck`, `LateDataMigrations`: migrating;
/// - `NewerStoreCheck`, `IncompatibleStorePolicies`: a store this app cannot migrate;
/// - `Inspection`: what opening would do, without changing anything;
/// - `ErrorMapping`, `FilesLeftAsTheyWere`: failures, and the files as they were.
///
/// What it reads and writes of lucidgen's own tables goes through `Ledger/`.
package struct StoreMigrator {
    package let path: String
    package let history: SchemaHistory
    package let options: StoreOptions
    let planner: MigrationPlanner
    /// Whether a migration may follow the registry's routes (``plan(from:)``).
    let routesApply: Bool
    /// Writes the compatibility record with every version record (classifying each step once).
    package let compatibility: CompatibilityRecorder
    package var versions: [Schema] { history.versions }
    package var logger: Logger { options.logger }
    package var newest: Schema { versions[versions.count - 1] }
    /// The busy handler of the connections this migrator opens: one deadline per step transaction
    /// (``LockDeadline``). Nil on a connection the app made (``LucidMigrator``): its own busy mode
    /// applies, which this runtime does not change.
    var lockDeadline: LockDeadline?

    /// The planner routes through the history's stages and ``StoreOptions/declaredStages``; the app's
    /// ``StoreOptions/stages`` provide the code for those it runs.
    package init(path: String, history: SchemaHistory, options: StoreOptions) throws(StoreError) {
        guard !history.versions.isEmpty else {
            throw .planning(.noRoute(from: SchemaVersion("0.0"), to: SchemaVersion("0.0"), blocked: []))
        }
        self.path = path
        self.history = history
        self.options = options
        do {
            let provided = options.stages.map(\.explicit)
            let declared = (options.declaredStages + history.stages).filter { stage in
                !provided.contains { $0.from == stage.from && $0.to == stage.to }
            }
            var unique: [ExplicitStage] = []
            for stage in declared where !unique.contains(where: { $0.from == stage.from && $0.to == stage.to }) { unique.append(stage) }
            self.planner = try MigrationPlanner(versions: history.versions, stages: provided + unique)
            // The registry's routes hold only for the stages it was planned with (same versions and transformed
            // tables): declaredStages or an app stage the registry does not list would change the graph.
            func key(_ stage: ExplicitStage) -> String { "\(stage.from) \(stage.to) \(stage.transformedTables.sorted())" }
            self.routesApply = !history.routes.isEmpty && Set(planner.stages.map(key)) == Set(history.stages.map(key))
        } catch {
            throw .planning(error)
        }
        self.compatibility = CompatibilityRecorder(history: history, options: options)
        self.lockDeadline = LockDeadline(timeout: options.busyTimeout)
    }

    /// The steps from `version` to the newest: along the registry's route for it when the route was
    /// computed for the stages this migration plans with (the history's; the app's code for them does
    /// not change the path), inferring only those steps; else planned (to the same path, inferring every
    /// consecutive step on the way).
    package func plan(from version: SchemaVersion) throws(PlanningError) -> [MigrationStep] {
        if let route = history.routes[version], routesApply {
            // The route's steps depend on the history and its stages only (``routesApply``): planned once per history.
            if let planned = history.plannedRoutes?.steps(from: version) { return planned }
            if let steps = planner.plan(along: route, from: version) {
                history.plannedRoutes?.keep(steps, from: version)
                return steps
            }
        }
        return try planner.plan(from: version)
    }

    private var configuration: Configuration {
        var configuration = options.configuration
        configuration.busyMode = lockDeadline?.busyMode ?? .timeout(StoreOptions.boundedBusyTimeout(options.busyTimeout))
        configuration.label = "lucidgen store"
        return configuration
    }

    package func makeQueue(readOnly: Bool = false) throws(StoreError) -> DatabaseQueue {
        var configuration = self.configuration
        if readOnly {
            configuration.readonly = true
            configuration.schemaSource = ReadOnlyStandIns.PrimaryKeys(newest, app: configuration.schemaSource)
        }
        let began = Date()
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw Self.storeError(error, path: path, step: "open", version: nil, since: began)
        }
    }

    /// A store this app cannot migrate, and the policy that decides what happens then.
    package struct Refusal: Error {
        package var error: StoreError
        package var policy: StoreOptions.IncompatibleStorePolicy

        package init(error: StoreError, policy: StoreOptions.IncompatibleStorePolicy) {
            self.error = error
            self.policy = policy
        }
    }
}
