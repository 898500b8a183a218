import ArgumentParser
import Foundation
import GRDB
import LucidRuntime
import LucidTesting
import Notes

/// Writes `count` tenants' stores at an older version, with the rows that release of the app wrote: the
/// stores a server finds in its data folder when it starts with a newer release.
struct Seed: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create tenant stores at an older version (tenant-0001.sqlite, tenant-0002.sqlite, …).")

    @Option(help: "The data folder (one store per tenant).")
    var data = "data"

    @Option(help: "How many tenants.")
    var count = 200

    @Option(help: "The number of the first tenant.")
    var first = 1

    @Option(help: "Notes per tenant.")
    var notes = 300

    @Option(help: "The version the stores are at: 1.0 or 1.1 (the server's is \(NotesSchema.newestVersion)).")
    var version = "1.0"

    func validate() throws {
        guard NotesSchema.versions.contains(where: { "\($0.version)" == version }) else {
            throw ValidationError(
                "no version \(version); the versions are \(NotesSchema.versions.map { "\($0.version)" }.joined(separator: ", "))")
        }
        guard count >= 0, first >= 0, notes >= 0 else { throw ValidationError("--count, --first and --notes are not negative") }
    }

    func run() throws {
        let folder = try TenantFolder(data)
        let began = Date()
        // 1.0 named the note's text `body`; 1.1 renamed it `text` and added `pinned`.
        let textColumn = version == "1.0" ? "body" : "text"
        for number in first..<(first + count) {
            let tenant = Self.tenant(number)
            let database = try LucidStore.create(
                atPath: folder.storePath(of: tenant), registry: NotesSchema.self, version: SchemaVersion(parsing: version))
            try database.write { db in
                let insert = try db.makeStatement(sql: "INSERT INTO note (id, title, \(textColumn), created_at) VALUES (?, ?, ?, ?)")
                for note in stride(from: 1, through: notes, by: 1) {
                    try insert.execute(arguments: [note, Self.title(note), Self.text(note, of: tenant), Self.createdAt(note)])
                }
            }
            try database.close()
        }
        print(
            "seeded \(count) stores at \(version) with \(notes) notes each in \(folder.path) (\(String(format: "%.1f", Date().timeIntervalSince(began))) s)"
        )
    }

    /// `tenant-0042`.
    static func tenant(_ number: Int) -> String {
        "tenant-" + String(repeating: "0", count: max(0, 4 - String(number).count)) + String(number)
    }

    static func title(_ note: Int) -> String { "Note \(note)" }

    /// Every seeded note's text has the word "seeded" (the load test searches for it after migrating).
    static func text(_ note: Int, of tenant: String) -> String {
        "seeded note \(note) of \(tenant): the quick brown fox jumps over the lazy dog while the server migrates its store, one tenant at a time"
    }

    static func createdAt(_ note: Int) -> Date {
        Date(timeIntervalSince1970: 1_700_000_000 + Double(note) * 60)
    }
}
