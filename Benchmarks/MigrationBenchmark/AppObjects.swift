import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// What a GRDB app keeps beside the described tables: its migrator's table, a table with a
/// foreign key to `person`, an index, a view, a guard trigger, an audit trigger, and an external-content
/// FTS5 index over `person.name` with its three sync triggers.
enum AppObjectsBenchmark {
    static func objectsSQL(rows: Int) -> String {
        """
        BEGIN;
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('v1'), ('v2');
        CREATE TABLE review (id INTEGER PRIMARY KEY, person_id INTEGER REFERENCES person(id) ON DELETE CASCADE, stars INTEGER);
        INSERT INTO review SELECT i, (i * 97) % \(rows) + 1, i % 5 FROM (WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000) SELECT i FROM c);
        CREATE TABLE name_log (person_id INTEGER, old_name TEXT, new_name TEXT);
        \(recreate)
        INSERT INTO person_fts (person_fts) VALUES ('rebuild');
        COMMIT;
        """
    }

    /// The objects on `person` that its `DROP TABLE` drops (or, the view, that must be dropped first), as
    /// a careful developer recreates them after a hand-written rebuild.
    static let recreate = """
        CREATE INDEX person_age ON person (age);
        CREATE VIEW adults AS SELECT id, name, age FROM person WHERE age >= 18;
        CREATE TRIGGER person_guard BEFORE DELETE ON person WHEN old.age < 0 BEGIN SELECT RAISE(ABORT, 'guarded'); END;
        CREATE TRIGGER person_audit AFTER UPDATE OF name ON person BEGIN INSERT INTO name_log VALUES (old.id, old.name, new.name); END;
        CREATE VIRTUAL TABLE IF NOT EXISTS person_fts USING fts5(name, content='person', content_rowid='id');
        CREATE TRIGGER person_fts_ai AFTER INSERT ON person BEGIN INSERT INTO person_fts (rowid, name) VALUES (new.id, new.name); END;
        CREATE TRIGGER person_fts_ad AFTER DELETE ON person BEGIN INSERT INTO person_fts (person_fts, rowid, name) VALUES ('delete', old.id, old.name); END;
        CREATE TRIGGER person_fts_au AFTER UPDATE OF name ON person BEGIN
          INSERT INTO person_fts (person_fts, rowid, name) VALUES ('delete', old.id, old.name);
          INSERT INTO person_fts (rowid, name) VALUES (new.id, new.name);
        END;
        """

    /// The hand-written SQL of `scenario` on a store with the objects: a rebuild drops the view first and
    /// recreates everything after the new table has its name; ALTER TABLE keeps them by itself.
    static func statementsKeepingObjects(_ scenario: Scenarios) -> String {
        let statements = scenario.statementsInTransaction
        guard statements.contains("person_new") else { return statements }
        return
            statements
            .replacingOccurrences(of: "CREATE TABLE person_new", with: "DROP VIEW adults;\nCREATE TABLE person_new")
            .replacingOccurrences(
                of: "PRAGMA foreign_key_check;",
                with: recreate.replacingOccurrences(
                    of: "CREATE VIRTUAL TABLE IF NOT EXISTS person_fts USING fts5(name, content='person', content_rowid='id');\n", with: "")
                    + "\nPRAGMA foreign_key_check;")
    }

    static let scenarios: [Scenarios] = [.addColumn, .renameColumn, .dropColumn, .requireNote, .convertType]

    /// Each scenario four ways, in process, each on a fresh copy, interleaved (median of `runs`): lucidgen
    /// on the plain store and on the store with the objects; GRDB running the hand-written SQL on both.
    /// lucidgen's cost of keeping the objects is (with − plain); the work of recreating them is what the
    /// hand-written SQL adds (with − plain); the goal: lucidgen's extra beyond that ≤ 5 % of its plain step.
    static func run(base: String, rows: Int, copy: (String, String) throws -> String, shell: (String) throws -> Void) throws {
        let withObjects = try copy(base, "app-objects-base.sqlite")
        try objectsSQL(rows: rows).write(toFile: withObjects + ".sql", atomically: true, encoding: .utf8)
        try shell("sqlite3 '\(withObjects)' < '\(withObjects).sql'")
        var quiet = StoreOptions()
        quiet.logger.logLevel = .warning
        print(
            "step with the app's objects (in process, median)     lucidgen plain  lucidgen+objects  SQL plain  SQL+objects  extra beyond recreating"
        )
        for scenario in scenarios {
            let runs = scenario.isConstantTime ? 9 : 5
            var times: [[Double]] = [[], [], [], []]
            for run in 0..<runs {
                for (variant, store) in [base, withObjects, base, withObjects].enumerated() {
                    let path = try copy(store, "app-objects-\(variant)-\(run).sqlite")
                    let start = Date()
                    if variant < 2 {
                        try LucidStore.open(atPath: path, versions: Scenarios.versions(for: scenario), options: quiet).database.close()
                    } else {
                        let queue = try DatabaseQueue(path: path)
                        try queue.writeWithoutTransaction { db in
                            try db.execute(sql: "PRAGMA foreign_keys = OFF")
                            try db.inTransaction {
                                try db.execute(sql: variant == 2 ? scenario.statementsInTransaction : statementsKeepingObjects(scenario))
                                return .commit
                            }
                        }
                        try queue.close()
                    }
                    times[variant].append(Date().timeIntervalSince(start))
                    try? FileManager.default.removeItem(atPath: path)
                }
            }
            let medians = times.map { $0.sorted()[$0.count / 2] }
            let extra = (medians[1] - medians[0]) - (medians[3] - medians[2])
            print(
                scenario.label.padding(toLength: 52, withPad: " ", startingAt: 0)
                    + String(
                        format: "%10.2f ms %13.2f ms %9.2f ms %9.2f ms %+10.2f ms = %+.1f %% (goal <= 5 %%)", medians[0] * 1000,
                        medians[1] * 1000, medians[2] * 1000, medians[3] * 1000, extra * 1000, extra / medians[0] * 100))
        }
    }
}
