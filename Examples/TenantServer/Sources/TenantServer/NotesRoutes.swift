import Foundation
import GRDB
import Hummingbird
import LucidFleet
import LucidRuntime
import Notes

/// `GET /tenants/:tenant/notes` and `POST /tenants/:tenant/notes`: each request opens its tenant's store
/// through the one ``StoreCache`` (the first request for a tenant opens and migrates it, the others wait
/// for that open and share its connection), then reads or writes it.
struct NotesRoutes: Sendable {
    let folder: TenantFolder
    let stores: StoreCache
    let progress: FleetProgress

    func add(to router: Router<BasicRequestContext>) {
        router.get("tenants/:tenant/notes") { request, context in
            try await answer { try await list(request, context) }
        }
        router.post("tenants/:tenant/notes") { request, context in
            try await answer { try await add(request, context) }
        }
        router.get("stats") { _, _ in
            progress.snapshot
        }
        router.get("health") { _, _ in
            "ok"
        }
    }

    /// A note as the API shows it.
    struct NoteJSON: ResponseCodable {
        var id: Int
        var title: String
        var text: String
        var pinned: Bool
        /// ISO 8601, UTC.
        var createdAt: String

        init(_ note: Note) {
            id = note.id
            title = note.title
            text = note.text
            pinned = note.pinned
            createdAt = note.createdAt.formatted(.iso8601)
        }
    }

    /// A tenant's notes: how many match, and the first `limit` of them (newest first, or best match first
    /// with `q`).
    struct NotesPage: ResponseCodable {
        var tenant: String
        var count: Int
        var notes: [NoteJSON]
    }

    /// The body of `POST`.
    struct NewNote: Decodable {
        var title: String
        var text: String
        var pinned: Bool?
    }

    /// `GET /tenants/:tenant/notes[?q=words][&limit=N]`: 404 for a tenant without a store (a `GET` creates
    /// none).
    private func list(_ request: Request, _ context: BasicRequestContext) async throws -> NotesPage {
        let (tenant, path) = try tenant(of: context)
        guard FileManager.default.fileExists(atPath: path) else { throw HTTPError(.notFound, message: "no tenant \(tenant)") }
        let query = request.uri.queryParameters.get("q")
        let limit = min(max(request.uri.queryParameters.get("limit", as: Int.self) ?? 20, 0), 500)
        return try await stores.withStore(atPath: path) { database in
            try await database.read { db in
                if let query {
                    // Full-text search: the index version 2.0 added, filled by the migration.
                    let found = try Note.search(query).fetchAll(db)
                    return NotesPage(tenant: tenant, count: found.count, notes: found.prefix(limit).map(NoteJSON.init))
                }
                let newest = try Note.order(Note.Columns.id.desc).limit(limit).fetchAll(db)
                return NotesPage(tenant: tenant, count: try Note.fetchCount(db), notes: newest.map(NoteJSON.init))
            }
        }
    }

    /// `POST /tenants/:tenant/notes` with `{"title": …, "text": …, "pinned": …}`: 201 with the new note.
    /// A tenant's first note creates its store.
    private func add(_ request: Request, _ context: BasicRequestContext) async throws -> EditedResponse<NoteJSON> {
        let (_, path) = try tenant(of: context)
        let new = try await request.decode(as: NewNote.self, context: context)
        guard !new.title.isEmpty else { throw HTTPError(.badRequest, message: "a note needs a title") }
        let note = try await stores.withStore(atPath: path) { database in
            try await database.write { db in
                let id = try (Int.fetchOne(db, sql: "SELECT max(id) FROM note") ?? 0) + 1
                let note = Note(id: id, title: new.title, text: new.text, createdAt: Date(), pinned: new.pinned ?? false)
                try note.insert(db)
                return note
            }
        }
        return EditedResponse(status: .created, response: NoteJSON(note))
    }

    private func tenant(of context: BasicRequestContext) throws -> (String, String) {
        let tenant = try context.parameters.require("tenant")
        guard TenantFolder.isValid(tenant) else {
            throw HTTPError(.badRequest, message: "a tenant is 1 to 64 lowercase letters, digits and dashes")
        }
        let path = folder.storePath(of: tenant)
        progress.requestArrived(for: path)
        return (tenant, path)
    }

    /// Runs a handler; a store that cannot be opened is a 503 with what to do (the next request tries again).
    private func answer<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreError {
            progress.requestFailed()
            throw HTTPError(.serviceUnavailable, message: "\(error.problem) \(error.nextStep)")
        } catch let error as HTTPError {
            throw error
        } catch {
            progress.requestFailed()
            throw error
        }
    }
}

extension FleetProgress.Counts: ResponseEncodable {}
