import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// What SQLite would refuse is refused first: `check` and `generate` try every
/// unreleased version's DDL in SQLite, and a refusal is an error at the value in the description, with
/// nothing written, instead of a store that fails to be created on a user's device.
@Suite struct SchemaTrialTests {
    static func recipe(tokenizer: String? = nil, titleDefault: String? = nil) -> String {
        let search = tokenizer.map { #"{ "properties": ["title"], "tokenizer": \#(json($0)) }"# } ?? #"{ "properties": ["title"] }"#
        let title =
            titleDefault.map { #"{ "name": "title", "property_type": "string", "default_value": \#(json($0)) }"# }
            ?? #"{ "name": "title", "property_type": "string" }"#
        return """
            {
                "name": "recipe",
                "identifier": { "type": "int" },
                "search": \(search),
                "version_history": [{ "version": "1.0" }],
                "properties": [
                    \(title),
                    { "name": "servings", "property_type": "int", "default_value": 1 }
                ]
            }
            """
    }

    static let sqliteVersion = (try? DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") }) ?? "?"

    static func json(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }

    /// `generate` and `check` on a project whose only description is `recipe`: both exit 1 with the error,
    /// and `generate` writes nothing.
    func refusal(_ recipe: String) throws -> (generate: ProcessResult, check: ProcessResult, written: Bool) {
        let project = try TestProject(
            files: [".entities/recipe.json": recipe], config: TestProject.defaultConfig + "\ncurrent_version: \"1.0\"\n")
        defer { project.remove() }
        let generate = try run(lucidgenBinary, ["generate"], in: project.root)
        let written =
            FileManager.default.fileExists(atPath: project.root.appendingPathComponent("Sources/App/Generated").path)
            || FileManager.default.fileExists(atPath: project.root.appendingPathComponent(".entities/.schema").path)
        let check = try run(lucidgenBinary, ["check"], in: project.root)
        return (generate, check, written)
    }

    @Test(arguments: ["bogus", "unicode61 remove_diacritics 9", "unicode61'); DROP TABLE recipe; --", "porter nonsense"])
    func aTokenizerSQLiteRefusesIsAnErrorAtTheSearchDeclaration(_ tokenizer: String) throws {
        let (generate, check, written) = try refusal(Self.recipe(tokenizer: tokenizer))
        #expect(generate.status == 1, "\(generate.output)\(generate.error)")
        #expect(check.status == 1, "\(check.output)\(check.error)")
        #expect(!written, "nothing was written")
        for output in [generate.error, check.output + check.error] {
            #expect(output.contains(".entities/recipe.json:4:"), "located at the search declaration: \(output)")
            #expect(output.contains("error: SQLite \(Self.sqliteVersion) refuses the search index of table recipe"), "\(output)")
            #expect(output.contains("at version 1.0"), "\(output)")
        }
    }

    @Test func aDefaultWithANulIsAnErrorAtItsProperty() throws {
        let (generate, check, written) = try refusal(Self.recipe(titleDefault: "before\u{0}after"))
        #expect(generate.status == 1, "\(generate.output)\(generate.error)")
        #expect(check.status == 1)
        #expect(!written)
        // Refused when the description is loaded, before any SQL is made (the trial would refuse it too).
        #expect(
            generate.error.contains(".entities/recipe.json:7:9: error: default_value of 'title' contains NUL (U+0000)"),
            "at the property: \(generate.error)")
    }

    @Test func aValidSchemaPassesTheTrial() throws {
        let project = try TestProject(
            files: [
                ".entities/recipe.json": Self.recipe(
                    tokenizer: "unicode61 remove_diacritics 2", titleDefault: "it's \"quoted\"; DROP TABLE x; --")
            ],
            config: TestProject.defaultConfig + "\ncurrent_version: \"1.0\"\n")
        defer { project.remove() }
        let generate = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generate.status == 0, "\(generate.error)")
        let check = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(check.status == 0, "\(check.output)\(check.error)")
    }

    /// Text from descriptions reaches the terminal escaped: a default holding a terminal escape sequence
    /// is printed by `plan` as `\u{1b}[2J`, never as the sequence.
    @Test func planPrintsControlCharactersEscaped() throws {
        let note = """
            {
                "name": "note",
                "identifier": { "type": "int" },
                "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
                "properties": [
                    { "name": "title", "property_type": "string" },
                    { "name": "mood", "property_type": "string", "default_value": \(Self.json("\u{1B}[2J\u{1B}]0;owned\u{07}calm")), "added_at_version": "2.0" }
                ]
            }
            """
        let project = try TestProject(
            files: [".entities/note.json": note], config: TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n")
        defer { project.remove() }
        let plan = try run(lucidgenBinary, ["plan"], in: project.root)
        #expect(plan.status == 0, "\(plan.error)")
        #expect(!plan.output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(plan.output)")
        #expect(plan.output.contains(#"\u{1b}[2J\u{1b}]0;owned\u{7}calm"#), "\(plan.output)")
    }
}
