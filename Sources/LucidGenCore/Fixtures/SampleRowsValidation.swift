import Foundation
import LucidSchema

/// `lucidgen check` on the project's sample rows (`<input_path>/.samples/<version>.json`, seeded by the
/// generated tests beside the edge values: `LucidTesting.SampleRows`), without a store: each file is a
/// version's (a file the tests never read is worse than none), a JSON object of that version's tables,
/// each a list of rows by that table's columns, with every column the version requires. Each mistake is
/// an error at its line, with the name meant when it is a typo. What only SQLite can say (a key a seeded
/// row has, a CHECK, a foreign key) is the CLI's trial insertion of the files returned here.
public enum SampleRowsValidation {
    /// A sample rows file that passed the checks above.
    public struct File: Sendable {
        public var path: String
        public var version: SchemaVersion
        /// Where each table's rows are, by the table as the file names it and row index: for locating what SQLite refuses.
        public var rowLocations: [String: [SourceLocation]]
    }

    /// The diagnostics of every file in the samples folder, and the files without errors.
    public static func check(_ model: ResolvedModel) -> (diagnostics: [Diagnostic], files: [File]) {
        let folder = absolutePath(model.config.samplesPath)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return ([], []) }
        var diagnostics = DiagnosticCollector()
        var files: [File] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = (folder as NSString).appendingPathComponent(name)
            let display = displayPath(path)
            let stem = (name as NSString).deletingPathExtension
            let versions = model.versions.map(\.string).joined(separator: ", ")
            guard name.hasSuffix(".json"), let index = model.versions.firstIndex(where: { $0.string == stem }) else {
                let spelled = (try? SchemaVersion(parsing: stem)).flatMap { parsed in model.versions.first { $0 == parsed } }
                let hint = spelled.map { "name it \($0.string).json (the generated tests read the file of \($0.string) by that name)" }
                    ?? "its rows are never seeded; name it <version>.json for one of the versions \(versions)"
                diagnostics.error("sample rows file '\(name)' is not named after a version of the history: \(hint)", at: SourceLocation(file: display))
                continue
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                diagnostics.error("cannot read the sample rows file", at: SourceLocation(file: display))
                continue
            }
            let root: JSONNode
            do {
                root = try JSONParser.parse(Array(data), file: display)
            } catch {
                diagnostics.error(error.message, at: error.location)
                continue
            }
            let before = diagnostics.diagnostics.count
            let locations = check(root, schema: model.schemas[index], into: &diagnostics)
            if diagnostics.diagnostics.count == before {
                files.append(File(path: path, version: model.versions[index], rowLocations: locations))
            }
        }
        return (diagnostics.diagnostics, files)
    }

    private static func check(_ root: JSONNode, schema: Schema, into diagnostics: inout DiagnosticCollector) -> [String: [SourceLocation]] {
        let version = schema.version
        guard case .object(let tables) = root.value else {
            diagnostics.error("expected a JSON object of \(version)'s tables, each a list of rows by column name; found \(root.kindName)", at: root.location, path: root.path)
            return [:]
        }
        var locations: [String: [SourceLocation]] = [:]
        for member in tables {
            // SQLite's names are case-insensitive (ASCII): `Note` is the table `note`.
            guard let table = schema.tables.first(where: { sameSQLName($0.name, member.key) }) else {
                let suggestion = KeySuggestion.nearest(to: member.key, among: schema.tableNames).map { "; did you mean '\($0)'?" } ?? ""
                diagnostics.error("version \(version) has no table '\(member.key)' (sample rows are written by table and column name as the version stores them)\(suggestion)", at: member.keyLocation, path: member.value.path)
                continue
            }
            guard case .array(let rows) = member.value.value else {
                diagnostics.error("table '\(table.name)': expected a list of rows, found \(member.value.kindName)", at: member.value.location, path: member.value.path)
                continue
            }
            let names = table.columns.map(\.name)
            // What SQLite fills by itself: a default, or the rowid of a single INTEGER PRIMARY KEY.
            let assigned = table.primaryKey.count == 1 && table.columns.first { $0.name == table.primaryKey[0] }?.type == .integer ? table.primaryKey[0] : nil
            let required = table.columns.filter { $0.notNull && $0.defaultSQL == nil && $0.name != assigned }.map(\.name)
            for row in rows {
                locations[member.key, default: []].append(row.location)
                guard case .object(let values) = row.value else {
                    diagnostics.error("table '\(table.name)': a row is an object of values by column name, found \(row.kindName)", at: row.location, path: row.path)
                    continue
                }
                for value in values where !names.contains(where: { sameSQLName($0, value.key) }) {
                    let suggestion = KeySuggestion.nearest(to: value.key, among: names).map { "did you mean '\($0)'? " } ?? ""
                    diagnostics.error("table '\(table.name)' has no column '\(value.key)' at \(version); \(suggestion)its columns: \(names.joined(separator: ", "))", at: value.keyLocation, path: value.value.path)
                }
                let missing = required.filter { column in !values.contains { sameSQLName($0.key, column) } }
                if !missing.isEmpty {
                    let names = missing.map { "'\($0)'" }
                    let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!
                    diagnostics.error("table '\(table.name)': the row lacks \(list), which \(version) requires (NOT NULL without a default)", at: row.location, path: row.path)
                }
            }
        }
        return locations
    }
}
