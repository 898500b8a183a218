import Foundation
import GRDB
import LucidGenCore
import LucidGenStore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `lucidgen fixtures --schema-version` resolves the versions up to that one only: what a store at it holds is the
/// same as the whole model's, and a later version's error is left to `generate`.
@Suite struct FixturesUpToAVersionTests {
    /// Four versions: a property added at 2.0, renamed at 3.0, one added at 4.0; an entity added at 3.0 that links to
    /// the first; a stage the app runs from 2.0 to 3.0 (a type change SQL cannot make).
    static let files = [
        ".entities/track.json": #"""
        {
          "name": "track",
          "identifier": { "type": "int" },
          "version_history": [{ "version": "1.0" }, { "version": "2.0" }, { "version": "3.0" }, { "version": "4.0" }],
          "properties": [
            { "name": "title", "property_type": "string" },
            { "name": "length", "property_type": "int", "type_history": [{ "until_version": "3.0", "property_type": "string" }] },
            { "name": "plays", "previous_name": "count", "renamed_at_version": "3.0", "property_type": "int", "default_value": 0,
              "added_at_version": "2.0" },
            { "name": "rating", "property_type": "double", "nullable": true, "added_at_version": "4.0" }
          ]
        }
        """#,
        ".entities/album.json": #"""
        {
          "name": "album",
          "identifier": { "type": "int" },
          "version_history": [{ "version": "3.0" }, { "version": "4.0" }],
          "properties": [
            { "name": "name", "property_type": "string" },
            { "name": "first_track", "property_type": { "entity_name": "track", "association": "to_one" }, "nullable": true },
            { "name": "year", "property_type": "int", "default_value": 2000, "added_at_version": "4.0" }
          ]
        }
        """#,
    ]

    static func project() throws -> TestProject {
        let project = try TestProject(files: files, config: TestProject.config(current: "4.0", tests: true))
        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.error)")
        return project
    }

    /// The rows a fixture of `version` holds, as SQL.
    static func rows(_ model: ResolvedModel, at version: SchemaVersion) -> [String] {
        var rows: [String] = []
        FixtureRows(model: model).forEachRow(at: version, rows: 3) { rows.append($0.sql) }
        return rows
    }

    @Test func theModelUpToAVersionIsTheWholeModelThere() throws {
        let project = try Self.project()
        defer { project.remove() }
        let whole = try FixtureStore.model(config: project.configPath)
        #expect(whole.schemas.map(\.version.string) == ["1.0", "2.0", "3.0", "4.0"])
        #expect(whole.customSteps.map { "\($0.from)-\($0.to)" } == ["2.0-3.0"], "the type change needs the app's code")
        for (index, schema) in whole.schemas.enumerated() {
            let upTo = try FixtureStore.model(config: project.configPath, through: schema.version)
            #expect(upTo.schemas == Array(whole.schemas.prefix(index + 1)), "at \(schema.version)")
            #expect(upTo.checksum(at: index) == whole.checksum(at: index))
            #expect(upTo.currentVersion == whole.currentVersion, "the project's current version, so that older snapshots bind")
            #expect(
                upTo.customSteps.map { "\($0.from)-\($0.to)" }
                    == whole.customSteps.filter { $0.to <= schema.version }.map { "\($0.from)-\($0.to)" })
            #expect(Self.rows(upTo, at: schema.version) == Self.rows(whole, at: schema.version), "at \(schema.version)")
            #expect(!Self.rows(whole, at: schema.version).isEmpty)
        }
    }

    @Test func aLaterVersionsEditedSnapshotStopsOnlyItsOwnAndLaterFixtures() throws {
        let project = try Self.project()
        defer { project.remove() }
        // 3.0's snapshot (released: older than the current version) edited by hand: its checksum no longer matches.
        let path = ".entities/.schema/3.0.json"
        let edited = try project.read(path).replacingOccurrences(of: "\"plays\"", with: "\"played\"")
        #expect(edited != (try project.read(path)))
        try project.write(path, edited)

        let older = project.root.appendingPathComponent("older.sqlite").path
        let fixture = try run(lucidgenBinary, ["fixtures", "--schema-version", "2.0", "--rows", "2", "--output", older], in: project.root)
        #expect(fixture.status == 0, "\(fixture.error)")
        #expect(fixture.output.contains("version 2.0, 2 rows"), "\(fixture.output)")
        let columns = try DatabaseQueue(path: older).read { db in try db.columns(in: "track").map(\.name) }
        #expect(columns == ["id", "count", "length", "title"], "2.0's columns, in the table's order")

        for command in [["fixtures", "--schema-version", "3.0", "--output", "later.sqlite"], ["generate"]] {
            let refused = try run(lucidgenBinary, command, in: project.root)
            #expect(refused.status == 1, "\(command)")
            #expect(refused.error.contains("3.0.json"), "\(refused.error)")
            #expect(refused.error.contains("schema snapshot 3.0 was edited by hand"), "\(refused.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: project.root.appendingPathComponent("later.sqlite").path))
    }

    @Test func aVersionOutsideTheHistoryIsRefusedNamingEveryVersion() throws {
        let project = try Self.project()
        defer { project.remove() }
        let refused = try run(lucidgenBinary, ["fixtures", "--schema-version", "2.5", "--output", "x.sqlite"], in: project.root)
        #expect(refused.status == 64, "\(refused.error)")
        #expect(refused.error.contains("--schema-version 2.5 is not one of the versions 1.0, 2.0, 3.0, 4.0"), "\(refused.error)")
    }
}
