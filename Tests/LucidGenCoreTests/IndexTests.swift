import Foundation
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `indexed`, `unique` and `indexes` in descriptions: the schema of every version, released snapshots
/// keeping their indexes, located errors, and the MF105 lint.
@Suite struct IndexTests {
    static func config(current: String) -> String { TestProject.defaultConfig + "\ncurrent_version: \"\(current)\"\n" }

    static func person(_ properties: String, history: [String] = ["1.0"], extra: String = "") -> String {
        """
        {
            "name": "person",
            "identifier": { "type": "int" },\(extra)
            "version_history": [\(history.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],
            "properties": [
                \(properties)
            ]
        }
        """
    }

    static let names = #"{ "name": "first_name", "property_type": "string" }, { "name": "last_name", "property_type": "string" }"#

    func table(_ result: GeneratorPipeline.Result, _ version: String, _ name: String = "person") -> SchemaTable? {
        result.model.schemas.first { $0.version.string == version }?.table(named: name)
    }

    @Test func singleUniqueAndMultiColumnIndexes() throws {
        let json = Self.person(
            #"{ "name": "email", "property_type": "string", "unique": true }, { "name": "city", "property_type": "string", "indexed": true }, "#
                + Self.names
                + #", { "name": "pilot", "property_type": { "entity_name": "person", "association": "to_one" }, "nullable": true }"#,
            extra: #"""

                    "indexes": [{ "properties": ["last_name", "first_name"], "unique": true }, { "properties": ["city", "last_name"], "name": "by_city" }],
                """#)
        let project = try TestProject(files: [".entities/person.json": json], config: Self.config(current: "1.0"))
        defer { project.remove() }
        let result = try project.generate()
        let indexes = try #require(table(result, "1.0")).indexes
        #expect(
            indexes == [
                SchemaIndex(name: "person_pilot_index", columns: ["pilot"]),
                SchemaIndex(name: "person_email_unique", columns: ["email"], unique: true),
                SchemaIndex(name: "person_city_index", columns: ["city"]),
                SchemaIndex(name: "person_last_name_first_name_unique", columns: ["last_name", "first_name"], unique: true),
                SchemaIndex(name: "by_city", columns: ["city", "last_name"]),
            ])
        #expect(
            try #require(table(result, "1.0")).createIndexStatements.contains(
                #"CREATE UNIQUE INDEX "person_last_name_first_name_unique" ON "person" ("last_name", "first_name")"#))
        // The snapshot carries them, and the generated registry's table too (unique kept).
        let snapshot = try project.read(".entities/.schema/1.0.json")
        #expect(snapshot.contains("\"person_email_unique\""))
        let decoded = try JSONDecoder().decode(SnapshotFile.self, from: Data(snapshot.utf8))
        #expect(decoded.tables.first { $0.name == "person" }?.indexes == indexes)
        let registry = try project.allFiles().filter { $0.hasSuffix(".swift") }.map { try project.read($0) }.joined()
        #expect(registry.contains(#"{"columns":["email"],"name":"person_email_unique","unique":true}"#))
        let person = try #require(table(result, "1.0"))
        #expect(SchemaTable(json: person.json(indent: "")) == person)
    }

    /// Adding `indexed`/`unique` and bumping current_version changes the new version only; removing it
    /// later drops it from that version on. Released snapshots keep their shape.
    @Test func indexesAddedAndRemovedAcrossReleases() throws {
        let project = try TestProject(files: [".entities/person.json": Self.person(Self.names)], config: Self.config(current: "1.0"))
        defer { project.remove() }
        _ = try project.generate()
        let frozen10 = try project.read(".entities/.schema/1.0.json")
        try project.write(".lucid.yaml", Self.config(current: "2.0"))
        try project.write(
            ".entities/person.json",
            Self.person(
                #"{ "name": "first_name", "property_type": "string", "indexed": true }, { "name": "last_name", "property_type": "string", "unique": true }"#,
                history: ["1.0", "2.0"]))
        let second = try project.generate()
        #expect(try #require(table(second, "1.0")).indexes == [])
        #expect(
            try #require(table(second, "2.0")).indexes == [
                SchemaIndex(name: "person_first_name_index", columns: ["first_name"]),
                SchemaIndex(name: "person_last_name_unique", columns: ["last_name"], unique: true),
            ])
        #expect(try project.read(".entities/.schema/1.0.json") == frozen10)
        let steps = StepInference(versions: second.model.schemas)
        #expect(
            try steps.operations(from: 0, to: 1).get() == [
                .createIndex(
                    table: "person", index: SchemaIndex(name: "person_first_name_index", columns: ["first_name"]), deferrable: true),
                .createIndex(
                    table: "person", index: SchemaIndex(name: "person_last_name_unique", columns: ["last_name"], unique: true),
                    deferrable: false),
            ])
        // 3.0 drops the plain index; 2.0's snapshot keeps it.
        try project.write(".lucid.yaml", Self.config(current: "3.0"))
        try project.write(
            ".entities/person.json",
            Self.person(
                #"{ "name": "first_name", "property_type": "string" }, { "name": "last_name", "property_type": "string", "unique": true }"#,
                history: ["1.0", "2.0", "3.0"]))
        let third = try project.generate()
        #expect(try #require(table(third, "2.0")).indexes.map(\.name) == ["person_first_name_index", "person_last_name_unique"])
        #expect(try #require(table(third, "3.0")).indexes.map(\.name) == ["person_last_name_unique"])
        #expect(
            try StepInference(versions: third.model.schemas).operations(from: 1, to: 2).get() == [.dropIndex("person_first_name_index")])
        #expect(try project.generate(check: true).report.isUpToDate)
    }

    @Test func aRenamedColumnKeepsItsIndex() throws {
        let project = try TestProject(
            files: [".entities/person.json": Self.person(#"{ "name": "surname", "property_type": "string", "unique": true }"#)],
            config: Self.config(current: "1.0"))
        defer { project.remove() }
        _ = try project.generate()
        try project.write(".lucid.yaml", Self.config(current: "2.0"))
        try project.write(
            ".entities/person.json",
            Self.person(
                #"{ "name": "last_name", "property_type": "string", "unique": true, "previous_name": "surname" }"#, history: ["1.0", "2.0"])
        )
        let result = try project.generate()
        // The same index, on the renamed column, under the name SQLite keeps through RENAME COLUMN.
        #expect(
            try #require(table(result, "2.0")).indexes == [SchemaIndex(name: "person_surname_unique", columns: ["last_name"], unique: true)]
        )
        #expect(
            try StepInference(versions: result.model.schemas).operations(from: 0, to: 1).get() == [
                .renameColumn(table: "person", from: "surname", to: "last_name")
            ])
    }

    @Test func aRemovedPropertyTakesItsIndexesWithIt() throws {
        let properties =
            #"{ "name": "nickname", "property_type": "string", "nullable": true, "indexed": true, "removed_at_version": "2.0" }, "#
            + Self.names
        let json = Self.person(
            properties, history: ["1.0", "2.0"],
            extra: #"""

                    "indexes": [{ "properties": ["nickname", "last_name"] }],
                """#)
        let project = try TestProject(files: [".entities/person.json": json], config: Self.config(current: "2.0"))
        defer { project.remove() }
        let result = try project.generate()
        #expect(try #require(table(result, "1.0")).indexes.map(\.name) == ["person_nickname_index", "person_nickname_last_name_index"])
        #expect(try #require(table(result, "2.0")).indexes == [])
        // Dropped in place: the indexes first (SQLite refuses to drop an indexed column), no rebuild.
        #expect(
            try StepInference(versions: result.model.schemas).operations(from: 0, to: 1).get() == [
                .dropIndex("person_nickname_index"), .dropIndex("person_nickname_last_name_index"),
                .dropColumn(table: "person", column: "nickname", deferrable: true),
            ])
    }

    /// A unique index whose columns cannot take a distinct value per row is legitimate (one row per
    /// category): a located note says how the seeders keep it (fewer rows, or NULL beyond the
    /// combinations); an index with a string, a to-one or the identifier gets none.
    @Test func aUniqueIndexOverFewValuesIsANote() throws {
        let json = Self.person(
            Self.names + #"""
                , { "name": "category", "property_type": "category", "unique": true },
                { "name": "day", "property_type": "category", "nullable": true }, { "name": "flag", "property_type": "bool" }
                """#,
            extra: #"""

                    "indexes": [{ "properties": ["day", "flag"], "unique": true }, { "properties": ["flag", "last_name"], "unique": true }],
                """#)
        let project = try TestProject(
            files: [
                ".entities/person.json": json, ".entities/Subtypes/category.json": #"{ "name": "category", "cases": ["a", "b", "c"] }"#,
            ], config: Self.config(current: "1.0"))
        defer { project.remove() }
        let result = try project.generate()
        let notes = result.diagnostics.filter { $0.severity == .note && $0.message.contains("unique index") }
            .map { "\($0.location.map { "\($0.line):\($0.column)" } ?? "?") \($0.path ?? "") \($0.message)" }
        #expect(
            notes == [
                "7:114 $.properties[2].unique unique index (category) of 'person' allows only 3 rows (one per combination of its values): the generated migration tests and `lucidgen fixtures` seed at most 3 rows of 'person', and references to it point at those rows",
                "4:17 $.indexes[0] unique index (day, flag) of 'person' has only 6 combinations of values: the generated migration tests and `lucidgen fixtures` seed each once, then NULL in day (NULLs may repeat in a unique index)",
            ], "\(notes)")
        #expect(FixtureRows(model: result.model).seedPlans(at: SchemaVersion("1.0"))["person"]?.rowLimit == 3)
    }

    @Test func badIndexesAreLocatedErrors() throws {
        let json = Self.person(
            Self.names + #", { "name": "crew", "property_type": { "entity_name": "person", "association": "to_many" }, "indexed": true }"#,
            extra: #"""

                    "indexes": [{ "properties": ["last_name", "age"] }, { "properties": [] }, { "properties": ["crew", "last_name"] }, { "properties": ["first_name"] }, { "properties": ["first_name"], "unique": true }],
                """#)
        let project = try TestProject(files: [".entities/person.json": json], config: Self.config(current: "1.0"))
        defer { project.remove() }
        let errors = try project.errors()
        let lines = errors.map { "\($0.location.map { "\($0.line):\($0.column)" } ?? "?") \($0.path ?? "") \($0.message)" }
        #expect(lines.contains(#"4:73 $.indexes[1].properties an index's 'properties' is empty: name at least one property"#))
        // The loader's error stops resolving; the others are the Resolve stage's, reported once the file loads.
        let fixed = json.replacingOccurrences(of: #"{ "properties": [] }, "#, with: "")
        try project.write(".entities/person.json", fixed)
        let resolved = try project.errors().map { "\($0.location.map { "\($0.line):\($0.column)" } ?? "?") \($0.path ?? "") \($0.message)" }
        #expect(
            resolved == [
                "7:114 $.properties[2].indexed index of 'person' names 'crew', a to-many relationship: it has no column (its links are in a join table, which is indexed already)",
                "4:17 $.indexes[0] index of 'person' names 'age', which is not one of its properties",
                "4:57 $.indexes[1] index of 'person' names 'crew', a to-many relationship: it has no column (its links are in a join table, which is indexed already)",
                "4:132 $.indexes[3] duplicate index: (first_name) of 'person' is already indexed ($.indexes[2]); keep one (\"unique\": true makes it unique)",
            ])
    }

    @Test func anIndexNameTakenTwiceIsAnError() throws {
        let json = Self.person(
            Self.names,
            extra: #"""

                    "indexes": [{ "properties": ["last_name"], "name": "person" }],
                """#)
        let project = try TestProject(files: [".entities/person.json": json], config: Self.config(current: "1.0"))
        defer { project.remove() }
        #expect(
            try project.errors().map(\.message) == [
                "index 'person' on person at version 1.0 takes the name of table 'person' (tables and indexes share one namespace in SQLite); give it another \"name\""
            ])
    }

    // MARK: Lint

    func lintCodes(_ releases: [(current: String, json: String)]) throws -> [LintFinding] {
        let project = try TestProject(files: [:], config: nil)
        defer { project.remove() }
        for release in releases {
            try project.write(".lucid.yaml", Self.config(current: release.current))
            try project.write(".entities/person.json", release.json)
            _ = try project.generate()
        }
        let (input, result) = try GeneratorPipeline(configPath: project.configPath).check()
        return Linter(model: result.model, descriptions: input.entities).run().findings
    }

    @Test func aUniquenessAddedOverExistingRowsIsDataDependent() throws {
        let findings = try lintCodes([
            ("1.0", Self.person(Self.names)),
            (
                "2.0",
                Self.person(
                    #"{ "name": "first_name", "property_type": "string", "unique": true }, { "name": "last_name", "property_type": "string", "indexed": true }"#,
                    history: ["1.0", "2.0"])
            ),
        ])
        #expect(findings.map(\.code.id) == ["MF105"])
        #expect(findings.first?.property == "first_name")
        #expect(findings.first?.location?.line == 6)
        #expect(
            findings.first?.text.hasPrefix(
                "[MF105] property person.first_name becomes unique at 2.0 (index person_first_name_unique on person): the step fails (and changes nothing) if rows share a value"
            ) == true)
    }

    @Test func noUniquenessFindingWhereNoRowCanClash() throws {
        // A new entity, a plain index, a unique index kept through a rename, a unique over a new all-NULL column.
        let findings = try lintCodes([
            ("1.0", Self.person(#"{ "name": "surname", "property_type": "string", "unique": true }"#)),
            (
                "2.0",
                Self.person(
                    #"{ "name": "last_name", "property_type": "string", "unique": true, "previous_name": "surname" }, { "name": "city", "property_type": "string", "nullable": true, "indexed": true, "added_at_version": "2.0" }, { "name": "badge", "property_type": "string", "nullable": true, "unique": true, "added_at_version": "2.0" }"#,
                    history: ["1.0", "2.0"])
            ),
        ])
        #expect(findings.map(\.code.id) == ["BC102"])
    }

    @Test func theAdditiveRuleFollowsAUniqueColumnThroughItsRename() throws {
        let project = try TestProject(
            files: [".entities/person.json": Self.person(#"{ "name": "surname", "property_type": "string", "unique": true }"#)],
            config: Self.config(current: "1.0"))
        defer { project.remove() }
        _ = try project.generate()
        try project.write(".lucid.yaml", Self.config(current: "2.0"))
        try project.write(
            ".entities/person.json",
            Self.person(
                #"{ "name": "last_name", "property_type": "string", "unique": true, "previous_name": "surname" }"#, history: ["1.0", "2.0"])
        )
        let result = try project.generate()
        let changes = AdditiveRule.changes(from: result.model.schemas[0], to: result.model.schemas[1], appCode: nil)
        #expect(changes.map(\.kind) == [.columnRenamed])
    }

    @Test func additiveRuleFlagsTheSameUniqueness() throws {
        let project = try TestProject(files: [".entities/person.json": Self.person(Self.names)], config: Self.config(current: "1.0"))
        defer { project.remove() }
        _ = try project.generate()
        try project.write(".lucid.yaml", Self.config(current: "2.0"))
        try project.write(
            ".entities/person.json",
            Self.person(
                #"{ "name": "first_name", "property_type": "string", "unique": true }, { "name": "last_name", "property_type": "string", "indexed": true }"#,
                history: ["1.0", "2.0"]))
        _ = try project.generate()
        let (input, result) = try GeneratorPipeline(configPath: project.configPath).check()
        var settings = result.model.config.lint
        settings.additiveOnly = true
        let findings = Linter(model: result.model, descriptions: input.entities, settings: settings).run().findings
        #expect(findings.map(\.code.id) == ["MF105", "AO109"])
        #expect(findings.map(\.property) == ["first_name", "first_name"])
    }
}
