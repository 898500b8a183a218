import LucidRuntime
import LucidTesting

@testable import Journal

/// What the generated migration tests (Generated/JournalMigrationTests.swift) need from the app: the
/// options it opens its store with and, for each step that runs the app's own migration code, what
/// that code does to the data. `lucidgen generate` adds a requirement for each such step; the tests
/// do not build until it is written here.
struct JournalExpectations {
    /// The options the app opens its store with (its stages and data migrations).
    func storeOptions() -> StoreOptions {
        var options = StoreOptions()
        options.stages = JournalSchema.stages(using: JournalStages())
        return options
    }
}
