import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// Entity names Swift cannot build: `Void` (the code Swift Testing's @Test expands to names `Void` unqualified,
/// so the generated tests did not build), an empty name (a hidden `.swift` file), each refused where the
/// description says it; and the scaffold `lucidgen init` writes names Swift's and LucidRuntime's types by their
/// modules, so an entity named `Sendable` or `StoreOptions` no longer breaks the app's stages type.
@Suite struct EntityNameRefusalTests {
    let names = SwiftNameTests()

    func failures(_ files: [String: String]) throws -> [Diagnostic] { try names.failures(files) }

    func expectError(
        _ errors: [Diagnostic], file: String, line: Int, column: Int, _ message: String, path: String? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        names.expectError(errors, file: file, line: line, column: column, message, path: path, sourceLocation: sourceLocation)
    }

    @Test func voidIsRefusedLocatedWithAWayOut() throws {
        let errors = try failures([
            ".entities/void.json": entityJSON("void"),
            ".entities/b.json": entityJSON("b", extra: #" "swift_name": "Void","#),
            ".entities/Subtypes/void_kind.json": #"{ "name": "void_kind", "swift_name": "Void", "cases": ["a"] }"#,
        ])
        expectError(
            errors, file: ".entities/void.json", line: 1, column: 1,
            "entity 'void' would be the Swift type 'Void', which Swift Testing's @Test names unqualified in the code it expands each generated test to (meaning Swift.Void), so that the generated tests would not build; give the entity a \"swift_name\" (its table keeps its name), e.g. \"VoidRecord\"",
            path: "$.name")
        expectError(
            errors, file: ".entities/b.json", line: 1, column: 1, "entity 'b' would be the Swift type 'Void', which Swift Testing's @Test",
            path: "$.swift_name")
        expectError(errors, file: "Subtypes/void_kind.json", line: 1, column: 1, "subtype 'void_kind' would be the Swift type 'Void'")
    }

    @Test func anEmptyEntityNameIsRefusedLocated() throws {
        let errors = try failures([".entities/a.json": entityJSON("a"), ".entities/empty.json": entityJSON("")])
        expectError(errors, file: ".entities/empty.json", line: 2, column: 13, "invalid name: a name may not be empty", path: "$.name")
    }

    /// Names the generated code names by their modules, as entities: generated (the build of such a package is
    /// `HostileNamesConsumerTests`' kind; here, that nothing refuses them).
    @Test(arguments: ["sendable", "store_options", "error", "codable", "string", "database", "row", "result"])
    func namesTheGeneratedCodeQualifiesAreAccepted(name: String) throws {
        let project = try TestProject(files: [".entities/\(name).json": entityJSON(name)])
        defer { project.remove() }
        _ = try project.generate()
    }

    @Test func theScaffoldQualifiesSwiftsAndLucidRuntimesTypes() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["init", "--module", "Shelf"], in: project.root)
        #expect(result.status == 0, "\(result.error)")
        let stages = try project.read("Sources/Shelf/ShelfStages.swift")
        #expect(
            stages.contains("public struct ShelfStages: Swift.Sendable {") && stages.contains("-> LucidRuntime.StoreOptions {"), "\(stages)"
        )
        #expect(!stages.contains(": Sendable") && !stages.contains("-> StoreOptions"))
    }
}
