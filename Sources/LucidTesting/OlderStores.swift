import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

extension LucidStore {
    /// Creates a new store at an older version of the registry, as the app at that version created it:
    /// for a test that writes rows the old way, then opens the store with today's registry and checks
    /// what the migration did. Fails if the file exists.
    ///
    /// `options` are the app's: its data migrations up to `version` are recorded as not needed (an app
    /// at that version created its stores with them done), and its stages join the registry's in the
    /// store's compatibility record.
    ///
    /// ```swift
    /// let old = try LucidStore.create(atPath: path, registry: ConsumerSchema.self, version: SchemaVersion("3.0"), options: options)
    /// try old.write { db in try Shelf_2_0(code: "A", label: "12").insert(db) }
    /// try old.close()
    /// let migrated = try LucidStore.open(atPath: path, registry: ConsumerSchema.self, options: options)
    /// ```
    public static func create<Registry: SchemaRegistry>(
        atPath path: String, registry: Registry.Type, version: SchemaVersion, options: StoreOptions = StoreOptions()
    ) throws(StoreError) -> DatabaseQueue {
        try create(
            atPath: path, versions: registry.versions, version: version, dataMigrations: options.dataMigrations,
            stages: options.stages.map(\.explicit) + registry.stages, configuration: options.configuration)
    }
}
