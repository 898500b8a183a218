import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// What `import LucidRuntime` puts in an app's namespace: nothing that meets the names an app
/// already uses. A module `StandIn` declares public `Schema` (SwiftData has one), `SHA256` (CryptoKit),
/// `Lineage`, `Table` (SwiftUI; GRDB has one too) and `Column`, which Linux lacks the real frameworks for;
/// the app's file imports `StandIn` and `LucidRuntime` and names them unqualified in type positions, and
/// opens its generated store there. Another file of the same app imports GRDB to read its records, as
/// GRDB's users do. LucidRuntime once re-exported LucidSchema and GRDB, and this did not
/// compile: `'Schema' is ambiguous for type lookup in this context` (and `SHA256`, `Lineage`).
///
/// The generated code is the app target's own (`access_level: internal`): every generated
/// declaration is internal, and the app links and reads a to-many relationship with GRDB's argument order
/// (`linkTags(db, ids:)`).
///
/// One package, one build (`swift run`), at a fixed place under `.build/` with its own scratch folder.
@Suite(.serialized) struct AppNamespaceConsumerTests {
    static let manifest = """
        // swift-tools-version:6.1
        import PackageDescription

        let package = Package(
            name: "Namespace",
            dependencies: [.package(name: "lucidgen", path: "\(repositoryRoot.path)")],
            targets: [
                .target(name: "StandIn"),
                .executableTarget(name: "App", dependencies: ["StandIn", .product(name: "LucidRuntime", package: "lucidgen")]),
            ],
            swiftLanguageModes: [.v6]
        )

        """

    static let config = """
        input_path: .entities
        current_version: "1.0"
        access_level: internal
        targets:
          app:
            module_name: App
            output_path: Sources/App/Generated

        """

    static let note = """
        { "name": "note", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [
            { "name": "title", "property_type": "string" },
            { "name": "tags", "property_type": { "entity_name": "tag", "association": "to_many" } } ] }
        """

    static let tag = """
        { "name": "tag", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "label", "property_type": "string" }] }
        """

    static let standIn = """
        // Stand-ins for SwiftData's `Schema`, CryptoKit's `SHA256`, SwiftUI's `Table` and an app's own `Lineage`
        // and `Column`.
        public struct Schema { public init() {}; public var owner = "SwiftData" }
        public struct SHA256 { public init() {}; public var owner = "CryptoKit" }
        public struct Table { public init() {}; public var owner = "SwiftUI" }
        public struct Lineage { public init() {}; public var owner = "the app" }
        public struct Column { public init() {}; public var owner = "the app" }

        """

    /// Only `StandIn` and `LucidRuntime`: every stand-in named unqualified, and the store opened.
    static let main = #"""
        import Foundation
        import LucidRuntime
        import StandIn

        let schema: Schema = Schema()
        let digest: SHA256 = SHA256()
        let table: Table = Table()
        let lineage: Lineage = Lineage()
        let column: Column = Column()
        print("names: \(schema.owner), \(digest.owner), \(table.owner), \(lineage.owner), \(column.owner)")

        let path = CommandLine.arguments[1]
        try? FileManager.default.removeItem(atPath: path)
        var options = StoreOptions()
        options.newerStorePolicy = .refuse
        let version: SchemaVersion = AppSchema.newestVersion
        let opened = try LucidStore.open(atPath: path, registry: AppSchema.self, options: options)
        print("opened at \(version): \(opened.outcome)")
        try addNote(opened.database)
        let status = try LucidStore.inspect(atPath: path, registry: AppSchema.self)
        let steps: [MigrationStep] = status.steps
        let stages: [ExplicitStage] = AppSchema.stages
        print("status: \(status.needsMigration ? "needs migration" : "current"), \(steps.count) steps, \(stages.count) stages")
        print("done")
        """#

    /// The file that reads records imports GRDB itself, as GRDB's users write it.
    static let notes = #"""
        import GRDB

        func addNote(_ database: DatabaseQueue) throws {
            try database.write { db in
                try Note(id: 1, title: "written").insert(db)
                for (id, label) in [(1, "a"), (2, "b"), (3, "c")] { try Tag(id: id, label: label).insert(db) }
                try Note(id: 1, title: "written").linkTags(db, ids: [3, 1])
            }
            let titles = try database.read { db in try Note.fetchAll(db).map(\.title) }
            print("notes: \(titles)")
            let labels = try database.read { db in
                try Note(id: 1, title: "written").request(for: Note.tags).order(Tag.Columns.label).fetchAll(db).map(\.label)
            }
            print("tags: \(labels)")
        }
        """#

    @Test func anAppsOwnNamesMeetNothingFromLucidRuntime() throws {
        let base = repositoryRoot.appendingPathComponent(".build/e2e-namespace")
        let package = base.appendingPathComponent("Namespace")
        try? FileManager.default.removeItem(at: package)
        try CompositeConsumerTests.write(
            [
                "Package.swift": Self.manifest, ".lucid.yaml": Self.config, ".entities/note.json": Self.note,
                ".entities/tag.json": Self.tag,
                "Sources/StandIn/StandIn.swift": Self.standIn, "Sources/App/main.swift": Self.main, "Sources/App/Notes.swift": Self.notes,
            ], in: package)
        let generate = try run(lucidgenBinary, ["generate"], in: package)
        #expect(generate.status == 0, "\(generate.output)\n\(generate.error)")
        let scratch = base.appendingPathComponent("scratch").path
        let result = try run(
            swiftExecutable, ["run", "--scratch-path", scratch, "App", base.appendingPathComponent("namespace.sqlite").path], in: package)
        let log = result.output + result.error
        #expect(result.status == 0, "the app did not build or run:\n\(log.suffix(6000))")
        #expect(!log.contains("is ambiguous"), "a name of the app's meets one of lucidgen's:\n\(log.suffix(4000))")
        #expect(result.output.contains("names: SwiftData, CryptoKit, SwiftUI, the app, the app\n"), "\(result.output)")
        #expect(result.output.contains("opened at 1.0: created the store at 1.0"), "\(result.output)")
        #expect(result.output.contains("notes: [\"written\"]\n"), "\(result.output)")
        #expect(result.output.contains("tags: [\"a\", \"c\"]\n"), "\(result.output)")
        let record = try String(contentsOf: package.appendingPathComponent("Sources/App/Generated/Entities/Note.swift"), encoding: .utf8)
        #expect(!record.contains("public "), "access_level: internal leaves no declaration public:\n\(record)")
        #expect(
            record.contains("internal struct Note_1_0:")
                && record.contains("internal func linkTags(_ db: GRDB.Database, ids targetIDs: [Swift.Int]) throws"), "\(record)")
        #expect(result.output.contains("status: current, 0 steps, 0 stages\n"), "\(result.output)")
        #expect(result.output.hasSuffix("done\n"), "\(result.output)")
        let warnings = log.split(separator: "\n").filter { $0.contains("warning:") && $0.contains("/Namespace/") }
        #expect(warnings.isEmpty, "the app and its generated code must compile without warnings: \(warnings.prefix(10))")
    }
}
