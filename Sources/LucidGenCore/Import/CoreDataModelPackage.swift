import Foundation
import LucidSchema
import Yams

/// An `.xcdatamodeld` package: its model versions in the order the app shipped them, each with the
/// lucidgen version it becomes.
///
/// The order is never guessed: model names order by their numbers (`Model 2` before `Model 10`, `zmessaging1.27`
/// before `zmessaging2.105.0`), the package's own name alone first (Xcode's first version), and
/// `.xccurrentversion` must name the last. Names that do not order so, or a current version that is not the
/// last, are an error asking for a version map (`--version-map`), which then says the order and the names.
package struct CoreDataModelPackage: Sendable {
    package var path: String
    /// Oldest first.
    package var versions: [(model: CoreDataModel, version: SchemaVersion)]
    /// What the order rests on, for the report (`numbers in the names, .xccurrentversion names the last`).
    package var orderBasis: String
    /// Model versions of the package the version map leaves out.
    package var skipped: [String]

    /// Reads the package at `path`, ordering it by `versionMap` (a YAML file) when given.
    package static func read(_ path: String, versionMap: String? = nil) throws -> CoreDataModelPackage {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            throw CoreDataImportError(location: path, message: "no model package here (an .xcdatamodeld folder)")
        }
        let packageName = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        var names = entries.filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }.sorted()
        if names.isEmpty {
            throw CoreDataImportError(location: path, message: "no model version (.xcdatamodel folder) in the package")
        }
        var current: String?
        let currentPath = (path as NSString).appendingPathComponent(".xccurrentversion")
        if let data = try Self.contents(of: currentPath, location: currentPath, maxBytes: Self.currentVersionFileLimit) {
            let plist: Any
            do {
                plist = try BoundedPropertyList.decode(data, limits: .init(bytes: Self.currentVersionFileLimit))
            } catch {
                throw CoreDataImportError(location: currentPath, message: "\(error), not what Xcode writes here (an XML property list with _XCCurrentVersionName)")
            }
            guard let name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String else {
                throw CoreDataImportError(location: currentPath, message: "not a property list with _XCCurrentVersionName")
            }
            current = name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
        }

        var ordered: [(String, SchemaVersion)]
        var basis: String
        var skipped: [String] = []
        if let versionMap {
            ordered = try Self.readMap(versionMap, models: names)
            skipped = names.filter { name in !ordered.contains { $0.0 == name } }
            basis = "the version map \(versionMap)"
        } else {
            ordered = try Self.numericOrder(names, packageName: packageName, path: path)
            basis = "the numbers in the model versions' names"
            if let current {
                guard names.contains(current) else {
                    throw CoreDataImportError(location: currentPath, message: "names \(current).xcdatamodel, which the package does not have")
                }
                if current != ordered.last!.0 {
                    let after = ordered.drop { $0.0 != current }.dropFirst().map { "'\($0.0)'" }
                    throw CoreDataImportError(
                        location: currentPath,
                        message: "names '\(current)' as the current model version, but \(after.joined(separator: ", ")) \(after.count == 1 ? "orders" : "order") after it: "
                            + "which version did the app ship last? Write a version map (YAML, oldest first, leaving out versions the app never shipped) and pass it as --version-map FILE:\n"
                            + ordered.map { "  \"\($0.0)\": \"\($0.1.string)\"" }.joined(separator: "\n"))
                }
                basis += ", .xccurrentversion names the last"
            } else {
                basis += " (no .xccurrentversion)"
            }
        }
        names = ordered.map(\.0)
        var versions: [(CoreDataModel, SchemaVersion)] = []
        for (name, version) in ordered {
            let folder = (path as NSString).appendingPathComponent("\(name).xcdatamodel")
            let file = "\(name).xcdatamodel/contents"
            guard let data = try Self.contents(of: (folder as NSString).appendingPathComponent("contents"), location: file, maxBytes: CoreDataModel.fileLimit) else {
                if FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("elements")) {
                    throw CoreDataImportError(
                        location: "\(name).xcdatamodel/elements",
                        message: "this model version is in the legacy elements/layout format (Xcode 3), which lucidgen does not read: open the model in Xcode and save it (Xcode then writes a contents file), or leave the version out with --version-map")
                }
                throw CoreDataImportError(location: "\(name).xcdatamodel", message: "no contents file in this model version")
            }
            versions.append((try CoreDataModel.parse(data, name: name, file: file), version))
        }
        return CoreDataModelPackage(path: path, versions: versions, orderBasis: basis, skipped: skipped)
    }

    /// `.xccurrentversion` is a few hundred bytes: a larger one is no file Xcode wrote.
    static let currentVersionFileLimit = 64 << 10

    /// The bytes of a file of the package, or nil when there is none. Only a regular file of at most
    /// `maxBytes` is read: a FIFO would block the import, a device read without end.
    static func contents(of path: String, location: String, maxBytes: Int) throws(CoreDataImportError) -> Data? {
        switch FileKind.at(path) {
        case .missing: return nil
        case .regular: break
        case .folder: throw CoreDataImportError(location: location, message: "a folder, where the package has a file")
        case .special(let what), .other(let what): throw CoreDataImportError(location: location, message: "\(what), not a regular file: not read")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CoreDataImportError(location: location, message: "cannot be read") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxBytes + 1) ?? Data()
        } catch {
            throw CoreDataImportError(location: location, message: "cannot be read: \(error.localizedDescription)")
        }
        guard data.count <= maxBytes else {
            throw CoreDataImportError(location: location, message: "larger than \(maxBytes >> 10) KB, far beyond what Xcode writes here: not read")
        }
        return data
    }

    /// `"Model 2": "2.0"` items, oldest first.
    static func readMap(_ path: String, models: [String]) throws -> [(String, SchemaVersion)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CoreDataImportError(location: path, message: "cannot read the version map")
        }
        let node: Node?
        do { node = try Yams.compose(yaml: text) } catch {
            throw CoreDataImportError(location: path, message: "not YAML: \(error)")
        }
        guard let mapping = node?.mapping, !mapping.isEmpty else {
            throw CoreDataImportError(location: path, message: "expected a mapping of model version names to lucidgen versions, oldest first, e.g.\n  \"Model\": \"1.0\"\n  \"Model 2\": \"2.0\"")
        }
        var result: [(String, SchemaVersion)] = []
        for (key, value) in mapping {
            let line = key.mark.map { "\(path):\($0.line)" } ?? path
            guard var name = key.string, let text = value.string else {
                throw CoreDataImportError(location: line, message: "each item is \"model version name\": \"lucidgen version\"")
            }
            if name.hasSuffix(".xcdatamodel") { name = String(name.dropLast(".xcdatamodel".count)) }
            guard models.contains(name) else {
                throw CoreDataImportError(location: line, message: "the package has no model version '\(name)' (it has \(models.map { "'\($0)'" }.joined(separator: ", ")))")
            }
            let version: SchemaVersion
            do { version = try SchemaVersion(parsing: text) } catch {
                throw CoreDataImportError(location: line, message: "'\(text)' is not a version (numbers with dots, at least two: 1.0, 2.3.1)")
            }
            if let last = result.last, !(last.1 < version) {
                throw CoreDataImportError(location: line, message: "\(version.string) does not come after \(last.1.string): list the model versions oldest first, with growing versions")
            }
            guard !result.contains(where: { $0.0 == name }) else {
                throw CoreDataImportError(location: line, message: "'\(name)' is listed twice")
            }
            result.append((name, version))
        }
        return result
    }

    /// The names ordered by the numbers after the package's name: `Wikipedia` (1.0), `Wikipedia 2` (2.0),
    /// `zmessaging1.27` (1.27). Throws when a name has no such number or two names share one.
    static func numericOrder(_ names: [String], packageName: String, path: String) throws -> [(String, SchemaVersion)] {
        var numbered: [(String, [Int])] = []
        var unordered: [String] = []
        for name in names {
            if name == packageName { numbered.append((name, [1])); continue }
            var rest = Substring(name)
            guard rest.hasPrefix(packageName) else { unordered.append(name); continue }
            rest = rest.dropFirst(packageName.count)
            while let first = rest.first, first == " " || first == "_" || first == "-" || first == "v" || first == "V" { rest = rest.dropFirst() }
            let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
            let numbers = parts.compactMap { part in part.count <= 9 && !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } ? Int(part) : nil }
            guard !parts.isEmpty, numbers.count == parts.count else { unordered.append(name); continue }
            numbered.append((name, numbers))
        }
        func version(_ numbers: [Int]) -> SchemaVersion {
            try! SchemaVersion(parsing: (numbers.count == 1 ? numbers + [0] : numbers).map(String.init).joined(separator: "."))
        }
        if !unordered.isEmpty {
            throw CoreDataImportError(
                location: path,
                message: "\(unordered.map { "'\($0)'" }.joined(separator: ", ")) \(unordered.count == 1 ? "is" : "are") not '\(packageName)' followed by a number, so the order of the model versions is not certain: write a version map (YAML, oldest first) and pass it as --version-map FILE:\n"
                    + names.map { "  \"\($0)\": \"?\"" }.joined(separator: "\n"))
        }
        let sorted = numbered.map { ($0.0, version($0.1)) }.sorted { $0.1 < $1.1 }
        for (earlier, later) in zip(sorted, sorted.dropFirst()) where earlier.1 == later.1 {
            throw CoreDataImportError(
                location: path,
                message: "'\(earlier.0)' and '\(later.0)' have the same number, so their order is not certain: write a version map (YAML, oldest first) and pass it as --version-map FILE")
        }
        return sorted
    }
}
