import Foundation
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// The digest `generate` leaves for the store commands (`plan`, `migrate`, `status`): exactly what it resolved
/// (every version's tables and checksum, the stages), read back only while every input is as that run left it.
@Suite struct HistoryDigestTests {
    /// A history with what a digest must carry: a table removed, a rename, a type change through the app's
    /// stage, an index, a table that comes back under another entity.
    static let files = [
        ".entities/track.json": """
        {
            "name": "track",
            "identifier": { "type": "int" },
            "version_history": [{ "version": "1.0" }, { "version": "2.0" }, { "version": "3.0" }],
            "properties": [
                { "name": "title", "property_type": "string", "previous_name": "name", "renamed_at_version": "2.0" },
                { "name": "length", "property_type": "string", "type_history": [{ "until_version": "3.0", "property_type": "int" }] },
                { "name": "album", "property_type": { "entity_name": "album", "association": "to_one" }, "nullable": true }
            ],
            "indexes": [{ "properties": ["title"] }]
        }
        """,
        ".entities/album.json": """
        {
            "name": "album",
            "identifier": { "type": "int" },
            "version_history": [{ "version": "1.0" }],
            "properties": [{ "name": "name", "property_type": "string", "default_value": "" }]
        }
        """,
        ".entities/draft.json": """
        {
            "name": "draft",
            "identifier": { "type": "int" },
            "version_history": [{ "version": "1.0" }],
            "removed_at_version": "2.0",
            "properties": [{ "name": "text", "property_type": "string", "nullable": true }]
        }
        """,
    ]
    static let config = TestProject.config(current: "3.0", settings: [#"stages: [{ from: "2.0", to: "3.0", name: "lengths" }]"#])

    func digest(_ project: TestProject) throws -> HistoryDigest? {
        var diagnostics = DiagnosticCollector()
        return HistoryDigest.read(config: try Config.load(from: project.configPath, diagnostics: &diagnostics))
    }

    func generate(_ project: TestProject, check: Bool = false, force: Bool = false) throws -> GeneratorPipeline.Result? {
        switch try GeneratorPipeline(configPath: project.configPath).runIncrementally(check: check, force: force, summary: { _ in "" }) {
        case .generated(let result, _): result
        case .unchanged: nil
        }
    }

    @Test(arguments: ["history", "Examples/Journal", "scripts/crash-soak-project"])
    func theDigestIsWhatGenerateResolved(project name: String) throws {
        let project =
            name == "history"
            ? try TestProject(files: Self.files, config: Self.config)
            : try TestProject.copy(of: repositoryRoot.appendingPathComponent(name))
        defer { project.remove() }
        let model = try #require(try generate(project)).model
        let read = try #require(try digest(project))
        #expect(read.versions.map(\.version) == model.schemas.map(\.version))
        #expect(read.versions == model.schemas, "every table of every version, as resolved")
        #expect(read.checksums == model.schemas.map(\.checksum))
        #expect(read.routes == model.planRoutes() && read.routes.count == model.schemas.count - 1, "\(read.routes)")
        #expect(
            read.stages
                == model.customSteps.map { HistoryDigest.Stage(from: $0.from, to: $0.to, label: $0.label, tables: $0.tables.map(\.table)) })
        if name == "history" {
            #expect(read.stages.map(\.label) == ["lengths"] && read.versions[1].table(named: "draft") == nil)
            #expect(read.versions[0].table(named: "draft") != nil)
        }
        // Unchanged, a second run keeps it; a check never writes one.
        #expect(try generate(project) == nil)
        #expect(try digest(project)?.versions == model.schemas)
    }

    /// `lucidgen plan` reads the digest while the inputs are unchanged (the same path as resolving them), and
    /// resolves the descriptions again once one is edited, without a `generate` in between.
    @Test func planReadsTheDigestUntilADescriptionIsEdited() throws {
        let project = try TestProject(files: Self.files, config: Self.config)
        defer { project.remove() }
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let resolved = try run(lucidgenBinary, ["plan"], in: project.root)
        #expect(resolved.status == 0 && resolved.output.contains("3.0"), "\(resolved.output)\(resolved.error)")
        #expect(resolved.output.contains("(lengths)"), "\(resolved.output)")
        #expect(try run(lucidgenBinary, ["plan"], in: project.root).output == resolved.output)
        // What plan printed came from the digest: a stage's label changed in it shows.
        let path = project.root.appendingPathComponent(".build/lucidgen/.lucid.yaml.history")
        let text = try String(contentsOf: path, encoding: .utf8)
        try text.replacingOccurrences(of: #""label":"lengths""#, with: #""label":"lengthz""#).write(
            to: path, atomically: false, encoding: .utf8)
        #expect(
            try run(lucidgenBinary, ["plan"], in: project.root).output
                == resolved.output.replacingOccurrences(of: "(lengths)", with: "(lengthz)"))
        // Removed, the same plan by resolving.
        try FileManager.default.removeItem(at: path)
        #expect(try run(lucidgenBinary, ["plan"], in: project.root).output == resolved.output)

        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        try project.write(".lucid.yaml", Self.config.replacingOccurrences(of: #"current_version: "3.0""#, with: #"current_version: "4.0""#))
        let track = try project.read(".entities/track.json")
        try project.write(
            ".entities/track.json",
            track.replacingOccurrences(of: #"{ "version": "3.0" }]"#, with: #"{ "version": "3.0" }, { "version": "4.0" }]"#)
                .replacingOccurrences(
                    of: #"{ "name": "album""#,
                    with: #"{ "name": "rating", "property_type": "int", "default_value": 0, "added_at_version": "4.0" }, { "name": "album""#
                ))
        let edited = try run(lucidgenBinary, ["plan"], in: project.root)
        #expect(edited.status == 0 && edited.output.contains("add column track.rating"), "\(edited.output)\(edited.error)")
    }

    @Test func anyChangeToAnInputMakesItStale() throws {
        let project = try TestProject(files: Self.files, config: Self.config)
        defer { project.remove() }
        _ = try generate(project)
        #expect(try digest(project) != nil)
        let track = try project.read(".entities/track.json")

        // Edited (another size), then put back: the modification time still differs, so it stays stale until generate runs.
        try project.write(".entities/track.json", track + " ")
        #expect(try digest(project) == nil)
        try project.write(".entities/track.json", track)
        #expect(try digest(project) == nil)
        _ = try generate(project)
        #expect(try digest(project) != nil)

        // A file added under the input folder, or one removed.
        try project.write(".entities/extra.json", "{}")
        #expect(try digest(project) == nil)
        try FileManager.default.removeItem(at: project.root.appendingPathComponent(".entities/extra.json"))
        #expect(try digest(project) != nil, "the same files as recorded")
        try FileManager.default.removeItem(at: project.root.appendingPathComponent(".entities/draft.json"))
        #expect(try digest(project) == nil)

        // A failed run removes it (reverting the input then needs a run, as for the stamp); a check writes none.
        #expect(throws: GenerationFailed.self) { try generate(project) }
        #expect(!project.exists(".build/lucidgen/.lucid.yaml.history"))
        try project.write(".entities/draft.json", Self.files[".entities/draft.json"]!)
        _ = try generate(project, check: true)
        #expect(!project.exists(".build/lucidgen/.lucid.yaml.history"))
        _ = try generate(project)
        #expect(try digest(project) != nil)

        // A truncated or foreign file is no digest.
        let path = project.root.appendingPathComponent(".build/lucidgen/.lucid.yaml.history")
        let text = try String(contentsOf: path, encoding: .utf8)
        try String(text.dropLast(6)).write(to: path, atomically: true, encoding: .utf8)
        #expect(try digest(project) == nil)
        try text.replacingOccurrences(of: "lucidgen-history 1", with: "lucidgen-history 9").write(
            to: path, atomically: true, encoding: .utf8)
        #expect(try digest(project) == nil)
    }
}
