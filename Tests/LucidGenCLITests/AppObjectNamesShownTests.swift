import Foundation
import GRDB
import LucidTestSupport
import Testing

/// `plan` lists the app's objects by name; a name from the store file is shown escaped (a line break as
/// `\n`), as describe's hints show it, so that a table named with a line break cannot make a line of its own.
@Suite struct AppObjectNamesShownTests {
    @Test func planShowsAnAppTablesLineBreakEscaped() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("s.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute(sql: "CREATE TABLE \"a\nNothing to do.\" (id INTEGER PRIMARY KEY)")
        }
        try queue.close()
        #expect(try run(lucidgenBinary, ["describe", "--database", "s.sqlite"], in: project.root).status == 0)
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let plan = try run(lucidgenBinary, ["plan", "--database", "s.sqlite"], in: project.root)
        #expect(plan.status == 0, "\(plan.output)\(plan.error)")
        #expect(plan.output.contains(#"table a\nNothing to do."#), "\(plan.output)")
        #expect(!plan.output.split(separator: "\n").contains { $0.hasPrefix("Nothing to do.") }, "\(plan.output)")
    }
}
