import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `lucidgen fixtures` and the generated migration tests seed rows that satisfy the app's CHECK constraints
/// too: an edge value a CHECK refuses (tried in SQLite) gives way to the next row's value that
/// passes, the same in both encoders; a row no fallback saves is an error naming the table, SQLite's words
/// for the constraint and the row's values. Stores made by GRDB's schema builder, as apps write them.
@Suite struct CheckedSeedsTests {
    static let config = TestProject.config(current: "1.0", tests: true)

    /// A league's players: a column CHECK on text, one on an integer (GRDB's `check { $0 >= 0 }`), one on an
    /// optional double, and a table CHECK on one column.
    static func makeLeague(at path: String, extra: String = "") throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().check(sql: "length(name) > 0")
                t.column("score", .integer).notNull().check { $0 >= 0 }
                t.column("rating", .double).check(sql: "rating BETWEEN 0 AND 5")
                t.check(sql: "score < 1000000000000")
            }
            try db.execute(sql: "INSERT INTO player (name, score, rating) VALUES ('Arthur', 10, 4.5)" + extra)
        }
    }

    static func adopt(_ project: TestProject, _ store: String) throws {
        let described = try run(lucidgenBinary, ["describe", "--database", store], in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        try project.write(".lucid.yaml", config)
        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
    }

    /// The generated seed of `label`'s argument: its salt and the residues it skips (nil: a plain seed).
    static func passingSeed(_ label: String, in tests: String) -> (salt: Int, period: Int, refused: [Int])? {
        guard let line = tests.split(separator: "\n").first(where: { $0.contains("\(label): .seed(row: LucidTesting.Seed.passingRow(") })
        else { return nil }
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        // passingRow(row, period: P, refused: [r…]), salt: S
        return (numbers.last!, numbers[0], Array(numbers.dropFirst().dropLast()))
    }

    @Test func fixturesAndGeneratedSeedsSatisfyTheTablesChecks() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        try Self.makeLeague(at: project.root.appendingPathComponent("league.sqlite").path)
        try Self.adopt(project, "league.sqlite")
        let testsFolder = project.root.appendingPathComponent("Tests/AppTests/Generated").path
        let tests = try (FileManager.default.contentsOfDirectory(atPath: testsFolder)).filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOfFile: (testsFolder as NSString).appendingPathComponent($0), encoding: .utf8) }.joined(
                separator: "\n")
        // -1, Int64.max (beyond the table CHECK), Int64.min, -1_000_000_007 and 2^53+1 are refused for score;
        // '' for name; negative and large doubles for rating.
        let score = try #require(Self.passingSeed("score", in: tests), "\(tests)")
        #expect(
            score.period == 12
                && score.refused.map { SeedValues.integers[($0 + score.salt) % 12] }.sorted() == [
                    Int64.min, -1_000_000_007, -1, 9_007_199_254_740_993, Int64.max,
                ])
        let name = try #require(Self.passingSeed("name", in: tests), "\(tests)")
        #expect(name.refused.map { SeedValues.strings[($0 + name.salt) % 12] } == [""])
        #expect(Self.passingSeed("rating", in: tests) != nil, "\(tests)")

        let output = project.root.appendingPathComponent("league_1.0.sqlite").path
        let fixtures = try run(lucidgenBinary, ["fixtures", "--unreleased", "--rows", "40", "--output", output], in: project.root)
        #expect(fixtures.status == 0, "\(fixtures.output)\(fixtures.error)")
        let queue = try DatabaseQueue(path: output)
        defer { try? queue.close() }
        let scores = try queue.read { db in try Int64.fetchAll(db, sql: "SELECT score FROM player ORDER BY id") }
        // The fixture holds what the generated seeds make (the same fallback), and every value passes.
        let expected = (1...40).map { row in
            SeedValues.pick(
                SeedValues.integers, row: SeedValues.passingRow(row, period: score.period, refused: score.refused), salt: score.salt)
        }
        #expect(scores == expected)
        #expect(scores.allSatisfy { $0 >= 0 } && Set(scores).count > 3, "\(scores)")
        #expect(
            try queue.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM player WHERE length(name) = 0 OR rating < 0 OR rating > 5")
            } == 0)
    }

    /// A CHECK naming two columns is not tried per column: the row SQLite refuses is named with the table, the
    /// constraint and the values, and nothing is written (never "cannot write <file>").
    @Test func aSeededRowTheChecksRefuseIsNamed() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("range.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.create(table: "span") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("low", .integer).notNull()
                t.column("high", .integer).notNull()
                t.check(sql: "low <= high")
            }
        }
        try queue.close()
        try Self.adopt(project, "range.sqlite")
        let output = project.root.appendingPathComponent("span_1.0.sqlite").path
        let fixtures = try run(lucidgenBinary, ["fixtures", "--unreleased", "--output", output], in: project.root)
        #expect(fixtures.status != 0)
        #expect(
            fixtures.error.contains(
                "span_1.0.sqlite is not written: table span refuses a seeded row (CHECK constraint failed: low <= high): (id, low, high) = ("
            ), "\(fixtures.error)")
        #expect(!fixtures.error.contains("cannot write"), "\(fixtures.error)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
