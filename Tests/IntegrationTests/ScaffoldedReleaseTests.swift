import Foundation
import LucidTestSupport
import Testing

/// The package `lucidgen init` makes, taken through a second release the way its "Next:" says, with a stage
/// written in the scaffolded `<Module>Stages` and its expectation in the scaffolded `<Module>Expectations`:
/// the generated tests run the app's own stages and data migrations (the scaffold's expectations return the
/// app's `storeOptions()`), and the project's sample rows (`.entities/.samples/<version>.json`) are what make
/// a stage that swaps two values fail them. The seeded edge values never contain what the stage reacts to.
///
/// Built under `.build/e2e-release` with a fixed scratch folder (a first build compiles GRDB, about a
/// minute on 2 cores; later runs rebuild what changed).
@Suite(.serialized) struct ScaffoldedReleaseTests {
    static let base = repositoryRoot.appendingPathComponent(".build/e2e-release")

    @Test func aSwappedStageFailsTheScaffoldedPackagesGeneratedTestsThroughItsSampleRows() throws {
        let package = Self.base.appendingPathComponent("Notes")
        let scratch = Self.base.appendingPathComponent("scratch").path
        try? FileManager.default.removeItem(at: package)
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        func file(_ relative: String) -> URL { package.appendingPathComponent(relative) }
        func edit(_ relative: String, _ change: (String) -> String) throws {
            let text = try String(contentsOf: file(relative), encoding: .utf8)
            let changed = change(text)
            #expect(changed != text, "the edit of \(relative) found what it replaces")
            try changed.write(to: file(relative), atomically: true, encoding: .utf8)
        }

        let initResult = try run(lucidgenBinary, ["init", "--package-path", repositoryRoot.path, "--module", "Notes"], in: package)
        #expect(initResult.status == 0, "\(initResult.error)")
        let release = try run(lucidgenBinary, ["release"], in: package)
        #expect(release.status == 0, "\(release.output)\(release.error)")
        #expect(release.output.contains("Released 1.0."), "\(release.output)")

        // 2.0: a note gets a subtitle, and the app's stage splits "Groceries - Saturday" into title and subtitle.
        try """
        {
            "name": "note",
            "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
            "properties": [
                { "name": "title", "property_type": "string" },
                { "name": "subtitle", "property_type": "string", "nullable": true, "added_at_version": "2.0" },
                { "name": "body", "property_type": "string" },
                { "name": "is_pinned", "property_type": "bool", "default_value": false },
                { "name": "created_at", "property_type": "date", "nullable": true }
            ]
        }
        """.write(to: file(".entities/note.json"), atomically: true, encoding: .utf8)
        try edit(".lucid.yaml") {
            $0.replacingOccurrences(of: "current_version: \"1.0\"", with: "current_version: \"2.0\"")
                + "stages:\n  - { from: \"1.0\", to: \"2.0\", name: splitTitles }\n"
        }
        let generate = try run(lucidgenBinary, ["generate"], in: package)
        #expect(generate.status == 0, "\(generate.error)")

        // The stage and a data migration, in the scaffolded stages type (whose storeOptions() the app opens its
        // store with); the stage's expectation in the scaffolded expectations, whose storeOptions() is the app's.
        #expect(
            try String(contentsOf: file("Tests/NotesTests/NotesExpectations.swift"), encoding: .utf8).contains("NotesStages.storeOptions()")
        )
        try edit("Sources/Notes/NotesStages.swift") {
            $0.replacingOccurrences(
                of: "    public init() {}\n",
                with: """
                        public init() {}

                        public func splitTitlesWillMigrate(_ db: Database) throws {}

                        /// "Groceries - Saturday" becomes the title "Groceries" and the subtitle "Saturday".
                        public func splitTitlesDidMigrate(_ db: Database) throws {
                            for var note in try Note_2_0.fetchAll(db) {
                                guard let range = note.title.range(of: " - ") else { continue }
                                let head = String(note.title[..<range.lowerBound])
                                let tail = String(note.title[range.upperBound...])
                                note.title = head
                                note.subtitle = tail
                                try note.update(db)
                            }
                        }

                    """
            )
            .replacingOccurrences(
                of: "        return options\n",
                with: """
                            options.dataMigrations = [
                                DataMigration(version: SchemaVersion("2.0"), label: "pin notes without a body") { db in
                                    try db.execute(sql: "UPDATE note SET is_pinned = 1 WHERE body = ''")
                                }
                            ]
                            return options

                    """)
        }
        try edit("Tests/NotesTests/NotesExpectations.swift") {
            $0.replacingOccurrences(
                of: "    }\n}\n",
                with: """
                        }

                        /// 1.0 → 2.0: a title "A - B" becomes the title "A" and the subtitle "B".
                        func splitTitlesExpectation(before: ExpectedRows, after: inout ExpectedRows) throws {
                            try after.updateAll(Note_2_0.self) { note in
                                let parts = note.title.components(separatedBy: " - ")
                                guard parts.count > 1 else { return }
                                note.title = parts[0]
                                note.subtitle = parts.dropFirst().joined(separator: " - ")
                            }
                        }
                    }

                    """)
        }
        // Rows the edge values never hold: a title with " - " in it (ids above the seeded rows').
        try FileManager.default.createDirectory(at: file(".entities/.samples"), withIntermediateDirectories: true)
        try
            #"{ "note": [ { "id": 1001, "title": "Groceries - Saturday", "body": "eggs, milk" }, { "id": 1002, "title": "no dash", "body": "x" } ] }"#
            .write(to: file(".entities/.samples/1.0.json"), atomically: true, encoding: .utf8)
        let check = try run(lucidgenBinary, ["check"], in: package)
        #expect(check.status == 0, "the sample rows are 1.0's: \(check.output)\(check.error)")

        // The app's data migration runs in the generated tests (the scaffold's options are the app's): without
        // its expectation they fail and say which one is missing.
        let missing = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: package)
        #expect(missing.status != 0)
        #expect(
            missing.output.contains(
                "the data migration 2.0 'pin notes without a body' runs, but no expectation says what it does to the rows"),
            "\(missing.output.suffix(4000))\n\(missing.error.suffix(2000))")
        try edit("Tests/NotesTests/NotesExpectations.swift") {
            $0.replacingOccurrences(
                of: "    /// 1.0 → 2.0: a title",
                with: """
                        var dataMigrationExpectations: [DataMigrationExpectation] {
                            [DataMigrationExpectation(version: SchemaVersion("2.0"), label: "pin notes without a body") { rows in
                                try rows.updateAll(Note_2_0.self) { note in if note.body.isEmpty { note.isPinned = true } }
                            }]
                        }

                        /// 1.0 → 2.0: a title
                    """)
        }
        let green = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: package)
        #expect(green.status == 0, "\(green.output.suffix(4000))\n\(green.error.suffix(2000))")
        #expect(
            green.output.contains(
                "\"a store seeded at each version migrates to 2.0 with every value as expected\" with 2 test cases passed"),
            "\(green.output.suffix(3000))")
        #expect(
            green.output.contains("\"each committed fixture store migrates to 2.0 with every value as expected\" with 1 test case passed"),
            "\(green.output.suffix(3000))")

        // The stage swaps the two values: the sample row fails the tests, which say which row and property.
        try edit("Sources/Notes/NotesStages.swift") {
            $0.replacingOccurrences(of: "note.title = head\n", with: "note.title = tail\n")
                .replacingOccurrences(of: "note.subtitle = tail\n", with: "note.subtitle = head\n")
        }
        let red = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: package)
        #expect(red.status != 0)
        let source = "from 1.0 (seeded rows and sample rows .samples/1.0.json): Note (table note), row id=1001"
        #expect(
            red.output.contains(#"\#(source), property title: expected "Groceries", found "Saturday""#),
            "\(red.output.suffix(4000))\n\(red.error.suffix(2000))")
        #expect(
            red.output.contains(#"\#(source), property subtitle: expected "Saturday", found "Groceries""#), "\(red.output.suffix(4000))")

        // Without the sample rows the same swapped stage passes every generated test: what the samples are for.
        try FileManager.default.removeItem(at: file(".entities/.samples/1.0.json"))
        let blind = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: package)
        #expect(blind.status == 0, "\(blind.output.suffix(4000))")

        // A released version's fixture store deleted: the generated tests fail naming the file to restore, and
        // so does `lucidgen check`; they never pass by finding nothing.
        let fixtures = file("Tests/NotesTests/Generated/Fixtures")
        let fixture = fixtures.appendingPathComponent("Notes_1_0.sqlite")
        try FileManager.default.removeItem(at: fixture)
        let lost = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: package)
        #expect(lost.status != 0, "\(lost.output.suffix(3000))")
        #expect(
            lost.output.contains("version 1.0 was released, but its fixture store \(fixture.path) is missing: restore it"),
            "\(lost.output.suffix(4000))")
        let checked = try run(lucidgenBinary, ["check"], in: package)
        #expect(checked.status != 0)
        #expect(
            (checked.output + checked.error).contains(
                "Notes_1_0.sqlite: error: fixture missing: version 1.0 was released, but its fixture store"),
            "\(checked.output)\(checked.error)")

        // The whole folder gone (or the test file moved away from it): one failing case, not zero cases.
        try FileManager.default.removeItem(at: fixtures)
        let noFolder = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: package)
        #expect(noFolder.status != 0, "\(noFolder.output.suffix(3000))")
        #expect(noFolder.output.contains("there is no fixture folder at \(fixtures.path)"), "\(noFolder.output.suffix(4000))")
    }
}
