import Foundation
import LucidTestSupport
import Testing

/// `scripts/crash-soak 12`, so CI runs it: each kind of kill twice (CLI in rollback-journal, WAL and
/// deferred-cleanup modes; the app between steps, in its stage, whole path; the app at an instant) at least
/// once. A large N runs on demand: `scripts/crash-soak 200`.
@Suite struct CrashSoakTests {
    static let sqlite3 = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/opt/homebrew/bin/sqlite3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(.enabled(if: sqlite3 != nil, "scripts/crash-soak needs the sqlite3 CLI (scripts/quickstart installs it)"))
    func crashSoakWithTwelveKills() throws {
        let result = try run(
            "/bin/bash", [repositoryRoot.appendingPathComponent("scripts/crash-soak").path, "12"],
            environment: [
                "CRASH_SOAK_BIN": productsDirectory.path, "CRASH_SOAK_ROWS": "20000",
                "PATH": "\(URL(fileURLWithPath: Self.sqlite3!).deletingLastPathComponent().path):/usr/bin:/bin",
            ])
        print(result.output + result.error)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("crash-soak: 12 kills"), "\(result.output)")
        #expect(result.output.contains("12 consistent, 12 resumed identical"), "\(result.output)")
    }
}
