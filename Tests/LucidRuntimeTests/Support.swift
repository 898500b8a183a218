import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// A temporary folder for store files.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("lucid-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// The schemas that `lucidgen generate` resolves from descriptions (file name → JSON), oldest first.
func resolveSchemas(_ entities: [String: String], current: String? = nil) throws -> [Schema] {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var config = "input_path: .entities\n"
    if let current { config += "current_version: \"\(current)\"\n" }
    try config.write(toFile: folder.path(".lucid.yaml"), atomically: true, encoding: .utf8)
    try FileManager.default.createDirectory(atPath: folder.path(".entities"), withIntermediateDirectories: true)
    for (name, json) in entities {
        let path = folder.path(".entities/\(name)")
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try json.write(toFile: path, atomically: true, encoding: .utf8)
    }
    let input = try GeneratorPipeline(configPath: folder.path(".lucid.yaml")).load()
    return try Resolver.resolve(input).schemas
}

/// Runs SQL on a store file through a plain GRDB connection.
func withDatabase<T>(_ path: String, _ body: (Database) throws -> T) throws -> T {
    let queue = try DatabaseQueue(path: path)
    defer { try? queue.close() }
    return try queue.write(body)
}

/// A store created at the first of `versions` in a new folder, with `rows` (SQL) inserted: the starting
/// point of a migration test. Remove the folder when done.
func storeAtFirstVersion(_ versions: [Schema], rows: String) throws -> (path: String, folder: TemporaryFolder) {
    let folder = try TemporaryFolder()
    let path = folder.path("store.sqlite")
    let created = try LucidStore.create(atPath: path, versions: versions, version: versions[0].version)
    try created.write { try $0.execute(sql: rows) }
    try created.close()
    return (path, folder)
}
