import Foundation
import LucidGenCore
import LucidSwiftDataReader
import Testing

/// Sources SwiftData would read differently or not at all: each refusal at its `File.swift:line`, all of them
/// in one run, nothing guessed.
@Suite struct SwiftDataHostileTests {
    @Test func macroArgumentsThatAreNotLiteralsAreRefusedWhereTheyAre() throws {
        let source = """
            import SwiftData
            let minor = 2
            let oldName = "title"
            enum V1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, minor, 0)
                static var models: [any PersistentModel.Type] { [Book.self, Shelf.self] }
                @Model final class Book {
                    @Attribute(originalName: oldName) var name: String = ""
                    @Attribute(originalName: "na\\(minor)me") var other: String = ""
                    @Relationship(deleteRule: Rules.default) var shelf: Shelf?
                    init() {}
                }
                @Model final class Shelf {
                    #Unique<Shelf>(keys)
                    @Relationship(inverse: path) var books: [Book] = []
                    init() {}
                }
            }
            """
        let app = try SwiftDataApp(["Library.swift": source])
        defer { app.remove() }
        #expect(
            try app.refusals() == [
                "Library.swift:5: error: V1.versionIdentifier is not written as Schema.Version(major, minor, patch) with three non-negative integer literals (Schema.Version(1, minor, 0)): the version must be read from the source",
                "Library.swift:8: error: @Attribute's originalName oldName is not a string literal: the old name must be read from the source",
                #"Library.swift:9: error: @Attribute's originalName "na\(minor)me" is not a string literal: the old name must be read from the source"#,
                "Library.swift:10: error: @Relationship's deleteRule Rules.default is not a literal rule (.cascade, .nullify, .deny, .noAction)",
                "Library.swift:14: error: #Unique's argument keys is not an array of key paths",
                "Library.swift:15: error: @Relationship's inverse path is not a key path with its type (\\Other.property)",
            ])
    }

    @Test func namesThatCannotNameADescriptionAreRefusedAtTheirLines() throws {
        let source = """
            import SwiftData
            enum V1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 0, 0)
                static var models: [any PersistentModel.Type] { [Größe.self] }
                @Model final class Größe {
                    var wert: Int = 0
                    init() {}
                }
            }
            enum V2: VersionedSchema {
                static var versionIdentifier = Schema.Version(2, 0, 0)
                static var models: [any PersistentModel.Type] { [Item.self] }
                @Model final class Item {
                    var prénom: String = ""
                    init() {}
                }
            }
            enum Plan: SchemaMigrationPlan {
                static var schemas: [any VersionedSchema.Type] { [V2.self] }
                static var stages: [MigrationStage] { [] }
            }
            """
        let app = try SwiftDataApp(["Names.swift": source])
        defer { app.remove() }
        let refusals = try app.refusals()
        #expect(refusals.count == 1)
        #expect(
            refusals.first?.hasPrefix(#"Names.swift:14: error: attribute "prénom" of entity Item cannot name a property (and its column)"#)
                == true, "\(refusals)")
        let unplanned = try SwiftDataApp(["Names.swift": source.replacingOccurrences(of: "SchemaMigrationPlan", with: "Other")])
        defer { unplanned.remove() }
        let first = try unplanned.refusals()
        #expect(first.first?.hasPrefix(#"Names.swift:5: error: entity "Größe" cannot name a description"#) == true, "\(first)")
    }

    @Test func inconsistentHistoriesAreRefusedAllAtOnce() throws {
        let source = """
            import SwiftData
            enum V1: VersionedSchema {
                static var versionIdentifier = Schema.Version(2, 0, 0)
                static var models: [any PersistentModel.Type] { [Item.self, Missing.self] }
                @Model final class Item { var name: String = ""; init() {} }
            }
            enum V2: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 0, 0)
                static var models: [any PersistentModel.Type] { [Item.self] }
                @Model final class Item { var tags: [Tag] = []; init() {} }
                @Model final class Tag { var name: String = ""; init() {} }
            }
            enum Plan: SchemaMigrationPlan {
                static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self, V9.self] }
                static var stages: [MigrationStage] { [stage, .custom(fromVersion: V2.self, toVersion: V1.self, willMigrate: nil, didMigrate: nil)] }
            }
            """
        let app = try SwiftDataApp(["History.swift": source])
        defer { app.remove() }
        #expect(
            try app.refusals() == [
                "History.swift:4: error: V1.models names Missing, which is not a @Model class of these sources (read the folder that declares it too)",
                "History.swift:8: error: V2's versionIdentifier 1.0.0 does not come after V1's 2.0.0, which is before it in the history: SwiftData refuses equal versions too; give each schema its own, increasing",
                "History.swift:10: error: Item.tags relates to Tag (V2.Tag), which V2.models does not list",
                "History.swift:14: error: Plan.schemas names V9, which is not a VersionedSchema of these sources",
                "History.swift:15: error: the plan's stages name stage, which is not a MigrationStage.custom or .lightweight written with literal arguments in these sources",
                "History.swift:15: error: the stage goes from V2 to V1, which is not later in Plan.schemas",
            ])
    }

    /// A 10,000-line model file reads in one pass and locates what is wrong at its very end; a file past the
    /// reader's limit is refused at its first line, the others still read.
    @Test func aTenThousandLineFileIsReadAndLocatedAndAnOversizedOneRefused() throws {
        var lines = [
            "import SwiftData", "enum V1: VersionedSchema {", "    static var versionIdentifier = Schema.Version(1, 0, 0)",
            "    static var models: [any PersistentModel.Type] { [Big.self] }", "    @Model final class Big {",
        ]
        while lines.count < 9_996 { lines.append("        var field\(lines.count): Int = \(lines.count)") }
        lines += ["        @Attribute(originalName: legacy) var last: Int = 0", "        init() {}", "    }", "}"]
        #expect(lines.count == 10_000)
        let big = try SwiftDataApp(["Big.swift": lines.joined(separator: "\n")])
        defer { big.remove() }
        let sources = try big.sources()
        #expect(sources.models.first?.properties.count == 9_992)
        #expect(
            try big.refusals() == [
                "Big.swift:9997: error: @Attribute's originalName legacy is not a string literal: the old name must be read from the source"
            ])
        let limit = SwiftDataSourceReader.fileLimit
        let oversized = try SwiftDataApp([
            "Generated.swift": String(repeating: "// generated\n", count: limit / 13 + 1),
            "Model.swift": lines.dropLast(4).dropLast(0).prefix(10).joined(separator: "\n") + "\n    init() {}\n    }\n}\n",
        ])
        defer { oversized.remove() }
        let read = try oversized.sources()
        #expect(read.models.map(\.name) == ["Big"])
        #expect(
            read.problems.map { read.location($0.place) + ": " + $0.message } == [
                "Generated.swift:1: the file has \(limit / 13 * 13 + 13) bytes, more than the \(limit) a model file is read to: left unread"
            ])
    }

    /// Paths that overlap (trendy's `Models` and `Models/Migration`, both holding model files) read each file
    /// once: read twice, the plan was "one of 2 SchemaMigrationPlans".
    @Test func overlappingPathsReadEachFileOnce() throws {
        let app = try SwiftDataApp([
            "Models/Migration/Plan.swift": SwiftDataConstructTests.schema(
                "Item.self", "    @Model final class Item { var name: String = \"\"; init() {} }")
                + "\nenum Plan: SchemaMigrationPlan { static var schemas: [any VersionedSchema.Type] { [V1.self] }; static var stages: [MigrationStage] { [] } }\n"
        ])
        defer { app.remove() }
        let models = app.root.appendingPathComponent("Models").path
        let sources = try SwiftDataSourceReader.read([
            models, models + "/Migration", models + "/Migration/Plan.swift", app.root.path + "/./Models",
        ])
        #expect(sources.files == [models + "/Migration/Plan.swift"])
        #expect(sources.plans.count == 1 && sources.schemas.count == 1)
        _ = try SwiftDataHistory.resolve(sources)
    }
}
