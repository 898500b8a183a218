// Schemas and models resolved from descriptions as `lucidgen generate` resolves them, for the tests of the
// runtime that start from descriptions (DescribedStoreTests, LucidCoreDataTests).
import Foundation
import LucidGenCore
import LucidSchema
import StoreTestSupport

/// The resolved model `lucidgen generate` makes of descriptions (file name → JSON).
package func resolveModel(_ entities: [String: String], current: String? = nil) throws -> ResolvedModel {
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
    return try Resolver.resolve(try GeneratorPipeline(configPath: folder.path(".lucid.yaml")).load())
}

/// The schemas that `lucidgen generate` resolves from descriptions (file name → JSON), oldest first.
package func resolveSchemas(_ entities: [String: String], current: String? = nil) throws -> [Schema] {
    try resolveModel(entities, current: current).schemas
}
