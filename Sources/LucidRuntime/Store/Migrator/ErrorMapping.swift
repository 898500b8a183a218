import Foundation
import GRDB
@_spi(Generated) import LucidSchema

// SQLite's and GRDB's errors as StoreError.
extension StoreMigrator {
    /// SQLite's "error in view v: …" or "error in trigger t: …" (an `ALTER TABLE` that checks the whole
    /// schema found an app object that no longer compiles) as ``StoreError/appObjectBroken(step:version:kind:name:sql:message:)``.
    static func brokenAppObject(_ error: DatabaseError, step: String, version: SchemaVersion?) -> StoreError? {
        guard let message = error.message, message.hasPrefix("error in ") else { return nil }
        let words = message.dropFirst("error in ".count).split(separator: " ", maxSplits: 1)
        guard words.count == 2, words[0] == "view" || words[0] == "trigger", let colon = words[1].firstIndex(of: ":") else { return nil }
        let name = String(words[1][..<colon])
        return .appObjectBroken(
            step: step, version: version ?? SchemaVersion("0.0"), kind: String(words[0]), name: name, sql: nil,
            message: String(words[1][words[1].index(after: colon)...]).trimmingCharacters(in: .whitespaces))
    }

    /// Maps SQLite and GRDB errors to ``StoreError``.
    ///
    /// `since` is when the operation that failed began: a lock error reports how long it waited.
    package static func storeError(_ error: any Error, path: String, step: String, version: SchemaVersion?, since: Date? = nil)
        -> StoreError
    {
        if let error = error as? StoreError { return error }
        if let error = error as? PlanningError { return .planning(error) }
        if let error = error as? UnknownEnumValueError {
            return .unknownEnumValue(step: step, version: version ?? SchemaVersion("0.0"), error)
        }
        if let error = error as? DatabaseError, let broken = brokenAppObject(error, step: step, version: version) { return broken }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB: return .notADatabase(path: path)
            case .SQLITE_CORRUPT: return .corrupt(path: path, message: error.message ?? "\(error)")
            case .SQLITE_FULL: return .diskFull(path: path, journalLeft: false)
            case .SQLITE_IOERR where volumeIsFull(at: path), .SQLITE_CANTOPEN where volumeIsFull(at: path):
                return .diskFull(path: path, journalLeft: false)
            case .SQLITE_BUSY, .SQLITE_LOCKED: return .locked(path: path, waited: since.map { Date().timeIntervalSince($0) } ?? 0)
            case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_IOERR:
                return .cannotWrite(path: path, message: error.message ?? "\(error)")
            default: break
            }
        }
        return .stepFailed(step: step, version: version ?? SchemaVersion("0.0"), message: "\(error)")
    }

    /// Whether the volume of `path` is (nearly) full: under 1 MiB left. SQLite reports `SQLITE_FULL` only
    /// where it sees the space run out itself; in WAL mode a `-wal` or `-shm` that cannot grow (`ENOSPC`
    /// from `write` or `fallocate`) is `SQLITE_IOERR` or `SQLITE_CANTOPEN` instead, which this tells apart
    /// from a folder that cannot be written.
    static func volumeIsFull(at path: String) -> Bool {
        var volume = statvfs()
        guard statvfs((path as NSString).deletingLastPathComponent, &volume) == 0 else { return false }
        return UInt64(volume.f_bavail) * UInt64(volume.f_frsize) < 1 << 20
    }
}
