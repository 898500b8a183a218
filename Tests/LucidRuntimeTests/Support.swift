import Foundation
import LucidRuntime

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
