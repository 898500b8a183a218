import Foundation
import GRDB
import LucidCoreData
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// Stores a shipped app's own Core Data wrote (Artsy Folio's migration-test fixtures, in the team's shared
/// folder `../shared/realworld/coredata/artsy-energy` with the app's model history), converted with that
/// history: every entity's and link's count equal to what the Core Data rows hold, values of a sample
/// equal. Copies are converted; the files are never changed, nor kept in the repository.
@Suite struct CoreDataRealStoreTests {
    /// `LUCIDGEN_REALWORLD`, else `../shared/realworld` beside the repository, else the team machine's
    /// `/work/shared/realworld`; nil (and said) when absent.
    static let artsy: URL? = {
        let candidates = [
            ProcessInfo.processInfo.environment["LUCIDGEN_REALWORLD"].map { URL(fileURLWithPath: $0) },
            CoreDataConversionTests.repository.deletingLastPathComponent().appendingPathComponent("shared/realworld"),
            URL(fileURLWithPath: "/work/shared/realworld"),
        ].compactMap { $0 }.map { $0.appendingPathComponent("coredata/artsy-energy") }
        let found = candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("stores").path) }
        if found == nil {
            print(
                "CoreDataRealStoreTests: Artsy Folio's stores are absent (looked in \(candidates.map(\.path).joined(separator: ", "))): the tests of real stores check nothing"
            )
        }
        return found
    }()

    /// The model versions in the order SOURCE.md gives (v2.6.1 before v2.6.0): the version map beside the
    /// test histories.
    static let versionMap = CoreDataConversionTests.repository.appendingPathComponent(
        "Tests/LucidGenCoreTests/CoreData/ArtsyFolio-versions.yaml"
    ).path

    static func history() throws -> CoreDataConversionTests.Shop {
        try CoreDataConversionTests.imported(artsy!.appendingPathComponent("ArtsyPartner.xcdatamodeld").path, versionMap: versionMap)
    }

    /// Each Core Data table's rows in the original, and each entity's by Core Data's reading of them.
    static func coreDataCounts(_ path: String) throws -> [String: Int] {
        let queue = try DatabaseQueue(
            path: path,
            configuration: {
                var c = Configuration(); c.readonly = true; return c
            }())
        defer { try? queue.close() }
        return try queue.read { db in
            var counts: [String: Int] = [:]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
                counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(table)\"") ?? 0
            }
            return counts
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var store: String
        var model: String
        var version: String
        /// Entity → its Core Data table (a hierarchy's entity: its rows of the table, by Z_ENT).
        var entities: [String: String]
        var links: [String: String]
        var testDescription: String { store }
    }

    static let cases = [
        Case(
            store: "ArtsyPartner_1.3.5.sqlite", model: "ArtsyPartner 5", version: "5.0",
            entities: [
                "Artist": "ZARTIST", "Artwork": "ZARTWORK", "Collection": "ZCOLLECTION", "Document": "ZDOCUMENT", "Image": "ZIMAGE",
                "Note": "ZNOTE", "Partner": "ZPARTNER", "User": "ZUSER",
            ],
            links: ["Artwork.collections": "Z_2COLLECTIONS"]),
        Case(
            store: "ArtsyPartner_1.4.sqlite", model: "ArtsyFolio v1.4", version: "6.0",
            entities: [
                "Album": "ZALBUM", "Artist": "ZARTIST", "Artwork": "ZARTWORK", "Image": "ZIMAGE", "Location": "ZLOCATION", "Note": "ZNOTE",
                "Partner": "ZPARTNER", "Show": "ZSHOW", "User": "ZUSER",
                "Document": "ZDOCUMENT:4", "ArtistDocument": "ZDOCUMENT:5", "ShowDocument": "ZDOCUMENT:6",
            ],
            // Z_3SHOWS (Z_3ARTWORKS1, Z_11SHOWS) and Z_2SHOWSFEATURINGARTIST (Z_2ARTISTS1, …): columns named with a suffix.
            links: [
                "Album.artists": "Z_1ARTISTS", "Album.artworks": "Z_1ARTWORKS", "Artist.showsFeaturingArtist": "Z_2SHOWSFEATURINGARTIST",
                "Artwork.shows": "Z_3SHOWS",
            ]),
    ]

    /// Each store converts at its model version, every entity's rows and every link counted as the Core
    /// Data rows hold them, a sample's values equal (dates to the millisecond, decimals), and migrates on
    /// to the newest version with every row.
    @Test(.enabled(if: artsy != nil, "Artsy Folio's stores are absent"), arguments: cases)
    func aRealStoreConvertsWithEveryRowCounted(_ item: Case) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let history = try Self.history()
        let original = Self.artsy!.appendingPathComponent("stores/\(item.store)").path
        let path = folder.path(item.store)
        try FileManager.default.copyItem(atPath: original, toPath: path)
        let counts = try Self.coreDataCounts(original)
        var byEntity: [String: Int] = [:]
        try withDatabase(path) { db in
            for (entity, source) in item.entities {
                let parts = source.split(separator: ":")
                byEntity[entity] =
                    parts.count == 2
                    ? try Int.fetchOne(db, sql: "SELECT count(*) FROM \(parts[0]) WHERE Z_ENT = ?", arguments: [Int(parts[1])!]) ?? 0
                    : counts[source] ?? -1
            }
        }
        // Converted at its own version: nothing after the conversion changes the rows.
        let target = try SchemaVersion(parsing: item.version)
        let versions = history.versions.filter { $0.version <= target }
        var options = StoreOptions()
        options.coreDataOrigin = history.origin
        let opened = try LucidStore.open(atPath: path, versions: versions, options: options)
        #expect(opened.outcome.steps.map(\.label) == ["converted from Core Data (model \(item.model)) at \(item.version)"])
        let report = try #require(opened.outcome.coreDataConversion)
        #expect(Dictionary(uniqueKeysWithValues: report.entities.map { ($0.name, $0.rows) }) == byEntity)
        #expect(Dictionary(uniqueKeysWithValues: report.links.map { ($0.name, $0.source) }) == item.links)
        #expect(Dictionary(uniqueKeysWithValues: report.links.map { ($0.name, $0.rows) }) == item.links.mapValues { counts[$0] ?? -1 })
        #expect(report.notes.isEmpty, "\(report.notes)")
        try opened.database.read { (db: Database) throws in
            for count in report.entities + report.links {
                let rows = report.entities.filter { $0.table == count.table }.map(\.rows).reduce(0, +)
                #expect(
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(count.table)\"")
                        == (report.links.contains(count) ? count.rows : rows), "\(count)")
            }
            if item.version == "6.0" {
                #expect(
                    try String.fetchOne(db, sql: "SELECT starts_at FROM show WHERE id = 1")
                        == CoreDataConversionTests.text(coreDataSeconds: 312_163_200))
                #expect(try String.fetchOne(db, sql: "SELECT starts_at FROM show WHERE id = 1") == "2010-11-23 00:00:00.000")
                #expect(
                    try Row.fetchOne(db, sql: "SELECT height, width FROM artwork WHERE id = 41").map { [$0[0], $0[1]] as [String?] } == [
                        "11.2", "33.2",
                    ])
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM document WHERE kind = 'show_document'") == 6)
            }
        }
        try opened.database.close()
        // Migrated on to the newest version: every entity's rows are there.
        let newest = try LucidStore.open(atPath: path, versions: history.versions, options: options)
        #expect(newest.outcome.finalVersion == history.versions.last!.version)
        try newest.database.read { (db: Database) throws in
            for count in report.entities where count.table != "collection" {
                let rows = report.entities.filter { $0.table == count.table }.map(\.rows).reduce(0, +)
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(count.table)\"") == rows, "\(count)")
            }
        }
        try newest.database.close()
        // The copy kept beside it holds every Core Data row.
        #expect(try Self.coreDataCounts(path + ".coredata-backup") == counts)
    }

    /// A store at model "ArtsyPartner 5" holding an artwork whose `Z_ENT` is 3 while `Z_PRIMARYKEY` numbers
    /// Artwork 2 (written by an older model; `Z_MAX` 0 too): Core Data reads every row of `ZARTWORK` as an
    /// Artwork (it has no subentities), and so does the conversion, saying so.
    @Test(.enabled(if: artsy != nil, "Artsy Folio's stores are absent"))
    func anArtworkWithAnOlderEntityNumberIsConvertedAndCounted() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let history = try Self.history()
        let path = folder.path("ArtsyPartner.sqlite")
        try FileManager.default.copyItem(atPath: Self.artsy!.appendingPathComponent("stores/ArtsyPartner_1.3.5.sqlite").path, toPath: path)
        try withDatabase(path) { db in
            try db.execute(sql: "UPDATE ZARTWORK SET Z_ENT = 3 WHERE Z_PK = 2; UPDATE Z_PRIMARYKEY SET Z_MAX = 0 WHERE Z_NAME = 'Artwork'")
        }
        var options = StoreOptions()
        options.coreDataOrigin = history.origin
        let opened = try LucidStore.open(
            atPath: path, versions: history.versions.filter { $0.version <= SchemaVersion("5.0") }, options: options)
        let report = try #require(opened.outcome.coreDataConversion)
        #expect(report.entities.first { $0.name == "Artwork" }?.rows == 63)
        #expect(report.notes == ["ZARTWORK: 1 row has Z_ENT 3, not Artwork's 2: read as Artwork, as Core Data reads every row of ZARTWORK"])
        try opened.database.write { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "SELECT title FROM artwork WHERE id = 2") == "Hey Squirrel!")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM artwork") == 63)
            // Z_MAX 0: the next id follows the largest.
            let largest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM artwork") ?? 0
            try db.execute(sql: "INSERT INTO artwork (slug) VALUES ('new')")
            #expect(db.lastInsertedRowID == largest + 1)
        }
        try opened.database.close()
    }
}
