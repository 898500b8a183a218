import Foundation
import GRDB
import LucidRuntime

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
            let partial = supportCopy + ".partial"
            try? FileManager.default.removeItem(atPath: partial)
            try copyTree(support, to: partial)
            try FileManager.default.moveItem(atPath: partial, toPath: supportCopy)
        }
    }

    /// A copy of a folder as it is: folders and regular files copied, links copied as links (never
    /// followed); a FIFO, device or socket is not opened (reading one could wait forever) and not copied.
    private static func copyTree(_ source: String, to destination: String) throws {
        let manager = FileManager.default
        let type = try manager.attributesOfItem(atPath: source)[.type] as? FileAttributeType
        switch type {
        case .typeDirectory?:
            try manager.createDirectory(atPath: destination, withIntermediateDirectories: false)
            for name in try manager.contentsOfDirectory(atPath: source) {
                try copyTree((source as NSString).appendingPathComponent(name), to: (destination as NSString).appendingPathComponent(name))
            }
        case .typeRegular?:
            try manager.copyItem(atPath: source, toPath: destination)
        case .typeSymbolicLink?:
            try manager.createSymbolicLink(atPath: destination, withDestinationPath: try manager.destinationOfSymbolicLink(atPath: source))
        default:
            break
        }
    }
}
