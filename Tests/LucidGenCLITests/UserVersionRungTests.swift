import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// A store an FMDB, SQLite.swift or raw-SQL app numbered with `PRAGMA user_version` is recognised by its rung
/// too: user_version N names version N.0, taken when the store's tables are N.0's, also when a
/// later version has the same tables (a migration that only moved data); when the tables are another
/// version's, they decide and `plan` says that the rung disagrees. lucidgen leaves user_version as the app set it.
@Suite struct UserVersionRungTests {
    /// An app's store after each of its migrations: 1 creates `note`, 2 adds `pinned`, 3 only fills it.
    func make(_ project: TestProject, _ name: String, rung: Int, tablesOf layout: Int? = nil) throws {
        let queue = try DatabaseQueue(path: project.root.appendingPathComponent(name).path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO note (body) VALUES ('first')")
            if (layout ?? rung) >= 2 { try db.execute(sql: "ALTER TABLE note ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0") }
            if (layout ?? rung) >= 3 { try db.execute(sql: "UPDATE note SET pinned = 1") }
            try db.execute(sql: "PRAGMA user_version = \(rung)")
        }
        try queue.close()
    }

    func project() throws -> TestProject {
        let project = try TestProject(config: nil)
        for rung in 1...3 { try make(project, "v\(rung).sqlite", rung: rung) }
        let described = try run(
            lucidgenBinary, ["describe", "--database", "v1.sqlite", "--database", "v2.sqlite", "--database", "v3.sqlite"], in: project.root)
        #expect(described.status == 0, "\(described.output)\(described.error)")
        // The rungs 2 and 3 have the same tables: said, since only a store's user_version tells them apart.
        #expect(
            described.error.contains(
                "warning: the stores at 2.0, 3.0 have the same tables: a user's store with them is recognised as 3.0, the newest of those versions (unless its PRAGMA user_version N names one of them, N.0)"
            ), "\(described.error)")
        #expect(described.error.components(separatedBy: "warning:").count == 2, "\(described.error)")
        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        return project
    }

    @Test func aStoreIsRecognisedAtItsRungWhenALaterVersionHasTheSameTables() throws {
        let project = try project()
        defer { project.remove() }
        try make(project, "user.sqlite", rung: 2)
        let plan = try run(lucidgenBinary, ["plan", "--database", "user.sqlite"], in: project.root)
        #expect(
            plan.output.contains("user.sqlite: at version 2.0 (recognised from its tables); newest is 3.0."), "\(plan.output)\(plan.error)")
        #expect(!plan.output.contains("Note:"), "\(plan.output)")

        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        let opened = try LucidStore.open(atPath: project.root.appendingPathComponent("user.sqlite").path, versions: schemas)
        let (adopted, userVersion) = try opened.database.read { db in
            (
                try String.fetchAll(db, sql: "SELECT to_version FROM lucid_migration_log WHERE kind = 'adopt'"),
                try Int.fetchOne(db, sql: "PRAGMA user_version")
            )
        }
        try opened.database.close()
        #expect(adopted == ["2.0"] && opened.outcome.steps.map(\.to.string) == ["3.0"], "\(adopted) \(opened.outcome.steps.map(\.label))")
        #expect(userVersion == 2, "lucidgen leaves user_version as the app set it")
    }

    @Test func aRungThatDisagreesWithTheTablesIsSaid() throws {
        let project = try project()
        defer { project.remove() }
        // The app bumped user_version to 3 on a store that still has 1.0's tables.
        try make(project, "odd.sqlite", rung: 3, tablesOf: 1)
        let plan = try run(lucidgenBinary, ["plan", "--database", "odd.sqlite"], in: project.root)
        #expect(
            plan.output.contains("odd.sqlite: at version 1.0 (recognised from its tables); newest is 3.0."), "\(plan.output)\(plan.error)")
        #expect(
            plan.output.contains(
                "Note: its user_version 3 names version 3.0, but its tables are 1.0's: recognised as 1.0 from its tables."),
            "\(plan.output)")

        // Tables of no version: the refusal says what the rung's version expects.
        let queue = try DatabaseQueue(path: project.root.appendingPathComponent("none.sqlite").path)
        try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL, colour TEXT NOT NULL); PRAGMA user_version = 2")
        }
        try queue.close()
        let refused = try run(lucidgenBinary, ["plan", "--database", "none.sqlite"], in: project.root)
        #expect(
            refused.status != 0 && refused.error.contains("its user_version 2 names version 2.0, whose tables it does not have exactly"),
            "\(refused.output)\(refused.error)")
    }
}
