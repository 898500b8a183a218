import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// `access_level` in `.lucid.yaml`: `public` (the default) or `internal` for an app target's own
/// generated types, applied to every generated declaration; the generated migration tests then reach the
/// internal types through `@testable import`. `AppNamespaceConsumerTests` compiles and runs an app built
/// with `internal`.
@Suite struct AccessLevelTests {
    static func config(_ level: String?) -> String {
        TestProject.config(current: "1.0", settings: level.map { ["access_level: \($0)"] } ?? [], tests: true)
    }

    static let files = [
        ".entities/item.json": """
        { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [
            { "name": "title", "property_type": "string" },
            { "name": "kind", "property_type": "kind" },
            { "name": "tags", "property_type": { "entity_name": "tag", "association": "to_many" } }
          ] }
        """,
        ".entities/tag.json":
            #"{ "name": "tag", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "label", "property_type": "string" }] }"#,
        ".entities/Subtypes/kind.json": #"{ "name": "kind", "cases": ["plain", "fancy"] }"#,
    ]

    static let generated = [
        "Sources/App/Generated/Entities/Item.swift", "Sources/App/Generated/Entities/Tag.swift",
        "Sources/App/Generated/Subtypes/Kind.swift",
        "Sources/App/Generated/AppSchema.swift", "Tests/AppTests/Generated/AppMigrationTests.swift",
    ]

    /// The modifiers that start the generated declarations of each file.
    static func modifiers(_ source: String) -> Set<String> {
        var found: Set<String> = []
        for line in source.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let first = words.first, ["public", "internal", "private", "fileprivate", "package"].contains(first) else { continue }
            found.insert(String(first))
        }
        return found
    }

    @Test func publicIsTheDefault() throws {
        let project = try TestProject(files: Self.files, config: Self.config(nil))
        defer { project.remove() }
        _ = try project.generate()
        let record = try project.read("Sources/App/Generated/Entities/Item.swift")
        #expect(Self.modifiers(record) == ["public"])
        #expect(record.contains("public func linkTags(_ db: GRDB.Database, ids targetIDs: [Swift.Int]) throws"), "\(record)")
        let tests = try project.read("Tests/AppTests/Generated/AppMigrationTests.swift")
        #expect(tests.contains("\nimport App\n") && !tests.contains("@testable"), "\(tests.prefix(600))")
    }

    @Test func internalMakesEveryDeclarationInternal() throws {
        let project = try TestProject(files: Self.files, config: Self.config("internal"))
        defer { project.remove() }
        _ = try project.generate()
        for file in Self.generated {
            let source = try project.read(file)
            #expect(Self.modifiers(source) == ["internal"], "\(file): \(Self.modifiers(source))")
            #expect(!source.contains("public "), "\(file)")
        }
        let tests = try project.read("Tests/AppTests/Generated/AppMigrationTests.swift")
        #expect(tests.contains("\n@testable import App\n"), "\(tests.prefix(600))")
        #expect(tests.contains("internal protocol AppMigrationExpectations {"), "\(tests.prefix(1200))")
        let kind = try project.read("Sources/App/Generated/Subtypes/Kind.swift")
        #expect(kind.contains("internal enum Kind:\n"), "\(kind)")
    }

    @Test func anotherValueIsALocatedError() throws {
        let project = try TestProject(files: Self.files, config: Self.config("open"))
        defer { project.remove() }
        let errors = try project.errors().map(\.description)
        #expect(
            errors.count == 1
                && errors[0].hasSuffix(
                    "/.lucid.yaml:3:15: error: access_level 'open' is not an access level: use \"public\" (the default: the generated types are the module's API) or \"internal\" (an app target's own types) (at $.access_level)"
                ),
            "\(errors)")
    }
}
