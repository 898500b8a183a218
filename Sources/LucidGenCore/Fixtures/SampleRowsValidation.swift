import Foundation
@_spi(Generated) import LucidSchema

/// `lucidgen check` on the project's sample rows (`<input_path>/.samples/<version>.json`, seeded by the
/// generated tests beside the edge values: `LucidTesting.SampleRows`), without a store: each file is a
/// version's (a file the tests never read is worse than none), a JSON object of that version's tables,
/// each a list of rows by that table's columns, with every column the version requires. Each mistake is
/// an error at its line, with the name meant when it is a typo. What only SQLite can say (a key a seeded
/// row has, a CHECK, a foreign key) is the CLI's trial insertion of the files returned here.
package enum SampleRowsValidation {
    /// A sample rows file that passed the checks above.
    package struct File: Sendable {
        package var path: String
        package var version: SchemaVersion
        /// Where each table's rows are, by the table as the file names it and row index: for locating what SQLite refuses.
        package var rowLocations: [String: [SourceLocation]]
        /// Where each row is by its table (lower-cased) and primary key as SQLite's foreign key check names
        /// it (`id=1007`, `code='N1'`): for locating a row whose reference points nowhere.
        package var rowsByKey: [String: [String: SourceLocation]] = [:]
    }

    /// The diagnostics of every file in the samples folder, and the files without errors.
    package static func check(_ model: ResolvedModel) -> (diagnostics: [Diagnostic], files: [File]) {
        let folder = absolutePath(model.config.samplesPath)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else { return ([], []) }
        var diagnostics = DiagnosticCollector()
        guard isFolder.boolValue, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            diagnostics.error(
                "the samples path is not a folder: sample rows are files <version>.json in a folder (samples_path in .lucid.yaml, default <input_path>/.samples); none is read",
                at: SourceLocation(file: displayPath(folder), line: 1, column: 1))
            return (diagnostics.diagnostics, [])
        }
        var files: [File] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = (folder as NSString).appendingPathComponent(name)
            let display = displayPath(path)
            let stem = (name as NSString).deletingPathExtension
            let versions = model.versions.map(\.string).joined(separator: ", ")
            guard name.hasSuffix(".json"), let index = model.versions.firstIndex(where: { $0.string == stem }) else {
                let spelled = (try? SchemaVersion(parsing: stem)).flatMap { parsed in model.versions.first { $0 == parsed } }
                let hint =
                    spelled.map { "name it \($0.string).json (the generated tests read the file of \($0.string) by that name)" }
                    ?? "its rows are never seeded; name it <version>.json for one of the versions \(versions)"
                diagnostics.error(
                    "sample rows file '\(name)' is not named after a version of the history: \(hint)",
                    at: SourceLocation(file: display, line: 1, column: 1))
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
            let (locations, keys) = check(
                root, schema: model.schemas[index], values: ExpectedValues(model: model, version: model.versions[index]), into: &diagnostics
            )
            if diagnostics.diagnostics.count == before {
                files.append(File(path: path, version: model.versions[index], rowLocations: locations, rowsByKey: keys))
            }
        }
        return (diagnostics.diagnostics, files)
    }

    private static func check(
        _ root: JSONNode, schema: Schema, values expected: ExpectedValues, into diagnostics: inout DiagnosticCollector
    ) -> (locations: [String: [SourceLocation]], keys: [String: [String: SourceLocation]]) {
        let version = schema.version
        guard case .object(let tables) = root.value else {
            diagnostics.error(
                "expected a JSON object of \(version)'s tables, each a list of rows by column name; found \(root.kindName)",
                at: root.location, path: root.path)
            return ([:], [:])
        }
        var locations: [String: [SourceLocation]] = [:]
        var keys: [String: [String: SourceLocation]] = [:]
        for member in tables {
            // SQLite's names are case-insensitive (ASCII): `Note` is the table `note`.
            guard let table = schema.tables.first(where: { sameSQLName($0.name, member.key) }) else {
                let suggestion = KeySuggestion.nearest(to: member.key, among: schema.tableNames).map { "; did you mean '\($0)'?" } ?? ""
                diagnostics.error(
                    "version \(version) has no table '\(member.key)' (sample rows are written by table and column name as the version stores them)\(suggestion)",
                    at: member.keyLocation, path: member.value.path)
                continue
            }
            guard case .array(let rows) = member.value.value else {
                diagnostics.error(
                    "table '\(table.name)': expected a list of rows, found \(member.value.kindName)", at: member.value.location,
                    path: member.value.path)
                continue
            }
            let names = table.columns.map(\.name)
            // What SQLite fills by itself: a default, or the rowid of a single INTEGER PRIMARY KEY.
            let assigned =
                table.primaryKey.count == 1 && table.columns.first { $0.name == table.primaryKey[0] }?.type == .integer
                ? table.primaryKey[0] : nil
            let required = table.columns.filter { $0.notNull && $0.defaultSQL == nil && $0.name != assigned }.map(\.name)
            for row in rows {
                locations[member.key, default: []].append(row.location)
                guard case .object(let values) = row.value else {
                    diagnostics.error(
                        "table '\(table.name)': a row is an object of values by column name, found \(row.kindName)", at: row.location,
                        path: row.path)
                    continue
                }
                for value in values where !names.contains(where: { sameSQLName($0, value.key) }) {
                    let suggestion = KeySuggestion.nearest(to: value.key, among: names).map { "did you mean '\($0)'? " } ?? ""
                    diagnostics.error(
                        "table '\(table.name)' has no column '\(value.key)' at \(version); \(suggestion)its columns: \(names.joined(separator: ", "))",
                        at: value.keyLocation, path: value.value.path)
                }
                for value in values {
                    guard let column = table.columns.first(where: { sameSQLName($0.name, value.key) }) else { continue }
                    if let problem = expected.problem(with: value.value, column: column, table: table) {
                        diagnostics.error(
                            "table '\(table.name)', column '\(column.name)': \(problem)", at: value.value.location, path: value.value.path)
                    }
                }
                let keyParts = table.primaryKey.map { column -> String? in
                    guard let value = values.first(where: { sameSQLName($0.key, column) })?.value else { return nil }
                    switch value.value {
                    case .number(let text): return "\(column)=\(text)"
                    case .string(let text): return "\(column)=\(quoteLiteral(text))"
                    default: return nil
                    }
                }
                if !keyParts.isEmpty, keyParts.allSatisfy({ $0 != nil }) {
                    keys[sqlNameKey(table.name), default: [:]][keyParts.map { $0! }.joined(separator: ", ")] = row.location
                }
                let missing = required.filter { column in !values.contains { sameSQLName($0.key, column) } }
                if !missing.isEmpty {
                    let names = missing.map { "'\($0)'" }
                    let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!
                    diagnostics.error(
                        "table '\(table.name)': the row lacks \(list), which \(version) requires (NOT NULL without a default)",
                        at: row.location, path: row.path)
                }
            }
        }
        return (locations, keys)
    }

    /// What each column of a version's tables holds, from the property (or composite element) that makes it:
    /// the values a sample row may give it, as the generated records decode them.
    struct ExpectedValues {
        enum Kind: Equatable {
            case integer, bool, real, text, date, json
            /// A `uuid`: its text in the file, its 16 bytes in the store (`LucidTesting.SampleRows` converts it).
            case uuid
            /// A `decimal`: its text (or an integer) in the file, the text GRDB stores for it in the store
            /// (`LucidTesting.SampleRows` converts it).
            case decimal
            case enumeration(name: String, cases: [String])
            case storage(SchemaColumn.StorageType)
        }

        /// By table then column, lower-cased.
        var kinds: [String: [String: Kind]] = [:]

        init(model: ResolvedModel, version: SchemaVersion) {
            let subtypes = Dictionary(model.subtypes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            func kind(ofType name: String) -> Kind? {
                if let scalar = ScalarType(name: name) {
                    switch scalar {
                    case .int: return .integer
                    case .bool: return .bool
                    case .double, .float, .seconds, .milliseconds: return .real
                    case .string, .url, .color: return .text
                    case .date: return .date
                    case .data: return nil
                    case .uuid: return .uuid
                    case .decimal: return .decimal
                    }
                }
                guard let subtype = subtypes[name] else { return nil }
                switch subtype.kind {
                case .enumeration(let cases):
                    return .enumeration(name: name, cases: Array(Set(cases + subtype.caseHistory.map(\.name))).sorted())
                case .optionSet: return .integer
                case .structure: return .json
                }
            }
            for entity in model.entities {
                guard let shape = entity.shape(at: version) else { continue }
                var columns: [String: Kind] = [:]
                for property in shape.properties {
                    switch property.kind {
                    case .value:
                        if property.storedAsJSON {
                            columns[sqlNameKey(property.column)] = .json
                        } else if let kind = kind(ofType: property.typeDescription) {
                            columns[sqlNameKey(property.column)] = kind
                        }
                    case .composite(let composite):
                        for leaf in composite.leaves(optional: property.nullable) {
                            if let kind = kind(ofType: leaf.typeName) { columns[sqlNameKey(leaf.column)] = kind }
                        }
                    case .toOne, .toMany:
                        break
                    }
                }
                kinds[sqlNameKey(shape.tableName)] = columns
            }
        }

        /// Why `node` cannot be `column`'s value, or nil.
        func problem(with node: JSONNode, column: SchemaColumn, table: SchemaTable) -> String? {
            if case .null = node.value {
                return column.notNull ? "null in a column that is NOT NULL" : nil
            }
            let kind = kinds[sqlNameKey(table.name)]?[sqlNameKey(column.name)] ?? .storage(column.type)
            switch (kind, node.value) {
            case (.integer, .number(let text)), (.storage(.integer), .number(let text)):
                return Int64(text) == nil ? "\(text) is not an integer that fits in 64 bits" : nil
            case (.bool, .bool):
                return nil
            case (.bool, .number(let text)):
                return text == "0" || text == "1" ? nil : "\(text) is not a boolean: write true or false"
            case (.real, .number), (.storage(.real), .number):
                return nil
            case (.text, .string), (.storage(.text), .string), (.storage(.blob), .string), (.json, .string), (.json, .object),
                (.json, .array):
                return nil
            case (.date, .string(let text)):
                return Self.isDate(text)
                    ? nil
                    : "'\(text)' is not a date the records decode: write it as yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd HH:mm:ss.SSS (UTC), as GRDB stores dates"
            case (.date, .number):
                return nil
            case (.uuid, .string(let text)):
                return UUIDText.bytes(text) != nil
                    ? nil
                    : "'\(text)' is not a UUID: write its 32 hexadecimal digits as 8-4-4-4-12, e.g. \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\" (stored as its 16 bytes, as GRDB stores a UUID)"
            case (.decimal, .string(let text)):
                return DecimalText.stored(text) != nil
                    ? nil
                    : "'\(text)' is not a decimal number a Decimal holds exactly (digits with an optional sign, fraction and exponent, at most \(DecimalText.maximumDigits) significant digits)"
            case (.decimal, .number(let text)):
                return Int64(text) != nil
                    ? nil : "\(text) would be read as a Double: write a decimal with a fraction as a string, e.g. \"\(text)\""
            case (.enumeration(let name, let cases), .string(let text)):
                return cases.contains(text) ? nil : "'\(text)' is no case of \(name) (its cases: \(cases.joined(separator: ", ")))"
            default:
                return "expected \(Self.describe(kind)), found \(node.kindName)"
            }
        }

        static func describe(_ kind: Kind) -> String {
            switch kind {
            case .integer, .storage(.integer): "an integer"
            case .bool: "true or false"
            case .real, .storage(.real): "a number"
            case .text, .storage(.text): "a string"
            case .storage(.blob): "a string"
            case .date: "a date (a string such as \"2026-11-28 09:30:00\")"
            case .uuid: "a UUID (a string such as \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\")"
            case .decimal: "a decimal (a string such as \"12.50\", or an integer)"
            case .json: "a JSON object, array or string"
            case .enumeration(let name, let cases): "a case of \(name) (\(cases.joined(separator: ", ")))"
            }
        }

        /// GRDB's date formats: `yyyy-MM-dd`, with ` HH:mm`, `:ss` and `.SSS` (a `T` instead of the space too),
        /// and a real calendar day.
        static func isDate(_ text: String) -> Bool {
            let scalars = Array(text.unicodeScalars)
            func digits(_ range: Range<Int>) -> Int? {
                guard range.upperBound <= scalars.count,
                    range.allSatisfy({ scalars[$0].properties.numericType != nil && scalars[$0].isASCII })
                else { return nil }
                return Int(String(String.UnicodeScalarView(scalars[range])))
            }
            guard scalars.count >= 10, let year = digits(0..<4), scalars[4] == "-", let month = digits(5..<7), scalars[7] == "-",
                let day = digits(8..<10),
                (1...12).contains(month), day >= 1
            else { return false }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            guard day <= days else { return false }
            if scalars.count == 10 { return true }
            guard scalars[10] == " " || scalars[10] == "T", let hour = digits(11..<13), hour < 24, scalars.count >= 16, scalars[13] == ":",
                let minute = digits(14..<16), minute < 60
            else { return false }
            if scalars.count == 16 { return true }
            guard scalars.count >= 19, scalars[16] == ":", let second = digits(17..<19), second < 60 else { return false }
            if scalars.count == 19 { return true }
            guard scalars[19] == ".", scalars.count > 20, digits(20..<scalars.count) != nil else { return false }
            return true
        }
    }
}
