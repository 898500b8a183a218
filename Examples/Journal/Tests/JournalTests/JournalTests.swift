import Foundation
import GRDB
import LucidRuntime
import Testing

@testable import Journal

/// The app's own test: the types the build plugin generated, used as the app would.
@Test func entriesRoundTripThroughAStoreOpenedWithTheRegistry() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("journal.sqlite").path
    let opened = try LucidStore.open(atPath: path, registry: JournalSchema.self, options: JournalStages.storeOptions())
    let (database, outcome) = (opened.database, opened.outcome)
    #expect(outcome.created && outcome.finalVersion == SchemaVersion("1.1"))
    try database.write { db in
        try Entry(id: 1, title: "Hello", text: "First entry", writtenAt: Date(timeIntervalSince1970: 1_700_000_000), mood: 3).insert(db)
        try Entry(id: 2, title: "Rain", text: "Second entry", writtenAt: Date(timeIntervalSince1970: 1_700_086_400)).insert(db)
    }
    let happy = try database.read { db in try Entry.filter(Entry.Columns.mood > 2).fetchAll(db) }
    #expect(happy.map(\.title) == ["Hello"])
    // The 1.0 record type is generated too, for the migration code and tests.
    #expect(Entry_1_0.databaseTableName == "entry")
    #expect(try LucidStore.ledger(atPath: path, registry: JournalSchema.self)?.version == SchemaVersion("1.1"))
}
