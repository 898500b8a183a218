import Foundation
import LucidTestSupport
import Testing

/// The example server, under the load of many tenants. `Examples/TenantServer` is a Hummingbird server whose first
/// build takes minutes (about two on 2 cores, more on a busy machine), so CI does not build it: CI checks
/// its committed generated code, and its load test runs on demand only, with
/// `LUCIDGEN_SERVER_LOADTEST=1 swift test --filter TenantServerLoadTests`.
///
/// The load test runs the example's `loadtest` script, built under `.build/e2e-server` (later runs reuse
/// the build), with this checkout's `lucidgen`: 200 tenants' stores seeded at 1.0, the server on 127.0.0.1 (a free
/// port) migrating them as a fleet at startup while 2,000 requests (8 in flight, at most 60 s) go to random
/// tenants, each answer checked, then every tenant's notes, a graceful shutdown, and `lucidgen status
/// --stores`; then 1,000 more stores, a SIGTERM as soon as the server listens (the fleet stops, every
/// store at the old version or the newest) and a second start that finishes them. It checks what the run
/// counted, never how long it took.
@Suite(.serialized) struct TenantServerLoadTests {
    static let enabled = ProcessInfo.processInfo.environment["LUCIDGEN_SERVER_LOADTEST"] == "1"
    static let scratch = repositoryRoot.appendingPathComponent(".build/e2e-server").path

    /// The `key=value` pairs of the output's line that starts with `prefix`.
    func values(after prefix: String, in output: String) -> [String: String] {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix(prefix + " ") }) else { return [:] }
        return Dictionary(
            line.split(separator: " ").dropFirst().compactMap { pair -> (String, String)? in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { _, last in last })
    }

    /// What CI checks of the example without building it: its committed generated code and snapshots are
    /// what this lucidgen makes of its descriptions (`lucidgen check`, on a copy: nothing is written into
    /// the checkout).
    @Test func theExamplesGeneratedCodeIsUpToDate() throws {
        let example = repositoryRoot.appendingPathComponent("Examples/TenantServer")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("tenant-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        for item in [".lucid.yaml", ".entities", "Sources/Notes"] {
            let target = copy.appendingPathComponent(item)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: example.appendingPathComponent(item), to: target)
        }
        let check = try run(lucidgenBinary, ["check"], in: copy)
        #expect(check.status == 0, "\(check.output)\n\(check.error)")
        #expect(check.output.contains("generated files up to date; 0 fixtures verified; passed"), "\(check.output)")
    }

    @Test(.enabled(if: enabled, "set LUCIDGEN_SERVER_LOADTEST=1 (builds Hummingbird: minutes the first time)"))
    func requestsAreServedWhileTheFleetMigratesAndNoneFails() throws {
        let example = repositoryRoot.appendingPathComponent("Examples/TenantServer")
        let result = try run(
            "/bin/bash",
            [
                "loadtest", "--scratch-path", Self.scratch, "--tenants", "200", "--notes", "300", "--requests", "2000", "--concurrency",
                "8", "--seconds", "60",
                "--jobs", "2", "--shutdown-stores", "1000",
            ],
            in: example, environment: ["LUCIDGEN": lucidgenBinary])
        let output = result.output + result.error
        #expect(result.status == 0, "\(output.suffix(6000))")
        #expect(output.hasSuffix("LOADTEST passed\n"), "\(output.suffix(3000))")

        let load = values(after: "RESULT", in: output)
        #expect(load["requests"] == "2000" && load["ok"] == "2000" && load["failed"] == "0", "\(load)")
        #expect(load["verify_failed"] == "0" && load["posted"] == "500", "every tenant's notes as seeded and posted: \(load)")
        #expect(load["fleet_stores"] == "200" && load["fleet_failed"] == "0" && load["fleet_finished"] == "true", "\(load)")
        // Every store was migrated once: by the fleet, or by a request's open before the fleet reached it.
        let migrated = ["fleet_migrated", "fleet_current_after_request", "fleet_already_current"].compactMap { load[$0].flatMap(Int.init) }
        #expect(migrated.count == 3 && migrated.reduce(0, +) == 200 && load["fleet_already_current"] == "0", "\(load)")
        #expect(load["passed"] == "true")

        let stores = values(after: "STORES", in: output)
        #expect(stores["at_newest"] == "200" && stores["newest"] == "2.0", "\(stores)")

        // The shutdown during the fleet left no store between versions (the script checks it with `lucidgen
        // status --stores`), and the next start migrated the rest.
        let shutdown = values(after: "SHUTDOWN", in: output)
        #expect(shutdown["stores"] == "1000" && shutdown["at_newest_after_restart"] == "1000", "\(shutdown)")
    }
}
