import Dispatch

/// Independent jobs on every core.
enum Parallel {
    /// Holds what the jobs share. Unchecked because the contract is the caller's: `body` only reads state
    /// nothing writes while the jobs run, and each job writes only its own slot of the results.
    private final class Shared<Result>: @unchecked Sendable {
        let body: (Int) -> Result
        let results: UnsafeMutableBufferPointer<Result?>

        init(count: Int, body: @escaping (Int) -> Result) {
            self.body = body
            results = .allocate(capacity: count)
            results.initialize(repeating: nil)
        }

        deinit {
            _ = results.deinitialize()
            results.deallocate()
        }
    }

    /// `body(0) … body(count - 1)`, run concurrently, in order.
    static func map<Result>(count: Int, _ body: @escaping (Int) -> Result) -> [Result] {
        guard count > 1 else { return (0..<count).map(body) }
        let shared = Shared(count: count, body: body)
        DispatchQueue.concurrentPerform(iterations: count) { index in shared.results[index] = shared.body(index) }
        return shared.results.map { $0! }
    }
}
