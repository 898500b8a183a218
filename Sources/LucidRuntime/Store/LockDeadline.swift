import Foundation
import GRDB
@_spi(Generated) import LucidSchema

/// The busy handler of the runtime's own store connection: one deadline for every lock wait of a
/// step's transaction, instead of SQLite's busy timeout, which starts again at each wait.
///
/// In rollback-journal mode, while another connection holds a read transaction, a step waits at its
/// `BEGIN IMMEDIATE`, at every statement whose page cache must spill into the file (SQLite ignores a
/// spill that stays busy and keeps the pages in memory) and again at `COMMIT`. With
/// `sqlite3_busy_timeout` each of these waits the whole timeout (a 2 s timeout gave up after 19 s),
/// and meanwhile the app's new reads fail with "database is locked" (the step holds the `PENDING`
/// lock while it waits). Armed (``arm()``), every wait of the step shares one deadline, so the step
/// waits about one busy timeout in all; once it has passed, SQLite is told at once to stop waiting
/// (a spill is skipped, `COMMIT` fails and the step is rolled back).
///
/// Disarmed (the app's own use of the connection after the migration), each wait gets the whole
/// timeout, as `Configuration.busyMode = .timeout(_:)` does.
///
/// The waits themselves are not avoided (`PRAGMA cache_spill = OFF` or a large `cache_size` during
/// the step would avoid them): that would keep every page a step changes in memory, a rebuilt
/// table's size, on every migration, reader or not. Past the deadline SQLite skips the spills and
/// holds the pages until the step ends, as it did after each timeout before.
final class LockDeadline: @unchecked Sendable {
    /// How long a step (armed) or each wait (disarmed) may wait in all.
    let timeout: TimeInterval
    private let lock = NSLock()
    // Guarded by `lock`: SQLite calls the handler on the connection's thread, the migrator arms and
    // reads it on the same thread, but the app may use the connection from any thread later.
    private var deadline: ContinuousClock.Instant?
    private var waitDeadline: ContinuousClock.Instant?
    private var waitedSinceArmed: Duration = .zero
    private var callsSinceArmed = 0
    private var waitsSinceArmed = 0

    init(timeout: TimeInterval) {
        self.timeout = StoreOptions.boundedBusyTimeout(timeout)
    }

    /// The busy mode that consults this deadline.
    var busyMode: Database.BusyMode {
        .callback { [self] tries in shouldRetry(tries) }
    }

    /// Starts a step's deadline, `timeout` from now, and forgets the last step's waits.
    func arm() {
        locked {
            deadline = .now + .seconds(timeout)
            waitedSinceArmed = .zero
            callsSinceArmed = 0
            waitsSinceArmed = 0
        }
    }

    /// Ends the step's deadline: each wait gets the whole timeout again. What the step waited stays
    /// readable until the next ``arm()``.
    func disarm() {
        locked { deadline = nil }
    }

    /// How long the busy handler waited since the last ``arm()``, in seconds.
    var waited: TimeInterval {
        locked { Self.seconds(waitedSinceArmed) }
    }

    /// How many times SQLite asked the busy handler since the last ``arm()``.
    var calls: Int {
        locked { callsSinceArmed }
    }

    /// How many waits began since the last ``arm()`` (SQLite asks with `tries` 0 at the start of each):
    /// with a timeout per wait, the step could have waited this many timeouts.
    var waits: Int {
        locked { waitsSinceArmed }
    }

    /// SQLite's own backoff for `sqlite3_busy_timeout` (sqliteDefaultBusyCallback), in milliseconds:
    /// short sleeps first, so that a lock held briefly costs little, then 100 ms at most.
    private static let delays: [Int] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    /// The handler: `tries` is 0 at the first call of each wait. Sleeps a little and returns true
    /// (retry) until the deadline, false (give up with `SQLITE_BUSY`) once it has passed.
    private func shouldRetry(_ tries: Int) -> Bool {
        let now = ContinuousClock.now
        let end: ContinuousClock.Instant = locked {
            callsSinceArmed += 1
            if tries == 0 {
                waitsSinceArmed += 1
                waitDeadline = now + .seconds(timeout)
            }
            return deadline ?? waitDeadline ?? now
        }
        guard now < end else { return false }
        let delay = min(Duration.milliseconds(Self.delays[min(tries, Self.delays.count - 1)]), end - now)
        Thread.sleep(forTimeInterval: Self.seconds(delay))
        let slept = ContinuousClock.now - now
        locked { waitedSinceArmed += slept }
        return true
    }

    /// `NSLocking.withLock` is not on every platform this package supports.
    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
