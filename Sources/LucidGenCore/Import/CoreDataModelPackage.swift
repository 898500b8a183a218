import Foundation
import LucidSchema
import Yams

/// An `.xcdatamodeld` package: its model versions in the order the app shipped them, each with the
/// lucidgen version it becomes.
///
/// The order is never guessed: model names order by the numbers after their common stem, whatever the
/// package is called (`Model 2` before `Model 10`, `zmessaging1.27` before `zmessaging2.105.0`, `0.6.7` before
/// `0.6.10`), the stem alone first (Xcode's first version), two naming schemes with the scheme of
/// `.xccurrentversion` last, which must be the last version. Names that do not order so are an error that
/// writes the whole proposed version map (`--version-map`) to check, which then says the order and the names.
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
                throw CoreDataImportError(
                    location: currentPath, message: "\(error), not what Xcode writes here (an XML property list with _XCCurrentVersionName)"
                )
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
            if let current, !names.contains(current) {
                throw CoreDataImportError(location: currentPath, message: "names \(current).xcdatamodel, which the package does not have")
            }
            (ordered, basis) = try Self.nameOrder(names, current: current, path: path, currentPath: currentPath)
        }
        names = ordered.map(\.0)
        // Every version is read, so that all the unreadable ones are reported at once.
        var versions: [(CoreDataModel, SchemaVersion)] = []
        var unreadable: [CoreDataImportError] = []
        for (name, version) in ordered {
            let folder = (path as NSString).appendingPathComponent("\(name).xcdatamodel")
            let file = "\(name).xcdatamodel/contents"
            guard
                let data = try Self.contents(
                    of: (folder as NSString).appendingPathComponent("contents"), location: file, maxBytes: CoreDataModel.fileLimit)
            else {
                if FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("elements")) {
                    unreadable.append(
                        CoreDataImportError(
                            location: "\(name).xcdatamodel/elements",
                            message:
                                "this model version is in the legacy elements/layout format (Xcode 3), which lucidgen does not read: open the model in Xcode and save it (Xcode then writes a contents file), or leave the version out with --version-map"
                        ))
                } else {
                    unreadable.append(
                        CoreDataImportError(location: "\(name).xcdatamodel", message: "no contents file in this model version"))
                }
                continue
            }
            do {
                versions.append((try CoreDataModel.parse(data, name: name, file: file), version))
            } catch let error as CoreDataImportError {
                unreadable.append(error)
            }
        }
        if !unreadable.isEmpty { throw CoreDataImportRefusals(errors: unreadable) }
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
        case .special(let what), .other(let what):
            throw CoreDataImportError(location: location, message: "\(what), not a regular file: not read")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CoreDataImportError(location: location, message: "cannot be read")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxBytes + 1) ?? Data()
        } catch {
            throw CoreDataImportError(location: location, message: "cannot be read: \(error.localizedDescription)")
        }
        guard data.count <= maxBytes else {
            throw CoreDataImportError(
                location: location, message: "larger than \(maxBytes >> 10) KB, far beyond what Xcode writes here: not read")
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
            throw CoreDataImportError(
                location: path,
                message:
                    "expected a mapping of model version names to lucidgen versions, oldest first, e.g.\n  \"Model\": \"1.0\"\n  \"Model 2\": \"2.0\""
            )
        }
        var result: [(String, SchemaVersion)] = []
        for (key, value) in mapping {
            let line = key.mark.map { "\(path):\($0.line)" } ?? path
            guard var name = key.string, let text = value.string else {
                throw CoreDataImportError(location: line, message: "each item is \"model version name\": \"lucidgen version\"")
            }
            if name.hasSuffix(".xcdatamodel") { name = String(name.dropLast(".xcdatamodel".count)) }
            guard models.contains(name) else {
                throw CoreDataImportError(
                    location: line,
                    message: "the package has no model version '\(name)' (it has \(models.map { "'\($0)'" }.joined(separator: ", ")))")
            }
            let version: SchemaVersion
            do { version = try SchemaVersion(parsing: text) } catch {
                throw CoreDataImportError(
                    location: line, message: "'\(text)' is not a version (numbers with dots, at least two: 1.0, 2.3.1)")
            }
            if let last = result.last, !(last.1 < version) {
                throw CoreDataImportError(
                    location: line,
                    message:
                        "\(version.string) does not come after \(last.1.string): list the model versions oldest first, with growing versions"
                )
            }
            guard !result.contains(where: { $0.0 == name }) else {
                throw CoreDataImportError(location: line, message: "'\(name)' is listed twice")
            }
            result.append((name, version))
        }
        return result
    }

    /// A model version's name read as a naming scheme's stem and the number after it: `Model 2` is
    /// (`Model`, 2), `ArtsyFolio v2.5.1` (`ArtsyFolio`, 2.5.1), `zmessaging1.27` (`zmessaging`, 1.27), `0.6.7`
    /// (``, 0.6.7), `Model` (`Model`, none: the scheme's first version, as Xcode names it).
    struct VersionName {
        var name: String
        var stem: String
        var numbers: [Int]?

        init(_ name: String) {
            self.name = name
            var digits = Substring(String(name.reversed().prefix { $0.isASCII && ($0.isNumber || $0 == ".") }.reversed()))
            while digits.first == "." { digits = digits.dropFirst() }
            let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
            let numbers = parts.compactMap { $0.count <= 9 && !$0.isEmpty ? Int($0) : nil }
            guard !parts.isEmpty, numbers.count == parts.count else {
                (stem, self.numbers) = (name, nil)
                return
            }
            var stem = Substring(name.dropLast(digits.count))
            func trimSeparators() { while let last = stem.last, " _-.".contains(last) { stem = stem.dropLast() } }
            trimSeparators()
            // `v1.4`, `V2`: the v belongs to the number when it stands alone.
            if let last = stem.last, last == "v" || last == "V",
                stem.count == 1 || " _-".contains(stem[stem.index(before: stem.index(before: stem.endIndex))])
            {
                stem = stem.dropLast()
                trimSeparators()
            }
            (self.stem, self.numbers) = (String(stem), numbers)
        }

        /// The version the name says: its numbers (`2` is 2.0); a scheme's first version, without a number, is 1.0.
        var version: SchemaVersion {
            let numbers = numbers ?? [1]
            return try! SchemaVersion(parsing: (numbers.count == 1 ? numbers + [0] : numbers).map(String.init).joined(separator: "."))
        }
    }

    /// The order the names give, and what it rests on; an error with the whole proposed map when it is not
    /// certain. Within a naming scheme (a stem), the name alone is first (Xcode's first version) and the
    /// others follow by their numbers (`Model 2` before `Model 10`); a package with two schemes (`ArtsyPartner 5`,
    /// then `ArtsyFolio v1.4`) has the scheme of `.xccurrentversion` last. Not certain: two names with one
    /// number, a first version whose number (1) another name has or passes, more than two schemes or two
    /// without `.xccurrentversion`, a name alone that no other follows (another configuration's model?), or a
    /// current version that does not order last.
    package static func nameOrder(_ names: [String], current: String?, path: String, currentPath: String) throws -> (
        [(String, SchemaVersion)], String
    ) {
        let parsed = names.map(VersionName.init)
        var schemes: [[VersionName]] = []
        for name in parsed {
            if let index = schemes.firstIndex(where: { $0[0].stem == name.stem }) {
                schemes[index].append(name)
            } else {
                schemes.append([name])
            }
        }
        var doubts: [String] = []
        var notVersions: [String] = []
        for index in schemes.indices {
            schemes[index].sort { a, b in
                if (a.numbers == nil) != (b.numbers == nil) { return a.numbers == nil }
                return a.version == b.version ? a.name < b.name : a.version < b.version
            }
            let numbered = schemes[index].filter { $0.numbers != nil }
            for (earlier, later) in zip(numbered, numbered.dropFirst()) where earlier.version == later.version {
                doubts.append("'\(earlier.name)' and '\(later.name)' have the same number")
            }
            if let first = schemes[index].first, first.numbers == nil, let low = numbered.first(where: { $0.version <= first.version }) {
                doubts.append(
                    "'\(first.name)' (the first version by Xcode's naming, 1 by its name) and '\(low.name)' (\(low.version.string)) do not order by their names"
                )
            }
        }
        // The current version's scheme is the newest.
        if let current, let index = schemes.firstIndex(where: { $0.contains { $0.name == current } }) {
            schemes.append(schemes.remove(at: index))
        }
        if schemes.count > 1 {
            let lone = schemes.filter { $0.count == 1 && $0[0].numbers == nil && $0[0].name != current }
            for scheme in lone {
                notVersions.append(scheme[0].name)
                doubts.append(
                    "'\(scheme[0].name)' has no number and no other model version is named like it: is it another configuration's model rather than a version?"
                )
            }
            schemes.removeAll { scheme in lone.contains { $0[0].name == scheme[0].name } }
            if current == nil, schemes.count > 1 {
                doubts.append(
                    "the names follow \(schemes.count) naming schemes (\(schemes.map { "'\($0[0].stem)'" }.joined(separator: ", "))) and no .xccurrentversion says which is the newest"
                )
            } else if schemes.count > 2 {
                doubts.append(
                    "the names follow \(schemes.count) naming schemes (\(schemes.map { "'\($0[0].stem)'" }.joined(separator: ", "))): which came first is not in them"
                )
            }
        }
        let order = schemes.flatMap { $0 }
        let versions = Self.versions(for: schemes)
        let proposed = zip(order, versions).map { ($0.name, $1) }
        if let current, let last = proposed.last, last.0 != current, doubts.isEmpty {
            let after = proposed.drop { $0.0 != current }.dropFirst().map { "'\($0.0)'" }
            throw CoreDataImportError(
                location: currentPath,
                message:
                    "names '\(current)' as the current model version, but \(after.joined(separator: ", ")) \(after.count == 1 ? "orders" : "order") after it: "
                    + "which version did the app ship last? Write a version map (YAML, oldest first, leaving out versions the app never shipped) and pass it as --version-map FILE:\n"
                    + Self.mapText(proposed, leftOut: []))
        }
        if !doubts.isEmpty {
            throw CoreDataImportError(
                location: path,
                message: "the order of the model versions is not certain: " + doubts.joined(separator: "; ")
                    + ". Check this map (the order the names suggest), change what is wrong, and pass it as --version-map FILE (YAML, oldest first; leave out versions the app never shipped):\n"
                    + Self.mapText(proposed, leftOut: notVersions))
        }
        var basis = "the numbers in the model versions' names"
        if schemes.count > 1 {
            basis += ", two naming schemes ('\(schemes[0][0].stem)' then '\(schemes[1][0].stem)', the scheme of the current version last)"
        }
        basis += current == nil ? " (no .xccurrentversion)" : ", .xccurrentversion names the last"
        return (proposed, basis)
    }

    /// The versions of names in their order: the names' own numbers when they grow; else the newest scheme
    /// keeps its numbers and the older ones count 0.1, 0.2 … below it; else 1.0, 2.0 … in turn.
    static func versions(for schemes: [[VersionName]]) -> [SchemaVersion] {
        func growing(_ versions: [SchemaVersion]) -> Bool { zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 } }
        func own(_ scheme: [VersionName]) -> [SchemaVersion] {
            var versions = scheme.map(\.version)
            // A first version without a number before numbers from 1.0 down: 0.1 when that is below the next.
            if scheme.count > 1, scheme[0].numbers == nil, !(versions[0] < versions[1]), let low = try? SchemaVersion(parsing: "0.1"),
                low < versions[1]
            {
                versions[0] = low
            }
            return versions
        }
        let sequential = (1...max(schemes.joined().count, 1)).map { try! SchemaVersion(parsing: "\($0).0") }
        guard let newest = schemes.last else { return [] }
        let natural = schemes.flatMap(own)
        if growing(natural) { return natural }
        let older = schemes.dropLast().joined().count
        let counted = (0..<older).map { try! SchemaVersion(parsing: "0.\($0 + 1)") } + own(newest)
        if older > 0, growing(counted), growing(own(newest)) { return counted }
        return sequential
    }

    /// A version map's YAML, with the names left out as comments.
    static func mapText(_ map: [(String, SchemaVersion)], leftOut: [String]) -> String {
        (map.map { "  \"\($0.0)\": \"\($0.1.string)\"" } + leftOut.map { "  # \"\($0)\": left out (not a version?)" }).joined(
            separator: "\n")
    }
}
