import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// The store commands on stores with hostile names beside lucidgen's tables, and on option values no clock can
/// wait: each says what it did or why it refuses, never an SQL syntax error, never a crash.
@Suite struct UntrustedStoreCommandTests {
    /// A project (`item`, 1.0 → 1.1 → 2.0) and its store at 1.0 in `tenants/`, with an app index and an app
    /// table (and its index) of each hostile name.
    static func project(names: [String]) throws -> (project: TestProject, store: String) {
        let project = try TestProject(
            files: [".entities/item.json": StoreProcessTests.entity], config: TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n")
        try FileManager.default.createDirectory(at: project.root.appendingPathComponent("tenants"), withIntermediateDirectories: true)
        let store = project.root.appendingPathComponent("tenants/a.sqlite").path
        let created = try run(lucidgenBinary, ["fixtures", "--schema-version", "1.0", "--rows", "3", "--output", store], in: project.root)
        #expect(created.status == 0, "\(created.error)")
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            for (number, name) in names.enumerated() {
                try db.execute(sql: "CREATE INDEX \(quoteIdentifier(name)) ON item (name)")
                try db.execute(sql: "CREATE TABLE \(quoteIdentifier("t" + name)) (\(quoteIdentifier("c" + name)) TEXT)")
                try db.execute(
                    sql:
                        "CREATE INDEX \(quoteIdentifier("i\(number)" + name)) ON \(quoteIdentifier("t" + name)) (\(quoteIdentifier("c" + name)))"
                )
            }
        }
        try queue.close()
        try? FileManager.default.removeItem(atPath: store + ".sha256")
        return (project, store)
    }

    @Test func hostileNamesInAStoreAreReadByEveryStoreCommand() throws {
        let (project, store) = try Self.project(names: QuotedNameTestNames.all)
        defer { project.remove() }
        for arguments in [["plan", "--database", store], ["status", "--database", store], ["status", "--stores", "tenants"]] {
            let result = try run(lucidgenBinary, arguments, in: project.root)
            #expect(result.status == 0 && !result.error.contains("syntax error"), "\(arguments): \(result.output)\(result.error)")
        }
        let migrated = try run(lucidgenBinary, ["migrate", "--database", store, "--to", "1.1"], in: project.root)
        #expect(migrated.status == 0 && migrated.output.contains("migrated from 1.0 to 1.1"), "\(migrated.output)\(migrated.error)")
        let fleet = try run(lucidgenBinary, ["migrate", "--stores", "tenants"], in: project.root)
        #expect(fleet.status == 0 && fleet.output.contains("1 migrated"), "\(fleet.output)\(fleet.error)")
        let queue = try DatabaseQueue(path: store)
        defer { try? queue.close() }
        let indexes = try queue.read { db in Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'")) }
        #expect(Set(QuotedNameTestNames.all).isSubset(of: indexes), "every app index kept: \(indexes)")
    }

    @Test func aBusyTimeoutNoClockCanWaitIsAUsageError() throws {
        let (project, store) = try Self.project(names: [])
        defer { project.remove() }
        for value in ["inf", "nan", "1e300", "-1"] {
            for command in [
                ["plan", "--database", store], ["migrate", "--database", store], ["status", "--database", store],
                ["migrate", "--stores", "tenants"],
            ] {
                let result = try run(lucidgenBinary, command + ["--busy-timeout", value], in: project.root)
                #expect(
                    result.status == 64 && result.error.contains("--busy-timeout"), "\(command) \(value): \(result.status) \(result.error)")
            }
        }
        #expect(
            try LucidStore.inspect(atPath: store, versions: StoreProcessTests.versions(project)).version == SchemaVersion("1.0"),
            "nothing was migrated")
    }
}

/// Names an app (or an attacker) may give its tables and indexes: quotes, brackets, backticks, a closing
/// parenthesis, non-ASCII letters, a long name.
enum QuotedNameTestNames {
    static let all = [#"my"idx"#, #"a""b"#, "[x]", "`y`", "z'q", "é ü 名", #"")"#, String(repeating: "long\"", count: 200)]
}
