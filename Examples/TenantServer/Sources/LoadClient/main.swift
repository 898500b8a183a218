// The load test's client: a bounded number of requests (and a time bound) against a tenant-server on the
// loopback interface, a few in flight at a time, each response checked; then a check of every tenant's
// notes and the server's counts. Exit status 0 only when every check passed.
//
//   tenant-loadclient --url http://127.0.0.1:PORT [--tenants 200] [--notes 300] [--requests 2000]
//                     [--concurrency 8] [--seconds 60]
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Settings: Sendable {
    var url = ""
    var tenants = 200
    var notes = 300
    var requests = 2000
    var concurrency = 8
    var seconds = 60.0

    init(_ arguments: [String]) {
        var index = 0
        func value() -> String {
            index += 1
            guard index < arguments.count else { fail("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        func number(_ text: String) -> Double {
            guard let number = Double(text), number >= 0 else { fail("not a number: \(text)") }
            return number
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--url": url = value()
            case "--tenants": tenants = Int(number(value()))
            case "--notes": notes = Int(number(value()))
            case "--requests": requests = Int(number(value()))
            case "--concurrency": concurrency = max(1, Int(number(value())))
            case "--seconds": seconds = number(value())
            default: fail("unknown argument \(arguments[index])")
            }
            index += 1
        }
        guard url.hasPrefix("http://127.") || url.hasPrefix("http://localhost:") || url.hasPrefix("http://[::1]:") else {
            fail("--url must be on the loopback interface (http://127.x.x.x:PORT, localhost or [::1])")
        }
        guard tenants > 0 else { fail("--tenants must be at least 1") }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tenant-loadclient: \(message)\n".utf8))
    exit(2)
}

func tenant(_ number: Int) -> String {
    "tenant-" + String(repeating: "0", count: max(0, 4 - String(number).count)) + String(number)
}

/// What the server answers (NotesRoutes).
struct NoteJSON: Codable {
    var id: Int
    var title: String
    var text: String
    var pinned: Bool
    var createdAt: String
}

struct NotesPage: Codable {
    var tenant: String
    var count: Int
    var notes: [NoteJSON]
}

struct Stats: Codable {
    var stores: Int
    var reported: Int
    var migratedByTheFleet: Int
    var currentAfterARequest: Int
    var alreadyCurrent: Int
    var failed: Int
    var notAStore: Int
    var stopped: Int
    var notStarted: Int
    var finished: Bool
    var seconds: Double?
    var requests: Int
    var requestsWhileTheFleetRan: Int
    var requestsAheadOfTheFleet: Int
    var serverErrors: Int
}

/// The notes posted to each tenant: started and answered, for the bounds a list's count must be within.
final class Ledger: @unchecked Sendable {
    private let lock = NSLock()
    private var started: [Int: Int] = [:]
    private var done: [Int: Int] = [:]

    func postStarted(_ tenant: Int) { lock.withLock { started[tenant, default: 0] += 1 } }
    func postDone(_ tenant: Int) { lock.withLock { done[tenant, default: 0] += 1 } }
    func done(_ tenant: Int) -> Int { lock.withLock { done[tenant] ?? 0 } }
    func started(_ tenant: Int) -> Int { lock.withLock { started[tenant] ?? 0 } }
    var totalDone: Int { lock.withLock { done.values.reduce(0, +) } }
}

/// One request's outcome.
struct Outcome: Sendable {
    var kind: String
    var seconds: Double
    var failure: String?
}

/// Hands out request numbers until the count or the time is up.
final class Dispenser: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private let count: Int
    private let deadline: Date

    init(count: Int, seconds: Double) {
        self.count = count
        deadline = Date().addingTimeInterval(seconds)
    }

    func take() -> Int? {
        lock.withLock {
            guard next < count, Date() < deadline else { return nil }
            next += 1
            return next - 1
        }
    }
}

let settings = Settings(Array(CommandLine.arguments.dropFirst()))
let configuration = URLSessionConfiguration.ephemeral
configuration.httpMaximumConnectionsPerHost = settings.concurrency
configuration.timeoutIntervalForRequest = 60
let session = URLSession(configuration: configuration)

func send(_ method: String, _ path: String, body: Data? = nil) async throws -> (Int, Data) {
    var request = URLRequest(url: URL(string: settings.url + path)!)
    request.httpMethod = method
    if let body {
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await session.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
}

/// Request `number`: a tenant drawn from a fixed sequence, and one of: a new note (1 in 4), a search for the
/// seeded notes (1 in 4), the newest 20 notes (2 in 4). The checks:
/// - a new note: 201, the note as sent, a number above the seeded ones;
/// - a search: 200, exactly the seeded notes (the migration filled the search index 2.0 added);
/// - a list: 200, a count between the seeded notes plus the posts answered before the request and plus the
///   posts started before the answer, the newest first, each with the text it was written with.
func request(_ number: Int, ledger: Ledger) async -> Outcome {
    var mixed = UInt64(number) &* 0x9E37_79B9_7F4A_7C15
    mixed ^= mixed >> 29
    let tenantNumber = Int(mixed % UInt64(settings.tenants)) + 1
    let name = tenant(tenantNumber)
    let began = Date()
    var kind = "list"
    func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw CheckFailed(message: "\(kind) \(name): \(message())") }
    }
    do {
        switch number % 4 {
        case 0:
            kind = "post"
            ledger.postStarted(tenantNumber)
            let sent = ["title": "Posted \(number)", "text": "posted by request \(number) to \(name)"]
            let (status, data) = try await send("POST", "/tenants/\(name)/notes", body: try JSONEncoder().encode(sent))
            try check(status == 201, "status \(status): \(String(decoding: data, as: UTF8.self))")
            let note = try JSONDecoder().decode(NoteJSON.self, from: data)
            try check(
                note.title == sent["title"] && note.text == sent["text"] && !note.pinned && note.id > settings.notes,
                "unexpected note \(note)")
            ledger.postDone(tenantNumber)
        case 1:
            kind = "search"
            let (status, data) = try await send("GET", "/tenants/\(name)/notes?q=seeded&limit=5")
            try check(status == 200, "status \(status): \(String(decoding: data, as: UTF8.self))")
            let page = try JSONDecoder().decode(NotesPage.self, from: data)
            try check(page.tenant == name && page.count == settings.notes, "found \(page.count) seeded notes, expected \(settings.notes)")
            try check(
                page.notes.count == min(5, settings.notes)
                    && page.notes.allSatisfy { $0.id <= settings.notes && $0.text.hasPrefix("seeded note \($0.id) of \(name):") },
                "unexpected notes \(page.notes)")
        default:
            let low = settings.notes + ledger.done(tenantNumber)
            let (status, data) = try await send("GET", "/tenants/\(name)/notes?limit=20")
            let high = settings.notes + ledger.started(tenantNumber)
            try check(status == 200, "status \(status): \(String(decoding: data, as: UTF8.self))")
            let page = try JSONDecoder().decode(NotesPage.self, from: data)
            try check(page.tenant == name && (low...high).contains(page.count), "count \(page.count), expected \(low)...\(high)")
            try check(page.notes.count == min(20, page.count), "\(page.notes.count) notes for a count of \(page.count)")
            try check(zip(page.notes, page.notes.dropFirst()).allSatisfy { $0.id > $1.id }, "not newest first")
            try check(
                page.notes.allSatisfy {
                    $0.id <= settings.notes
                        ? $0.text.hasPrefix("seeded note \($0.id) of \(name):") && !$0.pinned : $0.text.hasPrefix("posted by request ")
                },
                "a note's text is not what was written: \(page.notes.prefix(3))")
        }
        return Outcome(kind: kind, seconds: Date().timeIntervalSince(began), failure: nil)
    } catch {
        return Outcome(kind: kind, seconds: Date().timeIntervalSince(began), failure: "\(error)")
    }
}

struct CheckFailed: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs `count` numbered jobs, `concurrency` at a time, until the count or `seconds` is up.
func runBounded(count: Int, seconds: Double, _ job: @escaping @Sendable (Int) async -> Outcome) async -> [Outcome] {
    let dispenser = Dispenser(count: count, seconds: seconds)
    return await withTaskGroup(of: [Outcome].self) { group in
        for _ in 0..<settings.concurrency {
            group.addTask {
                var outcomes: [Outcome] = []
                while let number = dispenser.take() { outcomes.append(await job(number)) }
                return outcomes
            }
        }
        return await group.reduce(into: []) { $0 += $1 }
    }
}

func stats() async throws -> Stats {
    let (status, data) = try await send("GET", "/stats")
    guard status == 200 else { throw CheckFailed(message: "GET /stats: status \(status)") }
    return try JSONDecoder().decode(Stats.self, from: data)
}

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
}

func milliseconds(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1000) }

func report(_ failures: [String]) {
    for failure in failures.prefix(10) { print("  failed: \(failure)") }
    if failures.count > 10 { print("  … and \(failures.count - 10) more") }
}

// 1. The load, while the server's startup fleet migrates.
let ledger = Ledger()
let began = Date()
let outcomes = await runBounded(count: settings.requests, seconds: settings.seconds) { await request($0, ledger: ledger) }
let loadSeconds = Date().timeIntervalSince(began)
let latencies = outcomes.map(\.seconds).sorted()
let failures = outcomes.compactMap(\.failure)
let kinds = Dictionary(grouping: outcomes, by: \.kind).mapValues(\.count)
print(
    """
    load: \(outcomes.count) requests (\(kinds["post"] ?? 0) POST, \(kinds["search"] ?? 0) search, \(kinds["list"] ?? 0) list) \
    across \(settings.tenants) tenants in \(String(format: "%.2f", loadSeconds)) s, \(settings.concurrency) in flight: \
    \(outcomes.count - failures.count) ok, \(failures.count) failed; latency p50 \(milliseconds(percentile(latencies, 0.5))) ms, \
    p95 \(milliseconds(percentile(latencies, 0.95))) ms, p99 \(milliseconds(percentile(latencies, 0.99))) ms, \
    max \(milliseconds(latencies.last ?? 0)) ms
    """)
report(failures)

// 2. The fleet's end (bounded), and what the requests saw of it.
var server = try await stats()
let waitUntil = Date().addingTimeInterval(max(settings.seconds, 30))
while !server.finished && Date() < waitUntil {
    try await Task.sleep(for: .milliseconds(200))
    server = try await stats()
}
print(
    """
    fleet: \(server.reported) of \(server.stores) stores in \(String(format: "%.2f", server.seconds ?? 0)) s: \
    \(server.migratedByTheFleet) migrated by the fleet, \(server.currentAfterARequest) current after a request opened them, \
    \(server.alreadyCurrent) already current, \(server.failed) failed, \(server.notAStore) not a store, \
    \(server.stopped) stopped, \(server.notStarted) not started\(server.finished ? "" : " (NOT FINISHED)")
    requests: \(server.requests) answered, \(server.requestsWhileTheFleetRan) while the fleet ran, \
    \(server.requestsAheadOfTheFleet) ahead of the fleet (their tenant's store not yet reported by it), \
    \(server.serverErrors) server errors
    """)

// 3. Every tenant's notes: the seeded ones (found by search), and every note whose POST was answered.
let verification = await runBounded(count: settings.tenants, seconds: 120) { index in
    let number = index + 1
    let name = tenant(number)
    let began = Date()
    do {
        for (query, expected) in [
            ("", settings.notes + ledger.done(number)), ("&q=seeded", settings.notes), ("&q=posted", ledger.done(number)),
        ] {
            let (status, data) = try await send("GET", "/tenants/\(name)/notes?limit=0\(query)")
            guard status == 200 else { throw CheckFailed(message: "verify \(name)\(query): status \(status)") }
            let page = try JSONDecoder().decode(NotesPage.self, from: data)
            guard page.count == expected else {
                throw CheckFailed(message: "verify \(name)\(query): \(page.count) notes, expected \(expected)")
            }
        }
        return Outcome(kind: "verify", seconds: Date().timeIntervalSince(began), failure: nil)
    } catch {
        return Outcome(kind: "verify", seconds: Date().timeIntervalSince(began), failure: "\(error)")
    }
}
let verificationFailures =
    verification.compactMap(\.failure)
    + (verification.count == settings.tenants ? [] : ["verified \(verification.count) of \(settings.tenants) tenants"])
print(
    "verify: \(settings.tenants) tenants, \(ledger.totalDone) notes posted: \(verificationFailures.isEmpty ? "every tenant has its seeded notes (searchable) and every note posted" : "\(verificationFailures.count) failed")"
)
report(verificationFailures)

let passed =
    failures.isEmpty && verificationFailures.isEmpty && outcomes.count == settings.requests && server.finished
    && server.failed == 0 && server.notAStore == 0 && server.serverErrors == 0 && server.reported == server.stores
print(
    """
    RESULT requests=\(outcomes.count) ok=\(outcomes.count - failures.count) failed=\(failures.count) \
    verify_failed=\(verificationFailures.count) posted=\(ledger.totalDone) \
    ahead_of_fleet=\(server.requestsAheadOfTheFleet) while_fleet_ran=\(server.requestsWhileTheFleetRan) \
    fleet_stores=\(server.stores) fleet_migrated=\(server.migratedByTheFleet) fleet_current_after_request=\(server.currentAfterARequest) \
    fleet_already_current=\(server.alreadyCurrent) fleet_failed=\(server.failed) fleet_finished=\(server.finished) \
    p50_ms=\(milliseconds(percentile(latencies, 0.5))) p95_ms=\(milliseconds(percentile(latencies, 0.95))) \
    passed=\(passed)
    """)
exit(passed ? 0 : 1)
