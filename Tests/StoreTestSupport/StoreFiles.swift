// What the runtime's tests share, with no generator: throw-away folders and stores, plain GRDB access.
import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// A temporary folder for store files.
package struct TemporaryFolder {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("lucid-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    package func remove() { try? FileManager.default.removeItem(at: url) }

    /// Each file in the folder (a store and its -wal, -shm, journal or backups) by name, with its bytes.
    package func files() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) { files[name] = fileBytes(path(name)) }
        return files
    }
}

package func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// Runs SQL on a store file through a plain GRDB connection.
package func withDatabase<T>(_ path: String, _ body: (Database) throws -> T) throws -> T {
    let queue = try DatabaseQueue(path: path)
    defer { try? queue.close() }
    return try queue.write(body)
}

/// A store created at the first of `versions` in a new folder, with `rows` (SQL) inserted: the starting
/// point of a migration test. Remove the folder when done.
package func storeAtFirstVersion(_ versions: [Schema], rows: String) throws -> (path: String, folder: TemporaryFolder) {
    let folder = try TemporaryFolder()
    let path = folder.path("store.sqlite")
    let created = try LucidStore.create(atPath: path, versions: versions, version: versions[0].version)
    try created.write { try $0.execute(sql: rows) }
    try created.close()
    return (path, folder)
}
