import FlightLog
import Foundation
import GRDB
import LucidFleet
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// Two fleets on one folder at once (two deploys, two servers): each step of each store runs once, and a
/// store counts as migrated by a run only when that run ran a step of it; a run that found it migrated by the
/// other counts it current, never refused.
@Suite struct TwoFleetsTests {
    @Test func twoFleetsOnOneFolderCountEachStoreMigratedOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (paths, start) = try StoreFleetTests.makeFleet(folder, count: 30)
        // Each fleet from the other end, so that they meet on stores the other is migrating.
        let first = try StoreFleet(registry: FlightLogSchema.self, options: StoreFleetTests.options, limits: .init(jobs: 2))
        let second = try StoreFleet(registry: FlightLogSchema.self, options: StoreFleetTests.options, limits: .init(jobs: 2))
        async let one = StoreFleetTests.collect(first, paths)
        async let other = StoreFleetTests.collect(second, paths.reversed())
        let reports = await one + other
        #expect(reports.count == 2 * paths.count)
        let failures = reports.filter(\.isFailure).map { "\($0.path): \($0.outcome)" }
        #expect(failures.isEmpty, "\(failures)")
        for path in paths {
            let mine = reports.filter { $0.path == path }
            for report in mine {
                if case .migrated = report.outcome { #expect(!report.steps.isEmpty, "\(path): counted migrated by a run that ran no step") }
            }
            #expect(
                mine.flatMap(\.steps).map(\.label).sorted() == StoreFleetTests.steps[start[path]!]!.sorted(), "\(path): every step once")
            #expect(mine.allSatisfy { $0.versionAfter?.string == "4.0" })
            #expect(try StoreFleetTests.recordedVersion(path) == "4.0")
        }
    }
}
