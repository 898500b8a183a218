import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// Enum cases with a history: located errors, per-version types, and real stores migrated
/// through a renamed case, a case removed with a fallback and one removed without (the app's code).
@Suite struct EnumHistoryTests {
    static let aircraft = """
        {
            "name": "aircraft",
            "identifier": { "type": "string" },
            "version_history": [{ "version": "1.0" }, { "version": "2.0" }, { "version": "3.0" }],
            "properties": [
                { "name": "category", "property_type": "category", "default_value": ".airplane" }
            ]
        }
        """

    static func category(_ extra: String = "") -> String {
        """
        {
            "name": "category",
            "cases": [
                "airplane",
                { "name": "balloon", "previous_name": "lighter_than_air", "renamed_at_version": "2.0" },
                { "name": "glider", "added_at_version": "2.0" },
                { "name": "seaplane", "removed_at_version": "3.0", "fallback": "airplane" }\(extra)
            ]
        }
        """
    }

    static func project(category: String = Self.category(), aircraft: String = Self.aircraft) throws -> TestProject {
        try TestProject(files: [".entities/aircraft.json": aircraft, ".entities/Subtypes/category.json": category])
    }

    func errors(category: String, aircraft: String = Self.aircraft) throws -> [Diagnostic] {
        let project = try Self.project(category: category, aircraft: aircraft)
        defer { project.remove() }
        return try project.errors()
    }

    // MARK: Located errors

    @Test func aVersionThatIsNoSchemaVersionIsALocatedError() throws {
        let errors = try errors(category: Self.category(",\n        { \"name\": \"zeppelin\", \"added_at_version\": \"2.5\" }"))
        let error = try #require(errors.first { $0.message.contains("added_at_version 2.5 of case 'zeppelin'") })
        #expect(error.message.contains("is not a schema version"))
        #expect(error.location?.file.hasSuffix("Subtypes/category.json") == true)
        #expect(error.location?.line == 8)
        #expect(error.path == "$.cases[4].added_at_version")
    }

    @Test func anUnknownFallbackIsALocatedError() throws {
        let errors = try errors(
            category: Self.category().replacingOccurrences(of: "\"fallback\": \"airplane\"", with: "\"fallback\": \"zeppelin\""))
        let error = try #require(errors.first { $0.message.contains("fallback 'zeppelin'") })
        #expect(error.message.contains("is not a case of enum 'category' at 3.0 (airplane, balloon, glider)"))
        #expect(error.location?.line == 7)
        #expect(error.path == "$.cases[3].fallback")
    }

    @Test func aNullFallbackOnARequiredColumnIsAnError() throws {
        let errors = try errors(
            category: Self.category().replacingOccurrences(of: "\"fallback\": \"airplane\"", with: "\"fallback\": null"))
        let error = try #require(errors.first { $0.message.contains("\"fallback\": null") })
        #expect(error.message.contains("'aircraft.category' is required at 3.0"))
        #expect(error.path == "$.cases[3].fallback")
        // Nullable: accepted.
        let project = try Self.project(
            category: Self.category().replacingOccurrences(of: "\"fallback\": \"airplane\"", with: "\"fallback\": null"),
            aircraft: Self.aircraft.replacingOccurrences(of: "\"default_value\": \".airplane\"", with: "\"nullable\": true"))
        defer { project.remove() }
        let model = try project.generate().model
        #expect(
            model.schemas[2].table(named: "aircraft")?.column(named: "category")?.caseChanges == [
                EnumCaseChange(from: "seaplane", to: nil, removed: true)
            ])
    }

    @Test func aRenameOntoAnExistingCaseIsAnError() throws {
        let errors = try errors(
            category: Self.category(",\n        { \"name\": \"airplane\", \"previous_name\": \"jet\", \"renamed_at_version\": \"2.0\" }"))
        let error = try #require(errors.first { $0.message.contains("two cases named 'airplane' at version 2.0") })
        #expect(error.message.contains("renamed from 'jet' at 2.0"))
        #expect(error.location?.line == 8)
        #expect(error.path == "$.cases[4]")
    }

    @Test func aChangeAtAVersionTheEntityDoesNotListIsAnError() throws {
        let aircraft = Self.aircraft.replacingOccurrences(of: ", { \"version\": \"2.0\" }", with: "")
        let pilot = entityJSON("pilot", version: "2.0")
        let project = try TestProject(files: [
            ".entities/aircraft.json": aircraft, ".entities/pilot.json": pilot, ".entities/Subtypes/category.json": Self.category(),
        ])
        defer { project.remove() }
        let errors = try project.errors()
        #expect(
            errors.contains {
                $0.message.contains(
                    "the cases of enum 'category' change at 2.0, but 'aircraft' (property 'category') has no version_history item 2.0")
            })
    }

    // MARK: Resolved model and generated code

    @Test func eachDistinctCaseSetGetsAType() throws {
        let project = try Self.project()
        defer { project.remove() }
        let result = try project.generate()
        let types = result.model.entities[0].shapes.map { $0.properties[0].swiftType }
        #expect(types == ["Category_1_0", "Category_2_0", "Category"])
        let source = try project.read("Sources/App/Generated/Subtypes/Category.swift")
        #expect(layoutFree(source).contains("public enum Category_1_0: Swift.String"))
        #expect(source.contains("case lighterThanAir = \"lighter_than_air\""))
        #expect(source.contains("as it was at schema version 1.0, stored"))
        #expect(!source.contains("case zeppelin"))
        // The step 1.0 → 2.0 renames, 2.0 → 3.0 removes with a fallback: both inferred; no app code.
        #expect(result.model.customSteps.isEmpty)
        let changes = result.model.schemas.map { $0.table(named: "aircraft")?.column(named: "category")?.caseChanges }
        #expect(
            changes == [
                nil, [EnumCaseChange(from: "lighter_than_air", to: "balloon")],
                [EnumCaseChange(from: "seaplane", to: "airplane", removed: true)],
            ])
        // The newest snapshot records the cases; the checksum covers the DDL only.
        let snapshot = try project.read(".entities/.schema/3.0.json")
        #expect(snapshot.contains("\"kind\" : \"enum\""))
        #expect(result.model.schemas[1].checksum == result.model.schemas[0].checksum)
    }

    @Test func aRemovalWithoutFallbackNeedsTheAppsCode() throws {
        let project = try Self.project(category: Self.category().replacingOccurrences(of: ", \"fallback\": \"airplane\"", with: ""))
        defer { project.remove() }
        let result = try project.generate()
        let step = try #require(result.model.customSteps.first)
        #expect(step.from.string == "2.0" && step.to.string == "3.0")
        #expect(step.tables.map(\.oldType) == ["Aircraft_2_0"])
        #expect(
            step.tables.first?.reasons == [
                "aircraft.category (enum category): case seaplane removed without a fallback; rows holding it need the app's code"
            ])
        let migrations = try project.read("Sources/App/Generated/AppMigrations.swift")
        #expect(migrations.contains("func migrate(_ old: Aircraft_2_0) throws -> Aircraft_3_0?"))
    }

    @Test func editingAReleasedEnumWithoutHistorySaysWhatChanged() throws {
        let project = try Self.project()
        defer { project.remove() }
        _ = try project.generate()
        try project.write(".lucid.yaml", TestProject.defaultConfig + "\ncurrent_version: \"4.0\"\n")
        try project.write(
            ".entities/aircraft.json",
            Self.aircraft.replacingOccurrences(of: "{ \"version\": \"3.0\" }", with: "{ \"version\": \"3.0\" }, { \"version\": \"4.0\" }"))
        _ = try project.generate() // 3.0 is released now, frozen with its cases
        try project.write(
            ".entities/Subtypes/category.json",
            Self.category().replacingOccurrences(
                of: "\"glider\", \"added_at_version\": \"2.0\"", with: "\"gliders\", \"added_at_version\": \"2.0\""))
        let errors = try project.errors()
        #expect(
            errors.contains {
                $0.message.contains("released version 3.0 was changed")
                    && $0.message.contains("enum 'category' had the cases airplane, balloon, glider, now airplane, balloon, gliders")
            })
    }

    // MARK: Real stores

    /// A store at 1.0 holding every case, migrated to 3.0 (a jump: the mappings compose) and from 2.0.
    @Test func storesMigrateThroughARenameAndARemovalWithFallback() throws {
        let project = try Self.project()
        defer { project.remove() }
        let schemas = try project.generate().model.schemas
        let planner = try MigrationPlanner(versions: schemas)
        #expect(try planner.plan(from: schemas[0].version).map(\.label) == ["1.0 → 3.0 (inferred)"])
        for (start, rows) in [
            ("1.0", ["a": "airplane", "b": "lighter_than_air", "s": "seaplane"]),
            ("2.0", ["a": "airplane", "b": "balloon", "g": "glider", "s": "seaplane"]),
        ] {
            let path = project.root.appendingPathComponent("store-\(start).sqlite").path
            let created = try run(
                lucidgenBinary, ["fixtures", "--config", project.configPath, "--schema-version", start, "--rows", "0", "--output", path])
            try #require(created.status == 0, "\(created.error)")
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                for (id, category) in rows {
                    try db.execute(sql: "INSERT INTO aircraft (id, category) VALUES (?, ?)", arguments: [id, category])
                }
            }
            try LucidMigrator(versions: schemas).migrate(queue)
            let migrated = try queue.read { db in
                try [String: String](
                    uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT id, category FROM aircraft").map { ($0["id"], $0["category"]) })
            }
            var expected = ["a": "airplane", "b": "balloon", "s": "airplane"]
            if start == "2.0" { expected["g"] = "glider" }
            #expect(migrated == expected, "from \(start)")
            try queue.close()
        }
    }

    /// Without a fallback, the step runs the app's transform (old case → new value); without it, no route.
    @Test func aRemovalWithoutFallbackRunsTheAppsTransform() throws {
        let project = try Self.project(category: Self.category().replacingOccurrences(of: ", \"fallback\": \"airplane\"", with: ""))
        defer { project.remove() }
        let schemas = try project.generate().model.schemas
        let path = project.root.appendingPathComponent("store.sqlite").path
        let created = try run(
            lucidgenBinary, ["fixtures", "--config", project.configPath, "--schema-version", "2.0", "--rows", "0", "--output", path])
        try #require(created.status == 0, "\(created.error)")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO aircraft (id, category) VALUES ('s', 'seaplane'), ('g', 'glider')")
        }
        #expect(throws: StoreError.self) { try LucidMigrator(versions: schemas).migrate(queue) }
        var options = StoreOptions()
        options.stages = [
            MigrationStage(
                from: SchemaVersion("2.0"), to: SchemaVersion("3.0"), label: "seaplanes",
                transforms: [
                    RowTransform(table: "aircraft") { row in
                        let category: String = row["category"]
                        return ["id": row["id"], "category": (category == "seaplane" ? "glider" : category).databaseValue]
                    }
                ])
        ]
        try LucidMigrator(versions: schemas, options: options).migrate(queue)
        let categories = try queue.read { db in try String.fetchAll(db, sql: "SELECT category FROM aircraft ORDER BY id") }
        #expect(categories == ["glider", "glider"])
        try queue.close()
    }
}
