import Foundation
import LucidGenCore
import Testing

/// Each construct `import swiftdata` reads, planted in a small source of its own, with the description (or
/// note, or stage) it must give.
@Suite struct SwiftDataConstructTests {
    /// One schema `V1` at 1.0.0 listing `models`, with `body` inside it.
    static func schema(_ models: String, _ body: String, version: String = "1, 0, 0", name: String = "V1") -> String {
        """
        import SwiftData
        enum \(name): VersionedSchema {
            static var versionIdentifier = Schema.Version(\(version))
            static var models: [any PersistentModel.Type] { [\(models)] }
        \(body)
        }
        """
    }

    static func imported(_ files: [String: String], plan: String? = nil) throws -> SwiftDataApp.Imported {
        let app = try SwiftDataApp(files)
        defer { app.remove() }
        return try app.imported(plan: plan)
    }

    static func refusals(_ files: [String: String], plan: String? = nil) throws -> [String] {
        let app = try SwiftDataApp(files)
        defer { app.remove() }
        return try app.refusals(plan: plan)
    }

    @Test func storedPropertiesTheirTypesOptionalsAndLiteralDefaults() throws {
        let source = Self.schema(
            "Item.self",
            """
                @Model final class Item {
                    var count: Int = 3
                    var small: Int16 = -2
                    var ratio: Double = 0.5
                    var level: Float?
                    var done = false
                    var title: String = "untitled"
                    var created: Date = .now
                    var blob: Data?
                    var key: UUID = UUID()
                    var link: URL?
                    var price: Decimal?
                    var big: Int64 = 1_000
                    var label: String { title.uppercased() }
                    static var shared = 1
                    @Transient var scratch: String = ""
                    init() {}
                }
            """)
        let item = try Self.imported(["Model.swift": source]).description("item")
        #expect(
            item == """
                {
                  "name": "item",
                  "identifier": { "autoincrement": true },
                  "version_history": [
                    { "version": "1.0.0" }
                  ],
                  "properties": [
                    { "name": "count", "property_type": "int", "default_value": 3 },
                    { "name": "small", "property_type": "int", "default_value": -2 },
                    { "name": "ratio", "property_type": "double", "default_value": 0.5 },
                    { "name": "level", "property_type": "float", "nullable": true },
                    { "name": "done", "property_type": "bool", "default_value": false },
                    { "name": "title", "property_type": "string", "default_value": "untitled" },
                    { "name": "created", "property_type": "date" },
                    { "name": "blob", "property_type": "data", "nullable": true },
                    { "name": "key", "property_type": "uuid" },
                    { "name": "link", "property_type": "url", "nullable": true },
                    { "name": "price", "property_type": "decimal", "nullable": true },
                    { "name": "big", "property_type": "int", "default_value": 1000 }
                  ]
                }

                """)
    }

    @Test func attributeOptions() throws {
        let v1 = Self.schema(
            "Doc.self",
            """
                @Model final class Doc {
                    @Attribute(.unique) var slug: String
                    var notes: String = ""
                    @Attribute(.externalStorage) var scan: Data?
                    @Attribute(.transformable(by: ColorTransformer.self)) var tint: UIColor?
                    @Attribute(.preserveValueOnDeletion) var serial: String = ""
                    @Attribute(.ephemeral) var cursor: Int = 0
                    init() {}
                }
            """)
        let v2 = Self.schema(
            "Doc.self",
            """
                @Model final class Doc {
                    @Attribute(.unique) var slug: String
                    @Attribute(originalName: "notes") var body: String = ""
                    @Attribute(.externalStorage) var scan: Data?
                    @Attribute(.transformable(by: ColorTransformer.self)) var tint: UIColor?
                    @Attribute(.preserveValueOnDeletion) var serial: String = ""
                    init() {}
                }
            """, version: "2, 0, 0", name: "V2")
        let plan = """
            enum Plan: SchemaMigrationPlan {
                static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }
                static var stages: [MigrationStage] { [.lightweight(fromVersion: V1.self, toVersion: V2.self)] }
            }
            """
        let imported = try Self.imported(["V1.swift": v1, "V2.swift": v2, "Plan.swift": plan])
        let doc = imported.description("doc")
        #expect(
            doc.contains(
                #"{ "name": "body", "property_type": "string", "default_value": "", "previous_name": "notes", "renamed_at_version": "2.0.0" }"#
            ))
        #expect(doc.contains(#"{ "name": "scan", "property_type": "data", "nullable": true }"#))
        #expect(doc.contains(#"{ "name": "tint", "property_type": "data", "nullable": true }"#))
        #expect(doc.contains(#"{ "properties": ["slug"], "unique": true }"#))
        #expect(!doc.contains(#""name": "cursor""#)) // .ephemeral: not stored
        #expect(imported.history.stages.isEmpty) // .lightweight: inferred
        for expected in [
            "V1.swift:8: note: Doc.scan allows external storage: lucidgen stores every value in its row",
            "V1.swift:9: note: Doc.tint is Transformable (UIColor): imported as data, the bytes its transformer ColorTransformer wrote; decode them with it in the app",
            "V1.swift:10: note: Doc.serial is .preserveValueOnDeletion (kept in SwiftData's history tombstones): lucidgen has no history; the column is as any other",
        ] {
            #expect(imported.notes.contains(expected), "\(imported.notes)")
        }
    }

    @Test func relationshipsTheirRulesInversesAndCounts() throws {
        let source = Self.schema(
            "Trip.self, Stop.self, Traveller.self",
            """
                @Model final class Trip {
                    var name: String = ""
                    @Relationship(deleteRule: .cascade, inverse: \\Stop.trip) var stops: [Stop] = []
                    @Relationship(deleteRule: .deny, maximumModelCount: 4) var travellers: [Traveller]?
                    init() {}
                }
                @Model final class Stop {
                    var place: String = ""
                    var trip: Trip?
                    init() {}
                }
                @Model final class Traveller {
                    var name: String = ""
                    @Relationship var trips: [Trip]?
                    init() {}
                }
            """)
        let imported = try Self.imported(["Model.swift": source])
        // The to-one side holds the link: the trip's cascade is its ON DELETE.
        #expect(
            imported.description("stop").contains(
                #"{ "name": "trip", "property_type": { "entity_name": "trip", "association": "to_one" }, "nullable": true, "on_delete": "cascade" }"#
            ))
        // Many-to-many, no inverse written on either side: paired as SwiftData pairs it, and said so.
        #expect(
            imported.notes.contains { $0.hasPrefix("Model.swift:8: note: Trip.travellers and Traveller.trips name no inverse: paired") })
        #expect(
            imported.notes.contains(
                "Model.swift:8: note: Trip.travellers limits its count (minimumModelCount/maximumModelCount): SwiftData checks it when saving; the SQLite schema does not"
            ))
        let many = imported.output.files.map(\.json).filter { $0.contains(#""association": "to_many""#) }
        #expect(many.count == 1)
        #expect(many.allSatisfy { $0.contains(#""entity_name": "traveller""#) || $0.contains(#""entity_name": "trip""#) })
    }

    @Test func uniqueAndIndexMacros() throws {
        let source = Self.schema(
            "Person.self",
            """
                @Model final class Person {
                    #Unique<Person>([\\.email], [\\.first, \\.last])
                    #Index<Person>([\\.last], [\\.last, \\.first])
                    var email: String = ""
                    var first: String = ""
                    var last: String = ""
                    init() {}
                }
            """)
        let person = try Self.imported(["Model.swift": source]).description("person")
        #expect(person.contains(#"{ "properties": ["email"], "unique": true }"#), "\(person)")
        #expect(person.contains(#"{ "properties": ["first", "last"], "unique": true }"#), "\(person)")
        #expect(person.contains(#"{ "properties": ["last"] }"#), "\(person)")
        #expect(person.contains(#"{ "properties": ["last", "first"] }"#), "\(person)")
    }

    @Test func valueTypesEnumsStructsAndCollections() throws {
        let source = Self.schema(
            "Track.self",
            """
                enum Mood: String, Codable { case calm, loud = "LOUD" }
                enum Rating: Int, Codable { case none, some = 5, many }
                enum Source: Codable { case file(URL), stream(String) }
                struct Span: Codable { var start: Double; var end: Double }
                @Model final class Track {
                    var mood: Mood = .loud
                    var rating: Rating = Rating.many
                    var source: Source?
                    var span: Span?
                    var tags: [String] = []
                    var counts: Set<Int>?
                    var extra: [String: String] = [:]
                    var location: CLLocationCoordinate2D?
                    init() {}
                }
            """)
        let imported = try Self.imported(["Model.swift": source])
        let track = imported.description("track")
        #expect(track.contains(#"{ "name": "mood", "property_type": "string", "default_value": "LOUD" }"#), "\(track)")
        #expect(track.contains(#"{ "name": "rating", "property_type": "int", "default_value": 6 }"#), "\(track)")
        #expect(track.contains(#"{ "name": "span", "property_type": "span", "composite": true, "nullable": true }"#), "\(track)")
        #expect(imported.output.files.contains { $0.name == "Subtypes/span" })
        for name in ["source", "counts", "location"] {
            #expect(track.contains(#"{ "name": "\#(name)", "property_type": "data", "nullable": true }"#), "\(name): \(track)")
        }
        #expect(track.contains(#"{ "name": "tags", "property_type": "data" }"#), "\(track)")
        for expected in [
            "Model.swift:12: note: Track.source is the enum Source with associated values: SwiftData stores its Codable encoding: imported as data",
            "Model.swift:13: note: Track.span is the struct Span (start, end): imported as a composite, one column per member, as SwiftData stores a Codable struct on the entity's table (published); the store's column of each member is found by its name when a store converts (inferred, see the SwiftData guide)",
            "Model.swift:14: note: Track.tags is a collection of values ([String]): SwiftData stores it in one column as a binary property list (inferred, not confirmed on a store); imported as data, decode it in the app",
            "Model.swift:17: note: Track.location has the type CLLocationCoordinate2D, which these sources do not declare: imported as data, the bytes SwiftData's Codable encoding wrote (guessed; pass the folder that declares it, so that an enum is stored by its raw value and a struct known)",
        ] {
            #expect(imported.notes.contains(expected), "\(imported.notes)")
        }
    }

    /// A struct schema, `.init(…)` versions, stored static lists with trailing commas, a didMigrate written as a
    /// trailing closure and a typealias of the newest model between the plan and the schemas (as a small
    /// public photo app writes them).
    @Test func structSchemasStoredListsAndATrailingClosureStage() throws {
        let source = """
            import SwiftData
            enum ItemMigrationPlan: SchemaMigrationPlan {
                static var schemas: [any VersionedSchema.Type] = [ItemSchemaV001.self, ItemSchemaV002.self,]
                static var stages: [MigrationStage] = [stageV1ToV2]
                static let stageV1ToV2 = MigrationStage.custom(fromVersion: ItemSchemaV001.self, toVersion: ItemSchemaV002.self, willMigrate: nil) { context in
                    let items = try context.fetch(FetchDescriptor<ItemSchemaV001.Item>())
                    for item in items { context.insert(ItemSchemaV002.Item(url: item.url)) }
                }
            }
            typealias Item = ItemSchemaV002.Item
            struct ItemSchemaV001: VersionedSchema {
                static var models: [any PersistentModel.Type] = [Item.self]
                static var versionIdentifier: Schema.Version = .init(0, 0, 1)
                enum ItemID: Codable, Hashable { case int(Int); case string(String); case none }
                @Model final class Item: Sendable {
                    @Attribute(.unique)
                    var url: URL
                    var id: ItemID
                    init(url: URL) { self.url = url; self.id = .none }
                }
            }
            struct ItemSchemaV002: VersionedSchema {
                static var models: [any PersistentModel.Type] = [Item.self]
                static var versionIdentifier: Schema.Version = .init(0, 1, 0)
                @Model final class Item {
                    var url: URL
                    var count: Int?
                    init(url: URL) { self.url = url }
                }
            }
            """
        let imported = try Self.imported(["Item.swift": source])
        #expect(imported.history.package.versions.map(\.version.string) == ["0.0.1", "0.1.0"])
        #expect(imported.history.stages.map(\.name) == ["stageV1ToV2"])
        #expect(
            imported.history.stages.first?.notes == [
                "SwiftData's MigrationStage.custom at Item.swift:5 (ItemMigrationPlan)",
                "didMigrate (after the schema changes, on ItemSchemaV002's models): Item.swift:5, a closure of 2 statements, starting `let items = try context.fetch(FetchDescriptor<ItemSchemaV001.Item>())`",
            ])
        let item = imported.description("item")
        #expect(
            item.contains(
                #"{ "name": "core_data_id", "swift_name": "coreDataID", "property_type": "data", "removed_at_version": "0.1.0" }"#),
            "\(item)")
        #expect(item.contains(#"{ "name": "count", "property_type": "int", "nullable": true, "added_at_version": "0.1.0" }"#), "\(item)")
    }

    /// A habit app's plan: its first schema file left out of the plan, a version identical to the one before,
    /// a typealias chain through the active schema, a qualified relationship type and a bare `@Relationship`.
    @Test func schemasLeftOutIdenticalVersionsAndTypealiasChains() throws {
        func version(_ n: Int, extra: String = "") -> String {
            """
            import SwiftData
            public enum SchemaV\(n): VersionedSchema {
                public static let versionIdentifier: Schema.Version = Schema.Version(\(n), 0, 0)
                public static var models: [any PersistentModel.Type] { [HabitModel.self, HabitLogModel.self, CategoryModel.self] }
                @Model public final class HabitModel {
                    public var name: String = ""
                    @Relationship(deleteRule: .cascade, inverse: \\HabitLogModel.habit)
                    public var logs: [HabitLogModel] = []
                    public var category: SchemaV\(n).CategoryModel?\(extra)
                    public init() {}
                }
                @Model public final class HabitLogModel {
                    @Relationship var habit: HabitModel?
                    public var value: Double?
                    public init() {}
                }
                @Model public final class CategoryModel {
                    public var name: String = ""
                    @Relationship(deleteRule: .nullify, inverse: \\HabitModel.category) public var habits: [HabitModel] = []
                    public init() {}
                }
            }
            public typealias HabitModelV\(n) = SchemaV\(n).HabitModel
            """
        }
        let plan = """
            import SwiftData
            public typealias ActiveSchemaVersion = SchemaV3
            public typealias ActiveHabitModel = ActiveSchemaVersion.HabitModel
            public enum HabitMigrationPlan: SchemaMigrationPlan {
                public static var schemas: [any VersionedSchema.Type] {
                    [
                        SchemaV2.self,  // the baseline
                        SchemaV3.self,
                    ]
                }
                public static var stages: [MigrationStage] { [MigrationStage.lightweight(fromVersion: SchemaV2.self, toVersion: SchemaV3.self)] }
            }
            enum Extra: VersionedSchema {
                static let versionIdentifier = Schema.Version(4, 0, 0)
                static var models: [any PersistentModel.Type] { [ActiveHabitModel.self, SchemaV3.HabitLogModel.self, SchemaV3.CategoryModel.self] }
            }
            """
        let imported = try Self.imported([
            "SchemaV1.swift": version(1), "SchemaV2.swift": version(2), "SchemaV3.swift": version(3), "Plan.swift": plan,
        ])
        #expect(imported.history.package.versions.map(\.version.string) == ["2.0.0", "3.0.0"])
        #expect(
            imported.notes.contains(
                "SchemaV1.swift:2: note: the VersionedSchema SchemaV1 is not in HabitMigrationPlan.schemas: left out (SwiftData does not open stores at it through this plan)"
            ))
        #expect(
            imported.notes.contains(
                "Plan.swift:13: note: the VersionedSchema Extra is not in HabitMigrationPlan.schemas: left out (SwiftData does not open stores at it through this plan)"
            ))
        #expect(
            imported.description("habit_log_model").contains(
                #"{ "name": "habit", "property_type": { "entity_name": "habit_model", "association": "to_one" }, "nullable": true, "on_delete": "cascade" }"#
            ))
        #expect(
            imported.description("habit_model").contains(
                #"{ "name": "category", "property_type": { "entity_name": "category_model", "association": "to_one" }, "nullable": true, "on_delete": "set_null" }"#
            ))
        // Without the plan the schemas order by their versions, the extra one (models through the chain) last:
        // it lists the same classes as SchemaV3, which SwiftData cannot tell apart either.
        let unplanned = try Self.imported([
            "SchemaV2.swift": version(2), "SchemaV3.swift": version(3),
            "Extra.swift": plan.replacingOccurrences(of: "SchemaMigrationPlan", with: "NotAPlan"),
        ])
        #expect(unplanned.history.package.versions.map(\.version.string) == ["2.0.0", "3.0.0", "4.0.0"])
        #expect(
            unplanned.notes.contains {
                $0.hasPrefix(
                    "Extra.swift:13: note: Extra lists the same model classes as SchemaV3 (SchemaV3.HabitModel, SchemaV3.HabitLogModel, SchemaV3.CategoryModel)"
                )
            })
    }

    /// A class renamed between versions (`EventV1`, then `Event`, as a public event app's history does) is
    /// another entity to SwiftData: said where the new one comes, its rows not guessed into it.
    @Test func aClassRenamedBetweenVersionsIsSaidToBeAnotherEntity() throws {
        let v1 = Self.schema(
            "EventV1.self",
            "    @Model final class EventV1 { var title: String = \"\"; var date: Date?; var done = false; init() {} }")
        let v2 = Self.schema(
            "Event.self", "    @Model final class Event { var title: String = \"\"; var date: Date?; var note: String?; init() {} }",
            version: "2, 0, 0", name: "V2")
        let imported = try Self.imported(["V1.swift": v1, "V2.swift": v2])
        #expect(imported.output.files.map(\.name) == ["event", "event_v1"])
        #expect(imported.description("event_v1").contains(#""removed_at_version": "2.0.0""#))
        #expect(
            imported.notes.contains(
                "V2.swift:5: note: Event comes at 2.0.0 where EventV1 goes, with 2 of the same properties (date, title): SwiftData names an entity by its class, so it sees a new entity and does not carry EventV1's rows, and neither does this import; if the class was renamed, write a stage at 2.0.0 that copies them"
            ), "\(imported.notes)")
    }

    @Test func severalPlansNeedOneChosen() throws {
        let files = [
            "A.swift": Self.schema("Item.self", "    @Model final class Item { var name: String = \"\"; init() {} }"),
            "C.swift": Self.schema(
                "Image.self", "    @Model final class Image { var url: URL?; init() {} }", version: "9, 0, 0", name: "V9"),
            "Plans.swift": """
            enum MainPlan: SchemaMigrationPlan {
                static var schemas: [any VersionedSchema.Type] { [V1.self] }
                static var stages: [MigrationStage] { [] }
            }
            enum CachePlan: SchemaMigrationPlan {
                static var schemas: [any VersionedSchema.Type] { [V9.self] }
                static var stages: [MigrationStage] { [] }
            }
            """,
        ]
        #expect(
            try Self.refusals(files) == [
                "Plans.swift:1: error: one of 2 SchemaMigrationPlans: choose the app's with --plan MainPlan",
                "Plans.swift:5: error: one of 2 SchemaMigrationPlans: choose the app's with --plan CachePlan",
            ])
        let cache = try Self.imported(files, plan: "CachePlan")
        #expect(cache.history.plan == "CachePlan" && cache.output.files.map(\.name) == ["image"])
        #expect(
            try Self.imported(files, plan: "MainPlan").notes == [
                "Plans.swift:5: note: CachePlan's 1 schema (V9) is another store's history: left out; import it with --plan CachePlan into a folder of its own"
            ])
        #expect(
            try Self.refusals(files, plan: "Other").first?.hasSuffix(
                "no SchemaMigrationPlan named Other in these sources (they have MainPlan, CachePlan)") == true)
    }
}
