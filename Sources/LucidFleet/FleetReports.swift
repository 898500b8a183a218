import Foundation
import LucidRuntime

extension StoreFleet {
    /// The reports of a fleet run, one per store, as the stores finish (``StoreFleet/migrate(_:)``).
    ///
    /// The run starts when iteration starts, and runs once per iterator. Cancelling the iterating task
    /// starts no new store; the sequence still yields the stores in flight (stopped after their current
    /// step) and the stores not started, then ends. An iterator dropped before the end stops the run the
    /// same way, without waiting for it.
    public struct Reports: AsyncSequence, Sendable {
        public typealias Element = StoreReport
        public typealias Failure = Never

        private let makeRun:
            @Sendable (_ deliver: @escaping @Sendable (StoreReport) -> Void, _ finished: @escaping @Sendable () -> Void) -> FleetRun

        init(
            _ makeRun:
                @escaping @Sendable (_ deliver: @escaping @Sendable (StoreReport) -> Void, _ finished: @escaping @Sendable () -> Void) ->
                FleetRun
        ) {
            self.makeRun = makeRun
        }

        public func makeAsyncIterator() -> Iterator {
            Iterator(Consumer(Channel(makeRun)))
        }

        /// Awaits the next store's report.
        public struct Iterator: AsyncIteratorProtocol {
            public typealias Element = StoreReport
            public typealias Failure = Never

            private let consumer: Consumer

            init(_ consumer: Consumer) {
                self.consumer = consumer
            }

            /// The next report, or nil once every store was reported.
            public mutating func next() async -> StoreReport? {
                let channel = consumer.channel
                return await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in channel.next(continuation) }
                } onCancel: {
                    channel.stop(.cancelled)
                }
            }
        }

        /// Held by the iterator alone: when the last copy of the iterator goes, the run stops.
        final class Consumer: Sendable {
            let channel: Channel

            init(_ channel: Channel) {
                self.channel = channel
            }

            deinit { channel.stop(.cancelled) }
        }

        /// The reports delivered and not yet taken, and the one task waiting for the next.
        final class Channel: @unchecked Sendable {
            private let lock = NSLock()
            private var makeRun:
                (@Sendable (_ deliver: @escaping @Sendable (StoreReport) -> Void, _ finished: @escaping @Sendable () -> Void) -> FleetRun)?
            private var run: FleetRun?
            private var stopped: StopReason?
            private var buffer: [StoreReport] = []
            private var head = 0
            private var waiting: CheckedContinuation<StoreReport?, Never>?
            private var over = false

            init(
                _ makeRun:
                    @escaping @Sendable (_ deliver: @escaping @Sendable (StoreReport) -> Void, _ finished: @escaping @Sendable () -> Void)
                    -> FleetRun
            ) {
                self.makeRun = makeRun
            }

            /// Resumes `continuation` with the next report, now or when it arrives; starts the run on the
            /// first call.
            func next(_ continuation: CheckedContinuation<StoreReport?, Never>) {
                lock.lock()
                if head < buffer.count {
                    let report = buffer[head]
                    head += 1
                    if head == buffer.count {
                        buffer.removeAll(keepingCapacity: true)
                        head = 0
                    }
                    lock.unlock()
                    continuation.resume(returning: report)
                    return
                }
                if over {
                    lock.unlock()
                    continuation.resume(returning: nil)
                    return
                }
                waiting = continuation
                let makeRun = self.makeRun
                self.makeRun = nil
                lock.unlock()
                guard let makeRun else { return }
                let run = makeRun({ [self] report in deliver(report) }, { [self] in finish() })
                lock.lock()
                self.run = run
                let stopped = self.stopped
                lock.unlock()
                if let stopped { run.stop(stopped) }
                run.start()
            }

            func stop(_ reason: StopReason) {
                lock.lock()
                if stopped == nil { stopped = reason }
                let run = self.run
                lock.unlock()
                run?.stop(reason)
            }

            private func deliver(_ report: StoreReport) {
                lock.lock()
                if let waiting {
                    self.waiting = nil
                    lock.unlock()
                    waiting.resume(returning: report)
                    return
                }
                buffer.append(report)
                lock.unlock()
            }

            private func finish() {
                lock.lock()
                over = true
                let waiting = self.waiting
                self.waiting = nil
                lock.unlock()
                waiting?.resume(returning: nil)
            }
        }
    }
}
