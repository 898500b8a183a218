import Foundation
import GRDB
import LucidRuntime
@_spi(Generated) import LucidSchema

/// The open stores of one process that serves many (a store per tenant): one connection per store file,
/// shared by every task that uses it, opened and migrated once, and at most ``capacity`` kept open.
///
/// ```swift
/// let tenants = try StoreCache(registry: FlightLogSchema.self, options: FlightLogStages.storeOptions())
///
/// // In a request handler:
/// let count = try await tenants.withStore(atPath: "/srv/tenants/\(tenant).sqlite") { database in
///     try await database.read { db in try Aircraft.fetchCount(db) }   // import GRDB
/// }
/// ```
///
/// **Once per store.** The first task that asks for a store opens it with
/// `LucidStore.open(atPath:registry:options:)` (creating or migrating it as that does) on a thread of
/// the cache's own; the tasks that ask meanwhile wait for that open and get the same connection, so 50
/// requests arriving together for a tenant whose store needs migrating migrate it once. An open that fails
/// fails for every task that waited for it; the next request tries again.
///
/// **Bounded.** Each open store holds file descriptors (a store in WAL mode three: the file, its `-wal`
/// and its `-shm`), and thousands of tenants exceed a process's default limit. When more than
/// ``capacity`` stores are open, the least recently used store that no task is using is closed; a store in
/// use is never closed under a task (the cache may then hold more than ``capacity`` until one is released).
///
/// A ``StoreFleet`` migrating the same files meanwhile (a server's startup task) is another connection: a
/// request for a store it is migrating waits for the lock (`StoreOptions.busyTimeout`) and then opens
/// the migrated store.
public final class StoreCache: Sendable {
    /// How many stores stay open once no task uses them.
    public let capacity: Int
    private let history: SchemaHistory
    private let options: StoreOptions
    private let threads: DedicatedThreads
    private let state = State()

    /// A cache of stores of `registry`, opened with `options`, after checking that the registry's
    /// checksums agree with this runtime.
    ///
    /// ```swift
    /// let tenants = try StoreCache(registry: FlightLogSchema.self, options: FlightLogStages.storeOptions(), capacity: 500)
    /// ```
    public convenience init<Registry: SchemaRegistry>(registry: Registry.Type, options: StoreOptions = StoreOptions(), capacity: Int = 256)
        throws(StoreError)
    {
        try LucidStore.checkRegistry(registry)
        self.init(history: SchemaHistory(registry: registry), options: options, capacity: capacity)
    }

    /// A cache for a schema history (lucidgen's own tools and tests).
    package init(history: SchemaHistory, options: StoreOptions = StoreOptions(), capacity: Int = 256) {
        self.history = history
        self.options = options
        self.capacity = max(capacity, 1)
        threads = DedicatedThreads(count: ProcessInfo.processInfo.activeProcessorCount, name: "lucidgen store cache")
    }

    deinit {
        threads.shutDown()
    }

    /// Runs `body` with the store at `path`, opened (created or migrated as needed) by the first task that
    /// asked for it; the store stays open, and is not closed under `body`, until `body` returns.
    ///
    /// ```swift
    /// try await tenants.withStore(atPath: path) { database in
    ///     try await database.write { db in try Aircraft(id: "N1", tailNumber: "N1", aircraftType: "C172", aircraftClass: .singleEngineLand).insert(db) }
    /// }
    /// ```
    ///
    /// Throws the `StoreError` of an open that failed, or what `body` throws.
    public func withStore<T>(
        atPath path: String, isolation: isolated (any Actor)? = #isolation, _ body: (DatabaseQueue) async throws -> T
    ) async throws -> T {
        let key = Self.key(path)
        let database = try await acquire(key, path: path).get()
        defer { release(key) }
        return try await body(database)
    }

    /// The paths of the stores open now, least recently used first (lucidgen's tests).
    package var openPaths: [String] {
        state.locked { $0.entries.filter { $0.value.database != nil }.sorted { $0.value.lastUsed < $1.value.lastUsed }.map(\.key) }
    }

    /// One key per file, however the path spells it.
    private static func key(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    private func acquire(_ key: String, path: String) async -> Result<DatabaseQueue, StoreError> {
        await withCheckedContinuation { continuation in
            let (ready, opens) = state.locked { state -> (DatabaseQueue?, Bool) in
                state.clock += 1
                if var entry = state.entries[key] {
                    entry.leases += 1
                    entry.lastUsed = state.clock
                    if entry.database == nil { entry.waiting.append(continuation) }
                    state.entries[key] = entry
                    return (entry.database, false)
                }
                state.entries[key] = Entry(leases: 1, lastUsed: state.clock, waiting: [continuation])
                return (nil, true)
            }
            if let ready { continuation.resume(returning: .success(ready)) }
            if opens { threads.submit { [self] in open(key, path: path) } }
        }
    }

    /// On one of the cache's threads: opens the store and hands it to every task waiting for it.
    private func open(_ key: String, path: String) {
        let result: Result<DatabaseQueue, StoreError>
        do {
            result = .success(try LucidStore.open(atPath: path, history: history, options: options).database)
        } catch {
            result = .failure(error)
        }
        let (waiting, evicted) = state.locked {
            state -> ([CheckedContinuation<Result<DatabaseQueue, StoreError>, Never>], [DatabaseQueue]) in
            guard var entry = state.entries[key] else { return ([], []) }
            let waiting = entry.waiting
            switch result {
            case .success(let database):
                entry.database = database
                entry.waiting = []
                state.entries[key] = entry
                return (waiting, state.evict(beyond: capacity))
            case .failure:
                state.entries[key] = nil
                return (waiting, [])
            }
        }
        for continuation in waiting { continuation.resume(returning: result) }
        close(evicted)
    }

    private func release(_ key: String) {
        let evicted = state.locked { state -> [DatabaseQueue] in
            state.clock += 1
            state.entries[key]?.leases -= 1
            state.entries[key]?.lastUsed = state.clock
            return state.evict(beyond: capacity)
        }
        close(evicted)
    }

    private func close(_ databases: [DatabaseQueue]) {
        for database in databases {
            threads.submit { try? database.close() }
        }
    }

    private struct Entry {
        /// Nil while the first task's open runs.
        var database: DatabaseQueue?
        /// Tasks using the store, or waiting for its open.
        var leases: Int
        var lastUsed: UInt64
        var waiting: [CheckedContinuation<Result<DatabaseQueue, StoreError>, Never>] = []

        init(leases: Int, lastUsed: UInt64, waiting: [CheckedContinuation<Result<DatabaseQueue, StoreError>, Never>]) {
            self.leases = leases
            self.lastUsed = lastUsed
            self.waiting = waiting
        }
    }

    private final class State: @unchecked Sendable {
        private let lock = NSLock()
        var entries: [String: Entry] = [:]
        var clock: UInt64 = 0

        func locked<T>(_ body: (State) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(self)
        }

        /// Removes the least recently used stores no task uses while more than `capacity` are open or
        /// opening, and returns them to close.
        func evict(beyond capacity: Int) -> [DatabaseQueue] {
            var evicted: [DatabaseQueue] = []
            while entries.count > capacity {
                guard
                    let oldest = entries.filter({ $0.value.leases == 0 && $0.value.database != nil }).min(by: {
                        $0.value.lastUsed < $1.value.lastUsed
                    })
                else { break }
                entries[oldest.key] = nil
                evicted.append(oldest.value.database!)
            }
            return evicted
        }
    }
}
