import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// A busy timeout no clock can wait (infinite, NaN, huge, negative) is bounded, never a trap: it became a
/// `Duration` and SQLite's 32-bit milliseconds, conversions that crashed the process at the first step.
@Suite struct BusyTimeoutBoundsTests {
    @Test(arguments: [TimeInterval.infinity, -.infinity, .nan, 1e300, -1, 0])
    func anyBusyTimeoutOpensAndMigrates(timeout: TimeInterval) throws {
        let versions = try AutoincrementTests().versions()
        let (path, folder) = try storeAtFirstVersion([versions[0]], rows: "INSERT INTO item (title) VALUES ('a')")
        defer { folder.remove() }
        var options = StoreOptions()
        options.busyTimeout = timeout
        let opened = try LucidStore.open(atPath: path, versions: versions, options: options)
        #expect(opened.outcome.finalVersion == SchemaVersion("2.0"))
        try opened.database.close()
        #expect(try LucidStore.inspect(atPath: path, versions: versions, busyTimeout: timeout).steps.isEmpty)
        #expect(try LucidStore.ledger(atPath: path, busyTimeout: timeout) != nil)
        // The launch path (an up-to-date store) too.
        let again = try LucidStore.open(atPath: path, versions: versions, options: options)
        try again.database.close()
    }

    @Test func boundsAreTheOnesDocumented() {
        #expect(StoreOptions.boundedBusyTimeout(.infinity) == StoreOptions.maximumBusyTimeout)
        #expect(StoreOptions.boundedBusyTimeout(.nan) == 0 && StoreOptions.boundedBusyTimeout(-5) == 0)
        #expect(StoreOptions.boundedBusyTimeout(2.5) == 2.5)
    }
}
