import Foundation
import GRDB
import LucidSQLiteShims
@_spi(Generated) import LucidSchema

// A store's files after a look or a failure: as they were (a pending WAL, a file this call created).
extension StoreMigrator {
    /// The file's size, or nil when there is no file there: one `stat` call. `FileManager`'s
    /// `attributesOfItem` builds every attribute (owner names through the user database included) and
    /// cost more than the rest of an up-to-date store's launch path.
    static func fileSize(atPath path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// Closes a connection that only looked at the store without checkpointing a WAL into the main file
    /// (SQLite does so when the last connection closes): a refused or inspected store keeps its files
    /// byte-identical, a pending WAL included.
    /// A WAL this connection opened empty is removed on close as usual (checkpointing nothing).
    package static func closeLeavingFilesAsTheyAre(_ queue: DatabaseQueue) {
        let wal = fileSize(atPath: queue.path + "-wal") ?? 0
        if wal > 0 {
            queue.inDatabase { db in _ = lucid_disable_checkpoint_on_close(db.sqliteConnection) }
        }
        try? queue.close()
    }

    /// After a failure, once this call's connection is closed: a `-wal` this call created and left empty
    /// (no frame, so nothing to keep) goes, with the `-shm` beside it if this call created that too. SQLite
    /// deletes both itself when the last connection closes, unless the disk is too full to check the WAL;
    /// a `-wal` holding frames, or one that was there before, always stays.
    func removeEmptyCompanions(except existing: [String]) {
        guard !existing.contains("-wal"), Self.fileSize(atPath: path + "-wal") == 0 else { return }
        try? FileManager.default.removeItem(atPath: path + "-wal")
        if !existing.contains("-shm") { try? FileManager.default.removeItem(atPath: path + "-shm") }
    }

    /// After a failed creation: the file this call created, still without a table (the creating transaction
    /// rolled back; in WAL mode SQLite has written the file's header), is removed with its companions, so
    /// that a failed open leaves no file that was not there. A file that holds anything (another process
    /// created the store meanwhile) stays.
    func removeFileThisCallCreated(_ queue: DatabaseQueue) {
        try? queue.close()
        if Self.fileSize(atPath: path) != 0 {
            guard let reader = try? DatabaseQueue(path: path),
                let objects = try? reader.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }),
                (try? reader.close()) != nil, objects == 0
            else { return }
        }
        try? StoreFiles.remove(path)
    }

    /// `error`, after making ``StoreError/diskFull(path:journalLeft:)`` true: in rollback-journal mode,
    /// when the disk fills while SQLite writes a step's pages into the file, SQLite cannot roll the
    /// step back then; it leaves the `-journal` hot beside the file (its copy of the original pages)
    /// and the file possibly half-written, for the next connection that reads it to roll back. So the
    /// connection is closed and the file read once more on a new one, which rolls the journal back
    /// (rewriting the original pages in place and truncating the file: no new space needed) and
    /// deletes it. If that read fails (another connection holds a lock past the busy timeout), the
    /// error says that the `-journal` must stay beside the file. In WAL mode nothing is left to undo.
    func rolledBack(_ error: StoreError, closing queue: DatabaseQueue) -> StoreError {
        guard case .diskFull = error else { return error }
        try? queue.close()
        guard let reader = try? makeQueue() else { return Self.diskFull(path: path, afterReading: nil) }
        defer { try? reader.close() }
        return Self.diskFull(path: path, afterReading: reader)
    }

    /// ``StoreError/diskFull(path:journalLeft:)`` after one read on `reader`: the first read transaction
    /// of a connection rolls back a hot journal before it reads (SQLite's rule), when it can get the
    /// file's exclusive lock for a moment. A `-journal` left empty or absent holds nothing to roll back.
    static func diskFull(path: String, afterReading reader: (any DatabaseReader)?) -> StoreError {
        do {
            if let reader {
                _ = try reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
                return .diskFull(path: path)
            }
        } catch {}
        return .diskFull(path: path, journalLeft: (fileSize(atPath: path + "-journal") ?? 0) > 0)
    }
}
