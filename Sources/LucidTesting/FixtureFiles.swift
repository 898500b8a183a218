import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// Committed fixture stores: single-file SQLite databases written by `lucidgen fixtures` at a release,
/// named `<Module>_<version>.sqlite`, each with a `.sha256` file in `sha256sum` format. The generated
/// tests migrate every one of them, so a store written by an old release keeps being tested after the
/// code that wrote it has changed.
///
/// Finding nothing never passes: a folder that cannot be listed fails the generated tests, and so does
/// each released version without its fixture (``missingFixture(module:version:in:)``).
@_spi(Generated) public enum FixtureFiles {
    /// The fixture folder beside a generated test file (pass `#filePath`).
    public static func folder(besideFile file: String) -> String {
        ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent("Fixtures")
    }

    /// The path at `relativePath` from the folder of `file` (the generated tests pass `#filePath`).
    public static func path(besideFile file: String, relativePath: String) -> String {
        (((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(relativePath) as NSString).standardizingPath
    }

    /// Why the fixture stores could not be listed.
    public struct ListingError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// One case of the generated fixture test: a fixture store, or the reason none could be listed (then
    /// the case fails, where an empty list would have passed).
    public struct Case: Sendable, CustomStringConvertible {
        let listed: Result<String, ListingError>

        /// The fixture store's path, or the listing error.
        public var path: String {
            get throws(ListingError) { try listed.get() }
        }

        public var description: String {
            switch listed {
            case .success(let path): (path as NSString).lastPathComponent
            case .failure: "the fixture folder"
            }
        }
    }

    /// The cases of the generated fixture test. No folder is no case only while no version is released
    /// (a new project has no fixtures yet); a missing folder once versions were released, or one that
    /// cannot be read, is one failing case.
    public static func cases(in folder: String, releasedVersions: [String]) -> [Case] {
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), releasedVersions.isEmpty { return [] }
        do {
            return try list(in: folder).map { Case(listed: .success($0)) }
        } catch {
            return [Case(listed: .failure(error))]
        }
    }

    /// The `.sqlite` files in `folder`, oldest version first (by the version in the name, then by name).
    /// A file whose name has no version is listed too (first), so that the test run for it reports it
    /// (``namingProblem(at:)``) instead of leaving it out. Throws when `folder` is missing, is no folder,
    /// or cannot be read.
    public static func list(in folder: String) throws(ListingError) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw ListingError(
                description:
                    "there is no fixture folder at \(folder): the committed fixture stores of released versions belong there, beside the generated test file (if the test file moved, move its Fixtures folder with it; if the folder was deleted, restore it from version control)"
            )
        }
        guard isFolder.boolValue else {
            throw ListingError(description: "\(folder) is not a folder: the committed fixture stores belong in a folder of that name")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw ListingError(description: "the fixture folder \(folder) cannot be read: \(error.localizedDescription)")
        }
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

    /// Whether the schema snapshot at `path` (`.entities/.schema/<version>.json`) is marked released by
    /// `lucidgen release` (false when it does not exist or cannot be read).
    public static func isMarkedReleased(snapshotAt path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return false }
        return object["released"] as? Bool == true
    }

    /// What is wrong when a released version has no fixture store in `folder`, or nil: the file to restore
    /// and how.
    public static func missingFixture(module: String, version: SchemaVersion, in folder: String) -> String? {
        let path = (folder as NSString).appendingPathComponent(fileName(module: module, version: version))
        guard !FileManager.default.fileExists(atPath: path) else { return nil }
        return
            "version \(version) was released, but its fixture store \(path) is missing: restore it with its .sha256 from version control "
            + "(git checkout -- '\(path)' '\(path).sha256'), or, if it was never written, check out the commit of the release and run "
            + "`lucidgen fixtures --schema-version \(version)`; a fixture is a store that release wrote, which every later release must migrate"
    }

    /// Why a fixture's name is wrong, or nil: it must end in its version (`FlightLog_2_1.sqlite`).
    public static func namingProblem(at path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        guard version(inName: name) == nil else { return nil }
        return
            "its name has no version: fixtures are named <Module>_<version>.sqlite (e.g. \(fileName(module: "App", version: SchemaVersion("1.0")))), as `lucidgen fixtures` writes them"
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
            return
                "it changed after it was written (SHA-256 \(actual), its .sha256 file says \(recorded)); a fixture is a file an old release wrote and must not be edited"
        }
        return nil
    }
}
