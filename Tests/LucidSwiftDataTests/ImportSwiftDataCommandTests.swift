import Foundation
import LucidTestSupport
import Testing

/// `lucidgen import swiftdata` as a user runs it: lucidgen runs lucidgen-swiftdata beside it, writes the
/// descriptions, the origin and the config with the custom stage, and the same sources give the same files.
@Suite struct ImportSwiftDataCommandTests {
    @Test func importThenGenerateThenImportAgainWritesNothingNew() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        for (path, text) in GardenHistoryTests.files { try project.write("Garden/\(path)", text) }
        let first = try run(lucidgenBinary, ["import", "swiftdata", "Garden", "--report", "import.md"], in: project.root)
        #expect(first.status == 0, "\(first.output)\(first.error)")
        #expect(
            first.output.hasPrefix("order (AppMigrationPlan.schemas, Garden/Models/AppMigrationPlan.swift:4):\n  PlantSchemaV1 → 1.0.0\n"),
            "\(first.output)")
        #expect(first.output.contains("wrote    .entities/plant.json\n"), "\(first.output)")
        #expect(first.output.contains("wrote    .entities/.coredata/origin.json\n"), "\(first.output)")
        #expect(
            first.output.contains("Garden/Models/Reminder.swift:16: note: Reminder.monthlyInterval is added as required without a default"),
            "\(first.output)")
        #expect(first.output.contains("imported 4 entities over 4 model versions (5 files written"), "\(first.output)")
        let config = try project.read(".lucid.yaml")
        #expect(config.contains("current_version: \"4.0.0\""))
        #expect(
            config.contains(
                """
                stages:
                  - name: migrateV2toV3
                    from: "2.0.0"
                    to: "3.0.0"
                    notes:
                      - "SwiftData's MigrationStage.custom at Garden/Models/AppMigrationPlan.swift:15 (AppMigrationPlan)"
                """), "\(config)")
        let report = try project.read("import.md")
        #expect(
            report.hasPrefix(
                "# Import of Garden\n\nOrder (AppMigrationPlan.schemas, Garden/Models/AppMigrationPlan.swift:4):\n\n- PlantSchemaV1 → 1.0.0\n"
            ), "\(report)")
        #expect(report.contains("- `Garden/Models/Photo.swift:41`: Photo.notes and Note.photos name no inverse"), "\(report)")

        // The stage's generated requirement says where the SwiftData code to port is.
        let generate = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generate.status == 0, "\(generate.output)\(generate.error)")
        let migrations = try project.read("Sources/App/Generated/AppMigrations.swift")
        #expect(migrations.contains("func migrateV2toV3WillMigrate(_ db: GRDB.Database) throws"), "\(migrations)")
        #expect(migrations.contains("/// - willMigrate (before the schema changes, on PlantSchemaV2's models):"), "\(migrations)")
        #expect(migrations.contains("Garden/Models/AppMigrationPlan.swift:18"), "\(migrations)")

        let before = project.allFiles().filter { $0.hasPrefix(".entities/") }.map { ($0, try? project.read($0)) }
        let again = try run(lucidgenBinary, ["import", "swiftdata", "Garden"], in: project.root)
        #expect(again.status == 0, "\(again.output)\(again.error)")
        #expect(again.output.contains("(0 files written"), "\(again.output)")
        #expect(
            project.allFiles().filter { $0.hasPrefix(".entities/") }.map { ($0, try? project.read($0)) }.elementsEqual(before) { $0 == $1 })
    }

    @Test func refusalsPrintLocatedAndNothingIsWritten() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        try project.write(
            "App/Model.swift",
            """
            import SwiftData
            enum V1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 0, patch)
                static var models: [any PersistentModel.Type] { [Item.self] }
                @Model final class Item { @Attribute(originalName: old) var name: String = ""; init() {} }
            }
            """)
        let result = try run(lucidgenBinary, ["import", "swiftdata", "App"], in: project.root)
        #expect(result.status == 1)
        #expect(
            result.error == """
                App/Model.swift:3: error: V1.versionIdentifier is not written as Schema.Version(major, minor, patch) with three non-negative integer literals (Schema.Version(1, 0, patch)): the version must be read from the source
                App/Model.swift:5: error: @Attribute's originalName old is not a string literal: the old name must be read from the source
                import: nothing was written (2 errors)

                """)
        #expect(project.allFiles() == ["App/Model.swift"])
    }

    @Test func withoutTheReaderTheErrorSaysHowToBuildIt() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let result = try run(
            lucidgenBinary, ["import", "swiftdata", "."], in: project.root,
            environment: ["LUCIDGEN_SWIFTDATA": "/nonexistent/lucidgen-swiftdata"])
        #expect(result.status == 1)
        #expect(result.error.contains("build it with `swift build -c release --product lucidgen-swiftdata`"), "\(result.error)")
    }
}
