import Foundation

/// How long each stage of a `generate` took (`generate --timings`, the long-history benchmark): the wall
/// time, and the process's CPU time over every thread (rendering and snapshot loading use every core).
package struct StageTimes: Sendable {
    package struct Stage: Sendable {
        package var name: String
        package var wall: Double
        package var cpu: Double
        /// 0 for a pipeline stage, 1 for a phase within one (``nest(_:)``).
        package var depth: Int
    }

    package private(set) var stages: [Stage] = []

    package init() {}

    /// Runs `body` and records its times under `name` (nothing when it throws).
    package mutating func measure<T, E: Error>(_ name: String, _ body: () throws(E) -> T) throws(E) -> T {
        let wall = ContinuousClock.now
        let cpu = Self.cpuSeconds()
        let value = try body()
        let elapsed = ContinuousClock.now - wall
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        stages.append(Stage(name: name, wall: seconds, cpu: Self.cpuSeconds() - cpu, depth: 0))
        return value
    }

    /// `other`'s stages, one level deeper, after the stage already recorded for them.
    package mutating func nest(_ other: StageTimes) {
        stages += other.stages.map { Stage(name: $0.name, wall: $0.wall, cpu: $0.cpu, depth: $0.depth + 1) }
    }

    package static func + (lhs: StageTimes, rhs: StageTimes) -> StageTimes {
        var result = lhs
        result.stages += rhs.stages
        return result
    }

    /// The process's CPU time so far, every thread's.
    package static func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// One line per stage: its name (a phase indented), wall seconds and CPU seconds.
    package var lines: [String] {
        let width = stages.map { $0.name.count + 2 * $0.depth }.max() ?? 0
        return stages.map { stage in
            let name = String(repeating: "  ", count: stage.depth) + stage.name
            return name.padding(toLength: width, withPad: " ", startingAt: 0)
                + String(format: "  %8.3f s wall  %8.3f s CPU", stage.wall, stage.cpu)
        }
    }
}
