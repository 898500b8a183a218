import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// Connections migrating one store at once (each its own, as processes have): the one that waited finds the
/// store migrated by another ("nothing left to do"), never a record its tables contradict, even when the
/// record is checked against the tables (``StoreOptions/VersionRecordCheck/always``, as `lucidgen migrate`
/// checks a file handed to it). `LUCIDGEN_CONCURRENCY_TRIALS` sets how many stores each case migrates (a few
/// by default; 200 by hand).
@Suite struct ConcurrentMigrationTests {
    static let trials = ProcessInfo.processInfo.environment["LUCIDGEN_CONCURRENCY_TRIALS"].flatMap { Int($0) }

    /// `connections` connections open a store at 1.0 at once, `trials` times, each on a store of its own.
    /// Returns what each refused open said (none expected).
    func race(connections: Int, trials: Int, check: StoreOptions.VersionRecordCheck) throws -> [String] {
        let versions = try AutoincrementTests().versions()
        let refusals = Refusals()
        for _ in 0..<trials {
            let (path, folder) = try storeAtFirstVersion([versions[0]], rows: "INSERT INTO item (title) VALUES ('a'), ('b')")
            defer { folder.remove() }
            let options = {
                var options = StoreOptions()
                options.versionRecordCheck = check
                return options
            }()
            // One thread per connection (a dispatch queue may run fewer at once), all let go together.
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            for _ in 0..<connections {
                done.enter()
                Thread {
                    start.wait()
                    do {
                        let opened = try LucidStore.open(atPath: path, versions: versions, options: options)
                        try opened.database.close()
                    } catch {
                        refusals.add("\(error)")
                    }
                    done.leave()
                }.start()
            }
            for _ in 0..<connections { start.signal() }
            done.wait()
            let status = try LucidStore.inspect(atPath: path, versions: versions)
            #expect(status.version == SchemaVersion("2.0") && status.steps.isEmpty)
        }
        return refusals.all
    }

    @Test(arguments: [(2, 10), (4, 5)])
    func concurrentMigrationsAreNothingLeftToDoNeverAForgedRecord(connections: Int, trials: Int) throws {
        let refusals = try race(connections: connections, trials: Self.trials ?? trials, check: .always)
        #expect(refusals.isEmpty, "\(refusals.count) refused: \(refusals.prefix(3))")
    }

    @Test func theDefaultCheckToo() throws {
        let refusals = try race(connections: 4, trials: Self.trials ?? 5, check: .whenSchemaChanged)
        #expect(refusals.isEmpty, "\(refusals.count) refused: \(refusals.prefix(3))")
    }
}

/// What the racing connections said, gathered from several threads.
private final class Refusals: @unchecked Sendable {
    private let lock = NSLock()
    private var said: [String] = []

    func add(_ text: String) { lock.withLock { said.append(text) } }
    var all: [String] { lock.withLock { said } }
}
