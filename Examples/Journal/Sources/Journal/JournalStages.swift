import GRDB
import LucidRuntime

/// Journal's own migration code (`migrations_provider` in .lucid.yaml). When a step of the history
/// cannot be made by SQL alone (e.g. a lossy type change), `lucidgen generate` adds a requirement to the
/// generated `JournalMigrations` protocol, and `swift build` fails here until it is written.
public struct JournalStages: Sendable {
    public init() {}

    /// The options the app opens its store with: `LucidStore.open(atPath:registry:options:)`.
    public static func storeOptions() -> StoreOptions {
        var options = StoreOptions()
        options.stages = JournalSchema.stages(using: JournalStages())
        return options
    }
}
