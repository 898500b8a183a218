import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// Committed fixture stores: single-file SQLite databases written by `lucidgen fixtures` at a release,
/// named `<Module>_<version>.sqlite`, each with a `.sha256` file in `sha256sum` format. The generated
/// tests migrate every one of them, so a store written by an old release keeps being tested after the
/// code that wrote it has changed.
public enum FixtureFiles {
    /// The fixture folder beside a generated test file (pass `#filePath`).
    public static func folder(besideFile file: String) -> String {
        ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent("Fixtures")
    }

    /// The `.sqlite` files in `folder`, oldest version first (by the version in the name, then by name).
    /// A file whose name has no version is listed too (first), so that the test run for it reports it
    /// (``namingProblem(at:)``) instead of leaving it out.
    public static func list(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".sqlite") }
            .sorted { first, second in
                switch (version(inName: first), version(inName: second)) {
                case (let a?, let b?): (a, first) < (b, second)
                case (nil, nil): first < second
                case (nil, _?): true
                case (_?, nil): false
                }
            }
            .map { (folder as NSString).appendingPathComponent($0) }
    }

    /// Why a fixture's name is wrong, or nil: it must end in its version (`FlightLog_2_1.sqlite`).
    public static func namingProblem(at path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        guard version(inName: name) == nil else { return nil }
        return "its name has no version: fixtures are named <Module>_<version>.sqlite (e.g. \(fileName(module: "App", version: SchemaVersion("1.0")))), as `lucidgen fixtures` writes them"
    }

    /// `FlightLog_2_1.sqlite` for module `FlightLog` at 2.1.
    public static func fileName(module: String, version: SchemaVersion) -> String {
        "\(module)_\(version.identifierSuffix).sqlite"
    }

    /// `FlightLog_2_1.sqlite` → 2.1.
    public static func version(inName name: String) -> SchemaVersion? {
        let stem = (name as NSString).deletingPathExtension
        let parts = stem.split(separator: "_").reversed().prefix { $0.allSatisfy(\.isNumber) }.reversed()
        guard !parts.isEmpty else { return nil }
        return try? SchemaVersion(parsing: parts.joined(separator: "."))
    }

    /// The hex SHA-256 of a file.
    package static func checksum(ofFileAt path: String) throws -> String {
        // In chunks: a fixture of millions of rows is never held in memory whole.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hasher = SHA256.Hasher()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update([UInt8](chunk)) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Writes `<path>.sha256` (`<hex>  <file name>`, as `sha256sum` writes it).
    package static func writeChecksum(forFileAt path: String) throws {
        let line = "\(try checksum(ofFileAt: path))  \((path as NSString).lastPathComponent)\n"
        try line.write(toFile: path + ".sha256", atomically: true, encoding: .utf8)
    }

    /// Why a fixture cannot be trusted, or nil: its checksum file is missing or disagrees with it.
    public static func checksumProblem(at path: String) -> String? {
        guard let text = try? String(contentsOfFile: path + ".sha256", encoding: .utf8) else {
            return "it has no checksum file \((path as NSString).lastPathComponent).sha256 (write fixtures with `lucidgen fixtures`)"
        }
        let recorded = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).first.map(String.init) ?? ""
        guard let actual = try? checksum(ofFileAt: path) else { return "it cannot be read" }
        if recorded.lowercased() != actual {
            return "it changed after it was written (SHA-256 \(actual), its .sha256 file says \(recorded)); a fixture is a file an old release wrote and must not be edited"
        }
        return nil
    }
}
