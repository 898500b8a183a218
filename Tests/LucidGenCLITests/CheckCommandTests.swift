import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// `lucidgen check` as CI runs it: the real binary in a project folder, its exit codes and its three
/// output formats.
@Suite struct CheckCommandTests {
    static let config = TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n"

    static func track(_ properties: String) -> String {
        trackDescription(titleProperty + ",\n            " + properties)
    }

    /// A generated project (files up to date) with `properties` added to `track`.
    func project(_ properties: String, config: String = CheckCommandTests.config) throws -> TestProject {
        let project = try TestProject(files: [".entities/track.json": Self.track(properties)], config: config)
        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.error)")
        return project
    }

    static let additive = #"{ "name": "bpm", "property_type": "int", "nullable": true, "added_at_version": "2.0" }"#
    static let removal = #"{ "name": "bpm", "property_type": "int", "nullable": true, "removed_at_version": "2.0" }"#
    static let rename =
        #"{ "name": "name", "property_type": "string", "nullable": true, "previous_name": "artist", "renamed_at_version": "2.0" }"#

    @Test func anAdditiveHistoryPassesEvenUnderTheAdditiveRule() throws {
        let project = try project(Self.additive)
        defer { project.remove() }
        let plain = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(plain.status == 0, "\(plain.output)\(plain.error)")
        #expect(
            plain.output == "check: 0 errors, 0 warnings, 0 notes; 1 step linted; generated files up to date; 0 fixtures verified; passed\n"
        )
        let additive = try run(lucidgenBinary, ["check", "--additive-only"], in: project.root)
        #expect(additive.status == 0)
        #expect(additive.output.contains("1 step linted (additive only)"))
    }

    @Test func aRenameFailsTheAdditiveRuleOnly() throws {
        let project = try project(Self.rename)
        defer { project.remove() }
        let plain = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(plain.status == 0, "a rename is a warning by default")
        #expect(
            plain.output.hasPrefix(
                ".entities/track.json:7:13: warning: [BC102] property track.artist is renamed to name at 2.0 (column artist → name): "))
        let additive = try run(lucidgenBinary, ["check", "--additive-only"], in: project.root)
        #expect(additive.status == 4)
        #expect(
            additive.output.contains(
                ".entities/track.json:7:13: error: [AO105] column track.artist renamed to name at 2.0: not additive under CloudKit's rule"))
        #expect(
            additive.output.hasSuffix(
                "check: 1 error, 1 warning, 0 notes; 1 step linted (additive only); generated files up to date; 0 fixtures verified; failed (exit 4)\n"
            ))
        // --since past the step: nothing left to lint.
        let since = try run(lucidgenBinary, ["check", "--additive-only", "--since", "2.0"], in: project.root)
        #expect(since.status == 0)
        #expect(since.output.contains("0 steps linted"))
        let unknown = try run(lucidgenBinary, ["check", "--since", "7.0"], in: project.root)
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("--since 7.0 is not one of the versions 1.0, 2.0"))
    }

    @Test func aRemovalFailsUntilItIsAcknowledged() throws {
        let project = try project(Self.removal)
        defer { project.remove() }
        let failing = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(failing.status == 4)
        #expect(
            failing.output.hasPrefix(
                ".entities/track.json:7:13: error: [DS102] property track.bpm is removed at 2.0: its column and every value in it are dropped; instead, "
            ))
        try project.write(
            ".lucid.yaml",
            Self.config
                + "lint:\n  acknowledged:\n    - { code: DS102, entity: track, property: bpm, version: \"2.0\", reason: \"never written\" }\n"
        )
        // The config changed: the generated files are the same (the config's lint section renders nothing).
        let passing = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(passing.status == 0, "\(passing.output)")
        #expect(
            passing.output.hasPrefix(
                ".entities/track.json:7:13: note: [DS102] property track.bpm is removed at 2.0 (acknowledged: never written)\n"))
        // A severity turned down passes too.
        try project.write(".lucid.yaml", Self.config + "lint:\n  severity: { DS102: warning }\n")
        #expect(try run(lucidgenBinary, ["check"], in: project.root).status == 0)
    }

    @Test func staleGeneratedFilesExitTwoAndInvalidInputExitsOne() throws {
        let project = try project(Self.removal)
        defer { project.remove() }
        try project.write("Sources/App/Generated/Entities/Track.swift", "// edited\n")
        let stale = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(stale.status == 2, "stale files come before lint errors")
        #expect(
            stale.output.hasPrefix(
                "Sources/App/Generated/Entities/Track.swift: error: generated file out of date; run `lucidgen generate`\n"))
        #expect(stale.output.contains("[DS102]"), "every problem is reported")
        try project.write(".entities/track.json", "{ \"name\": ")
        let broken = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(broken.status == 1)
        #expect(broken.output.hasPrefix(".entities/track.json:1:"))
        #expect(broken.output.contains(": error: "))
    }

    @Test func aFixtureThatChangedExitsFive() throws {
        let config = TestProject.config(current: "2.0", tests: true)
        let project = try TestProject(files: [".entities/track.json": Self.track(Self.additive)], config: config)
        defer { project.remove() }
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let fixture = try run(lucidgenBinary, ["fixtures", "--schema-version", "1.0"], in: project.root)
        #expect(fixture.status == 0, "\(fixture.error)")
        let passing = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(passing.status == 0, "\(passing.output)")
        #expect(passing.output.contains("1 fixture verified"))
        let path = project.root.appendingPathComponent("Tests/AppTests/Generated/Fixtures/App_1_0.sqlite")
        var bytes = try Data(contentsOf: path)
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: path)
        let failing = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(failing.status == 5)
        #expect(
            failing.output.hasPrefix(
                "Tests/AppTests/Generated/Fixtures/App_1_0.sqlite: error: fixture cannot be trusted: it changed after it was written (SHA-256 "
            ))
    }

    @Test func jsonAndGitHubFormats() throws {
        let project = try project(Self.removal + ",\n            " + Self.rename)
        defer { project.remove() }
        let json = try run(lucidgenBinary, ["check", "--format", "json"], in: project.root)
        #expect(json.status == 4)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["exitCode"] as? Int == 4)
        #expect(object["passed"] as? Bool == false)
        let findings = try #require(object["findings"] as? [[String: Any]])
        #expect(findings.map { $0["code"] as? String } == ["DS102", "BC102"])
        #expect(findings.first?["file"] as? String == ".entities/track.json")
        #expect(findings.first?["line"] as? Int == 7)
        #expect(findings.first?["severity"] as? String == "error")
        #expect(findings.first?["property"] as? String == "bpm")
        #expect(findings.first?["to"] as? String == "2.0")
        #expect((findings.first?["instead"] as? String)?.hasPrefix("keep the property (mark it unused)") == true)

        let github = try run(lucidgenBinary, ["check", "--format", "github"], in: project.root)
        #expect(github.status == 4)
        let lines = github.output.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.hasPrefix(
                "::error file=.entities/track.json,line=7,col=13,title=DS102::[DS102] property track.bpm is removed at 2.0: ") == true)
        #expect(lines.contains { $0.hasPrefix("::warning file=.entities/track.json,line=8,col=13,title=BC102::[BC102] ") })
        #expect(lines.last?.hasPrefix("check: 1 error, 1 warning") == true)
    }

    @Test func helpDocumentsCodesAndExitCodes() throws {
        let help = try run(lucidgenBinary, ["check", "--help"])
        for code in LintCode.all { #expect(help.output.contains(code.id), "\(code.id)") }
        for line in [
            "2   generated files are out of date", "4   lint findings at error severity", "5   a fixture store does not match its .sha256",
        ] {
            #expect(help.output.contains(line))
        }
        let top = try run(lucidgenBinary, ["--help"])
        #expect(top.output.contains("check"))
    }

    /// Sample rows (`.entities/.samples/<version>.json`) are the generated tests' input: a mistake in one is
    /// found by `check`, at its line, not by a failing test (or never, for a file named after no version).
    @Test func sampleRowsAreCheckedAgainstTheirVersion() throws {
        let project = try project(Self.additive)
        defer { project.remove() }
        let samples = project.root.appendingPathComponent(".entities/.samples")
        try FileManager.default.createDirectory(at: samples, withIntermediateDirectories: true)
        func write(_ name: String, _ text: String) throws {
            try text.write(to: samples.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try write("1.0.json", #"{ "track": [ { "id": 1001, "title": "Nina Simone - Sinnerman" } ] }"#)
        // (Names as SQLite takes them: any case.)
        try write("2.0.json", #"{ "Track": [ { "id": 1001, "Title": "Sinnerman", "bpm": 120 } ] }"#)
        let good = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(good.status == 0, "\(good.output)\(good.error)")

        // A table or column the version does not have (with the name meant), a required column left out, a
        // column of a later version, a file named after no version (or after one, spelled otherwise).
        try write(
            "1.0.json",
            """
            { "tracks": [ { "id": 1001, "title": "x" } ],
              "track": [ { "id": 1002, "titel": "x" },
                         { "id": 1003, "title": "y", "bpm": 120 } ] }
            """)
        try write("1.5.json", "{}")
        try write("2.0.0.json", "{}")
        let bad = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(bad.status == 1)
        #expect(
            bad.output.split(separator: "\n").map(String.init) == [
                ".entities/.samples/1.0.json:1:3: error: version 1.0 has no table 'tracks' (sample rows are written by table and column name as the version stores them); did you mean 'track'? (at $.tracks)",
                ".entities/.samples/1.0.json:2:28: error: table 'track' has no column 'titel' at 1.0; did you mean 'title'? its columns: id, title (at $.track[0].titel)",
                ".entities/.samples/1.0.json:2:14: error: table 'track': the row lacks 'title', which 1.0 requires (NOT NULL without a default) (at $.track[0])",
                ".entities/.samples/1.0.json:3:42: error: table 'track' has no column 'bpm' at 1.0; its columns: id, title (at $.track[1].bpm)",
                ".entities/.samples/1.5.json:1:1: error: sample rows file '1.5.json' is not named after a version of the history: its rows are never seeded; name it <version>.json for one of the versions 1.0, 2.0",
                ".entities/.samples/2.0.0.json:1:1: error: sample rows file '2.0.0.json' is not named after a version of the history: name it 2.0.json (the generated tests read the file of 2.0 by that name)",
                "check: 6 errors, 0 warnings, 0 notes; failed (exit 1)",
            ])
        try FileManager.default.removeItem(at: samples.appendingPathComponent("1.5.json"))
        try FileManager.default.removeItem(at: samples.appendingPathComponent("2.0.0.json"))

        // What only SQLite can say, at the row's line: a key a seeded row has.
        try write(
            "1.0.json",
            """
            { "track": [ { "id": 1001, "title": "x" },
                         { "id": 1, "title": "y" } ] }
            """)
        let taken = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(taken.status == 1)
        #expect(
            taken.output.hasPrefix(
                ".entities/.samples/1.0.json:2:14: error: sample row refused by SQLite: table track, row id=1 (the row at index 1 of the table): UNIQUE constraint failed: track.id (the seeded rows come first"
            ), "\(taken.output)")
        // And malformed JSON, at its place.
        try write("1.0.json", #"{ "track": [ { "id": 1001, "title": "x" }, ] }"#)
        let malformed = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(malformed.status == 1)
        #expect(malformed.output.hasPrefix(".entities/.samples/1.0.json:1:44: error: trailing comma before ']'"), "\(malformed.output)")
    }

    /// Sample values are checked against what their columns hold: each wrong value is an error at
    /// its place, not a test that fails later (`could not decode Date`) or passes with a value no app writes.
    @Test func sampleValuesAreCheckedAgainstTheirColumnsTypes() throws {
        let note = """
            {
                "name": "note",
                "identifier": { "type": "int" },
                "version_history": [{ "version": "1.0" }],
                "properties": [
                    { "name": "title", "property_type": "string" },
                    { "name": "count", "property_type": "int", "default_value": 0 },
                    { "name": "is_pinned", "property_type": "bool", "default_value": false },
                    { "name": "created_at", "property_type": "date", "nullable": true },
                    { "name": "weight", "property_type": "double", "nullable": true },
                    { "name": "mood", "property_type": "mood", "nullable": true }
                ]
            }
            """
        let mood = #"{ "name": "mood", "cases": ["calm", "busy"] }"#
        let project = try TestProject(
            files: [".entities/note.json": note, ".entities/Subtypes/mood.json": mood],
            config: TestProject.defaultConfig + "\ncurrent_version: \"1.0\"\n")
        defer { project.remove() }
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        try project.write(
            ".entities/.samples/1.0.json",
            """
            { "note": [
              { "id": 1001, "title": "ok", "count": 3, "is_pinned": true, "created_at": "2026-11-28 09:30:00.123", "weight": 1.5, "mood": "calm" },
              { "id": 1002, "title": "also ok", "is_pinned": 0, "created_at": "2024-02-29", "weight": 2, "mood": null }
            ] }
            """)
        let good = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(good.status == 0, "\(good.output)\(good.error)")

        try project.write(
            ".entities/.samples/1.0.json",
            """
            { "note": [
              { "id": 1001, "title": 7, "count": "three", "is_pinned": "yes" },
              { "id": 1002, "title": "x", "count": 1.5, "is_pinned": 7, "created_at": "not a date" },
              { "id": 1003, "title": "x", "count": 18446744073709551616, "created_at": "2025-02-29", "mood": "angry" },
              { "id": 1004, "title": null, "weight": "heavy" }
            ] }
            """)
        let bad = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(bad.status == 1)
        let lines = bad.output.split(separator: "\n").map(String.init)
        for expected in [
            ".entities/.samples/1.0.json:2:26: error: table 'note', column 'title': expected a string, found a number (at $.note[0].title)",
            ".entities/.samples/1.0.json:2:38: error: table 'note', column 'count': expected an integer, found a string (at $.note[0].count)",
            ".entities/.samples/1.0.json:2:60: error: table 'note', column 'is_pinned': expected true or false, found a string (at $.note[0].is_pinned)",
            ".entities/.samples/1.0.json:3:40: error: table 'note', column 'count': 1.5 is not an integer that fits in 64 bits (at $.note[1].count)",
            ".entities/.samples/1.0.json:3:58: error: table 'note', column 'is_pinned': 7 is not a boolean: write true or false (at $.note[1].is_pinned)",
            ".entities/.samples/1.0.json:3:75: error: table 'note', column 'created_at': 'not a date' is not a date the records decode",
            ".entities/.samples/1.0.json:4:40: error: table 'note', column 'count': 18446744073709551616 is not an integer that fits in 64 bits (at $.note[2].count)",
            ".entities/.samples/1.0.json:4:76: error: table 'note', column 'created_at': '2025-02-29' is not a date the records decode",
            ".entities/.samples/1.0.json:4:98: error: table 'note', column 'mood': 'angry' is no case of mood (its cases: busy, calm) (at $.note[2].mood)",
            ".entities/.samples/1.0.json:5:26: error: table 'note', column 'title': null in a column that is NOT NULL (at $.note[3].title)",
            ".entities/.samples/1.0.json:5:42: error: table 'note', column 'weight': expected a number, found a string (at $.note[3].weight)",
            "check: 11 errors,",
        ] {
            #expect(lines.contains { $0.hasPrefix(expected) }, "\(expected)\n\(bad.output)")
        }

        // A samples path that is a file is an error, not a silent no-op.
        try FileManager.default.removeItem(at: project.root.appendingPathComponent(".entities/.samples"))
        try project.write(".entities/.samples", "{}")
        let file = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(file.status == 1)
        #expect(file.output.contains(".entities/.samples:1:1: error: the samples path is not a folder"), "\(file.output)")
    }

    /// A sample row whose reference points at no row is an error at that row's line (by its key).
    @Test func aBrokenForeignKeyInSampleRowsIsLocatedAtItsRow() throws {
        let room =
            #"{ "name": "room", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "label", "property_type": "string" }] }"#
        let item = """
            { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
              "properties": [{ "name": "label", "property_type": "string" },
                             { "name": "room", "property_type": { "entity_name": "room", "association": "to_one" }, "nullable": true }] }
            """
        let project = try TestProject(
            files: [".entities/room.json": room, ".entities/item.json": item],
            config: TestProject.defaultConfig + "\ncurrent_version: \"1.0\"\n")
        defer { project.remove() }
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        try project.write(
            ".entities/.samples/1.0.json",
            """
            { "room": [ { "id": 1001, "label": "attic" } ],
              "item": [ { "id": 2001, "label": "lamp", "room": 1001 },
                        { "id": 2002, "label": "ghost", "room": 999999 } ] }
            """)
        let bad = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(bad.status == 1)
        #expect(bad.output.contains(".entities/.samples/1.0.json:3:13: error: sample rows break 1 foreign key(s)"), "\(bad.output)")
        #expect(bad.output.contains("item.room of row id=2002 is 999999, but room has no such row"), "\(bad.output)")
    }
}
