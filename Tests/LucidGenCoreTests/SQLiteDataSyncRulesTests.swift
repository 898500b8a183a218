import Foundation
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `lucidgen check --sqlitedata`: the schema rules SQLiteData's `SyncEngine` checks before it syncs a
/// database with CloudKit, one code per rule, each located at the description line that breaks it. The
/// histories are planted, modelled on SQLiteData's Reminders app (folders of notes, with tags).
@Suite struct SQLiteDataSyncRulesTests {
    static let config = TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n"
    static let twoVersions = #"{ "version": "1.0" }, { "version": "2.0" }"#

    /// An entity description whose identifier is on line 3, its history on line 4, and its properties one a
    /// line from line 6 (`extra`, entity-level keys, after them).
    static func entity(
        _ name: String, identifier: String = #"{ "type": "uuid" }"#, history: String = twoVersions, _ properties: [String],
        extra: String = ""
    ) -> String {
        """
        {
            "name": "\(name)",
            "identifier": \(identifier),
            "version_history": [\(history)],
            "properties": [
                \(properties.joined(separator: ",\n        "))
            ]\(extra.isEmpty ? "" : ",\n    " + extra)
        }
        """
    }

    static let title = #"{ "name": "title", "property_type": "string", "default_value": "" }"#

    static func toOne(_ name: String, _ target: String, _ more: String = "") -> String {
        #"{ "name": "\#(name)", "property_type": { "entity_name": "\#(target)", "association": "to_one" }\#(more) }"#
    }

    /// The SQLiteData findings of a project made of `files`, as (code, file name, line).
    func findings(_ files: [String: String]) throws -> [Finding] {
        let project = try TestProject(files: files, config: Self.config)
        defer { project.remove() }
        let (input, result) = try GeneratorPipeline(configPath: project.configPath).check()
        #expect(!result.diagnostics.contains { $0.severity == .error }, "\(result.diagnostics)")
        var settings = result.model.config.lint
        settings.sqliteData = true
        return Linter(model: result.model, descriptions: input.entities, settings: settings).run().findings
            .filter { $0.code.family == .sqliteData }
            .map {
                Finding(
                    code: $0.code.id, file: (($0.location?.file ?? "") as NSString).lastPathComponent, line: $0.location?.line ?? 0,
                    message: $0.message)
            }
    }

    struct Finding: Hashable, CustomStringConvertible {
        var code: String
        var file: String
        var line: Int
        var message: String
        var place: String { "\(code) \(file):\(line)" }
        var description: String { "\(place) \(message)" }
    }

    /// A schema SQLiteData syncs: uuid keys, a cascading to-one, a tree of notes (a table referencing
    /// itself), later properties nullable or defaulted (one NOT NULL ON CONFLICT REPLACE with a default).
    @Test func aSyncableHistoryHasNoFinding() throws {
        let files = [
            ".entities/folder.json": Self.entity(
                "folder", [Self.title, #"{ "name": "color", "property_type": "int", "nullable": true, "added_at_version": "2.0" }"#]),
            ".entities/note.json": Self.entity(
                "note",
                [
                    Self.title, Self.toOne("folder", "folder"), Self.toOne("parent", "note", #", "nullable": true"#),
                    #"{ "name": "flagged", "property_type": "bool", "default_value": false, "on_conflict": "replace", "added_at_version": "2.0" }"#,
                ]),
        ]
        #expect(try findings(files) == [])
    }

    @Test func aUniquenessButThePrimaryKeyIsRefusedAtItsLine() throws {
        let files = [
            ".entities/folder.json": Self.entity(
                "folder",
                [
                    #"{ "name": "title", "property_type": "string", "unique": true }"#,
                    #"{ "name": "position", "property_type": "int", "default_value": 0 }"#,
                ],
                extra: #""indexes": [{ "properties": ["title", "position"], "unique": true }]"#)
        ]
        let found = try findings(files)
        #expect(found.map(\.place) == ["SD101 folder.json:6", "SD101 folder.json:9"])
        #expect(
            found.map(\.message) == [
                "property folder.title is unique at 2.0 (index folder_title_unique on folder)",
                "properties folder.(title, position) are unique at 2.0 (index folder_title_position_unique on folder)",
            ])
    }

    @Test func aForeignKeyThatRestrictsDeletionIsRefusedAtItsRelationship() throws {
        let files = [
            ".entities/folder.json": Self.entity("folder", [Self.title]),
            ".entities/note.json": Self.entity(
                "note",
                [
                    Self.title, Self.toOne("folder", "folder", #", "on_delete": "restrict""#),
                    Self.toOne("archive", "folder", #", "nullable": true, "on_delete": "no_action""#),
                ]),
        ]
        let found = try findings(files)
        #expect(found.map(\.place) == ["SD102 note.json:7", "SD102 note.json:8"])
        #expect(found.first?.message == "relationship note.folder references folder ON DELETE RESTRICT (table note, column folder)")
    }

    @Test func aCycleOfForeignKeysIsRefusedOnceAtItsFirstTable() throws {
        let files = [
            ".entities/folder.json": Self.entity("folder", [Self.title, Self.toOne("pinned", "note", #", "nullable": true"#)]),
            ".entities/note.json": Self.entity(
                "note", [Self.title, Self.toOne("folder", "folder"), Self.toOne("parent", "note", #", "nullable": true"#)]),
        ]
        let found = try findings(files)
        #expect(found.map(\.place) == ["SD103 folder.json:7"])
        #expect(found.first?.message == "tables folder → note → folder reference each other in a cycle of foreign keys at 2.0")
    }

    @Test func keysThatAreNotOneUUIDColumnAreRefused() throws {
        let files = [
            ".entities/folder.json": Self.entity("folder", identifier: #"{ "type": "int" }"#, [Self.title]),
            ".entities/note.json": Self.entity(
                "note", [Self.title, #"{ "name": "tags", "property_type": { "entity_name": "tag", "association": "to_many" } }"#]),
            ".entities/tag.json": Self.entity("tag", [Self.title]),
        ]
        let found = try findings(files)
        #expect(Set(found.map(\.place)) == ["SD104 folder.json:3", "SD104 note.json:7"])
        #expect(found.contains { $0.message == "entity folder is keyed by column id (identifier int) in table folder" })
    }

    @Test func aRequiredPropertyAddedWithoutADefaultIsRefusedAtItsLine() throws {
        let files = [
            ".entities/note.json": Self.entity(
                "note",
                [
                    Self.title, #"{ "name": "priority", "property_type": "int", "added_at_version": "2.0" }"#,
                    #"{ "name": "flagged", "property_type": "bool", "default_value": false, "on_conflict": "replace", "added_at_version": "2.0" }"#,
                ])
        ]
        #expect(try findings(files).map(\.place) == ["SD105 note.json:7"])
    }

    @Test func aTableOrColumnRemovedOrRenamedIsRefusedAtItsLine() throws {
        let files = [
            ".entities/folder.json": Self.entity(
                "folder", history: #"{ "version": "1.0" }, { "version": "2.0", "previous_name": "group" }"#,
                [Self.title]),
            ".entities/note.json": Self.entity(
                "note",
                [
                    Self.title, #"{ "name": "color", "property_type": "int", "nullable": true, "removed_at_version": "2.0" }"#,
                    #"{ "name": "name", "property_type": "string", "nullable": true, "previous_name": "label", "renamed_at_version": "2.0" }"#,
                ]),
            ".entities/archive.json": Self.entity(
                "archive", history: #"{ "version": "1.0" }"#, [Self.title], extra: #""removed_at_version": "2.0""#),
        ]
        let found = try findings(files)
        #expect(Set(found.map(\.place)) == ["SD106 folder.json:4", "SD106 note.json:7", "SD106 note.json:8", "SD106 archive.json:1"])
    }

    /// The option on the command line: without it the same history passes.
    @Test func theCheckCommandTakesTheOption() throws {
        let project = try TestProject(
            files: [".entities/folder.json": Self.entity("folder", identifier: #"{ "type": "int" }"#, [Self.title])], config: Self.config)
        defer { project.remove() }
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        #expect(try run(lucidgenBinary, ["check"], in: project.root).status == 0)
        let checked = try run(lucidgenBinary, ["check", "--sqlitedata"], in: project.root)
        #expect(checked.status == 4)
        #expect(checked.output.contains(".entities/folder.json:3:"))
        #expect(
            checked.output.contains(
                "error: [SD104] entity folder is keyed by column id (identifier int) in table folder: SQLiteData's SyncEngine refuses it"))
        #expect(checked.output.contains("1 step linted (SQLiteData's sync rules)"))
        let json = try run(lucidgenBinary, ["check", "--sqlitedata", "--format", "json"], in: project.root)
        #expect(json.output.contains(#""sqliteData" : true"#))
        #expect(json.output.contains(#""code" : "SD104""#))
    }

    /// `lint.sqlitedata: true` in `.lucid.yaml` is the option without the flag.
    @Test func theConfigTurnsTheRulesOn() throws {
        let project = try TestProject(
            files: [".entities/folder.json": Self.entity("folder", identifier: #"{ "type": "int" }"#, [Self.title])],
            config: Self.config + "lint:\n  sqlitedata: true\n")
        defer { project.remove() }
        let (input, result) = try GeneratorPipeline(configPath: project.configPath).check()
        #expect(result.model.config.lint.sqliteData)
        let findings = Linter(model: result.model, descriptions: input.entities).run().findings
        #expect(findings.map { "\($0.code.id) \($0.location?.line ?? 0)" } == ["SD104 3"])
    }
}
