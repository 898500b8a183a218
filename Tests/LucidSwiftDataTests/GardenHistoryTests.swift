import Foundation
import LucidGenCore
import LucidRuntime
@_spi(Generated) import LucidSchema
import Testing

/// A plant-care app's history, modelled on a public SwiftData app's (read by hand, none of its code here): four
/// VersionedSchemas whose models are declared in `extension PlantSchemaVN` blocks in one file per model (newest
/// first), unqualified `models` lists that resolve to those nested classes past top-level typealiases of the
/// same names, `@Attribute(originalName:)` renames, a non-optional to-one, a many-to-many with no inverse
/// written, a computed property with and without `@Transient`, a String-raw enum added without a default, and
/// one `.custom` stage between two `.lightweight` ones.
@Suite struct GardenHistoryTests {
    static let files: [String: String] = [
        "GardenApp.swift": #"""
        import SwiftData
        import SwiftUI

        typealias Plant = PlantSchemaV4.Plant
        typealias Photo = PlantSchemaV4.Photo
        typealias Note = PlantSchemaV4.Note
        typealias Reminder = PlantSchemaV4.Reminder

        @main
        struct GardenApp: App {
            var container: ModelContainer = {
                let schema = Schema([Plant.self, Photo.self, Note.self, Reminder.self])
                return try! ModelContainer(for: schema, migrationPlan: AppMigrationPlan.self)
            }()
            var body: some Scene { WindowGroup { Text("") }.modelContainer(container) }
        }
        """#,
        "Models/AppMigrationPlan.swift": #"""
        import Foundation
        import SwiftData

        enum AppMigrationPlan: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] {
                [PlantSchemaV1.self, PlantSchemaV2.self, PlantSchemaV3.self, PlantSchemaV4.self]
            }

            static var stages: [MigrationStage] {
                [migrateV1toV2, migrateV2toV3, migrateV3toV4]
            }

            static let migrateV1toV2 = MigrationStage.lightweight(fromVersion: PlantSchemaV1.self, toVersion: PlantSchemaV2.self)

            static let migrateV2toV3 = MigrationStage.custom(
                fromVersion: PlantSchemaV2.self,
                toVersion: PlantSchemaV3.self,
                willMigrate: { context in
                    let photos = try context.fetch(FetchDescriptor<PlantSchemaV2.Photo>())
                    for photo in photos {
                        _ = photo.url.lastPathComponent
                    }
                    try context.save()
                },
                didMigrate: nil
            )

            static let migrateV3toV4 = MigrationStage.lightweight(fromVersion: PlantSchemaV3.self, toVersion: PlantSchemaV4.self)
        }
        """#,
        "Models/Note.swift": #"""
        import Foundation
        import SwiftData

        extension PlantSchemaV4 {
            @Model
            class Note: Identifiable, Hashable {
                var id: UUID
                var title: String
                var date: Date
                var plant: Plant?
                var photos: [Photo]?
                init() { fatalError() }
            }
        }

        extension PlantSchemaV3 {
            @Model
            class Note: Identifiable, Hashable {
                var id: UUID
                var title: String
                var date: Date
                var plant: Plant?
                var photos: [Photo]?
                init() { fatalError() }
            }
        }

        extension PlantSchemaV2 {
            @Model
            class Note: Identifiable, Hashable {
                var id: UUID
                var title: String
                var date: Date
                var plant: PlantSchemaV2.Plant?
                var photos: [Photo]?
                init() { fatalError() }
            }
        }
        """#,
        "Models/Photo.swift": #"""
        import Foundation
        import Photos
        import SwiftData

        extension PlantSchemaV4 {
            @Model
            class Photo: Identifiable, Hashable {
                var id: UUID
                @Attribute(originalName: "fileName")
                var identifier: String = ""
                var plant: Plant?
                var notes: [Note]?
                @Transient var asset: PHAsset? {
                    PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: nil).firstObject
                }
                init(identifier: String) {
                    self.id = UUID()
                    self.identifier = identifier
                }
            }
        }

        extension PlantSchemaV3 {
            @Model
            class Photo: Identifiable, Hashable {
                var id: UUID
                var fileName: String = ""
                var plant: Plant?
                var notes: [Note]?
                var url: URL { URL.documentsDirectory.appending(path: fileName) }
                init() { fatalError() }
            }
        }

        extension PlantSchemaV2 {
            @Model
            class Photo: Identifiable, Hashable {
                var id: UUID
                var url: URL
                var plant: Plant?
                var notes: [Note]?
                init() { fatalError() }
            }
        }

        extension PlantSchemaV1 {
            @Model
            class Photo: Identifiable, Hashable {
                var id: UUID
                var url: URL
                var plant: Plant?
                init() { fatalError() }
            }
        }

        extension PlantSchemaV3.Photo: Equatable {
            static func == (a: PlantSchemaV3.Photo, b: PlantSchemaV3.Photo) -> Bool { a.id == b.id }
        }
        """#,
        "Models/Plant.swift": #"""
        import Foundation
        import SwiftData

        extension PlantSchemaV4 {
            @Model
            class Plant: Identifiable, Hashable {
                var id: UUID
                var name: String
                var profilePic: Photo
                var datePurchased: Date
                var type: String
                var details: String
                @Relationship(deleteRule: .cascade, inverse: \Reminder.plant)
                var reminders: [Reminder] = []
                @Relationship(deleteRule: .cascade, inverse: \Photo.plant) var photos: [Photo] = []
                @Relationship(deleteRule: .cascade, inverse: \Note.plant)
                var noteList: [Note] = []
                var age: Int { Calendar.current.dateComponents([.day], from: datePurchased, to: .now).day ?? 0 }
                init(name: String, profilePic: Photo) {
                    self.id = UUID()
                    self.name = name
                    self.profilePic = profilePic
                    self.datePurchased = .now
                    self.type = ""
                    self.details = ""
                }
            }
        }

        extension PlantSchemaV3 {
            @Model
            class Plant: Identifiable, Hashable {
                var id: UUID
                var name: String
                var profilePic: Photo
                var datePurchased: Date
                var type: String
                var details: String
                @Relationship(deleteRule: .cascade, inverse: \Reminder.plant)
                var reminders: [Reminder] = []
                @Relationship(deleteRule: .cascade, inverse: \Photo.plant) var photos: [Photo] = []
                var noteList: [Note] = []
                init() { fatalError() }
            }
        }

        extension PlantSchemaV2 {
            @Model
            class Plant: Identifiable, Hashable {
                var id: UUID
                var name: String
                var profilePic: PlantSchemaV2.Photo
                var datePurchased: Date
                var type: String
                @Attribute(originalName: "notes") var details: String
                @Relationship(deleteRule: .cascade, inverse: \Reminder.plant)
                var reminders: [Reminder] = []
                @Relationship(deleteRule: .cascade, inverse: \PlantSchemaV2.Photo.plant) var photos: [PlantSchemaV2.Photo] = []
                var noteList: [PlantSchemaV2.Note] = []
                init() { fatalError() }
            }
        }

        extension PlantSchemaV1 {
            @Model
            class Plant: Identifiable, Hashable {
                var id: UUID
                var name: String
                var profilePic: PlantSchemaV1.Photo
                var datePurchased: Date
                var type: String
                var notes: String
                @Relationship(deleteRule: .cascade, inverse: \Reminder.plant)
                var reminders: [Reminder] = []
                @Relationship(deleteRule: .cascade, inverse: \PlantSchemaV1.Photo.plant) var photos: [PlantSchemaV1.Photo] = []
                init() { fatalError() }
            }
        }
        """#,
        "Models/PlantSchema.swift": #"""
        import Foundation
        import SwiftData

        enum PlantSchemaV1: VersionedSchema{
            static var versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] {
                [Photo.self, Plant.self, Reminder.self]
            }
        }

        enum PlantSchemaV2: VersionedSchema {
            static var versionIdentifier = Schema.Version(2, 0, 0)
            static var models: [any PersistentModel.Type] {
                [Photo.self, Plant.self, Reminder.self, Note.self]
            }
        }

        enum PlantSchemaV3: VersionedSchema {
            static var versionIdentifier = Schema.Version(3, 0, 0)
            static var models: [any PersistentModel.Type] {
                [Photo.self, Plant.self, Reminder.self, Note.self]
            }
        }

        enum PlantSchemaV4: VersionedSchema {
            static var versionIdentifier = Schema.Version(4, 0, 0)
            static var models: [any PersistentModel.Type] {
                [Photo.self, Plant.self, Reminder.self, Note.self]
            }
        }
        """#,
        "Models/Reminder.swift": #"""
        import Foundation
        import SwiftData

        enum Frequency: String, Codable, CaseIterable {
            case once, daily, weekly, monthly
        }

        extension PlantSchemaV4 {
            @Model
            class Reminder: Identifiable, Hashable {
                var id: UUID
                var title: String
                var date: Date
                var plant: Plant?
                var frequency: Frequency
                var monthlyInterval: Int
                init() { fatalError() }
            }
        }

        extension PlantSchemaV3 {
            @Model
            class Reminder: Identifiable, Hashable {
                var id: UUID
                var title: String
                //var detail: String
                var date: Date
                var plant: Plant?
                init() { fatalError() }
            }
        }

        extension PlantSchemaV2 {
            @Model
            class Reminder: Identifiable, Hashable {
                var id: UUID
                var title: String
                var date: Date
                var plant: PlantSchemaV2.Plant?
                init() { fatalError() }
            }
        }

        extension PlantSchemaV1 {
            @Model
            class Reminder: Identifiable, Hashable {
                var id: UUID
                var title: String
                var date: Date
                var plant: PlantSchemaV1.Plant?
                init() { fatalError() }
            }
        }
        """#,
    ]

    @Test func theHistoryImportsInThePlansOrderWithRenamesAndTheCustomStage() throws {
        let app = try SwiftDataApp(Self.files)
        defer { app.remove() }
        let imported = try app.imported()
        #expect(imported.history.plan == "AppMigrationPlan")
        #expect(imported.history.package.versions.map(\.version.string) == ["1.0.0", "2.0.0", "3.0.0", "4.0.0"])
        #expect(imported.output.files.map(\.name) == ["note", "photo", "plant", "reminder"])
        // originalName: renames, in two steps for the photo's file name (url removed at 3.0.0, file_name added then).
        #expect(
            imported.description("plant").contains(
                #"{ "name": "details", "property_type": "string", "previous_name": "notes", "renamed_at_version": "2.0.0" }"#))
        #expect(
            imported.description("photo").contains(
                #"{ "name": "identifier", "property_type": "string", "default_value": "", "added_at_version": "3.0.0", "previous_name": "file_name", "renamed_at_version": "4.0.0" }"#
            ))
        #expect(imported.description("photo").contains(#"{ "name": "url", "property_type": "url", "removed_at_version": "3.0.0" }"#))
        // The non-optional to-one stays required; computed properties (age, url, asset) are not stored.
        #expect(
            imported.description("plant").contains(
                #"{ "name": "profile_pic", "property_type": { "entity_name": "photo", "association": "to_one" } }"#))
        for computed in [#""name": "age""#, #""name": "asset""#] {
            #expect(!imported.output.files.contains { $0.json.contains(computed) })
        }
        // The String-raw enum is its raw value; added without a default, noted at its line.
        #expect(
            imported.description("reminder").contains(
                #"{ "name": "frequency", "property_type": "string", "default_value": "", "added_at_version": "4.0.0" }"#))
        #expect(
            imported.notes.contains {
                $0.hasPrefix("Models/Reminder.swift:15: note: Reminder.frequency is the enum Frequency with String raw values")
            })
        // The many-to-many with no inverse is paired as SwiftData pairs it, and said so.
        #expect(imported.notes.contains { $0.hasPrefix("Models/Photo.swift:41: note: Photo.notes and Note.photos name no inverse") })
        #expect(
            imported.description("note").contains(
                #"{ "name": "photos", "property_type": { "entity_name": "photo", "association": "to_many" } }"#))
        #expect(!imported.description("photo").contains(#""entity_name": "note""#)) // the pair is described once
        // The one .custom stage, with where its code is.
        #expect(imported.history.stages.map(\.name) == ["migrateV2toV3"])
        let stage = try #require(imported.history.stages.first)
        #expect(stage.from.string == "2.0.0" && stage.to.string == "3.0.0")
        #expect(
            stage.notes == [
                "SwiftData's MigrationStage.custom at Models/AppMigrationPlan.swift:15 (AppMigrationPlan)",
                "willMigrate (before the schema changes, on PlantSchemaV2's models): Models/AppMigrationPlan.swift:18, a closure of 3 statements, starting `let photos = try context.fetch(FetchDescriptor<PlantSchemaV2.Photo>())`",
            ])
        // A second import gives the same bytes.
        let again = try app.imported()
        #expect(again.output.files.map(\.json) == imported.output.files.map(\.json) && again.output.origin == imported.output.origin)
        #expect(again.notes == imported.notes)
    }

    @Test func aStoreOfTheOldestVersionMigratesToTheNewestThroughTheStage() throws {
        let app = try SwiftDataApp(Self.files)
        defer { app.remove() }
        let generated = try GeneratedHistory(try app.imported())
        #expect(generated.versions == ["1.0.0", "2.0.0", "3.0.0", "4.0.0"])
        let seed = [
            "INSERT INTO photo (id, core_data_id, url, plant) VALUES (1, X'00112233445566778899AABBCCDDEEFF', 'file:///ficus.jpg', NULL)",
            "INSERT INTO plant (id, core_data_id, name, date_purchased, type, notes, profile_pic) VALUES (1, X'0102030405060708090A0B0C0D0E0F10', 'Ficus', '2024-05-01 10:00:00.000', 'tree', 'water weekly', 1)",
            "UPDATE photo SET plant = 1",
            "INSERT INTO reminder (id, core_data_id, title, date, plant) VALUES (1, X'1112131415161718191A1B1C1D1E1F20', 'Water', '2024-05-08 10:00:00.000', 1)",
        ]
        // The stage's willMigrate only read the photos' file names: its port has nothing to write.
        let stage = MigrationStage(
            from: SchemaVersion("2.0.0"), to: SchemaVersion("3.0.0"), label: "migrateV2toV3", willMigrate: { _ in }, didMigrate: { _ in })
        #expect(
            try generated.migrate(
                from: "1.0.0", seed: seed, stages: [stage],
                query: """
                    SELECT p.name, p.details, p.type, ph.identifier, ph.plant, r.title, r.frequency, r.monthly_interval, hex(p.core_data_id)
                    FROM plant p JOIN photo ph ON ph.id = p.profile_pic JOIN reminder r ON r.plant = p.id
                    """) == [["Ficus", "water weekly", "tree", "", "1", "Water", "", "0", "0102030405060708090A0B0C0D0E0F10"]])
    }
}
