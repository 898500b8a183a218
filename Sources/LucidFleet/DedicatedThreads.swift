import Foundation
import LucidRuntime

/// A fixed set of threads of their own that run blocking work: SQLite calls, which may wait for a lock
/// or run a long migration step. Swift's cooperative pool has one thread per core and must never block,
/// and Dispatch's global queues grow a thread for each blocked block; these threads are created once,
/// take the work in the order it was given, and end when the set is shut down and nothing is left.
final class DedicatedThreads: @unchecked Sendable {
    private let condition = NSCondition()
    private var work: [@Sendable () -> Void] = []
    /// The next item of ``work`` to run (taken items are dropped in batches, not one by one).
    private var head = 0
    private var shuttingDown = false

    /// `count` threads (at least one), named `name 1`, `name 2`…
    init(count: Int, name: String) {
        for index in 1...max(count, 1) {
            let thread = Thread { [self] in runUntilShutDown() }
            thread.name = "\(name) \(index)"
            // SQLite and a stage's code may recurse deeper than the small default stack of secondary threads.
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    /// Runs `body` on one of the threads, after the work submitted before it has started.
    func submit(_ body: @escaping @Sendable () -> Void) {
        condition.lock()
        work.append(body)
        condition.signal()
        condition.unlock()
    }

    /// The threads end once the work submitted so far has run; nothing may be submitted after.
    func shutDown() {
        condition.lock()
        shuttingDown = true
        condition.broadcast()
        condition.unlock()
    }

    private func runUntilShutDown() {
        while let body = take() { body() }
    }

    private func take() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while head == work.count && !shuttingDown { condition.wait() }
        guard head < work.count else { return nil }
        let body = work[head]
        head += 1
        if head == work.count {
            work.removeAll(keepingCapacity: true)
            head = 0
        }
        return body
    }

    /// `body(0) … body(count - 1)` on `threads` dedicated threads, in order; returns when all have run.
    static func map<Result: Sendable>(count: Int, threads: Int, _ body: @escaping @Sendable (Int) -> Result) -> [Result] {
        guard count > 0 else { return [] }
        let results = Results<Result>(count: count)
        let pool = DedicatedThreads(count: min(threads, count), name: "lucidgen")
        for index in 0..<count {
            pool.submit { results.set(index, body(index)) }
        }
        pool.shutDown()
        return results.waitForAll()
    }

    /// The slots ``map(count:threads:_:)`` fills, and a wait for the last one.
    private final class Results<Result: Sendable>: @unchecked Sendable {
        private let condition = NSCondition()
        private var values: [Result?]
        private var left: Int

        init(count: Int) {
            values = Array(repeating: nil, count: count)
            left = count
        }

        func set(_ index: Int, _ value: Result) {
            condition.lock()
            values[index] = value
            left -= 1
            if left == 0 { condition.broadcast() }
            condition.unlock()
        }

        func waitForAll() -> [Result] {
            condition.lock()
            defer { condition.unlock() }
            while left > 0 { condition.wait() }
            return values.map { $0! }
        }
    }
}
