import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting

/// The seed graphs' history is all inferred: the migration tests need only the store options.
struct SeedGraphsExpectations {
    func storeOptions() -> StoreOptions { StoreOptions() }
}
