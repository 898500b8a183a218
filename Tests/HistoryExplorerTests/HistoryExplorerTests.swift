import Foundation
import Testing

/// The history explorer: random description histories, played as a user plays them, every migration checked.
///
/// CI runs a fixed set of seeds. Any seed and count (a soak):
/// `LUCIDGEN_EXPLORE_SEED=<n> LUCIDGEN_EXPLORE_COUNT=<n> swift test --filter HistoryExplorer`.
/// A failure prints the seed, the shrunk history (its edits per release) and its description files per
/// release, ready to become a regression test.
@Suite("HistoryExplorer", .serialized)
struct HistoryExplorerTests {
    static let environment = ProcessInfo.processInfo.environment
    static let firstSeed = environment["LUCIDGEN_EXPLORE_SEED"].flatMap(UInt64.init) ?? 1
    static let count = environment["LUCIDGEN_EXPLORE_COUNT"].flatMap(Int.init) ?? 12
    /// `LUCIDGEN_EXPLORE_SHRINK=0` reports failures unshrunk (a quick survey of a long soak).
    static let shrinks = environment["LUCIDGEN_EXPLORE_SHRINK"] != "0"
    /// `LUCIDGEN_EXPLORE_OBJECT_STATS=1` prints, per seed, what became of the app's objects on each store.

    @Test("random histories migrate every value", arguments: Array(firstSeed..<(firstSeed + UInt64(count))))
    func explore(seed: UInt64) {
        var generator = HistoryGenerator(seed: seed)
        let history = generator.history()
        let outcome = Explorer(history: history, objectSeed: seed).run()
        if Self.environment["LUCIDGEN_EXPLORE_OBJECT_STATS"] == "1" {
            print(
                "seed \(seed) app objects: "
                    + AppObjectOracle.Result.allCases.map { "\(outcome.objectResults[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", "))
        }
        guard !outcome.failures.isEmpty else { return }
        guard Self.shrinks else {
            Issue.record(
                Comment(
                    rawValue: "seed \(seed) fails (unshrunk):\n" + outcome.failures.prefix(30).map { "  • \($0)" }.joined(separator: "\n")
                        + "\nHistory:\n\(history)"))
            return
        }
        let shrunk = Shrinker(history: history, failures: { Explorer(history: $0, objectSeed: seed).run().failures }).shrink()
        Issue.record(Comment(rawValue: Shrinker.report(seed: seed, original: history, originalFailures: outcome.failures, shrunk: shrunk)))
    }
}
