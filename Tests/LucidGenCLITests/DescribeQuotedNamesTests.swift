import Foundation
import GRDB
import LucidGenCore
import LucidTestSupport
import Testing

/// `describe` reads a store whose tables, columns and indexes have quotes in their names (it aborted with
/// `near "idx": syntax error` on an index named `my"idx`): their names are quoted by lucidgen, not GRDB.
@Suite struct DescribeQuotedNamesTests {
    @Test func aStoreWithQuotesInItsNamesIsRead() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("s.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT NOT NULL);
                    CREATE INDEX "my""idx" ON t (a);
                    CREATE TABLE "we""ird" (id INTEGER PRIMARY KEY, "c""1" TEXT);
                    CREATE UNIQUE INDEX "x""y" ON "we""ird" ("c""1");
                    """)
        }
        try queue.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "s.sqlite"], in: project.root)
        #expect(described.status == 0 && !described.error.contains("syntax error"), "\(described.output)\(described.error)")
        #expect(try project.read(".entities/t.json").contains(#""properties": ["a"]"#), "the index on t is read")
    }
}
