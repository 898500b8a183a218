import Foundation
@_spi(Generated) import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// A root's table at a version where nothing of its hierarchy changed is taken from the version before
/// (``TableReuse``): every schema and snapshot is the same as when each table is built again.
@Suite struct QuietTableTests {
    /// The repository's own projects: the example app's (released snapshots), the seed graphs (hierarchies,
    /// to-many links, indexes), the samples, the golden inputs and the described stores.
    static let projects = [
        ".lucid.yaml", "Tests/SeedGraphs/.lucid.yaml", "Tests/Samples/.lucid.yaml",
        "Tests/LucidGenCoreTests/Golden/lucid-legacy-2020/input/.lucid.yaml", "Tests/LucidGenCoreTests/Golden/library/input/.lucid.yaml",
        "Tests/LucidGenCoreTests/Golden/lucid-sample/input/.lucid.yaml", "Tests/DescribedStoreTests/OrderedLinks/.lucid.yaml",
        "Tests/DescribedStoreTests/UUIDs/.lucid.yaml", "Tests/DescribedStoreTests/Decimals/.lucid.yaml",
        "Examples/Journal/.lucid.yaml", "Examples/TenantServer/.lucid.yaml",
    ]

    static func resolved(_ config: String, _ reuse: TableReuse) throws -> ResolvedModel {
        try Resolver.resolve(try GeneratorPipeline(configPath: config).load(), tableReuse: reuse)
    }

    /// The same schemas, snapshots and diagnostics; a difference names its first version.
    static func expectSame(_ reused: ResolvedModel, _ built: ResolvedModel, _ what: String) {
        #expect(reused.schemas.count == built.schemas.count && reused.snapshots.count == built.snapshots.count, "\(what)")
        let schema = zip(reused.schemas, built.schemas).first { $0 != $1 }?.0.version
        #expect(schema == nil, "\(what): the schema of \(schema?.string ?? "") differs")
        let snapshot = zip(reused.snapshots, built.snapshots).first { $0 != $1 }?.0.version
        #expect(snapshot == nil, "\(what): the snapshot of \(snapshot?.string ?? "") differs")
        #expect(reused.checksums == built.checksums, "\(what): checksums")
        #expect(reused.diagnostics.map(\.description) == built.diagnostics.map(\.description), "\(what): diagnostics")
    }

    @Test(arguments: projects) func theRepositorysProjectsResolveAsWhenEveryTableIsBuilt(_ project: String) throws {
        let config = repositoryRoot.appendingPathComponent(project).path
        Self.expectSame(try Self.resolved(config, .on), try Self.resolved(config, .off), project)
    }

    /// A history where what a quiet table reads at its version changes: the target of its relationship is
    /// renamed, a check starts holding, a subentity joins a hierarchy later; one entity changes at every
    /// version, so the others are quiet.
    static let history: [String: String] = [
        ".entities/clock.json": #"""
        { "name": "clock", "identifier": { "type": "int" },
          "version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "1.2" }, { "version": "1.3" }, { "version": "1.4" }, { "version": "1.5" }, { "version": "1.6" }],
          "properties": [
            { "name": "t1", "property_type": "int", "default_value": 0, "added_at_version": "1.1" },
            { "name": "t2", "property_type": "int", "default_value": 0, "added_at_version": "1.2" },
            { "name": "t3", "property_type": "int", "default_value": 0, "added_at_version": "1.3" },
            { "name": "t4", "property_type": "int", "default_value": 0, "added_at_version": "1.4" },
            { "name": "t5", "property_type": "int", "default_value": 0, "added_at_version": "1.5" },
            { "name": "t6", "property_type": "int", "default_value": 0, "added_at_version": "1.6" }] }
        """#,
        // Renamed at 1.3: `task`'s foreign key and `tag`'s link table point to its new table from then on.
        ".entities/project.json": #"""
        { "name": "project", "identifier": { "type": "int" },
          "version_history": [{ "version": "1.0" }, { "version": "1.3", "previous_name": "folder" }],
          "properties": [{ "name": "title", "property_type": "string" }] }
        """#,
        ".entities/task.json": #"""
        { "name": "task", "identifier": { "type": "int" },
          "version_history": [{ "version": "1.0" }],
          "checks": ["length(title) > 0", { "expression": "length(title) < 99", "added_at_version": "1.4" }],
          "indexes": [{ "properties": ["title"] }],
          "properties": [
            { "name": "title", "property_type": "string" },
            { "name": "project", "property_type": { "entity_name": "project", "association": "to_one" }, "nullable": true }] }
        """#,
        ".entities/tag.json": #"""
        { "name": "tag", "identifier": { "type": "int" },
          "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "projects", "property_type": { "entity_name": "project", "association": "to_many" } }] }
        """#,
        ".entities/vehicle.json": #"""
        { "name": "vehicle", "identifier": { "type": "int" },
          "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "name", "property_type": "string" }] }
        """#,
        ".entities/car.json": #"""
        { "name": "car", "parent": "vehicle", "version_history": [{ "version": "1.5" }],
          "properties": [{ "name": "doors", "property_type": "int" }] }
        """#,
    ]

    @Test func whatAQuietTableReadsAtItsVersionIsReadThere() throws {
        let project = try TestProject(files: Self.history)
        defer { project.remove() }
        let reused = try Self.resolved(project.configPath, .on)
        Self.expectSame(reused, try Self.resolved(project.configPath, .off), "the history")
        // Tables were taken, and what changed under them shows.
        #expect(reused.reusedTables > 0)
        func table(_ name: String, at version: String) -> SchemaTable? {
            reused.schemas.first { $0.version.string == version }?.tables.first { $0.name == name }
        }
        #expect(table("task", at: "1.2")?.foreignKeys.map(\.table) == ["folder"])
        #expect(table("task", at: "1.3")?.foreignKeys.map(\.table) == ["project"])
        #expect(table("task", at: "1.3")?.checks?.count == 1 && table("task", at: "1.4")?.checks?.count == 2)
        #expect(table("vehicle", at: "1.4")?.columns.contains { $0.isKindColumn } == false)
        #expect(table("vehicle", at: "1.5")?.columns.contains { $0.isKindColumn } == true)
        #expect(table("vehicle", at: "1.6")?.columns.contains { $0.name == "doors" } == true)
    }

    /// With released snapshots (their indexes and search bind), the same again.
    @Test func releasedSnapshotsResolveTheSame() throws {
        let project = try TestProject(files: Self.history)
        defer { project.remove() }
        _ = try project.generate()
        try project.write(".lucid.yaml", TestProject.config(current: "1.6"))
        let reused = try Self.resolved(project.configPath, .on)
        Self.expectSame(reused, try Self.resolved(project.configPath, .off), "released")
        #expect(reused.reusedTables > 0)
    }
}
