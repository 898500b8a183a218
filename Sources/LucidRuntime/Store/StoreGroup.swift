import Foundation
import GRDB
@_spi(Generated) import LucidSchema

/// One store of a group migrated together.
public struct StoreSpec: Sendable {
    /// The store file.
    public var path: String
    /// Every version of this store's schema, oldest first.
    package var versions: [Schema]
    /// The registry's declared stages (see `SchemaRegistry.stages`): the steps that need the app's code,
    /// which ``LucidStore/openTogether(_:options:)`` finds in ``StoreOptions/stages`` before any store changes.
    package var declaredStages: [ExplicitStage]
    /// The generated registry as `String(reflecting:)` spells it (`FlightLog.FlightLogSchema`), which
    /// messages name; nil for a store described by its versions.
    package var registry: String?
    /// The options this store is opened with: its stages and data migrations (and logger, progress…);
    /// nil: the group's. Stores with their own migration code need their own options, since a stage is
    /// known by its versions and label only: the group's stages apply to every store of the group.
    public var options: StoreOptions?

    /// A store and its versions.
    ///
    /// ```swift
    /// let spec = StoreSpec(path: cachePath, versions: CacheSchema.versions)
    /// ```
    package init(path: String, versions: [Schema], declaredStages: [ExplicitStage] = [], options: StoreOptions? = nil) {
        self.path = path
        self.versions = versions
        self.declaredStages = declaredStages
        self.options = options
    }

    /// A store and its generated registry, with its own options when it has its own migration code.
    ///
    /// ```swift
    /// let stores = try LucidStore.openTogether([
    ///     StoreSpec(path: main, registry: FlightLogSchema.self, options: FlightLogStages.storeOptions()),
    ///     StoreSpec(path: cache, registry: CacheSchema.self, options: CacheStages.storeOptions()),
    /// ])
    /// ```
    public init<Registry: SchemaRegistry>(path: String, registry: Registry.Type, options: StoreOptions? = nil) {
        self.init(path: path, versions: registry.versions, declaredStages: registry.stages, options: options)
        self.registry = String(reflecting: registry)
    }

    /// The history the store is opened with.
    var history: SchemaHistory { SchemaHistory(versions: versions, stages: declaredStages, registry: registry) }
}

extension LucidStore {
    /// Migrates several store files so that either every one reaches its newest version or none changes.
    ///
    /// Each store that needs migrating is copied (SQLite's backup API, so a WAL is included) to a
    /// temporary file in its own folder, the copies are migrated (each in one transaction), and only when
    /// every copy succeeded is each original replaced by its copy with `rename(2)`, which is atomic per
    /// file. A failure before that point leaves every original untouched. What is not atomic: a crash
    /// *during* the replacements can leave some files replaced (at the newest version) and the others at
    /// their old version; each file is consistent on its own, and calling this again migrates the rest.
    /// The stores must not be open elsewhere meanwhile.
    ///
    /// Every store's path is planned before any is copied: a stage on one of them whose code
    /// ``StoreOptions/stages`` lacks throws ``StoreError/missingStages(path:storeVersion:target:missing:registry:)``
    /// (for the first such store, listing each of its missing stages) with no file changed.
    ///
    /// Each store is opened with its ``StoreSpec/options`` when it has them, else with `options`: stores
    /// with migration code of their own each carry their own (a stage is known by its versions and label,
    /// so one store's stage in the shared options would also run on another store with those versions).
    public static func openTogether(_ stores: [StoreSpec], options: StoreOptions = StoreOptions()) throws(StoreError) -> [OpenedStore] {
        var toMigrate: [(spec: StoreSpec, status: StoreStatus)] = []
        for spec in stores {
            let options = spec.options ?? options
            let status = try inspect(
                atPath: spec.path, versions: spec.versions, stages: spec.declaredStages + options.stages.map(\.explicit))
            guard status.needsMigration, let version = status.version else { continue }
            try StoreMigrator(path: spec.path, history: spec.history, options: options).checkStagesProvided(
                status.steps, storeVersion: version)
            toMigrate.append((spec, status))
        }
        var copies: [(spec: StoreSpec, copy: String)] = []
        func cleanUp() {
            for (_, copy) in copies {
                try? StoreFiles.remove(copy)
            }
        }
        for (spec, status) in toMigrate {
            let copy = spec.path + ".lucid-migrating-\(UUID().uuidString)"
            do {
                let source = try DatabaseQueue(path: spec.path)
                let destination = try DatabaseQueue(path: copy)
                try source.backup(to: destination)
                try source.close()
                try destination.close()
            } catch {
                cleanUp()
                throw StoreMigrator.storeError(error, path: spec.path, step: "copy", version: status.version)
            }
            copies.append((spec, copy))
            do {
                var wholePath = spec.options ?? options
                wholePath.atomicity = .wholePath
                try open(atPath: copy, history: spec.history, options: wholePath).database.close()
            } catch let error as StoreError {
                cleanUp()
                throw error
            } catch {
                cleanUp()
                throw StoreMigrator.storeError(error, path: spec.path, step: "migrate", version: status.version)
            }
        }
        for (spec, copy) in copies {
            for suffix in StoreFiles.companions { try? FileManager.default.removeItem(atPath: spec.path + suffix) }
            guard rename(copy, spec.path) == 0 else {
                throw .cannotWrite(
                    path: spec.path, message: "could not replace the store with its migrated copy (errno \(errno)); the copy is at \(copy)")
            }
        }
        var opened: [OpenedStore] = []
        for spec in stores {
            opened.append(try open(atPath: spec.path, history: spec.history, options: spec.options ?? options))
        }
        return opened
    }
}
