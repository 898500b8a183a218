import Foundation
import GRDB

/// The copy of a Core Data store kept before its one-way conversion.
enum CoreDataBackup {
    /// `<path>.coredata-backup`, written with SQLite's backup (the WAL's frames included), and the store's
    /// `.<name>_SUPPORT` folder copied beside it. An existing copy (from an attempt that did not finish) is
    /// the original: it is kept as it is.
    static func keep(_ db: Database, path: String) throws {
        let copy = path + ".coredata-backup"
        if !FileManager.default.fileExists(atPath: copy) {
            let partial = copy + ".partial"
            try? FileManager.default.removeItem(atPath: partial)
            let queue = try DatabaseQueue(path: partial)
            try queue.writeWithoutTransaction { destination in try db.backup(to: destination) }
            try queue.close()
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
            try FileManager.default.moveItem(atPath: partial, toPath: copy)
        }
        let folder = (path as NSString).deletingLastPathComponent
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let support = (folder as NSString).appendingPathComponent(".\(name)_SUPPORT")
        let supportCopy = support + ".coredata-backup"
        if FileManager.default.fileExists(atPath: support), !FileManager.default.fileExists(atPath: supportCopy) {
            try FileManager.default.copyItem(atPath: support, toPath: supportCopy)
        }
    }
}
