import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
@_spi(Generated) import LucidTesting
import StoreTestSupport
import Testing

/// Entity inheritance through migrations, on real SQLite: a subentity added (its columns added to the
/// root's table), renamed (its rows' kind rewritten in place) and removed (its rows deleted, with their
/// references' ON DELETE actions, and its columns dropped). Each store is also checked by the generated
/// tests' oracle (``MigrationTestHarness``), which computes the rows without SQLite.
@Suite struct InheritanceMigrationTests {
    static func vehicle(_ versions: String) -> String {
        #"{ "name": "vehicle", "identifier": { "type": "int" }, "version_history": \#(versions), "properties": [{ "name": "name", "property_type": "string" }] }"#
    }

    static let rows = """
        INSERT INTO vehicle (id, name, kind) VALUES (1, 'plain', 'vehicle');
        INSERT INTO vehicle (id, name, kind, doors) VALUES (2, 'sedan', 'car', 4), (3, 'coupé', 'car', 2);
        """

    func rows(_ path: String, _ sql: String) throws -> [String] {
        try withDatabase(path) { db in
            try Row.fetchAll(db, sql: sql).map { row in
                row.databaseValues.map { value in value.isNull ? "NULL" : String.fromDatabaseValue(value) ?? "\(value)" }.joined(
                    separator: " ")
            }
        }
    }

    func oracleFailures(_ versions: [Schema], seed: String) -> [String] {
        MigrationTestHarness(versions: versions, options: StoreOptions()).checkSeeded(from: versions[0].version) { db, _ in
            try db.execute(sql: seed)
        }.map(\.description)
    }

    @Test func aSubentityAddedWithARequiredPropertyWithDefault() throws {
        let versions = try resolveSchemas([
            "vehicle.json": Self.vehicle(#"[{ "version": "1.0" }, { "version": "2.0" }]"#),
            "car.json":
                #"{ "name": "car", "parent": "vehicle", "version_history": [{ "version": "1.0" }], "properties": [{ "name": "doors", "property_type": "int" }] }"#,
            "truck.json":
                #"{ "name": "truck", "parent": "vehicle", "version_history": [{ "version": "2.0" }], "properties": [{ "name": "payload", "property_type": "double", "default_value": 1.5 }] }"#,
        ])
        let plan = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"))
        #expect(plan.flatMap(\.operations).map(\.description) == ["add column vehicle.payload default 1.5"])
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        try withDatabase(path) { db in
            try db.execute(sql: "INSERT INTO vehicle (id, name, kind, payload) VALUES (4, 'hauler', 'truck', 30)")
        }
        #expect(
            try rows(path, "SELECT id, kind, doors, payload FROM vehicle ORDER BY id") == [
                "1 vehicle NULL 1.5", "2 car 4 1.5", "3 car 2 1.5", "4 truck NULL 30.0",
            ])
        #expect(oracleFailures(versions, seed: Self.rows) == [])
    }

    @Test func aRenamedSubentityRewritesItsRowsKind() throws {
        let versions = try resolveSchemas([
            "vehicle.json": Self.vehicle(#"[{ "version": "1.0" }]"#),
            "car.json":
                #"{ "name": "automobile", "parent": "vehicle", "version_history": [{ "version": "1.0" }, { "version": "2.0", "previous_name": "car" }], "properties": [{ "name": "doors", "property_type": "int" }] }"#,
        ])
        let plan = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"))
        #expect(plan.flatMap(\.operations).map(\.description) == ["rewrite kind of vehicle: car → automobile"])
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(
            try rows(path, "SELECT id, kind, doors FROM vehicle ORDER BY id") == ["1 vehicle NULL", "2 automobile 4", "3 automobile 2"])
        #expect(oracleFailures(versions, seed: Self.rows) == [])
    }

    @Test func aRemovedSubentityDeletesItsRowsAndTheirReferences() throws {
        let garage = #"""
            { "name": "garage", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
              "properties": [{ "name": "favorite", "property_type": { "entity_name": "vehicle", "association": "to_one" }, "nullable": true },
                             { "name": "parked", "property_type": { "entity_name": "vehicle", "association": "to_many" } }] }
            """#
        let versions = try resolveSchemas([
            "vehicle.json": Self.vehicle(#"[{ "version": "1.0" }, { "version": "2.0" }]"#),
            "car.json":
                #"{ "name": "car", "parent": "vehicle", "removed_at_version": "2.0", "version_history": [{ "version": "1.0" }], "properties": [{ "name": "doors", "property_type": "int" }] }"#,
            "garage.json": garage,
        ])
        let plan = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"))
        #expect(plan.flatMap(\.operations).map(\.description) == ["delete rows of vehicle of kind car", "drop column vehicle.doors"])
        let seed =
            Self.rows + """
                INSERT INTO garage (id, favorite) VALUES (1, 2), (2, 1);
                INSERT INTO garage_parked (source_id, target_id) VALUES (1, 1), (1, 3), (2, 2);
                """
        let (path, folder) = try storeAtFirstVersion(versions, rows: seed)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try rows(path, "SELECT id, kind FROM vehicle ORDER BY id") == ["1 vehicle"])
        #expect(try rows(path, "SELECT id, favorite FROM garage ORDER BY id") == ["1 NULL", "2 1"], "SET NULL for the nullable to-one")
        #expect(
            try rows(path, "SELECT source_id, target_id FROM garage_parked ORDER BY source_id, target_id") == ["1 1"], "the links cascade")
        #expect(oracleFailures(versions, seed: seed) == [])
    }

    // MARK: Properties that move up or down the hierarchy (`moved_from`)

    @Test func aPropertyMovedUpKeepsItsColumnAndValuesAndTheOtherKindsTakeItsDefault() throws {
        // An attribute, a to-one and a to-many move from the subentity car to the root vehicle.
        let garage = #"""
            { "name": "garage", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "label", "property_type": "string" }] }
            """#
        let versions = try resolveSchemas([
            "vehicle.json": #"""
            { "name": "vehicle", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "name", "property_type": "string" },
                             { "name": "doors", "property_type": "int", "default_value": 0, "added_at_version": "2.0", "moved_from": "car" },
                             { "name": "garage", "property_type": { "entity_name": "garage", "association": "to_one" }, "nullable": true, "added_at_version": "2.0", "moved_from": "car" },
                             { "name": "visits", "property_type": { "entity_name": "garage", "association": "to_many" }, "added_at_version": "2.0", "moved_from": "car" }] }
            """#,
            "car.json": #"""
            { "name": "car", "parent": "vehicle", "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "doors", "property_type": "int", "default_value": 0, "removed_at_version": "2.0" },
                             { "name": "garage", "property_type": { "entity_name": "garage", "association": "to_one" }, "nullable": true, "removed_at_version": "2.0" },
                             { "name": "visits", "property_type": { "entity_name": "garage", "association": "to_many" }, "removed_at_version": "2.0" },
                             { "name": "seats", "property_type": "int", "nullable": true }] }
            """#,
            "garage.json": garage,
        ])
        #expect(versions[0].table(named: "vehicle")?.column(named: "doors")?.notNull == false)
        #expect(versions[1].table(named: "vehicle")?.column(named: "doors")?.notNull == true, "the root's required property")
        #expect(versions[1].table(named: "vehicle")?.column(named: "doors")?.reusesName != true)
        let plan = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"))
        #expect(
            plan.flatMap(\.operations).allSatisfy { !$0.description.contains("drop column") },
            "\(plan.flatMap(\.operations).map(\.description))")
        let seed = """
            INSERT INTO garage (id, label) VALUES (7, 'north');
            INSERT INTO vehicle (id, name, kind) VALUES (1, 'plain', 'vehicle');
            INSERT INTO vehicle (id, name, kind, doors, garage) VALUES (2, 'sedan', 'car', 4, 7), (3, 'coupé', 'car', 2, NULL);
            INSERT INTO vehicle_visits (source_id, target_id) VALUES (2, 7), (3, 7);
            """
        let (path, folder) = try storeAtFirstVersion(versions, rows: seed)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(
            try rows(path, "SELECT id, kind, doors, garage FROM vehicle ORDER BY id") == ["1 vehicle 0 NULL", "2 car 4 7", "3 car 2 NULL"])
        #expect(
            try rows(path, "SELECT source_id, target_id FROM vehicle_visits ORDER BY source_id") == ["2 7", "3 7"],
            "a to-many's link table is named after the root's table: it stays")
        #expect(oracleFailures(versions, seed: seed) == [])
    }

    @Test func aPropertyMovedDownKeepsItsColumnAndValues() throws {
        let versions = try resolveSchemas([
            "vehicle.json": #"""
            { "name": "vehicle", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "name", "property_type": "string" }, { "name": "doors", "property_type": "int", "removed_at_version": "2.0" }] }
            """#,
            "car.json": #"""
            { "name": "car", "parent": "vehicle", "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "doors", "property_type": "int", "added_at_version": "2.0", "moved_from": "vehicle" }, { "name": "seats", "property_type": "int", "nullable": true }] }
            """#,
        ])
        #expect(versions[1].table(named: "vehicle")?.column(named: "doors")?.notNull == false, "a subentity's column")
        let plan = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"))
        #expect(
            plan.flatMap(\.operations).allSatisfy { !$0.description.contains("drop column") },
            "\(plan.flatMap(\.operations).map(\.description))")
        let seed = "INSERT INTO vehicle (id, name, doors, kind) VALUES (1, 'plain', 3, 'vehicle'), (2, 'sedan', 4, 'car');"
        let (path, folder) = try storeAtFirstVersion(versions, rows: seed)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(
            try rows(path, "SELECT id, kind, doors FROM vehicle ORDER BY id") == ["1 vehicle 3", "2 car 4"],
            "the vehicle row's value stays in the column, which no record of it reads")
        #expect(oracleFailures(versions, seed: seed) == [])
    }

    // MARK: An entity whose parent changes (`parent_history`)

    /// A player with a to-one and a to-many to gear, which gains the parent meta_reward (new at 2.0), as the
    /// shipped app's Gear did.
    static let gainFiles = [
        "meta_reward.json": #"""
        { "name": "meta_reward", "identifier": { "type": "int" }, "version_history": [{ "version": "2.0" }],
          "properties": [{ "name": "text", "property_type": "string", "nullable": true }, { "name": "points", "property_type": "int", "default_value": 0 }] }
        """#,
        "gear.json": #"""
        { "name": "gear", "identifier": { "type": "int" }, "parent": "meta_reward", "parent_history": [{ "until_version": "2.0", "parent": null }],
          "version_history": [{ "version": "1.0" }], "properties": [{ "name": "label", "property_type": "string" }] }
        """#,
        "player.json": #"""
        { "name": "player", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "name", "property_type": "string" },
                         { "name": "favorite", "property_type": { "entity_name": "gear", "association": "to_one" }, "nullable": true },
                         { "name": "bag", "property_type": { "entity_name": "gear", "association": "to_many" } }] }
        """#,
    ]

    static let gainSeed = """
        INSERT INTO gear (id, label) VALUES (3, 'sword'), (5, 'shield');
        INSERT INTO player (id, name, favorite) VALUES (1, 'ann', 5), (2, 'bob', NULL);
        INSERT INTO player_bag (source_id, target_id) VALUES (1, 3), (1, 5), (2, 5);
        """

    @Test func anEntityThatGainsAParentMovesItsRowsIntoTheNewRootsTableWithItsIdsAndLinks() throws {
        let versions = try resolveSchemas(Self.gainFiles)
        #expect(versions[0].tableNames.sorted() == ["gear", "player", "player_bag"])
        #expect(versions[1].tableNames.sorted() == ["meta_reward", "player", "player_bag"])
        #expect(versions[1].table(named: "meta_reward")?.movedRows == [MovedRows(table: "gear", kinds: nil, kind: "gear")])
        #expect(versions[1].table(named: "player")?.foreignKeys.map(\.table) == ["meta_reward"])
        let plan = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"))
        let operations = plan.flatMap(\.operations).map(\.description)
        #expect(operations.contains("move rows of gear into meta_reward (kind gear), ids kept"), "\(operations)")
        #expect(operations.last { $0.hasPrefix("drop table") } == "drop table gear", "\(operations)")
        #expect(
            MigrationOperation.planTexts(of: plan.flatMap(\.operations)).map(\.line).contains(
                "drop table gear (its rows moved to meta_reward above)"), "not destructive")
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.gainSeed)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(
            try rows(path, "SELECT id, kind, label, points, text FROM meta_reward ORDER BY id") == [
                "3 gear sword 0 NULL", "5 gear shield 0 NULL",
            ])
        #expect(try rows(path, "SELECT id, name, favorite FROM player ORDER BY id") == ["1 ann 5", "2 bob NULL"])
        #expect(try rows(path, "SELECT source_id, target_id FROM player_bag ORDER BY source_id, target_id") == ["1 3", "1 5", "2 5"])
        #expect(try rows(path, "SELECT name FROM sqlite_master WHERE name = 'gear'") == [])
        #expect(try rows(path, "PRAGMA foreign_key_check") == [])
        #expect(oracleFailures(versions, seed: Self.gainSeed) == [])
    }

    /// Rows that move between tables at a version are moved by the step that ends there: a route from before
    /// it jumps to just before it, steps into it, and jumps on from it to the newest (it used to take every
    /// version one step at a time from its start: a long history's store thousands of steps).
    @Test func aRouteStepsIntoTheVersionWhereRowsMoveAndJumpsAroundIt() throws {
        var files = Self.gainFiles
        let added = ["1.1", "1.2", "3.0", "4.0"].map {
            #"{ "name": "p\#($0.replacingOccurrences(of: ".", with: "_"))", "property_type": "int", "default_value": 1, "added_at_version": "\#($0)" }, "#
        }
        files["player.json"] = files["player.json"]!
            .replacingOccurrences(
                of: #""version_history": [{ "version": "1.0" }]"#,
                with:
                    #""version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "1.2" }, { "version": "3.0" }, { "version": "4.0" }]"#
            )
            .replacingOccurrences(
                of: #"{ "name": "name", "property_type": "string" },"#,
                with: #"{ "name": "name", "property_type": "string" }, "# + added.joined())
        let versions = try resolveSchemas(files)
        #expect(versions.map(\.version.string) == ["1.0", "1.1", "1.2", "2.0", "3.0", "4.0"])
        let planner = try MigrationPlanner(versions: versions)
        let routes = planner.routes().map { $0.map(\.string) }
        #expect(
            routes == [
                ["1.0", "1.2", "2.0", "4.0"], ["1.1", "1.2", "2.0", "4.0"], ["1.2", "2.0", "4.0"], ["2.0", "4.0"], ["3.0", "4.0"],
            ], "\(routes)")
        let plan = try planner.plan(from: SchemaVersion("1.0"), to: SchemaVersion("4.0"))
        #expect(plan.map(\.to.string) == ["1.2", "2.0", "4.0"], "\(plan.map(\.label))")
        #expect(plan[1].operations.map(\.description).contains("move rows of gear into meta_reward (kind gear), ids kept"))
        // A store at 1.0 migrates along it, its rows and links kept.
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.gainSeed)
        defer { folder.remove() }
        let opened = try LucidStore.open(atPath: path, versions: versions)
        #expect(opened.outcome.steps.map(\.to.string) == ["1.2", "2.0", "4.0"])
        try opened.database.close()
        #expect(try rows(path, "SELECT id, kind, label FROM meta_reward ORDER BY id") == ["3 gear sword", "5 gear shield"])
        #expect(try rows(path, "SELECT source_id, target_id FROM player_bag ORDER BY source_id, target_id") == ["1 3", "1 5", "2 5"])
    }

    /// Vehicle's subentity car becomes an entity of its own at 2.0 (`loses`), or moves under the new
    /// entity machine (`moves`); a garage links to vehicles and to cars.
    static func leavingFiles(moves: Bool) -> [String: String] {
        var files = [
            "vehicle.json": vehicle(#"[{ "version": "1.0" }]"#),
            "car.json": moves
                ? #"{ "name": "car", "parent": "machine", "parent_history": [{ "until_version": "2.0", "parent": "vehicle" }], "version_history": [{ "version": "1.0" }], "properties": [{ "name": "doors", "property_type": "int" }] }"#
                : #"{ "name": "car", "identifier": { "type": "int" }, "parent_history": [{ "until_version": "2.0", "parent": "vehicle" }], "version_history": [{ "version": "1.0" }], "properties": [{ "name": "doors", "property_type": "int" }] }"#,
            "garage.json": #"""
            { "name": "garage", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
              "properties": [{ "name": "favorite", "property_type": { "entity_name": "vehicle", "association": "to_one" }, "nullable": true },
                             { "name": "best_car", "property_type": { "entity_name": "car", "association": "to_one" }, "nullable": true },
                             { "name": "parked", "property_type": { "entity_name": "vehicle", "association": "to_many" } },
                             { "name": "cars", "property_type": { "entity_name": "car", "association": "to_many" } }] }
            """#,
        ]
        if moves {
            files["machine.json"] =
                #"{ "name": "machine", "identifier": { "type": "int" }, "version_history": [{ "version": "2.0" }], "properties": [{ "name": "serial", "property_type": "string", "nullable": true }] }"#
        }
        return files
    }

    static let leavingSeed =
        rows + """
            INSERT INTO garage (id, favorite, best_car) VALUES (1, 2, 3), (2, 1, 2);
            INSERT INTO garage_parked (source_id, target_id) VALUES (1, 1), (1, 3), (2, 2);
            INSERT INTO garage_cars (source_id, target_id) VALUES (1, 2), (1, 3), (2, 3);
            """

    func checkLeaving(_ versions: [Schema], table: String, query: String, expected: [String]) throws {
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.leavingSeed)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try rows(path, "SELECT id, kind, name FROM vehicle ORDER BY id") == ["1 vehicle plain"], "the cars' rows left vehicle")
        #expect(try rows(path, query) == expected)
        // A car is no vehicle any more: a link to it as a vehicle goes (ON DELETE: SET NULL, CASCADE); links to it as a car stay.
        #expect(try rows(path, "SELECT id, favorite, best_car FROM garage ORDER BY id") == ["1 NULL 3", "2 1 2"])
        #expect(try rows(path, "SELECT source_id, target_id FROM garage_parked ORDER BY source_id, target_id") == ["1 1"])
        #expect(try rows(path, "SELECT source_id, target_id FROM garage_cars ORDER BY source_id, target_id") == ["1 2", "1 3", "2 3"])
        #expect(try rows(path, "PRAGMA foreign_key_check") == [])
        #expect(try rows(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'vehicle_doors'") == [])
        #expect(oracleFailures(versions, seed: Self.leavingSeed) == [])
    }

    @Test func anEntityThatLosesItsParentMovesItsRowsIntoItsOwnTable() throws {
        let versions = try resolveSchemas(Self.leavingFiles(moves: false))
        #expect(
            versions[1].table(named: "car")?.movedRows == [MovedRows(table: "vehicle", kinds: [.init(from: "car", to: "car")], kind: nil)])
        #expect(versions[1].table(named: "car")?.columns.map(\.name) == ["id", "doors"], "no kind column: car has no subentity")
        #expect(versions[1].table(named: "vehicle")?.column(named: "doors") == nil)
        let operations = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0")).flatMap(\.operations).map(\.description)
        let move = try #require(operations.firstIndex(of: "move rows of vehicle of kind car into car, ids kept"), "\(operations)")
        let delete = try #require(
            operations.firstIndex(of: "delete rows of vehicle of kind car (moved to another table above)"), "\(operations)")
        #expect(move < delete, "copied before they are deleted: \(operations)")
        let plan = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0")).flatMap(\.operations)
        #expect(!plan[delete].planText.line.contains("destructive"), "moved rows are not lost: \(plan[delete].planText.line)")
        try checkLeaving(versions, table: "car", query: "SELECT id, doors FROM car ORDER BY id", expected: ["2 4", "3 2"])
    }

    @Test func anEntityThatMovesToANewParentMovesItsRowsIntoItsTable() throws {
        let versions = try resolveSchemas(Self.leavingFiles(moves: true))
        #expect(
            versions[1].table(named: "machine")?.movedRows == [
                MovedRows(table: "vehicle", kinds: [.init(from: "car", to: "car")], kind: nil)
            ])
        try checkLeaving(
            versions, table: "machine", query: "SELECT id, kind, doors, serial FROM machine ORDER BY id",
            expected: ["2 car 4 NULL", "3 car 2 NULL"])
    }

    @Test func aStoreTwoVersionsBehindStepsThroughTheVersionWhereRowsMove() throws {
        var files = Self.gainFiles
        files["player.json"] = files["player.json"]!.replacingOccurrences(
            of: #"[{ "version": "1.0" }]"#, with: #"[{ "version": "1.0" }, { "version": "3.0" }]"#
        )
        .replacingOccurrences(
            of: #"{ "name": "name", "property_type": "string" }"#,
            with:
                #"{ "name": "name", "property_type": "string" }, { "name": "level", "property_type": "int", "default_value": 1, "added_at_version": "3.0" }"#
        )
        let versions = try resolveSchemas(files)
        let plan = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        #expect(plan.map(\.label) == ["1.0 → 2.0 (inferred)", "2.0 → 3.0 (inferred)"])
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.gainSeed)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try rows(path, "SELECT id, kind, label FROM meta_reward ORDER BY id") == ["3 gear sword", "5 gear shield"])
        #expect(try rows(path, "SELECT id, favorite, level FROM player ORDER BY id") == ["1 5 1", "2 NULL 1"])
        #expect(oracleFailures(versions, seed: Self.gainSeed) == [])
    }

    @Test func aRootWithSubentitiesThatGainsAParentTakesItsWholeHierarchyAlong() throws {
        // vehicle (with car) gains the new parent machine: every row moves, each keeping its kind.
        let versions = try resolveSchemas([
            "machine.json":
                #"{ "name": "machine", "identifier": { "type": "int" }, "version_history": [{ "version": "2.0" }], "properties": [{ "name": "serial", "property_type": "string", "nullable": true }] }"#,
            "vehicle.json":
                #"{ "name": "vehicle", "identifier": { "type": "int" }, "parent": "machine", "parent_history": [{ "until_version": "2.0", "parent": null }], "version_history": [{ "version": "1.0" }], "properties": [{ "name": "name", "property_type": "string" }] }"#,
            "car.json":
                #"{ "name": "car", "parent": "vehicle", "version_history": [{ "version": "1.0" }], "properties": [{ "name": "doors", "property_type": "int" }] }"#,
        ])
        #expect(versions[1].tableNames == ["machine"])
        #expect(
            versions[1].table(named: "machine")?.movedRows == [
                MovedRows(table: "vehicle", kinds: [.init(from: "vehicle", to: "vehicle"), .init(from: "car", to: "car")], kind: nil)
            ])
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(
            try rows(path, "SELECT id, kind, name, doors, serial FROM machine ORDER BY id") == [
                "1 vehicle plain NULL NULL", "2 car sedan 4 NULL", "3 car coupé 2 NULL",
            ])
        #expect(oracleFailures(versions, seed: Self.rows) == [])
    }

    // MARK: A step whose moved rows need the app's code (a moved column's type changes)

    /// Car leaves vehicle at 2.0 and its inherited `value` becomes an int there (Habitica's Gear, which
    /// leaves MetaReward at the version where `value` goes from Float to Integer): SQL cannot copy the
    /// REALs, so the app's row transform for `car` makes each moved row, ids kept.
    static let typeChangeFiles = [
        "vehicle.json":
            #"{ "name": "vehicle", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "2.0" }], "properties": [{ "name": "name", "property_type": "string", "nullable": true }, { "name": "value", "property_type": "double", "nullable": true }] }"#,
        "car.json": #"""
        { "name": "car", "identifier": { "type": "int" }, "parent_history": [{ "until_version": "2.0", "parent": "vehicle" }], "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
          "properties": [{ "name": "doors", "property_type": "int", "nullable": true },
                         { "name": "name", "property_type": "string", "nullable": true, "added_at_version": "2.0", "moved_from": "vehicle" },
                         { "name": "value", "property_type": "int", "nullable": true, "added_at_version": "2.0" }] }
        """#,
        "garage.json": leavingFiles(moves: false)["garage.json"]!,
    ]

    static let typeChangeSeed = """
        INSERT INTO vehicle (id, name, value, kind) VALUES (1, 'plain', 1.5, 'vehicle');
        INSERT INTO vehicle (id, name, value, kind, doors) VALUES (2, 'sedan', 2.6, 'car', 4), (3, 'coupé', 7.0, 'car', 2), (4, 'wreck', 0.4, 'car', 0);
        INSERT INTO garage (id, favorite, best_car) VALUES (1, 2, 3), (2, 1, 4);
        INSERT INTO garage_parked (source_id, target_id) VALUES (1, 1), (1, 3), (2, 2);
        INSERT INTO garage_cars (source_id, target_id) VALUES (1, 2), (1, 3), (2, 4);
        """

    /// The app's code over rows: the value rounded, the wreck dropped.
    @Sendable static func carByRow(_ row: Row) throws -> [String: DatabaseValue]? {
        guard (row["name"] as String?) != "wreck" else { return nil }
        let value = (row["value"] as Double?).map { Int64($0.rounded()) }
        return [
            "id": row["id"] as DatabaseValue, "doors": row["doors"] as DatabaseValue, "name": row["name"] as DatabaseValue,
            "value": value.databaseValue,
        ]
    }

    /// The records `lucidgen generate` writes for car at 1.0 (a row of vehicle) and 2.0, by hand.
    struct OldCar: MigrationRecord {
        static let migrationColumns = ["id", "name", "value", "doors", "kind"]
        var id: Int64, name: String?, value: Double?, doors: Int64?, kind: String
        init(migrationRow row: MigrationRow) throws {
            id = try row.decode(Int64.self, at: 0)
            name = try row.decodeIfPresent(String.self, at: 1)
            value = try row.decodeIfPresent(Double.self, at: 2)
            doors = try row.decodeIfPresent(Int64.self, at: 3)
            kind = try row.decode(String.self, at: 4)
        }
        func encode(to values: inout MigrationValues) throws {
            values.encode(id, at: 0)
            values.encode(name, at: 1)
            values.encode(value, at: 2)
            values.encode(doors, at: 3)
            values.encode(kind, at: 4)
        }
    }

    struct NewCar: MigrationRecord {
        static let migrationColumns = ["id", "doors", "name", "value"]
        var id: Int64, doors: Int64?, name: String?, value: Int64?
        init(id: Int64, doors: Int64?, name: String?, value: Int64?) {
            (self.id, self.doors, self.name, self.value) = (id, doors, name, value)
        }
        init(migrationRow row: MigrationRow) throws {
            self.init(
                id: try row.decode(Int64.self, at: 0), doors: try row.decodeIfPresent(Int64.self, at: 1),
                name: try row.decodeIfPresent(String.self, at: 2),
                value: try row.decodeIfPresent(Int64.self, at: 3))
        }
        func encode(to values: inout MigrationValues) throws {
            values.encode(id, at: 0)
            values.encode(doors, at: 1)
            values.encode(name, at: 2)
            values.encode(value, at: 3)
        }
    }

    struct NotACar: Error {}

    @Sendable static func carByRecord(_ old: OldCar) throws -> NewCar? {
        // The transform sees only the moved rows.
        guard old.kind == "car" else { throw NotACar() }
        guard old.name != "wreck" else { return nil }
        return NewCar(id: old.id, doors: old.doors, name: old.name, value: old.value.map { Int64($0.rounded()) })
    }

    func checkTypeChange(_ transform: RowTransform) throws {
        let versions = try resolveSchemas(Self.typeChangeFiles)
        var options = StoreOptions()
        options.stages = [
            MigrationStage(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "app code for car", transforms: [transform])
        ]
        let stage = ExplicitStage(
            from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "app code for car", transformedTables: ["car"])
        let plan = try MigrationPlanner(versions: versions, stages: [stage]).plan(from: SchemaVersion("1.0"))
        let operations = plan.flatMap(\.operations).map(\.description)
        #expect(plan.map(\.label) == ["1.0 → 2.0 (app code for car)"])
        let move = try #require(
            operations.firstIndex(of: "move rows of vehicle of kind car into car through the app's row transform, ids kept"),
            "\(operations)")
        let delete = try #require(
            operations.firstIndex(of: "delete rows of vehicle of kind car (moved to another table above)"), "\(operations)")
        #expect(operations.firstIndex(of: "create table car").map { $0 < move } == true, "\(operations)")
        #expect(move < delete, "made before they are deleted: \(operations)")

        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.typeChangeSeed)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions, options: options).database.close()
        #expect(
            try rows(path, "SELECT id, kind, name, value FROM vehicle ORDER BY id") == ["1 vehicle plain 1.5"],
            "the cars' rows left vehicle")
        #expect(
            try rows(path, "SELECT id, doors, name, value, typeof(value) FROM car ORDER BY id") == [
                "2 4 sedan 3 integer", "3 2 coupé 7 integer",
            ])
        // A car is no vehicle any more (favorite 2, parked 2 and 3 go); the dropped wreck's links go too (best_car 4, cars 4).
        #expect(try rows(path, "SELECT id, favorite, best_car FROM garage ORDER BY id") == ["1 NULL 3", "2 1 NULL"])
        #expect(try rows(path, "SELECT source_id, target_id FROM garage_parked ORDER BY source_id, target_id") == ["1 1"])
        #expect(try rows(path, "SELECT source_id, target_id FROM garage_cars ORDER BY source_id, target_id") == ["1 2", "1 3"])
        #expect(try rows(path, "PRAGMA foreign_key_check") == [])
        // The generated tests' oracle computes the same rows from the app's expectation.
        let expectations = MigrationExpectations(transforms: [
            TransformExpectation(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), table: "car", expect: Self.carByRow)
        ])
        let harness = MigrationTestHarness(versions: versions, stages: [stage], options: options, expectations: expectations)
        #expect(
            harness.checkSeeded(from: versions[0].version) { db, _ in try db.execute(sql: Self.typeChangeSeed) }.map(\.description) == [])
        // An expectation that disagrees with the app's code is caught.
        let wrong = MigrationExpectations(transforms: [
            TransformExpectation(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), table: "car") { row in
                try Self.carByRow(row).map { values in values.merging(["value": 0.databaseValue]) { _, new in new } }
            }
        ])
        #expect(
            !MigrationTestHarness(versions: versions, stages: [stage], options: options, expectations: wrong)
                .checkSeeded(from: versions[0].version) { db, _ in try db.execute(sql: Self.typeChangeSeed) }.isEmpty)
    }

    @Test func movedRowsWhoseColumnChangesTypeAreMadeByTheAppsRowTransform() throws {
        try checkTypeChange(RowTransform(table: "car", transform: Self.carByRow))
    }

    @Test func movedRowsWhoseColumnChangesTypeAreMadeByTheAppsTypedRecords() throws {
        try checkTypeChange(.records(table: "car", Self.carByRecord))
    }

    @Test func withoutATypeChangeMovedRowsAreStillCopiedByColumn() throws {
        // The same move without the type change needs no code: the inferred move copies the columns.
        var files = Self.typeChangeFiles
        files["car.json"] = files["car.json"]!.replacingOccurrences(
            of: #""property_type": "int", "nullable": true, "added_at_version": "2.0" }"#,
            with: #""property_type": "double", "nullable": true, "added_at_version": "2.0" }"#)
        let versions = try resolveSchemas(files)
        let plan = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        #expect(plan.map(\.label) == ["1.0 → 2.0 (inferred)"])
        #expect(
            plan.flatMap(\.operations).map(\.description).contains("move rows of vehicle of kind car into car, ids kept"),
            "\(plan.flatMap(\.operations).map(\.description))")
    }
}
