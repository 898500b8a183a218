import Foundation
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

@testable import LucidGenCore

/// Snapshot files of format 2: each after the first holds what changed since the version before, and reads
/// back whole; format-1 files (whole) are read as before and never rewritten.
@Suite struct SnapshotFileTests {
    static func config(current: String) -> String { TestProject.defaultConfig + "\ncurrent_version: \"\(current)\"\n" }

    /// track changes at 2.0, album never, gone is removed at 3.0 and note added there.
    static let files: [String: String] = [
        ".entities/track.json": """
        { "name": "track", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
          "properties": [{ "name": "title", "property_type": "string" },
                         { "name": "bpm", "property_type": "int", "nullable": true, "added_at_version": "2.0" }] }
        """,
        ".entities/album.json": """
        { "name": "album", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "name", "property_type": "string" }] }
        """,
        ".entities/gone.json": """
        { "name": "gone", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "removed_at_version": "3.0",
          "properties": [{ "name": "x", "property_type": "int" }] }
        """,
        ".entities/note.json": """
        { "name": "note", "identifier": { "type": "int" }, "version_history": [{ "version": "3.0" }],
          "properties": [{ "name": "text", "property_type": "string" }] }
        """,
    ]

    func file(_ project: TestProject, _ version: String) throws -> SnapshotFile {
        try SnapshotFile.decoded(from: Data(try project.read(".entities/.schema/\(version).json").utf8))
    }

    func loaded(_ project: TestProject) -> (snapshots: [SchemaVersion: SchemaSnapshot], errors: [String]) {
        var diagnostics = DiagnosticCollector()
        let loaded = SnapshotStore.load(from: project.root.appendingPathComponent(".entities/.schema").path, &diagnostics)
        return (loaded.mapValues(\.snapshot), diagnostics.diagnostics.filter { $0.severity == .error }.map(\.message))
    }

    @Test func eachFileAfterTheFirstHoldsWhatChangedAndReadsBackWhole() throws {
        let project = try TestProject(files: Self.files, config: Self.config(current: "3.0"))
        defer { project.remove() }
        let result = try project.generate()
        #expect(result.model.snapshots.map(\.version) == ["1.0", "2.0", "3.0"].map { SchemaVersion($0) })

        let first = try file(project, "1.0")
        #expect(first.format == 2 && first.base == nil)
        #expect(first.entities.map(\.name) == ["album", "gone", "track"])
        #expect(first.tables.map(\.name) == ["album", "gone", "track"])

        let second = try file(project, "2.0")
        #expect(second.base == SchemaVersion("1.0"))
        #expect(second.entities.map(\.name) == ["track"], "album and gone did not change")
        #expect(second.tables.map(\.name) == ["track"])
        #expect(second.removedEntities == nil && second.removedTables == nil)
        #expect(!(try project.read(".entities/.schema/2.0.json").contains("removed_")), "no empty removal lists are written")

        let third = try file(project, "3.0")
        #expect(third.base == SchemaVersion("2.0"))
        #expect(third.entities.map(\.name) == ["note"])
        #expect(third.tables.map(\.name) == ["note"])
        #expect(third.removedEntities == ["gone"] && third.removedTables == ["gone"])

        // Read back, each is the whole snapshot the generator derived.
        let (snapshots, errors) = loaded(project)
        #expect(errors.isEmpty, "\(errors)")
        for snapshot in result.model.snapshots {
            #expect(snapshots[snapshot.version] == snapshot, "\(snapshot.version)")
        }
        #expect(snapshots[SchemaVersion("3.0")]?.tables.map(\.name) == ["album", "note", "track"])

        // Released and unchanged: a second run writes nothing, and the next version continues 3.0.
        #expect(try project.generate().report.isUpToDate)
        try project.write(".lucid.yaml", Self.config(current: "4.0"))
        try project.write(
            ".entities/album.json",
            #"{ "name": "album", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "4.0" }], "properties": [{ "name": "name", "property_type": "string" }, { "name": "year", "property_type": "int", "nullable": true, "added_at_version": "4.0" }] }"#
        )
        let next = try project.generate()
        #expect(next.model.snapshots.map(\.version) == [SchemaVersion("4.0")], "released snapshots are not rewritten")
        #expect(try file(project, "4.0").base == SchemaVersion("3.0"))
        #expect(try file(project, "4.0").tables.map(\.name) == ["album"])
        #expect(loaded(project).snapshots[SchemaVersion("4.0")] == next.model.snapshots.last)
    }

    /// A project whose snapshots an older lucidgen wrote (format 1, whole): they read and check as before,
    /// stay as they are, and the next version's file continues the last of them.
    @Test func wholeFormatOneFilesStayAndTheNextVersionContinuesThem() throws {
        let project = try TestProject(files: Self.files, config: Self.config(current: "3.0"))
        defer { project.remove() }
        let result = try project.generate()
        var formatOne: [String: String] = [:]
        for snapshot in result.model.snapshots {
            var whole = SnapshotFile(snapshot, continuing: nil)
            whole.format = 1
            let path = ".entities/.schema/\(snapshot.version).json"
            formatOne[path] = whole.encoded()
            try project.write(path, whole.encoded())
        }
        #expect(formatOne[".entities/.schema/2.0.json"]?.contains(#""format" : 1"#) == true)
        #expect(formatOne[".entities/.schema/2.0.json"]?.contains("\"base\"") == false)
        #expect(loaded(project).snapshots[SchemaVersion("3.0")] == result.model.snapshots.last)
        let again = try project.generate()
        #expect(again.diagnostics.allSatisfy { $0.severity != .error })
        #expect(again.report.isUpToDate, "equal snapshots are not rewritten in the new format")
        try project.write(".lucid.yaml", Self.config(current: "4.0"))
        try project.write(
            ".entities/note.json",
            #"{ "name": "note", "identifier": { "type": "int" }, "version_history": [{ "version": "3.0" }, { "version": "4.0" }], "properties": [{ "name": "text", "property_type": "string" }, { "name": "pinned", "property_type": "bool", "nullable": true, "added_at_version": "4.0" }] }"#
        )
        _ = try project.generate()
        for (path, contents) in formatOne { #expect(try project.read(path) == contents, "\(path) is not rewritten") }
        let fourth = try file(project, "4.0")
        #expect(fourth.format == 2 && fourth.base == SchemaVersion("3.0"))
        #expect(fourth.entities.map(\.name) == ["note"] && fourth.tables.map(\.name) == ["note"])
    }

    @Test func aFileWhoseBaseIsMissingIsAnErrorAndNothingIsWritten() throws {
        let project = try TestProject(files: Self.files, config: Self.config(current: "3.0"))
        defer { project.remove() }
        _ = try project.generate()
        try FileManager.default.removeItem(at: project.root.appendingPathComponent(".entities/.schema/2.0.json"))
        let before = try project.read(".entities/.schema/3.0.json")
        let errors = try project.errors()
        #expect(
            errors.contains {
                $0.message
                    == "this snapshot holds what changed since version 2.0, whose snapshot 2.0.json is missing; restore it from version control"
                    && $0.location?.file.hasSuffix(".entities/.schema/3.0.json") == true
            }, "\(errors.map(\.message))")
        #expect(!project.exists(".entities/.schema/2.0.json"), "a missing base is not frozen again from the descriptions")
        #expect(try project.read(".entities/.schema/3.0.json") == before)
    }

    /// An edit to a table in one file changes every later version that continues it: the error is the
    /// edited file's alone.
    @Test func anEditedBaseIsReportedAtItsOwnFileOnly() throws {
        let project = try TestProject(files: Self.files, config: Self.config(current: "3.0"))
        defer { project.remove() }
        _ = try project.generate()
        let first = try project.read(".entities/.schema/1.0.json")
        try project.write(".entities/.schema/1.0.json", first.replacingOccurrences(of: "\"TEXT\"", with: "\"BLOB\""))
        let (_, errors) = loaded(project)
        #expect(
            errors == ["schema snapshot 1.0 was edited by hand: its tables no longer match its checksum; restore it from version control"])
    }

    /// Released versions that match are compared pair by pair with the version before (``MatchedRelease``): an
    /// edit that changes only a later version, or only a later snapshot's entry, is still found there.
    @Test func aChangeToOneLaterReleasedVersionIsFoundAfterMatchingOnes() throws {
        func track(p3AddedAt: String) -> String {
            """
            { "name": "track", "identifier": { "type": "int" },
              "version_history": [{ "version": "1.0" }, { "version": "2.0" }, { "version": "3.0" }, { "version": "4.0" }, { "version": "5.0" }],
              "properties": [{ "name": "title", "property_type": "string" },
                             { "name": "p2", "property_type": "int", "nullable": true, "added_at_version": "2.0" },
                             { "name": "p3", "property_type": "int", "nullable": true, "added_at_version": "\(p3AddedAt)" },
                             { "name": "p4", "property_type": "int", "nullable": true, "added_at_version": "4.0" },
                             { "name": "p5", "property_type": "int", "nullable": true, "added_at_version": "5.0" }] }
            """
        }
        let project = try TestProject(
            files: [".entities/track.json": track(p3AddedAt: "3.0"), ".entities/album.json": Self.files[".entities/album.json"]!],
            config: Self.config(current: "5.0"))
        defer { project.remove() }
        _ = try project.generate()
        #expect(try project.generate(check: true).report.isUpToDate)
        try project.write(".entities/track.json", track(p3AddedAt: "4.0"))
        let errors = try project.errors().map(\.message)
        #expect(
            errors.contains { $0.hasPrefix("released version 3.0 was changed") && $0.contains("property 'p3' is missing") }, "\(errors)")
        #expect(!errors.contains { $0.hasPrefix("released version 1.0") || $0.hasPrefix("released version 2.0") }, "\(errors)")

        // An entry of a later file edited (album's, which did not change at 4.0): found at 4.0 alone.
        try project.write(".entities/track.json", track(p3AddedAt: "3.0"))
        var file = try self.file(project, "4.0")
        var album = try #require(try self.file(project, "1.0").entities.first { $0.name == "album" })
        album.identifier = "string"
        file.entities = (file.entities + [album]).sorted { $0.name < $1.name }
        try project.write(".entities/.schema/4.0.json", file.encoded())
        let edited = try project.errors().map(\.message)
        #expect(edited.count == 1, "\(edited)")
        #expect(
            edited.first.map {
                $0.hasPrefix("released version 4.0 was changed") && $0.hasSuffix("entity 'album': identifier 'string' became 'int'")
            }
                == true, "\(edited)")
        #expect(!edited.contains { $0.hasPrefix("released version 3.0") || $0.hasPrefix("released version 2.0") }, "\(edited)")
    }

    @Test func releaseMarksAFileOfChangesAndKeepsItOne() throws {
        let project = try TestProject(files: Self.files, config: Self.config(current: "3.0"))
        defer { project.remove() }
        _ = try project.generate()
        let before = try file(project, "3.0")
        try SchemaSnapshot.markReleased(version: SchemaVersion("3.0"), in: project.root.appendingPathComponent(".entities/.schema").path)
        var after = try file(project, "3.0")
        #expect(after.released == true)
        after.released = nil
        #expect(after == before, "only the mark is added")
        #expect(loaded(project).snapshots[SchemaVersion("3.0")]?.released == true)
    }
}
