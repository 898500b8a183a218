// An app that opens the store of scripts/crash-soak-project through the API, with its stage (hooks and a
// row transform) and data migrations: the process the crash tests and `scripts/crash-soak` kill.
//
// Usage: crash-child CONFIG STORE [--whole-path] [--accept-drift] [--to VERSION] [--pause-at POINT]
//
// Prints one line per progress event on stdout, flushed at once ("step 2/3 (2.0 → 3.0 (rescore)): starting"),
// then "opened at VERSION". With --pause-at, the process stops at that named point, inside the migration's
// transaction, after printing "paused at POINT", and waits to be killed. Points: "step N starting",
// "step N done" (before the step commits), "will migrate", "did migrate", "data 2.0", "data 4.0",
// "transform" (in the row transform, after 1,000 rows), and with --accept-drift (StoreOptions.acceptsInferableDrift)
// "drift repaired" (the drift's repair committed, before the store is adopted or migrated on).
import Foundation
import GRDB
import Logging
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("crash-child: \(message)\n".utf8))
    exit(code)
}

struct Arguments {
    var positional: [String] = []
    var pauseAt: String?
    var target: String?
    var wholePath = false
    var acceptDrift = false

    init(_ words: [String]) {
        var words = words[...]
        while let word = words.popFirst() {
            switch word {
            case "--whole-path": wholePath = true
            case "--accept-drift": acceptDrift = true
            case "--pause-at": pauseAt = words.popFirst()
            case "--to": target = words.popFirst()
            default: positional.append(word)
            }
        }
    }
}
let parsed = Arguments(Array(CommandLine.arguments.dropFirst()))
let pauseAt = parsed.pauseAt
guard parsed.positional.count == 2 else {
    fail("usage: crash-child CONFIG STORE [--whole-path] [--accept-drift] [--to VERSION] [--pause-at POINT]", code: 64)
}
let arguments = parsed.positional
let target = parsed.target
let wholePath = parsed.wholePath

/// Stops here if this is the point the caller asked for: it kills the process, which never resumes.
@Sendable func point(_ name: String) {
    guard name == pauseAt else { return }
    say("paused at \(name)")
    while true { sleep(3600) }
}

let model: ResolvedModel
do {
    model = try Resolver.resolve(try GeneratorPipeline(configPath: arguments[0]).load())
} catch {
    fail("\(error)", code: 65)
}
var versions = model.schemas
if let target {
    guard let version = try? SchemaVersion(parsing: target), versions.contains(where: { $0.version == version }) else {
        fail("--to \(target) is not a version", code: 64)
    }
    versions = versions.filter { $0.version <= version }
}

let transformed = LockedCounter()
var options = StoreOptions()
options.atomicity = wholePath ? .wholePath : .perStep
options.acceptsInferableDrift = parsed.acceptDrift
// The runtime says a drift's repair once it has committed (a notice): the point "drift repaired".
options.logger = Logger(label: "crash-child") { _ in RepairWatcher() }
options.stages = [
    MigrationStage(
        from: SchemaVersion("2.0"), to: SchemaVersion("3.0"), label: "rescore",
        transforms: [
            RowTransform(table: "item") { row in
                if transformed.increment() == 1_000 { point("transform") }
                let score: Int = row["score"]
                var values: [String: DatabaseValue] = [:]
                for column in ["id", "name", "note", "label", "tag"] { values[column] = row[column] as DatabaseValue }
                values["score"] = "\(score) pts".databaseValue
                return values
            }
        ],
        willMigrate: { db in
            point("will migrate")
            try db.execute(sql: "UPDATE item SET name = upper(name) WHERE id % 10 = 0")
        },
        didMigrate: { db in
            point("did migrate")
            try db.execute(sql: "UPDATE item SET tag = tag + id % 3")
        })
]
options.stages.removeAll { stage in !versions.contains { $0.version == stage.to } }
options.dataMigrations = [
    DataMigration(version: SchemaVersion("2.0"), label: "mark empty notes") { db in
        point("data 2.0")
        try db.execute(sql: "UPDATE item SET note = 'was empty' WHERE note = ''")
    },
    DataMigration(version: SchemaVersion("4.0"), label: "level from tag") { db in
        point("data 4.0")
        try db.execute(sql: "UPDATE item SET level = CASE WHEN tag > 5 THEN 'high' ELSE 'low' END")
    },
]
options.progress = { progress in
    // One line per step and operation (not per chunk of rows).
    guard progress.rowsDone == 0 else { return }
    say("step \(progress.step)/\(progress.totalSteps) (\(progress.stepLabel)): \(progress.operation)")
    if progress.operation == "starting" || progress.operation == "done" { point("step \(progress.step) \(progress.operation)") }
}

do {
    let database = try LucidStore.open(atPath: arguments[1], versions: versions, options: options).database
    let version = try database.read { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") ?? "?" }
    try database.close()
    say("opened at \(version)")
} catch {
    fail("\(error)", code: 3)
}

/// Prints warnings and errors to stderr; pauses at "drift repaired" when the runtime says it brought a drifted store to a version.
struct RepairWatcher: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .notice

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let message = "\(event.message)"
        if event.level == .notice, message.contains("(acceptsInferableDrift)") { point("drift repaired") }
        if event.level >= .warning { FileHandle.standardError.write(Data("crash-child: \(event.level): \(message)\n".utf8)) }
    }
}

final class LockedCounter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
