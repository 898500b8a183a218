import Foundation
import GRDB
import LucidRuntime
import SeedGraphs
import Testing

/// Entity inheritance in a compiled consumer: `vehicle` (root), `car` and `truck` (its subentities) and
/// `sports_car` (a subentity of `car`) share table `vehicle`; each record writes its kind and reads the
/// rows of its kinds.
@Suite struct InheritanceRecordTests {
    func withStore(_ body: (DatabaseQueue) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seedgraphs-inheritance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try LucidStore.open(atPath: folder.appendingPathComponent("store.sqlite").path, registry: SeedGraphsSchema.self)
            .database
        defer { try? database.close() }
        try body(database)
    }

    @Test func eachRecordWritesItsKindAndReadsItsKinds() throws {
        try withStore { database in
            try database.write { db in
                try Vehicle(id: 1, plate: "V-1").insert(db)
                try Car(id: 2, plate: "C-2", doors: 5).insert(db)
                try SportsCar(id: 3, plate: "S-3", doors: 2, topSpeed: 310).insert(db)
                try Truck(id: 4, plate: "T-4", payload: 12.5).insert(db)
                try Truck(id: 5, plate: "T-5", payload: 3).insert(db)
                try Truck(id: 4, plate: "T-4", payload: 12.5).linkTrailers(db, ids: [5])
                try Garage(id: 1, favorite: 3).insert(db)
            }
            try database.read { db in
                // The root reads every row of the hierarchy, with its kind.
                let all = try Vehicle.fetchAll(db).map { "\($0.id) \($0.kind)" }
                #expect(all == ["1 vehicle", "2 car", "3 sports_car", "4 truck", "5 truck"])
                // A subentity reads its kinds only, with its inherited and own properties.
                let cars = try Car.allOfKind().order(Car.Columns.id).fetchAll(db)
                #expect(cars.map(\.plate) == ["C-2", "S-3"] && cars.map(\.kind) == ["car", "sports_car"] && cars.map(\.doors) == [5, 2])
                #expect(try SportsCar.allOfKind().fetchOne(db)?.topSpeed == 310)
                #expect(try Truck.allOfKind().fetchCount(db) == 2)
                #expect(Car.kinds == ["car", "sports_car"] && Vehicle.kinds == ["vehicle", "car", "sports_car", "truck"])
                #expect(try Truck.TrailersLink.fetchAll(db).map(\.targetID) == [5])
                #expect(try Garage.fetchOne(db, key: 1)?.favorite == 3)
                // Rows of other kinds hold NULL in a subentity's columns (its required `payload` too).
                #expect(
                    try String.fetchAll(db, sql: "SELECT typeof(payload) FROM vehicle WHERE kind <> 'truck'") == ["null", "null", "null"])
                #expect(
                    try String.fetchAll(db, sql: "SELECT kind FROM vehicle ORDER BY id") == [
                        "vehicle", "car", "sports_car", "truck", "truck",
                    ])
            }
        }
    }

    @Test func aRequiredSubentityPropertyThatIsNullDoesNotDecode() throws {
        try withStore { database in
            try database.write { db in
                try Car(id: 2, plate: "C-2", doors: 5).insert(db)
                // Another tool wrote a car without doors: SQL allows it (the column is nullable for the other kinds).
                try db.execute(sql: "UPDATE vehicle SET doors = NULL WHERE id = 2")
            }
            #expect(try database.read { db in try Vehicle.fetchOne(db, key: 2)?.kind } == "car", "the root's record does not read doors")
            let decoded = try database.read { db in Result { try Car.allOfKind().fetchAll(db) } }
            guard case .failure(let error) = decoded else {
                Issue.record("a car without doors decoded: \(decoded)")
                return
            }
            #expect("\(error)".contains("doors"), "the error names the property: \(error)")
        }
    }
}
