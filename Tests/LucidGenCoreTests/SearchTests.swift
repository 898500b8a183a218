import Foundation
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `search` in descriptions: each version's declared search, the typed query rendered for the newest
/// record, released snapshots keeping theirs, and located errors.
@Suite struct SearchTests {
    static func config(current: String) -> String { TestProject.defaultConfig + "\ncurrent_version: \"\(current)\"\n" }

    static let historicNotes =
        #"{ "name": "notes", "property_type": "string", "nullable": true, "previous_name": "remarks", "renamed_at_version": "3.0", "added_at_version": "2.0" }"#
    static let plainNotes = #"{ "name": "notes", "property_type": "string", "nullable": true }"#

    static func recipe(search: String, history: [String] = ["1.0"], notes: String = historicNotes, properties: String = "") -> String {
        """
        {
            "name": "recipe",
            "identifier": { "type": "int" },
            "search": \(search),
            "version_history": [\(history.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],
            "properties": [
                { "name": "title", "property_type": "string" },
                \(notes),
                { "name": "servings", "property_type": "int", "default_value": 1 },
                { "name": "cooks", "property_type": { "entity_name": "recipe", "association": "to_many" }, "nullable": true }\(properties)
            ]
        }
        """
    }

    func lines(_ diagnostics: [Diagnostic]) -> [String] {
        diagnostics.map { "\($0.location.map { "\($0.line):\($0.column)" } ?? "?") \($0.path ?? "") \($0.message)" }
    }

    @Test func eachVersionHasItsSearchAndTheNewestRecordItsQuery() throws {
        let search =
            #"{ "properties": ["title", "notes"], "tokenizer": "unicode61 remove_diacritics 2", "added_at_version": "2.0", "history": [{ "until_version": "3.0", "properties": ["title"], "tokenizer": null }] }"#
        let project = try TestProject(
            files: [".entities/recipe.json": Self.recipe(search: search, history: ["1.0", "2.0", "3.0"])],
            config: Self.config(current: "3.0"))
        defer { project.remove() }
        let result = try project.generate()
        let tables = result.model.schemas.map { $0.table(named: "recipe")! }
        #expect(tables[0].search == nil)
        #expect(tables[1].search == SchemaSearch(columns: ["title"]))
        #expect(tables[2].search == SchemaSearch(columns: ["title", "notes"], tokenizer: "unicode61 remove_diacritics 2"))
        // A table without search has the DDL and JSON it had before search existed.
        #expect(tables[0].createStatements == [tables[0].createTableStatement()] + tables[0].createIndexStatements)
        #expect(!tables[0].json(indent: "").contains("search"))
        let operations = try StepInference(versions: result.model.schemas).operations(from: 1, to: 2).get()
        #expect(operations.first == .dropSearch(table: "recipe"))
        #expect(operations.last == .createSearch(tables[2]))
        let record = try project.read("Sources/App/Generated/Entities/Recipe.swift")
        #expect(record.contains("public static func search(_ pattern: GRDB.FTS5Pattern) -> GRDB.SQLRequest<Recipe_3_0> {"))
        #expect(
            layoutFree(record).contains(
                ##"GRDB.SQLRequest(sql: #""" SELECT "recipe".* FROM "recipe" JOIN "recipe_fts" ON "recipe_fts".rowid = "recipe".rowid WHERE "recipe_fts" MATCH ? ORDER BY "recipe_fts".rank """#, arguments: [pattern])"##
            ))
        #expect(record.contains("GRDB.FTS5Pattern(matchingAllPrefixesIn: text)"))
        #expect(record.contains("(`title`, `notes`)"))
        #expect(record.contains("tokenizer `unicode61 remove_diacritics 2`"))
        #expect(record.components(separatedBy: "public static func search(").count == 3)
    }

    @Test func aReleasedVersionKeepsItsFrozenSearch() throws {
        let project = try TestProject(
            files: [".entities/recipe.json": Self.recipe(search: #"{ "properties": ["title"] }"#, notes: Self.plainNotes)],
            config: Self.config(current: "1.0"))
        defer { project.remove() }
        _ = try project.generate()
        // 2.0 adds notes to the search; 1.0, released, keeps its search of title alone.
        try project.write(".lucid.yaml", Self.config(current: "2.0"))
        try project.write(
            ".entities/recipe.json",
            Self.recipe(search: #"{ "properties": ["title", "notes"] }"#, history: ["1.0", "2.0"], notes: Self.plainNotes))
        let result = try project.generate()
        #expect(result.model.schemas[0].table(named: "recipe")?.search == SchemaSearch(columns: ["title"]))
        #expect(result.model.schemas[1].table(named: "recipe")?.search == SchemaSearch(columns: ["title", "notes"]))
    }

    @Test func badSearchesAreLocatedErrors() throws {
        func errors(_ search: String, history: [String] = ["1.0", "2.0", "3.0"], properties: String = "") throws -> [String] {
            let project = try TestProject(
                files: [".entities/recipe.json": Self.recipe(search: search, history: history, properties: properties)],
                config: Self.config(current: "3.0"))
            defer { project.remove() }
            return lines(try project.errors())
        }
        // Unknown key, empty list: the Load stage.
        let unknown = try errors(#"{ "properties": ["title"], "tokeniser": "porter" }"#)
        #expect(
            unknown == [
                "4:42 $.search.tokeniser unknown key 'tokeniser' in 'search'; did you mean 'tokenizer'?"
            ], "\(unknown)")
        let empty = try errors(#"{ "properties": [] }"#)
        #expect(
            empty == ["4:31 $.search.properties a search's 'properties' is empty: name at least one text property, or remove 'search'"],
            "\(empty)")
        // A property missing at a version the search covers (notes comes at 2.0), named by an old name, or not text.
        #expect(
            try errors(#"{ "properties": ["title", "notes"] }"#) == [
                #"4:15 $.search.properties search of 'recipe' names 'notes', which does not exist at 1.0; add the search after the property ("added_at_version"), or say what it searched before in its "history""#
            ])
        #expect(
            try errors(#"{ "properties": ["remarks"] }"#) == [
                "4:15 $.search.properties search of 'recipe' names 'remarks', which is not one of its properties (did you mean 'notes', its current name?)"
            ])
        #expect(
            try errors(#"{ "properties": ["title", "servings"] }"#) == [
                "4:15 $.search.properties search of 'recipe' names 'servings', which is int at 1.0, not text: search covers properties of type string, url, color or an enum"
            ])
        // A to-many relationship lives in a join table.
        #expect(
            try errors(#"{ "properties": ["cooks"] }"#) == [
                "4:15 $.search.properties search of 'recipe' names 'cooks', a to-many relationship: its links are in a join table, which holds no text to search"
            ])
        // Versions outside the history; a name another table holds.
        #expect(
            try errors(#"{ "properties": ["title"], "added_at_version": "2.5" }"#) == [
                #"4:15 $.search.added_at_version search of 'recipe': added_at_version 2.5 is not in its version_history; add {"version": "2.5"} there"#
            ])
        let clash = try TestProject(
            files: [
                ".entities/recipe.json": Self.recipe(search: #"{ "properties": ["title"] }"#, notes: Self.plainNotes),
                ".entities/recipe_fts.json":
                    #"{ "name": "recipe_fts", "version_history": [{ "version": "1.0" }], "properties": [{ "name": "word", "property_type": "string" }] }"#,
            ], config: Self.config(current: "1.0"))
        defer { clash.remove() }
        let clashes = lines(try clash.errors())
        #expect(
            clashes == [
                "4:15 $.search the search of table recipe needs the name recipe_fts, which table recipe_fts holds at 1.0; rename one of them"
            ], "\(clashes)")
    }
}
