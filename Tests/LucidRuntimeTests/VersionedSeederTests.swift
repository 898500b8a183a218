import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting
import Synchronization
import Testing

/// The generated tests seed each version with one function per record type and the range of versions
/// it seeds: the right functions must run for each version, in order.
@Suite struct VersionedSeederTests {
    @Test func eachVersionRunsTheFunctionsWhoseRangeHoldsIt() throws {
        let calls = Mutex<[String]>([])
        func recording(_ name: String) -> VersionedSeeder.Function {
            { _, rows in calls.withLock { $0.append("\(name)×\(rows)") } }
        }
        let seeders = [
            VersionedSeeder(from: SchemaVersion("1.0"), through: SchemaVersion("1.9"), recording("a1")),
            VersionedSeeder(from: SchemaVersion("1.0"), through: SchemaVersion("10.0"), recording("b")),
            VersionedSeeder(from: SchemaVersion("1.10"), through: SchemaVersion("10.0"), recording("a2")),
            VersionedSeeder(from: SchemaVersion("2.0"), through: SchemaVersion("2.0"), recording("c")),
        ]
        let database = try DatabaseQueue()
        func seeded(_ version: String) throws -> [String] {
            calls.withLock { $0 = [] }
            try database.write { try VersionedSeeder.seed(seeders, version: try SchemaVersion(parsing: version), $0, rows: 3) }
            return calls.withLock { $0 }
        }
        #expect(try seeded("1.0") == ["a1×3", "b×3"])
        #expect(try seeded("1.9") == ["a1×3", "b×3"])
        // 1.10 comes after 1.9 (numeric components), not between 1.1 and 1.2.
        #expect(try seeded("1.10") == ["b×3", "a2×3"])
        #expect(try seeded("2.0") == ["b×3", "a2×3", "c×3"])
        #expect(try seeded("2.0.0") == ["b×3", "a2×3", "c×3"])
        #expect(try seeded("10.0") == ["b×3", "a2×3"])
        #expect(try seeded("10.1") == [])
    }
}
