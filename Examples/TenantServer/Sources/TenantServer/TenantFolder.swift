import Foundation

/// The data folder: one store per tenant, `<tenant>.sqlite`.
struct TenantFolder: Sendable {
    /// The folder's absolute path.
    let path: String

    /// The folder at `path` (relative to the current folder), created if missing.
    init(_ path: String) throws {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        self.path = url.path
    }

    /// Whether `tenant` may name a store: 1 to 64 lowercase letters, digits and dashes, not starting with a
    /// dash (so it is one file name, never a path).
    static func isValid(_ tenant: String) -> Bool {
        guard let first = tenant.utf8.first, first != UInt8(ascii: "-"), tenant.utf8.count <= 64 else { return false }
        return tenant.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "-")
        }
    }

    /// The store of `tenant` (a valid name).
    func storePath(of tenant: String) -> String {
        path + "/" + tenant + ".sqlite"
    }

    /// The stores in the folder now, in path order: what the startup fleet migrates.
    func storePaths() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { $0.hasSuffix(".sqlite") && Self.isValid(String($0.dropLast(".sqlite".count))) }
            .sorted()
            .map { path + "/" + $0 }
    }
}
