// The launch benchmark's app (copied into the synthetic package by make-long-history.py): what an app does
// at launch, in a fresh process each time.
//
//   launch create PATH   creates the store at the newest version with one row (not measured)
//   launch lucid PATH    LucidStore.open(registry:) of the up-to-date store, then reads one row
//   launch grdb PATH     a plain GRDB DatabaseQueue on the same file, then reads the same row
//   launch checked PATH  LucidStore.open(registry:) with versionRecordCheck = .always (a file from outside: the
//                        tables checked against the version record), then reads one row: the checking path
//   launch create-previous PATH   creates the store at the version before the newest (not measured)
//   launch migrate PATH  LucidStore.open(registry:) of that store: one migration step to the newest
//   launch checksum PATH computes the newest version's checksum once (what a migration's registry check does)
//   launch create-oldest PATH   creates the store at the oldest version (not measured)
//   launch migrate-sql PATH   LucidStore.open(registry:) migrating the store, printing every statement it runs
//                        (SQLite's trace, arguments expanded), for `sqlite3` to run the same SQL (not measured)
//   launch plan PATH     what a migration decides before its first step: the registry's versions, the
//                        store's recorded version, the path to the newest (prints microseconds and steps)
//
// Prints the microseconds from before the open to after the read (the registry's static initialisation
// included: it happens inside). Under callgrind, `--toggle-collect=*measuredLucidOpen*` / `*measuredGRDBOpen*` (names Swift mangles without abbreviating) counts
// the instructions of exactly that work.
import Foundation
import GRDB
import LongHistory
import LucidRuntime
import LucidTesting

@inline(never) func measuredLucidOpen(_ path: String) throws -> String? {
    let store = try LucidStore.open(atPath: path, registry: LongHistorySchema.self).database
    return try store.read { try String.fetchOne($0, sql: "SELECT title FROM entity_0 LIMIT 1") }
}

/// The checking path: what an open costs when the tables are checked against the record (on every open of a
/// file from outside; once after the schema changed, by the app's DDL or a VACUUM, on the default path).
@inline(never) func measuredLucidCheckedOpen(_ path: String) throws -> String? {
    var options = StoreOptions()
    options.versionRecordCheck = .always
    let store = try LucidStore.open(atPath: path, registry: LongHistorySchema.self, options: options).database
    return try store.read { try String.fetchOne($0, sql: "SELECT title FROM entity_0 WHERE id = 1") }
}

/// Not the same body as measuredLucidOpen: the optimizer merged the two into one function that main
/// called directly, and callgrind's toggle on measuredLucidOpen then counted nothing.
@inline(never) func measuredLucidMigrate(_ path: String) throws -> String? {
    let store = try LucidStore.open(atPath: path, registry: LongHistorySchema.self).database
    return try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM entity_0") }.map(String.init)
}

/// The registry check an open makes before migrating (the newest version's checksum, computed from its DDL),
/// through the public API since 0.2 (the schema model is lucidgen's own): what `LucidMigrator(registry:)` does.
@inline(never) func measuredChecksum() throws -> String {
    _ = try LucidMigrator(registry: LongHistorySchema.self)
    return LongHistorySchema.newestChecksum
}

/// The plan of a store, as `LucidStore.inspect` makes it: the state decision (the version record read, the
/// tables checked against it), the route and its steps, and `quick_check` (a few pages in this store).
@inline(never) func measuredPlan(_ path: String) throws -> [MigrationStep] {
    try LucidStore.inspect(atPath: path, registry: LongHistorySchema.self).steps
}

@inline(never) func measuredGRDBOpen(_ path: String) throws -> String? {
    let store = try DatabaseQueue(path: path)
    return try store.read { try String.fetchOne($0, sql: "SELECT title FROM entity_0 LIMIT 1") }
}

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "newest" {
    print(LongHistorySchema.newestVersion)
    exit(0)
}
guard arguments.count == 3 else {
    FileHandle.standardError.write(
        Data("usage: launch create|lucid|grdb|checked|create-previous|create-oldest|migrate|migrate-sql|plan|checksum PATH\n".utf8))
    exit(2)
}
let path = arguments[2]
do {
    switch arguments[1] {
    case "create":
        try? FileManager.default.removeItem(atPath: path)
        let store = try LucidStore.open(atPath: path, registry: LongHistorySchema.self).database
        try store.write { try $0.execute(sql: "INSERT INTO entity_0 (id, title) VALUES (1, 'first')") }
        print("created \(path)")
    case "create-previous":
        try? FileManager.default.removeItem(atPath: path)
        let versions = LongHistorySchema.versions
        let store = try LucidStore.create(atPath: path, registry: LongHistorySchema.self, version: versions[versions.count - 2].version)
        try store.write { try $0.execute(sql: "INSERT INTO entity_0 (id, title) VALUES (1, 'first')") }
        try store.close()
        print("created \(path) at \(versions[versions.count - 2].version)")
    case "create-oldest":
        try? FileManager.default.removeItem(atPath: path)
        let versions = LongHistorySchema.versions
        let store = try LucidStore.create(atPath: path, registry: LongHistorySchema.self, version: versions[0].version)
        try store.write { try $0.execute(sql: "INSERT INTO entity_0 (id, title) VALUES (1, 'first')") }
        try store.close()
        print("created \(path) at \(versions[0].version)")
    case "migrate":
        let start = DispatchTime.now().uptimeNanoseconds
        let rows = try measuredLucidMigrate(path)
        let end = DispatchTime.now().uptimeNanoseconds
        guard rows == "1" else { exit(1) }
        print((end - start) / 1000)
    case "migrate-sql":
        final class Statements: @unchecked Sendable { var sql: [String] = [] }
        let statements = Statements()
        var options = StoreOptions()
        options.configuration.publicStatementArguments = true
        options.configuration.prepareDatabase { db in
            db.trace(options: .statement) { event in
                guard case .statement(let statement) = event else { return }
                let sql = statement.expandedSQL
                if !sql.hasPrefix("--") { statements.sql.append(sql) } // not a trigger's own statements
            }
        }
        let store = try LucidStore.open(atPath: path, registry: LongHistorySchema.self, options: options).database
        _ = try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM entity_0") }
        try store.close()
        print(statements.sql.map { $0.hasSuffix(";") ? $0 : $0 + ";" }.joined(separator: "\n"))
    case "plan":
        let start = DispatchTime.now().uptimeNanoseconds
        let steps = try measuredPlan(path)
        let end = DispatchTime.now().uptimeNanoseconds
        print("\((end - start) / 1000) \(steps.count)")
    case "checksum":
        _ = LongHistorySchema.versions
        let start = DispatchTime.now().uptimeNanoseconds
        let checksum = try measuredChecksum()
        let end = DispatchTime.now().uptimeNanoseconds
        guard checksum == LongHistorySchema.newestChecksum else { exit(1) }
        print((end - start) / 1000)
    case "lucid", "grdb", "checked":
        let start = DispatchTime.now().uptimeNanoseconds
        let title =
            switch arguments[1] {
            case "lucid": try measuredLucidOpen(path)
            case "checked": try measuredLucidCheckedOpen(path)
            default: try measuredGRDBOpen(path)
            }
        let end = DispatchTime.now().uptimeNanoseconds
        guard title == "first" else {
            FileHandle.standardError.write(Data("launch: read \(title ?? "nil"), expected first\n".utf8))
            exit(1)
        }
        print((end - start) / 1000)
    default:
        FileHandle.standardError.write(
            Data("usage: launch create|lucid|grdb|checked|create-previous|create-oldest|migrate|migrate-sql|plan|checksum PATH\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("launch: \(error)\n".utf8))
    exit(1)
}
