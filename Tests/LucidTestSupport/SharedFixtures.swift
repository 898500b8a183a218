import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidSchema
import Testing

/// Generated Swift with its layout left out, for tests that look for a piece of code wherever the generator
/// wraps it: whitespace runs are one space, none after an opening or before a closing bracket, and no trailing
/// comma before a closing bracket.
package func layoutFree(_ text: String) -> String {
    var result = ""
    var pendingSpace = false
    for character in text {
        if character.isWhitespace { pendingSpace = true; continue }
        if character == ")" || character == "]" {
            if result.hasSuffix(",") { result.removeLast() }
        } else if pendingSpace, !(result.last == "(" || result.last == "[") {
            result.append(" ")
        }
        pendingSpace = false
        result.append(character)
    }
    return result
}

/// Making a folder read-only for this process, proven by failing to create a file in it.
package enum ReadOnlyFolder {
    package static let canBeMade: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("read-only-probe-\(UUID().uuidString)").path
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer {
            undo(probe)
            try? FileManager.default.removeItem(atPath: probe)
        }
        return make(probe)
    }()

    /// Permissions first, then `chattr +i`; true once a file can no longer be created in the folder.
    package static func make(_ path: String) -> Bool {
        func refusesFiles() -> Bool {
            let file = (path as NSString).appendingPathComponent("probe")
            if FileManager.default.createFile(atPath: file, contents: Data()) {
                try? FileManager.default.removeItem(atPath: file)
                return false
            }
            return true
        }
        try? FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: path)
        if refusesFiles() { return true }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr"), (try? run("/usr/bin/chattr", ["+i", path]))?.status == 0
        else { return false }
        return refusesFiles()
    }

    package static func undo(_ path: String) {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr") { _ = try? run("/usr/bin/chattr", ["-i", path]) }
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }
}

/// A project of four versions and its stores at three of them, as a folder of tenants.
package struct FleetProject {
    /// 1.0 → 1.1 → 2.0 → 3.0: a column becomes required, a type converts int → string, a rename, added columns.
    package static let entity = """
        {
            "name": "item",
            "identifier": { "type": "int" },
            "version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "2.0" }, { "version": "3.0" }],
            "properties": [
                { "name": "name", "property_type": "string" },
                { "name": "note", "property_type": "string", "default_value": "",
                  "type_history": [{ "until_version": "1.1", "nullable": true, "default_value": null }] },
                { "name": "score", "property_type": "string", "type_history": [{ "until_version": "2.0", "property_type": "int" }] },
                { "name": "label", "property_type": "string", "nullable": true, "previous_name": "title", "renamed_at_version": "2.0" },
                { "name": "tag", "property_type": "int", "default_value": 5, "added_at_version": "1.1" },
                { "name": "rank", "property_type": "int", "default_value": 0, "added_at_version": "3.0" }
            ]
        }
        """
    package static let starts = ["1.0", "1.1", "2.0"]

    package let project: TestProject
    package let rows: Int
    /// One store per starting version, to copy from.
    package let templates: [String: String]

    package init(rows: Int = 50) throws {
        project = try TestProject(
            files: [".entities/item.json": Self.entity], config: TestProject.defaultConfig + "\ncurrent_version: \"3.0\"\n")
        self.rows = rows
        var templates: [String: String] = [:]
        for version in Self.starts {
            let path = project.root.appendingPathComponent("template-\(version).store").path
            let made = try run(
                lucidgenBinary, ["fixtures", "--schema-version", version, "--rows", "\(rows)", "--output", path], in: project.root)
            #expect(made.status == 0, "\(made.error)")
            templates[version] = path
        }
        self.templates = templates
    }

    package var root: URL { project.root }
    package func path(_ relative: String) -> String { project.root.appendingPathComponent(relative).path }
    package func remove() { project.remove() }

    /// `count` stores `tenants/t0000.sqlite`… at 1.0, 1.1 and 2.0 in turn (a fresh folder); their paths
    /// relative to the project (sorted) and starting versions.
    package func makeFleet(_ count: Int, folder: String = "tenants") throws -> (paths: [String], start: [String: String]) {
        try? FileManager.default.removeItem(atPath: path(folder))
        try FileManager.default.createDirectory(atPath: path(folder), withIntermediateDirectories: true)
        var start: [String: String] = [:]
        for index in 0..<count {
            let version = Self.starts[index % Self.starts.count]
            let relative = "\(folder)/" + String(format: "t%04d.sqlite", index)
            try FileManager.default.copyItem(atPath: templates[version]!, toPath: path(relative))
            start[relative] = version
        }
        return (start.keys.sorted(), start)
    }

    package func versions() throws -> [Schema] {
        try Resolver.resolve(try GeneratorPipeline(configPath: project.configPath).load()).schemas
    }

    /// The recorded version, after `integrity_check`; the rows (`rows`, or the project's) must all be there.
    package func check(_ relative: String, rows: Int? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> String {
        let rows = rows ?? self.rows
        let database = try DatabaseQueue(path: path(relative))
        defer { try? database.close() }
        return try database.read { db in
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"], "\(relative)", sourceLocation: sourceLocation)
            #expect(
                try Int.fetchOne(db, sql: "SELECT count(*) FROM item") == rows, "\(relative): no row lost", sourceLocation: sourceLocation)
            return try String.fetchOne(db, sql: "SELECT version FROM lucid_store") ?? "?"
        }
    }

    /// The `--report` file.
    package func report(_ relative: String) throws -> Report {
        try JSONDecoder().decode(Report.self, from: Data(contentsOf: root.appendingPathComponent(relative)))
    }

    package struct Report: Decodable {
        package var stores: String
        package var newestVersion: String
        package var total: Int
        package var stoppedEarly: String?
        package var counts: [String: Int]
        package var results: [Entry]

        package struct Entry: Decodable {
            package var path: String
            package var versionBefore: String?
            package var versionAfter: String?
            package var steps: [String]
            package var durationSeconds: Double
            package var outcome: String
            package var error: String?
            package var nextStep: String?
        }

        package func entry(_ path: String) -> Entry? { results.first { $0.path == path } }
    }
}

/// Releases the current version (1.0) of `project` and makes `entity`'s description (`description`, with `old`
/// replaced by `new`) the next one, 1.1; generates (as a process) and returns the resolved versions.
package func releaseNext(
    _ project: TestProject, _ entity: String, _ description: String, replacing old: String, with new: String,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws -> [Schema] {
    try project.write(
        ".lucid.yaml",
        try project.read(".lucid.yaml").replacingOccurrences(of: #"current_version: "1.0""#, with: #"current_version: "1.1""#))
    #expect(description.contains(old), "\(old) in \(description)", sourceLocation: sourceLocation)
    try project.write(
        ".entities/\(entity).json",
        description
            .replacingOccurrences(
                of: #""version_history": [{ "version": "1.0" }]"#, with: #""version_history": [{ "version": "1.0" }, { "version": "1.1" }]"#
            )
            .replacingOccurrences(of: old, with: new))
    let generated = try run(lucidgenBinary, ["generate"], in: project.root)
    #expect(generated.status == 0, "\(generated.output)\(generated.error)", sourceLocation: sourceLocation)
    return try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
}

/// An entity `track` (or `name`) with an int key, the given versions and properties: the lint and command tests' model.
package func trackDescription(
    _ properties: String, history: String = #"{ "version": "1.0" }, { "version": "2.0" }"#, name: String = "track", extra: String = ""
) -> String {
    """
    {
        "name": "\(name)",
        "identifier": { "type": "int" },\(extra)
        "version_history": [\(history)],
        "properties": [
            \(properties)
        ]
    }
    """
}

/// A string property `title`.
package let titleProperty = #"{ "name": "title", "property_type": "string" }"#

/// The Core Data models the importer's tests and the compiled import read.
package enum CoreDataModels {
    /// The Shop model's store as Core Data writes it.
    package static let shopDDL = """
        CREATE TABLE ZCUSTOMER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAVATAR BLOB, ZEMAIL VARCHAR, ZHOMEPAGE VARCHAR, ZJOINED TIMESTAMP, ZLOYALTY DECIMAL, ZNAME VARCHAR, ZPREFS BLOB, ZTOKEN BLOB );
        CREATE TABLE ZORDER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNUMBER INTEGER, ZCUSTOMER INTEGER, ZPLACED TIMESTAMP, ZTOTAL FLOAT );
        CREATE TABLE ZPRODUCT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSKU VARCHAR, ZTITLE VARCHAR );
        CREATE TABLE Z_2ITEMS ( Z_2ORDERS INTEGER, Z_3ITEMS INTEGER, Z_FOK_3ITEMS INTEGER, PRIMARY KEY (Z_2ORDERS, Z_3ITEMS) );
        CREATE INDEX ZORDER_ZCUSTOMER_INDEX ON ZORDER (ZCUSTOMER);
        CREATE INDEX Z_2ITEMS_Z_3ITEMS_INDEX ON Z_2ITEMS (Z_3ITEMS, Z_2ORDERS);
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
        INSERT INTO Z_METADATA VALUES (1, '3E1F5D8C-0000-4000-8000-000000000001', X'62706C6973743030');
        """
    package static let shop = repositoryRoot.appendingPathComponent("Tests/LucidGenCoreTests/CoreData/Shop.xcdatamodeld")

    /// The shared histories' folder: `LUCIDGEN_COREDATA_HISTORIES`, else `../shared/coredata` beside the repository,
    /// else the team machine's `/work/shared/coredata`; nil (and said) when absent.
    package static let sharedHistories: URL? = {
        let candidates = [
            ProcessInfo.processInfo.environment["LUCIDGEN_COREDATA_HISTORIES"].map { URL(fileURLWithPath: $0) },
            repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/coredata"),
            URL(fileURLWithPath: "/work/shared/coredata"),
        ].compactMap { $0 }
        let found = candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("wikipedia-ios").path) }
        if found == nil {
            print(
                "CoreDataImportTests: the shared Core Data histories are absent (looked in \(candidates.map(\.path).joined(separator: ", "))): the tests of real histories check nothing"
            )
        }
        return found
    }()

    package static var wikipedia: URL? { sharedHistories?.appendingPathComponent("wikipedia-ios/Wikipedia.xcdatamodeld") }
    package static var httpsUpgrade: URL? { sharedHistories?.appendingPathComponent("duckduckgo-ios/HTTPSUpgrade.xcdatamodeld") }

    /// Wikipedia's model versions by number.
    package static let wikipediaMap = (1...8).map { "\"Wikipedia\($0 == 1 ? "" : " \($0)")\": \"\($0).0\"" }.joined(separator: "\n") + "\n"

    package static let realWorld = realWorldFolder("", holding: "coredata", for: "CoreDataHistoryTests")

    /// A model package of the shared real-world files, or nil when they are absent.
    package static func history(_ folder: String, _ package: String) -> URL? {
        realWorld?.appendingPathComponent("coredata/\(folder)/\(package)")
    }
}

/// What the injection tests try to smuggle into generated code: a member through a line break in a doc
/// comment, and an interpolation that would run.
package enum InjectionPayloads {
    package static let pwned =
        "x\n    public static var databaseSelection: [any GRDB.SQLSelectable] { Swift.print(\"PWNED\"); return [GRDB.AllColumns()] }\n    /// y"
    package static let trap = ##"\#({ () -> Swift.String in Swift.fatalError(Swift.String(0xDEAD_BEEF)) }())"##

    /// `text` as a JSON string literal.
    package static func json(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]), as: UTF8.self)
    }
}
