import Foundation
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// Entity inheritance as Core Data stores it (`"parent"`, `"abstract"`): located errors, the root's table
/// (kind column, subentities' columns nullable), snapshots, records and the migration steps.
@Suite struct InheritanceTests {
    static let vehicle = #"""
        { "name": "vehicle", "identifier": { "type": "int" },
          "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "name", "property_type": "string" }] }
        """#

    static func sub(
        _ name: String, parent: String = "vehicle", versions: String = #"[{ "version": "1.0" }]"#,
        properties: String = #"[{ "name": "doors", "property_type": "int" }]"#, extra: String = ""
    ) -> String {
        #"{ "name": "\#(name)", "parent": "\#(parent)", "version_history": \#(versions), "properties": \#(properties)\#(extra) }"#
    }

    func resolveModel(_ files: [String: String]) throws -> ResolvedModel {
        let project = try TestProject(files: files)
        defer { project.remove() }
        return try Resolver.resolve(try GeneratorPipeline(configPath: project.configPath).load())
    }

    func errors(_ files: [String: String]) throws -> [String] {
        let project = try TestProject(files: files)
        defer { project.remove() }
        return try project.errors().map(\.description)
    }

    // MARK: Located errors

    @Test func unknownParentIsLocatedWithASuggestion() throws {
        let errors = try errors([".entities/vehicle.json": Self.vehicle, ".entities/car.json": Self.sub("car", parent: "vehicel")])
        #expect(errors.count == 1)
        #expect(
            errors.first?.contains(".entities/car.json:1:") == true
                && errors.first?.contains("parent 'vehicel' of 'car' is not an entity; did you mean 'vehicle'?") == true, "\(errors)")
        #expect(errors.first?.contains("(at $.parent)") == true, "\(errors)")
    }

    @Test func parentCycleIsAnError() throws {
        let errors = try errors([
            ".entities/a.json": Self.sub("a", parent: "b", properties: #"[{ "name": "x", "property_type": "int" }]"#),
            ".entities/b.json": Self.sub("b", parent: "a", properties: #"[{ "name": "y", "property_type": "int" }]"#),
        ])
        #expect(
            errors.contains { $0.contains(".entities/a.json") && $0.contains("entity 'a' is its own ancestor (a → b → a)") }, "\(errors)")
        #expect(
            errors.contains { $0.contains(".entities/b.json") && $0.contains("entity 'b' is its own ancestor (b → a → b)") }, "\(errors)")
    }

    @Test func unpersistedParentIsAnError() throws {
        let vehicle = Self.vehicle.replacingOccurrences(of: #""name": "vehicle","#, with: #""name": "vehicle", "persist": false,"#)
        let errors = try errors([".entities/vehicle.json": vehicle, ".entities/car.json": Self.sub("car")])
        #expect(
            errors.contains { $0.contains(".entities/car.json") && $0.contains("parent 'vehicle' of 'car' has \"persist\": false") },
            "\(errors)")
    }

    @Test func aSubentityHasNoTableOfItsOwn() throws {
        let car = Self.sub("car", extra: #", "persisted_name": "cars""#)
        let errors = try errors([".entities/vehicle.json": Self.vehicle, ".entities/car.json": car])
        #expect(
            errors.count == 1 && errors.first?.contains(".entities/car.json:1:") == true
                && errors.first?.contains("remove 'persisted_name' (at $.persisted_name)") == true, "\(errors)")
    }

    @Test func subentityIdentifierAndNamesAreLocatedErrors() throws {
        // Another identifier than its root's, a property its root has, and `kind` as a column.
        let car = #"""
            { "name": "car", "parent": "vehicle", "identifier": { "type": "string" },
              "version_history": [{ "version": "1.0" }],
              "properties": [{ "name": "name", "property_type": "string" }, { "name": "model", "property_type": "string", "persisted_name": "kind" }] }
            """#
        let errors = try errors([".entities/vehicle.json": Self.vehicle, ".entities/car.json": car])
        #expect(
            errors.contains {
                $0.contains("subentity 'car' shares the identifier of its root entity 'vehicle'") && $0.contains("$.identifier")
            }, "\(errors)")
        #expect(
            errors.contains {
                $0.contains("property 'name' of 'car' is also a property of 'vehicle'") && $0.contains("$.properties[0].name")
            }, "\(errors)")
        #expect(
            errors.contains { $0.contains("property 'model' of 'car' has the column 'kind'") && $0.contains("persisted_name") }, "\(errors)"
        )
    }

    @Test func rootPropertyNamedKindIsAnError() throws {
        let vehicle = Self.vehicle.replacingOccurrences(
            of: #""name": "name", "property_type": "string""#, with: #""name": "kind", "property_type": "string""#)
        let errors = try errors([".entities/vehicle.json": vehicle, ".entities/car.json": Self.sub("car")])
        #expect(
            errors.contains {
                $0.contains(".entities/vehicle.json") && $0.contains("property 'kind' of 'vehicle'") && $0.contains("$.properties[0].name")
            }, "\(errors)")
    }

    @Test func subentityBeforeItsParentAndOutlivingItAreErrors() throws {
        let vehicle = #"""
            { "name": "vehicle", "identifier": { "type": "int" }, "removed_at_version": "3.0",
              "version_history": [{ "version": "2.0" }],
              "properties": [{ "name": "name", "property_type": "string" }] }
            """#
        let other = #"{ "name": "other", "version_history": [{ "version": "1.0" }, { "version": "3.0" }], "properties": [] }"#
        let errors = try errors([
            ".entities/vehicle.json": vehicle, ".entities/other.json": other,
            ".entities/car.json": Self.sub("car", versions: #"[{ "version": "1.0" }]"#),
        ])
        #expect(errors.contains { $0.contains("subentity 'car' exists at 1.0, before its parent 'vehicle'") }, "\(errors)")
        #expect(errors.contains { $0.contains("subentity 'car' outlives its parent 'vehicle', removed at 3.0") }, "\(errors)")
    }

    // MARK: Storage

    @Test func theRootTableHoldsTheHierarchy() throws {
        let truck = Self.sub(
            "truck",
            properties:
                #"[{ "name": "payload", "property_type": "double", "default_value": 1.5 }, { "name": "axles", "property_type": "int" }]"#,
            extra: #", "indexes": [{ "properties": ["axles", "name"] }]"#)
        let model = try resolveModel([
            ".entities/vehicle.json": Self.vehicle, ".entities/car.json": Self.sub("car"), ".entities/truck.json": truck,
        ])
        let table = try #require(model.schemas.last?.table(named: "vehicle"))
        #expect(model.schemas.last?.tables.map(\.name) == ["vehicle"], "one table for the hierarchy")
        #expect(
            table.createTableStatement()
                == #"CREATE TABLE "vehicle" ("id" INTEGER PRIMARY KEY NOT NULL, "axles" INTEGER, "doors" INTEGER, "kind" TEXT NOT NULL DEFAULT 'vehicle', "name" TEXT NOT NULL, "payload" REAL DEFAULT 1.5)"#
        )
        #expect(table.indexes.map(\.name) == ["vehicle_kind_index", "vehicle_axles_name_index"])
        #expect(table.column(named: "kind")?.isKindColumn == true)
        // Records: the root reads every row (its properties and kind), a subentity the inherited ones too.
        let car = try #require(model.entities.first { $0.name == "car" }?.newest)
        #expect(car.tableName == "vehicle" && car.properties.map(\.name) == ["name", "doors", "kind"] && car.kinds == ["car"])
        #expect(car.properties.first { $0.name == "doors" }?.nullable == false, "the record requires what the description requires")
        let vehicle = try #require(model.entities.first { $0.name == "vehicle" }?.newest)
        #expect(vehicle.properties.map(\.name) == ["name", "kind"] && vehicle.kinds == ["vehicle", "car", "truck"])
        // The snapshot records the hierarchy: each subentity's own properties and its parent.
        let snapshot = try #require(model.snapshots.last)
        #expect(
            snapshot.entities.first { $0.name == "car" }.map { ($0.parent, $0.table, $0.properties.map(\.name)) } ?? (nil, "", []) == (
                "vehicle", "vehicle", ["doors"]
            ))
        #expect(snapshot.entities.first { $0.name == "vehicle" }?.parent == nil)
    }

    @Test func generatedRecordsFilterByKind() throws {
        let abstractVehicle = Self.vehicle.replacingOccurrences(of: #""name": "vehicle","#, with: #""name": "vehicle", "abstract": true,"#)
        let project = try TestProject(files: [
            ".entities/vehicle.json": abstractVehicle, ".entities/car.json": Self.sub("car"),
            ".entities/sports_car.json": Self.sub(
                "sports_car", parent: "car", properties: #"[{ "name": "top_speed", "property_type": "int", "default_value": 250 }]"#),
        ])
        defer { project.remove() }
        _ = try project.generate()
        let car = try project.read("Sources/App/Generated/Entities/Car.swift")
        #expect(car.contains(#"public static let databaseTableName = "vehicle""#))
        #expect(car.contains(#"public static let kinds: Swift.Set<Swift.String> = ["car", "sports_car"]"#))
        #expect(car.contains("public static func allOfKind() -> GRDB.QueryInterfaceRequest<Car_1_0>"))
        #expect(car.contains(#"kind: Swift.String = "car""#))
        let sports = try project.read("Sources/App/Generated/Entities/SportsCar.swift")
        #expect(
            sports.contains("public var doors: Swift.Int") && sports.contains("public var topSpeed: Swift.Int")
                && sports.contains("public var name: Swift.String"))
        let vehicle = try project.read("Sources/App/Generated/Entities/Vehicle.swift")
        #expect(vehicle.contains("        kind: Swift.String\n"), "an abstract record's kind has no default")
        #expect(vehicle.contains("`vehicle` is abstract"))
    }

    @Test func oldSnapshotsWithoutHierarchiesReadUnchanged() throws {
        let json = #"{"identifier": "int", "name": "vehicle", "properties": [], "table": "vehicle"}"#
        let entity = try JSONDecoder().decode(SchemaSnapshot.EntitySnapshot.self, from: Data(json.utf8))
        #expect(entity.parent == nil && entity.abstract == nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(
            String(decoding: try encoder.encode(entity), as: UTF8.self)
                == #"{"identifier":"int","name":"vehicle","properties":[],"table":"vehicle"}"#)
    }

    // MARK: History

    @Test func addingASubentityAddsColumnsAndRenamingOneRewritesItsKind() throws {
        let vehicle = #"""
            { "name": "vehicle", "identifier": { "type": "int" },
              "version_history": [{ "version": "1.0" }, { "version": "2.0" }, { "version": "3.0" }],
              "properties": [{ "name": "name", "property_type": "string" }] }
            """#
        let model = try resolveModel([
            ".entities/vehicle.json": vehicle,
            ".entities/car.json": Self.sub(
                "car", versions: #"[{ "version": "1.0" }, { "version": "3.0", "previous_name": "automobile" }]"#),
            ".entities/truck.json": Self.sub(
                "truck", versions: #"[{ "version": "2.0" }]"#,
                properties: #"[{ "name": "payload", "property_type": "double", "default_value": 1.5 }]"#),
        ])
        let inference = StepInference(versions: model.schemas)
        let toTwo = try inference.operations(from: 0, to: 1).get()
        #expect(toTwo.map(\.description) == ["add column vehicle.payload default 1.5"])
        let toThree = try inference.operations(from: 1, to: 2).get()
        #expect(toThree.map(\.description) == ["rewrite kind of vehicle: automobile → car"])
        #expect(
            KindRewrite(table: "vehicle", column: "kind", renamed: [.init(from: "automobile", to: "car")], deleted: []).updateStatement
                == #"UPDATE "vehicle" SET "kind" = CASE "kind" WHEN 'automobile' THEN 'car' ELSE "kind" END WHERE "kind" IN ('automobile')"#
        )
        // Records: the subentity had another name at 1.0 and 2.0.
        #expect(model.entities.first { $0.name == "car" }?.shapes.map(\.typeName) == ["Automobile_1_0", "Automobile_2_0", "Car_3_0"])
    }

    @Test func removingASubentityDeletesItsRowsAndDropsItsColumns() throws {
        let vehicle = #"""
            { "name": "vehicle", "identifier": { "type": "int" },
              "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "name", "property_type": "string" }] }
            """#
        let model = try resolveModel([
            ".entities/vehicle.json": vehicle, ".entities/car.json": Self.sub("car"),
            ".entities/truck.json": Self.sub(
                "truck", properties: #"[{ "name": "payload", "property_type": "double" }]"#, extra: #", "removed_at_version": "2.0""#),
        ])
        let operations = try StepInference(versions: model.schemas).operations(from: 0, to: 1).get()
        #expect(operations.map(\.description) == ["delete rows of vehicle of kind truck", "drop column vehicle.payload"])
        #expect(operations.first?.planText.line == "delete rows of vehicle of kind truck (destructive: those rows are deleted)")
    }

    @Test func aChangeOfParentAfterReleaseIsRefused() throws {
        let files = [
            ".entities/vehicle.json": Self.vehicle,
            ".entities/boat.json":
                #"{ "name": "boat", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "hull", "property_type": "string" }] }"#,
            ".entities/car.json": Self.sub("car"),
        ]
        let project = try TestProject(files: files)
        defer { project.remove() }
        _ = try project.generate()
        // 1.0 is released; car moves under boat at 2.0.
        try project.write(".entities/car.json", Self.sub("car", parent: "boat", versions: #"[{ "version": "1.0" }, { "version": "2.0" }]"#))
        try project.write(".lucid.yaml", TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n")
        let errors = try project.errors().map(\.description)
        #expect(
            errors.contains {
                $0.contains(".entities/car.json") && $0.contains("parent") && $0.contains("'vehicle'") && $0.contains("'boat'")
            }, "\(errors)")
    }

    // MARK: A parent that changes (`parent_history`)

    static let gear = #"""
        { "name": "gear", "identifier": { "type": "int" }, "parent": "meta_reward", "parent_history": [{ "until_version": "2.0", "parent": null }],
          "version_history": [{ "version": "1.0" }], "properties": [{ "name": "key", "property_type": "string", "nullable": true }] }
        """#
    static let metaReward = #"""
        { "name": "meta_reward", "identifier": { "type": "int" }, "version_history": [{ "version": "2.0" }],
          "properties": [{ "name": "text", "property_type": "string", "nullable": true }] }
        """#

    @Test func anEntityThatGainsAParentHasItsOwnTableAndRecordsBeforeAndItsRootsAfter() throws {
        let project = try TestProject(files: [".entities/gear.json": Self.gear, ".entities/meta_reward.json": Self.metaReward])
        defer { project.remove() }
        let model = try project.generate().model
        #expect(model.schemas.map { $0.tables.map(\.name) } == [["gear"], ["meta_reward"]])
        #expect(model.schemas[0].table(named: "gear")?.column(named: "kind") == nil)
        #expect(model.schemas[1].table(named: "meta_reward")?.columns.map(\.name) == ["id", "key", "kind", "text"])
        let gear = try #require(model.entities.first { $0.name == "gear" })
        #expect(
            gear.shapes.map { "\($0.version) \($0.tableName) \($0.properties.map(\.name))" } == [
                "1.0 gear [\"key\"]", "2.0 meta_reward [\"text\", \"key\", \"kind\"]",
            ])
        #expect(model.snapshots.map { $0.entities.first { $0.name == "gear" }?.parent } == [nil, "meta_reward"])
        // The generated records of each version keep their own types: 1.0's reads its own table, 2.0's its root's.
        let record = try project.read("Sources/App/Generated/Entities/Gear.swift")
        #expect(
            record.contains("Gear_1_0") && record.contains(#"public static let databaseTableName = "gear""#)
                && record.contains(#"public static let databaseTableName = "meta_reward""#), "\(record)")
        // Regenerating with 1.0 released: its snapshot says no parent, as parent_history does.
        try project.write(".lucid.yaml", TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n")
        #expect(try project.generate().model.snapshots.isEmpty, "no snapshot rewritten")
    }

    @Test func parentHistoryIsChecked() throws {
        func errors(gear: String, extra: [String: String] = [:]) throws -> [String] {
            try self.errors([".entities/gear.json": gear, ".entities/meta_reward.json": Self.metaReward].merging(extra) { $1 })
        }
        let unknown = try errors(gear: Self.gear.replacingOccurrences(of: #""parent": null"#, with: #""parent": "meta_rewrad""#))
        #expect(
            unknown.contains {
                $0.contains(".entities/gear.json:1:")
                    && $0.contains(
                        "parent 'meta_rewrad' of 'gear' (parent_history, before 2.0) is not an entity; did you mean 'meta_reward'?")
                    && $0.contains("(at $.parent_history[0].parent)")
            }, "\(unknown)")
        let outside = try errors(gear: Self.gear.replacingOccurrences(of: #""until_version": "2.0""#, with: #""until_version": "1.0""#))
        #expect(
            outside.contains {
                $0.contains(".entities/gear.json") && $0.contains("parent_history of 'gear': 1.0 is not within its lifetime (1.0 on)")
                    && $0.contains("(at $.parent_history[0].until_version)")
            }, "\(outside)")
        let notThen = try errors(
            gear: Self.gear.replacingOccurrences(
                of: #""until_version": "2.0", "parent": null"#, with: #""until_version": "2.0", "parent": "meta_reward""#))
        #expect(
            notThen.contains {
                $0.contains(".entities/gear.json") && $0.contains("says its parent is 'meta_reward' before 2.0, as it is from then on")
            }, "\(notThen)")
        let early = try errors(
            gear: Self.gear,
            extra: [
                ".entities/badge.json":
                    #"{ "name": "badge", "identifier": { "type": "int" }, "parent": "gear", "parent_history": [{ "until_version": "2.0", "parent": "meta_reward" }], "version_history": [{ "version": "1.0" }], "properties": [] }"#
            ])
        #expect(
            early.contains {
                $0.contains(".entities/badge.json")
                    && $0.contains("parent 'meta_reward' of 'badge' before 2.0 does not exist at every version from 1.0")
            }, "\(early)")
    }

    @Test func aParentChangeThatMergesTwoHierarchiesIsRefusedLocated() throws {
        // Gear gains reward, which has rows of its own at 1.0: two tables' rows (and ids) would meet in one.
        let reward =
            #"{ "name": "reward", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "value", "property_type": "double", "nullable": true }] }"#
        let gear = Self.gear.replacingOccurrences(of: #""parent": "meta_reward""#, with: #""parent": "reward""#)
        let errors = try errors([".entities/gear.json": gear, ".entities/reward.json": reward])
        #expect(errors.count == 1, "\(errors)")
        #expect(
            errors.first?.contains(".entities/gear.json:1:") == true && errors.first?.contains("(at $.parent_history[0].parent)") == true,
            "\(errors)")
        #expect(
            errors.first?.contains(
                "'gear' changes its parent at 2.0, which puts it in one hierarchy with 'reward' (in the table of 'reward'), though at 1.0 their rows are in two tables ('gear' and 'reward'): that merges two hierarchies"
            ) == true, "\(errors)")
    }

    // MARK: Properties moving up or down

    @Test func movedFromIsChecked() throws {
        let vehicle = #"""
            { "name": "vehicle", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "name", "property_type": "string" },
                             { "name": "doors", "property_type": "int", "added_at_version": "2.0", "moved_from": "car" },
                             { "name": "wheels", "property_type": "int", "nullable": true, "added_at_version": "2.0", "moved_from": "truck" },
                             { "name": "seats", "property_type": "int", "nullable": true, "added_at_version": "2.0", "moved_from": "boat" }] }
            """#
        let car = Self.sub(
            "car", versions: #"[{ "version": "1.0" }, { "version": "2.0" }]"#,
            properties:
                #"[{ "name": "doors", "property_type": "int", "removed_at_version": "2.0" }, { "name": "wheels", "property_type": "int", "nullable": true }]"#
        )
        let truck = Self.sub(
            "truck", versions: #"[{ "version": "1.0" }, { "version": "2.0" }]"#,
            properties: #"[{ "name": "load", "property_type": "int", "nullable": true, "moved_from": "car" }]"#)
        let boat =
            #"{ "name": "boat", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "seats", "property_type": "int", "nullable": true }] }"#
        let errors = try errors([
            ".entities/vehicle.json": vehicle, ".entities/car.json": car, ".entities/truck.json": truck, ".entities/boat.json": boat,
        ])
        #expect(
            errors.contains {
                $0.contains(".entities/vehicle.json")
                    && $0.contains("'vehicle.doors' moves up from 'car' and is required: give it a \"default_value\"")
            }, "\(errors)")
        #expect(errors.contains { $0.contains("moved_from 'truck': 'truck' has no property 'wheels'") }, "\(errors)")
        #expect(
            errors.contains {
                $0.contains("moved_from 'boat' of 'vehicle.seats' is not another entity of its hierarchy (that of 'vehicle')")
            }, "\(errors)")
        #expect(
            errors.contains {
                $0.contains(".entities/truck.json")
                    && $0.contains("moved_from 'car' of 'truck.load' is neither an ancestor nor a subentity of 'truck'")
            }, "\(errors)")
        #expect(errors.contains { $0.contains("(at $.properties[0].moved_from)") }, "\(errors)")
    }
}
