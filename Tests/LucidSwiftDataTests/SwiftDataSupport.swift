import Foundation
import GRDB
import LucidGenCore
import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidSwiftDataReader
import LucidTestSupport
import Testing

/// A SwiftData app's sources in a throw-away folder (files by relative path), read and imported in-process as
/// `lucidgen import swiftdata` does.
struct SwiftDataApp {
    let root: URL

    init(_ files: [String: String]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("swiftdata-app-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// The sources as the reader gives them, with paths relative to the app's folder.
    func sources() throws -> SwiftDataSources {
        var sources = try SwiftDataSourceReader.read([root.path])
        sources.files = sources.files.map { String($0.dropFirst(root.path.count + 1)) }
        return sources
    }

    struct Imported {
        var history: SwiftDataHistory.Output
        var output: CoreDataImporter.Output
        /// The history's notes and the importer's, located in the sources.
        var notes: [String]
        func description(_ name: String) -> String { output.files.first { $0.name == name }?.json ?? "" }
    }

    func imported(plan: String? = nil) throws -> Imported {
        let history = try SwiftDataHistory.resolve(try sources(), plan: plan)
        let output = try history.imported()
        return Imported(history: history, output: output, notes: output.notes.map(\.description))
    }

    /// The refusals of an import that must fail: `location: error: message` lines.
    func refusals(plan: String? = nil) throws -> [String] {
        do {
            let imported = try imported(plan: plan)
            Issue.record("the import succeeded: \(imported.output.files.map(\.name))")
            return []
        } catch let refusals as CoreDataImportRefusals {
            return refusals.errors.map(\.description)
        }
    }
}

/// An imported history generated, and stores of it migrated by the runtime.
struct GeneratedHistory {
    let result: GeneratorPipeline.Result

    /// Generates the descriptions with the config a first `import swiftdata` writes (its stages included).
    init(_ imported: SwiftDataApp.Imported) throws {
        var config = TestProject.defaultConfig + "\ncurrent_version: \"\(imported.output.currentVersion.string)\"\n"
        if !imported.history.stages.isEmpty {
            config += "stages:\n"
            for stage in imported.history.stages {
                config += "  - name: \(stage.name)\n    from: \"\(stage.from.string)\"\n    to: \"\(stage.to.string)\"\n"
            }
        }
        var files = [".lucid.yaml": config]
        for (name, json) in imported.output.files { files[".entities/\(name).json"] = json }
        let project = try TestProject(files: files, config: nil)
        defer { project.remove() }
        result = try project.generate()
    }

    var versions: [String] { result.model.schemas.map(\.version.string) }

    /// Creates a store at `version`, runs `seed` in it, migrates it to the newest version with `stages` (the
    /// app's ported code, by label) and returns `query`'s rows as text.
    func migrate(from version: String, seed: [String], stages: [MigrationStage] = [], query: String) throws -> [[String]] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("swiftdata-store-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let schemas = result.model.schemas
        let explicit = result.model.customSteps.map {
            ExplicitStage(from: $0.from, to: $0.to, label: $0.label, transformedTables: $0.tables.map(\.table))
        }
        let created = try LucidStore.create(atPath: path, versions: schemas, version: try SchemaVersion(parsing: version), stages: explicit)
        try created.write { db in for statement in seed { try db.execute(sql: statement) } }
        try created.close()
        var options = StoreOptions()
        options.stages = stages
        let migrated = try LucidStore.open(atPath: path, history: SchemaHistory(versions: schemas, stages: explicit), options: options)
            .database
        defer { try? migrated.close() }
        return try migrated.read { db in
            try Row.fetchAll(db, sql: query).map { row in
                row.databaseValues.map { $0.isNull ? "NULL" : String(describing: $0.storage.value!) }
            }
        }
    }
}
