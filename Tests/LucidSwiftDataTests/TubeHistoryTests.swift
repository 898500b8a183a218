import Foundation
import GRDB
import LucidGenCore
import LucidRuntime
@_spi(Generated) import LucidSchema
import Testing

/// A video app's history, modelled on a public SwiftData app's (read by hand, none of its code here): schemas
/// 1.0.0 to 1.4.0 in one file each with nested `@Model` classes, the newest with no classes of its own (its
/// `models` list names the top-level classes of another file), a commented-out schema that is not one, stages
/// kept as `static let`s (two `.custom`, one with both closures, one `}, didMigrate: nil`), an enum stored by
/// its raw value whose property's type Swift infers (`placeVideosIn = VideoPlacement.defaultPlacement`), a
/// backing property named with a leading underscore and a `.rawValue` default, two relationships to one
/// model, a stored property with `didSet`, computed and static members, and a `TimeInterval`.
@Suite struct TubeHistoryTests {
    static let files: [String: String] = [
        "Model/Enums.swift": #"""
        import Foundation

        public enum VideoPlacement: Int, Codable, CaseIterable {
            case inbox = 0
            case queueNext = 1
            case queueLast = 4
            case nothing = 2
            case defaultPlacement = 3
        }

        public enum ShortsSetting: Int, Codable {
            case show
            case hide
            case defaultSetting
        }

        public enum ChapterCategory: Int, Codable {
            case sponsor, intro, outro, filler
        }
        """#,
        "Model/Legacy/TubeSchemaV1.swift": #"""
        import Foundation
        import SwiftData

        public enum TubeSchemaV1: VersionedSchema {
            public static var versionIdentifier = Schema.Version(1, 0, 0)

            public static var models: [any PersistentModel.Type] {
                [Video.self, Subscription.self, QueueEntry.self, WatchEntry.self, InboxEntry.self, CachedImage.self, Chapter.self]
            }

            @Model public final class CachedImage {
                public var imageUrl: URL?
                @Attribute(.externalStorage) var imageData: Data?
                public var video: Video?
                public var subscription: Subscription?
                public var createdOn: Date?
                init() {}
            }

            @Model
            public final class Subscription: CustomStringConvertible {
                @Relationship(deleteRule: .nullify, inverse: \Video.subscription) public var videos: [Video]? = []
                @Relationship(deleteRule: .cascade, inverse: \CachedImage.subscription) public var cachedImage: CachedImage?
                public var link: URL?
                public var title: String = "-"
                public var author: String?
                public var subscribedDate: Date?
                public var placeVideosIn = VideoPlacement.defaultPlacement
                public var isArchived: Bool = false
                public var customSpeedSetting: Double?
                public var youtubeChannelId: String?
                public var description: String { title }
                init() {}
            }

            @Model
            public final class Video: CustomStringConvertible {
                @Relationship(deleteRule: .cascade, inverse: \InboxEntry.video) public var inboxEntry: InboxEntry?
                @Relationship(deleteRule: .cascade, inverse: \QueueEntry.video) public var queueEntry: QueueEntry?
                @Relationship(inverse: \WatchEntry.video) public var watchEntries: [WatchEntry]? = []
                @Relationship(deleteRule: .cascade, inverse: \Chapter.video) public var chapters: [Chapter]? = []
                @Relationship(deleteRule: .cascade, inverse: \Chapter.mergedChapterVideo) public var mergedChapters: [Chapter]? = []
                @Relationship(deleteRule: .cascade, inverse: \CachedImage.video) public var cachedImage: CachedImage?
                public var youtubeId: String = UUID().uuidString
                public var title: String = "-"
                public var url: URL?
                public var publishedDate: Date?
                public var duration: Double?
                public var elapsedSeconds: Double?
                public var watched = false
                public var subscription: Subscription?
                public var isYtShort: Bool = false
                public var bookmarkedDate: Date?
                public var sortedChapters: [Chapter] { (chapters ?? []).sorted { $0.startTime < $1.startTime } }
                public var description: String { title }
                public static let placeholder = "-"
                init() {}
            }

            @Model public final class WatchEntry {
                public var video: Video?
                public var date: Date?
                init() {}
            }

            @Model public final class QueueEntry {
                public var video: Video?
                public var order: Int = Int.max
                init() {}
            }

            @Model public final class InboxEntry {
                public var video: Video? {
                    didSet { date = video?.publishedDate }
                }
                public var date: Date?
                public typealias ExportType = String
                init() {}
            }

            @Model public final class Chapter {
                public var title: String?
                public var startTime: Double = 0
                public var endTime: Double?
                public var video: Video?
                public var mergedChapterVideo: Video?
                public var isActive = true
                public var category: ChapterCategory?
                init() {}
            }
        }
        """#,
        "Model/Legacy/TubeSchemaV1p1.swift": #"""
        import Foundation
        import SwiftData

        public enum TubeSchemaV1p1: VersionedSchema {
            public static let versionIdentifier = Schema.Version(1, 1, 0)

            public static var models: [any PersistentModel.Type] {
                [Video.self, Subscription.self, QueueEntry.self, WatchEntry.self, InboxEntry.self, Chapter.self]
            }

            @Model
            public final class Subscription: CustomStringConvertible {
                @Relationship(deleteRule: .nullify, inverse: \Video.subscription) public var videos: [Video]? = []
                public var link: URL?
                public var title: String = "-"
                public var author: String?
                public var subscribedDate: Date?
                public var placeVideosIn = VideoPlacement.defaultPlacement
                public var isArchived: Bool = false
                public var customSpeedSetting: Double?
                public var youtubeChannelId: String?
                public var description: String { title }
                init() {}
            }

            @Model
            public final class Video: CustomStringConvertible {
                @Relationship(deleteRule: .cascade, inverse: \InboxEntry.video) public var inboxEntry: InboxEntry?
                @Relationship(deleteRule: .cascade, inverse: \QueueEntry.video) public var queueEntry: QueueEntry?
                @Relationship(inverse: \WatchEntry.video) public var watchEntries: [WatchEntry]? = []
                @Relationship(deleteRule: .cascade, inverse: \Chapter.video) public var chapters: [Chapter]? = []
                @Relationship(deleteRule: .cascade, inverse: \Chapter.mergedChapterVideo) public var mergedChapters: [Chapter]? = []
                public var youtubeId: String = UUID().uuidString
                public var title: String = "-"
                public var url: URL?
                public var publishedDate: Date?
                public var duration: Double?
                public var elapsedSeconds: Double?
                public var watched: Bool = false
                public var subscription: Subscription?
                public var isYtShort: Bool = false
                public var bookmarkedDate: Date?
                public var sortedChapters: [Chapter] { (chapters ?? []).sorted { $0.startTime < $1.startTime } }
                public var description: String { title }
                public static let placeholder = "-"
                init() {}
            }

            @Model public final class WatchEntry {
                public var video: Video?
                public var date: Date?
                init() {}
            }

            @Model public final class QueueEntry {
                public var video: Video?
                public var order: Int = Int.max
                init() {}
            }

            @Model public final class InboxEntry {
                public var video: Video? {
                    didSet { date = video?.publishedDate }
                }
                public var date: Date?
                public typealias ExportType = String
                init() {}
            }

            @Model public final class Chapter {
                public var title: String?
                public var startTime: Double = 0
                public var endTime: Double?
                public var video: Video?
                public var mergedChapterVideo: Video?
                public var isActive = true
                public var category: ChapterCategory?
                init() {}
            }
        }
        """#,
        "Model/Legacy/TubeSchemaV1p2.swift": #"""
        import Foundation
        import SwiftData

        public enum TubeSchemaV1p2: VersionedSchema {
            public static let versionIdentifier = Schema.Version(1, 2, 0)

            public static var models: [any PersistentModel.Type] {
                [Video.self, Subscription.self, QueueEntry.self, InboxEntry.self, Chapter.self]
            }

            @Model
            public final class Subscription: CustomStringConvertible {
                @Relationship(deleteRule: .nullify, inverse: \Video.subscription) public var videos: [Video]? = []
                public var link: URL?
                public var title: String = "-"
                public var author: String?
                public var subscribedDate: Date?
                public var placeVideosIn = VideoPlacement.defaultPlacement
                public var isArchived: Bool = false
                public var customSpeedSetting: Double?
                public var youtubeChannelId: String?
                public var description: String { title }
                init() {}
            }

            @Model
            public final class Video: CustomStringConvertible {
                @Relationship(deleteRule: .cascade, inverse: \InboxEntry.video) public var inboxEntry: InboxEntry?
                @Relationship(deleteRule: .cascade, inverse: \QueueEntry.video) public var queueEntry: QueueEntry?
                @Relationship(deleteRule: .cascade, inverse: \Chapter.video) public var chapters: [Chapter]? = []
                @Relationship(deleteRule: .cascade, inverse: \Chapter.mergedChapterVideo) public var mergedChapters: [Chapter]? = []
                public var youtubeId: String = UUID().uuidString
                public var title: String = "-"
                public var url: URL?
                public var publishedDate: Date?
                public var duration: Double?
                public var elapsedSeconds: Double?
                public var watchedDate: Date?
                public var subscription: Subscription?
                public var isYtShort: Bool = false
                public var bookmarkedDate: Date?
                public var sortedChapters: [Chapter] { (chapters ?? []).sorted { $0.startTime < $1.startTime } }
                public var description: String { title }
                public static let placeholder = "-"
                init() {}
            }

            @Model public final class QueueEntry {
                public var video: Video?
                public var order: Int = Int.max
                init() {}
            }

            @Model public final class InboxEntry {
                public var video: Video? {
                    didSet { date = video?.publishedDate }
                }
                public var date: Date?
                public typealias ExportType = String
                init() {}
            }

            @Model public final class Chapter {
                public var title: String?
                public var startTime: Double = 0
                public var endTime: Double?
                public var video: Video?
                public var mergedChapterVideo: Video?
                public var isActive = true
                public var category: ChapterCategory?
                init() {}
            }
        }
        """#,
        "Model/Legacy/TubeSchemaV1p3.swift": #"""
        import Foundation
        import SwiftData

        public enum TubeSchemaV1p3: VersionedSchema {
            public static let versionIdentifier = Schema.Version(1, 3, 0)

            public static var models: [any PersistentModel.Type] {
                [Video.self, Subscription.self, QueueEntry.self, InboxEntry.self, Chapter.self]
            }

            @Model
            public final class Subscription: CustomStringConvertible {
                @Relationship(deleteRule: .nullify, inverse: \Video.subscription) public var videos: [Video]? = []
                public var link: URL?
                public var title: String = "-"
                public var author: String?
                public var subscribedDate: Date?
                public var placeVideosIn = VideoPlacement.defaultPlacement
                public var isArchived: Bool = false
                public var customSpeedSetting: Double?
                public var _shortsSetting: Int? = ShortsSetting.defaultSetting.rawValue
                public var youtubeChannelId: String?
                public var description: String { title }
                init() {}
            }

            @Model
            public final class Video: CustomStringConvertible {
                @Relationship(deleteRule: .cascade, inverse: \InboxEntry.video) public var inboxEntry: InboxEntry?
                @Relationship(deleteRule: .cascade, inverse: \QueueEntry.video) public var queueEntry: QueueEntry?
                @Relationship(deleteRule: .cascade, inverse: \Chapter.video) public var chapters: [Chapter]? = []
                @Relationship(deleteRule: .cascade, inverse: \Chapter.mergedChapterVideo) public var mergedChapters: [Chapter]? = []
                public var youtubeId: String = UUID().uuidString
                public var title: String = "-"
                public var url: URL?
                public var publishedDate: Date?
                public var duration: Double?
                public var elapsedSeconds: Double?
                public var watchedDate: Date?
                public var subscription: Subscription?
                public var isYtShort: Bool?
                public var bookmarkedDate: Date?
                public var sortedChapters: [Chapter] { (chapters ?? []).sorted { $0.startTime < $1.startTime } }
                public var description: String { title }
                public static let placeholder = "-"
                init() {}
            }

            @Model public final class QueueEntry {
                public var video: Video?
                public var order: Int = Int.max
                init() {}
            }

            @Model public final class InboxEntry {
                public var video: Video?
                public var date: Date?
                public typealias ExportType = String
                init() {}
            }

            @Model public final class Chapter {
                public var title: String?
                public var startTime: Double = 0
                public var endTime: Double?
                public var video: Video?
                public var mergedChapterVideo: Video?
                public var isActive = true
                public var category: ChapterCategory?
                init() {}
            }
        }
        """#,
        "Model/Legacy/TubeSchemaV1p4.swift": #"""
        import SwiftData

        public enum TubeSchemaV1p4: VersionedSchema {
            public static let versionIdentifier = Schema.Version(1, 4, 0)

            public static var models: [any PersistentModel.Type] {
                [Video.self, Subscription.self, QueueEntry.self, InboxEntry.self, Chapter.self, WatchTimeEntry.self]
            }
        }
        """#,
        "Model/Legacy/TubeSchemaV1p5Next.swift": #"""
        //import SwiftData
        //
        //public enum TubeSchemaV1p5: VersionedSchema {
        //    static let versionIdentifier = Schema.Version(1, 5, 0)
        //    public static var models: [any PersistentModel.Type] { [Video.self] }
        //}
        """#,
        "Model/Models.swift": #"""
        import Foundation
        import SwiftData

        @Model
        public final class Subscription: CustomStringConvertible {
            @Relationship(deleteRule: .nullify, inverse: \Video.subscription) public var videos: [Video]? = []
            public var link: URL?
            public var title: String = "-"
            public var author: String?
            public var subscribedDate: Date?
            public var placeVideosIn = VideoPlacement.defaultPlacement
            public var isArchived: Bool = false
            public var customSpeedSetting: Double?
            public var _shortsSetting: Int? = ShortsSetting.defaultSetting.rawValue
            public var youtubeChannelId: String?
            public var description: String { title }
            init() {}
        }

        @Model
        public final class Video: CustomStringConvertible {
            @Relationship(deleteRule: .cascade, inverse: \InboxEntry.video) public var inboxEntry: InboxEntry?
            @Relationship(deleteRule: .cascade, inverse: \QueueEntry.video) public var queueEntry: QueueEntry?
            @Relationship(deleteRule: .cascade, inverse: \Chapter.video) public var chapters: [Chapter]? = []
            @Relationship(deleteRule: .cascade, inverse: \Chapter.mergedChapterVideo) public var mergedChapters: [Chapter]? = []
            public var youtubeId: String = UUID().uuidString
            public var title: String = "-"
            public var url: URL?
            public var publishedDate: Date?
            public var duration: Double?
            public var elapsedSeconds: Double?
            public var watchedDate: Date?
            public var subscription: Subscription?
            public var isYtShort: Bool?
            public var bookmarkedDate: Date?
            public var sortedChapters: [Chapter] { (chapters ?? []).sorted { $0.startTime < $1.startTime } }
            public var description: String { title }
            public static let placeholder = "-"
            init() {}
        }

        @Model public final class QueueEntry {
            public var video: Video?
            public var order: Int = Int.max
            init() {}
        }

        @Model public final class InboxEntry {
            public var video: Video?
            public var date: Date?
            public typealias ExportType = String
            init() {}
        }

        @Model public final class Chapter {
            public var link: URL?
            public var title: String?
            public var startTime: Double = 0
            public var endTime: Double?
            public var video: Video?
            public var mergedChapterVideo: Video?
            public var isActive = true
            public var category: ChapterCategory?
            init() {}
        }

        @Model public final class WatchTimeEntry {
            public var date: Date = Date()
            public var channelId: String = ""
            public var watchTime: TimeInterval = 0
            init() {}
        }
        """#,
        "Model/VersionedSchema.swift": #"""
        import Foundation
        import SwiftData

        public typealias Video = TubeSchemaV1p4.Video

        public enum TubeMigrationPlan: SchemaMigrationPlan {
            public static var schemas: [any VersionedSchema.Type] {
                [
                    TubeSchemaV1.self,
                    TubeSchemaV1p1.self,
                    TubeSchemaV1p2.self,
                    TubeSchemaV1p3.self,
                    TubeSchemaV1p4.self,
                ]
            }

            public static var stages: [MigrationStage] {
                [migrateV1toV1p1, migrateV1p1toV1p2, migrateV1p2toV1p3, migrateV1p3toV1p4]
            }

            static let migrateV1toV1p1 = MigrationStage.custom(
                fromVersion: TubeSchemaV1.self,
                toVersion: TubeSchemaV1p1.self,
                willMigrate: { context in
                    try? context.delete(model: TubeSchemaV1.CachedImage.self)
                    try? context.save()
                }, didMigrate: nil
            )

            static var watchedDates: [String: Date] = [:]

            public static let migrateV1p1toV1p2 = MigrationStage.custom(
                fromVersion: TubeSchemaV1p1.self,
                toVersion: TubeSchemaV1p2.self,
                willMigrate: {
                    context in
                    let fetch = FetchDescriptor<TubeSchemaV1p1.Video>(predicate: #Predicate { $0.watched == true })
                    for video in try context.fetch(fetch) {
                        watchedDates[video.youtubeId] = video.watchEntries?.compactMap(\.date).max()
                    }
                    try context.delete(model: TubeSchemaV1p1.WatchEntry.self)
                    try context.save()
                },
                didMigrate: { context in
                    for video in try context.fetch(FetchDescriptor<TubeSchemaV1p2.Video>()) {
                        video.watchedDate = watchedDates[video.youtubeId]
                    }
                    try context.save()
                }
            )

            static let migrateV1p2toV1p3 = MigrationStage.lightweight(fromVersion: TubeSchemaV1p2.self, toVersion: TubeSchemaV1p3.self)
            static let migrateV1p3toV1p4 = MigrationStage.lightweight(fromVersion: TubeSchemaV1p3.self, toVersion: TubeSchemaV1p4.self)
        }
        """#,
    ]

    @Test func theHistoryImportsWithTheTopLevelModelsOfTheNewestSchemaAndTheStagesCode() throws {
        let app = try SwiftDataApp(Self.files)
        defer { app.remove() }
        let imported = try app.imported()
        #expect(imported.history.package.versions.map(\.version.string) == ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0"])
        #expect(
            imported.history.package.versions.map(\.model.name) == [
                "TubeSchemaV1", "TubeSchemaV1p1", "TubeSchemaV1p2", "TubeSchemaV1p3", "TubeSchemaV1p4",
            ])
        #expect(
            imported.output.files.map(\.name) == [
                "cached_image", "chapter", "inbox_entry", "queue_entry", "subscription", "video", "watch_entry", "watch_time_entry",
            ])
        let subscription = imported.description("subscription")
        // The inferred enum type, by its raw value (defaultPlacement = 3); the underscored backing property.
        #expect(subscription.contains(#"{ "name": "place_videos_in", "property_type": "int", "default_value": 3 }"#))
        #expect(
            subscription.contains(
                #"{ "name": "shorts_setting", "swift_name": "_shortsSetting", "property_type": "int", "nullable": true, "default_value": 2, "added_at_version": "1.3.0" }"#
            ))
        let video = imported.description("video")
        #expect(video.contains(#"{ "name": "watched", "property_type": "bool", "default_value": false, "removed_at_version": "1.2.0" }"#))
        #expect(video.contains(#"{ "name": "watched_date", "property_type": "date", "nullable": true, "added_at_version": "1.2.0" }"#))
        #expect(
            video.contains(
                #"{ "name": "is_yt_short", "property_type": "bool", "nullable": true, "type_history": [{ "until_version": "1.3.0", "nullable": false, "default_value": false }] }"#
            ))
        // Computed and static members are not stored; neither is anything of the commented-out schema.
        for member in ["sorted_chapters", "description", "placeholder"] { #expect(!video.contains(#""name": "\#(member)""#)) }
        #expect(!imported.history.package.versions.contains { $0.version.string == "1.5.0" })
        // Two relationships to one model, each with its own inverse.
        let chapter = imported.description("chapter")
        #expect(
            chapter.contains(
                #"{ "name": "video", "property_type": { "entity_name": "video", "association": "to_one" }, "nullable": true, "on_delete": "cascade" }"#
            ))
        #expect(
            chapter.contains(
                #"{ "name": "merged_chapter_video", "property_type": { "entity_name": "video", "association": "to_one" }, "nullable": true, "on_delete": "cascade" }"#
            ))
        #expect(
            imported.description("watch_time_entry").contains(#"{ "name": "watch_time", "property_type": "double", "default_value": 0.0 }"#)
        )
        // A note that holds for every version is given once, at its first.
        #expect(
            imported.notes.filter { $0.contains("Video.youtubeId's initial value UUID().uuidString") } == [
                "Model/Legacy/TubeSchemaV1.swift:44: note: Video.youtubeId's initial value UUID().uuidString is an expression, which SwiftData evaluates when it builds the schema (the value a lightweight migration gives existing rows); lucidgen does not evaluate code: the column gets no default (give one in the description where rows exist when it is added)"
            ])
        #expect(imported.history.stages.map(\.name) == ["migrateV1toV1p1", "migrateV1p1toV1p2"])
        #expect(imported.history.stages.map { "\($0.from)→\($0.to)" } == ["1.0.0→1.1.0", "1.1.0→1.2.0"])
        #expect(imported.history.stages[0].notes.count == 2 && imported.history.stages[1].notes.count == 3)
        #expect(
            imported.history.stages[1].notes[2].hasPrefix(
                "didMigrate (after the schema changes, on TubeSchemaV1p2's models): Model/VersionedSchema.swift:44"))
    }

    /// The two custom stages ported to SQL, as an app moving to lucidgen writes them: the cached images
    /// deleted, and the watched videos' latest watch dates kept across the step that drops `watched` and
    /// the watch entries.
    static let ports = [
        MigrationStage(
            from: SchemaVersion("1.0.0"), to: SchemaVersion("1.1.0"), label: "migrateV1toV1p1",
            willMigrate: { db in try db.execute(sql: "DELETE FROM cached_image") }, didMigrate: { _ in }),
        MigrationStage(
            from: SchemaVersion("1.1.0"), to: SchemaVersion("1.2.0"), label: "migrateV1p1toV1p2",
            willMigrate: { db in
                try db.execute(
                    sql: """
                        CREATE TEMP TABLE watched_dates AS
                        SELECT v.youtube_id AS youtube_id, MAX(w.date) AS date
                        FROM video v JOIN watch_entry w ON w.video = v.id WHERE v.watched = 1 GROUP BY v.youtube_id
                        """)
            },
            didMigrate: { db in
                try db.execute(
                    sql: """
                        UPDATE video SET watched_date = (SELECT date FROM watched_dates d WHERE d.youtube_id = video.youtube_id);
                        DROP TABLE watched_dates
                        """)
            }),
    ]

    @Test func aStoreOfTheOldestVersionMigratesToTheNewestThroughBothCustomStages() throws {
        let app = try SwiftDataApp(Self.files)
        defer { app.remove() }
        let generated = try GeneratedHistory(try app.imported())
        #expect(generated.versions == ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0"])
        let seed = [
            "INSERT INTO subscription (id, title, place_videos_in, is_archived) VALUES (1, 'Lectures', 1, 0)",
            """
            INSERT INTO video (id, youtube_id, title, watched, is_yt_short, subscription) VALUES
              (1, 'yt-a', 'Entropy', 1, 0, 1), (2, 'yt-b', 'Symmetry', 0, 1, 1), (3, 'yt-c', 'Loose', 1, 0, NULL)
            """,
            """
            INSERT INTO watch_entry (id, video, date) VALUES
              (1, 1, '2024-01-02 08:00:00.000'), (2, 1, '2024-03-04 09:30:00.000'), (3, 2, '2024-02-01 10:00:00.000')
            """,
            "INSERT INTO chapter (id, title, start_time, is_active, video, merged_chapter_video, category) VALUES (1, 'Intro', 0, 1, 1, NULL, 1), (2, 'Merged', 10, 1, NULL, 1, NULL)",
            "INSERT INTO cached_image (id, image_url, video) VALUES (1, 'https://i.example/a.jpg', 1)",
            #"INSERT INTO queue_entry (id, video, "order") VALUES (1, 2, 0)"#,
        ]
        #expect(
            try generated.migrate(
                from: "1.0.0", seed: seed, stages: Self.ports,
                query: """
                    SELECT v.id, v.title, v.watched_date, v.is_yt_short, s.title, s.shorts_setting,
                      (SELECT count(*) FROM chapter c WHERE c.video = v.id OR c.merged_chapter_video = v.id),
                      (SELECT count(*) FROM queue_entry q WHERE q.video = v.id)
                    FROM video v LEFT JOIN subscription s ON s.id = v.subscription ORDER BY v.id
                    """) == [
                    ["1", "Entropy", "2024-03-04 09:30:00.000", "0", "Lectures", "2", "2", "0"],
                    ["2", "Symmetry", "NULL", "1", "Lectures", "2", "0", "1"],
                    ["3", "Loose", "NULL", "0", "NULL", "NULL", "0", "0"],
                ])
    }
}
