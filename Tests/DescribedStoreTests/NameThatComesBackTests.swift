import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

/// An entity that takes the table of another (`takes_name_of`) starts empty, and above every id the old one
/// handed out: an AUTOINCREMENT table never hands an id out twice, whichever lineage holds its name. Found by
/// the generated migration tests of Artsy Folio's history (AlbumDelete and AlbumEdit, removed at 2.6.1, come
/// back at 2.7.0).
@Suite struct NameThatComesBackTests {
    /// `draft` removed at 2.0; the new `draft_from_<back>` added at `back`: in the same step (2.0) or a
    /// version later (3.0; `note` lives through every version).
    func versions(back: String) throws -> [Schema] {
        let all = back == "2.0" ? ["1.0", "2.0"] : ["1.0", "2.0", "3.0"]
        return try resolveSchemas([
            "note.json": """
            { "name": "note", "version_history": [\(all.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],
              "properties": [{ "name": "text", "property_type": "string" }] }
            """,
            "draft.json": """
            { "name": "draft", "identifier": { "autoincrement": true }, "removed_at_version": "2.0",
              "version_history": [{ "version": "1.0" }],
              "properties": [{ "name": "title", "property_type": "string" }] }
            """,
            "draft_from_\(back.replacingOccurrences(of: ".", with: "_")).json": """
            { "name": "draft_from_\(back.replacingOccurrences(of: ".", with: "_"))", "persisted_name": "draft", "takes_name_of": "draft",
              "identifier": { "autoincrement": true },
              "version_history": [{ "version": "\(back)" }],
              "properties": [{ "name": "body", "property_type": "string" }] }
            """,
        ])
    }

    @Test(arguments: ["2.0", "3.0"]) func theNewTableStartsEmptyAboveTheIdsTheOldOneHandedOut(back: String) throws {
        let versions = try versions(back: back)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        let created = try LucidStore.create(atPath: path, versions: versions, version: versions[0].version)
        // Ids 1…12 handed out, the last ones deleted: only sqlite_sequence remembers 12.
        try created.write { db in
            for id in 1...12 { try db.execute(sql: "INSERT INTO draft (title) VALUES (?)", arguments: ["draft \(id)"]) }
            try db.execute(sql: "DELETE FROM draft WHERE id > 3")
        }
        try created.close()
        let migrated = try LucidStore.open(atPath: path, versions: versions).database
        try migrated.write { db in try db.execute(sql: "INSERT INTO draft (body) VALUES ('new')") }
        let (count, ids, sequence) = try migrated.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM draft WHERE body <> 'new'"),
                try Int64.fetchAll(db, sql: "SELECT id FROM draft"),
                try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'draft'")
            )
        }
        try migrated.close()
        #expect(count == 0, "nothing carries over to the new lineage")
        #expect(ids == [13], "the first new row's id is above every id the old table handed out")
        #expect(sequence == 13)
    }
}
