import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files from outside choose no path: a store's table names and a model's entity names are checked, never
/// joined to a folder; what `describe` and `import coredata` write is all written or none; what a user
/// names as an output (`--report`) is written in place when it is not a regular file; a property list or
/// model is read within bounds; `--database` and `--stores` name what they say.
@Suite struct FileTrustTests {
    /// A store with the tables of `sql` (one statement per item) at `path`.
    static func makeStore(_ path: String, _ sql: [String]) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in for statement in sql { try db.execute(sql: statement) } }
    }

    /// Every file under `root`, relative, sorted.
    static func files(under root: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        var found: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root.appendingPathComponent(relative).path, isDirectory: &isFolder),
                !isFolder.boolValue
            {
                found.append(relative)
            }
        }
        return found.sorted()
    }

    static func isFIFO(_ path: String) -> Bool { FileKind.at(path) == .special("a FIFO") }

    // MARK: describe

    /// Table names that are paths, hidden, empty, a line break, or too long: each table stays the app's
    /// (named, with the rename to make), and no file is written but the ordinary table's and the config,
    /// on a project's first `describe` (no `.entities` yet), whatever is beside the project.
    @Test func aTableNameChoosesNoPathDescribeWrites() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("file-trust-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let project = root.appendingPathComponent("a/b")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: root.appendingPathComponent("a/victim.json"))
        let long = "t" + String(repeating: "x", count: Naming.longestFileName)
        // Within the file name's bound as it is, beyond it in snake_case.
        let camelCaseLongOnlyInSnakeCase = "x" + String(repeating: "Yz", count: Naming.longestFileName / 3 + 4)
        let hostile = [
            "../../victim", "../victim2", "a/b", "/abs", ".hidden", "", "x\ny", "tab\tname", long, camelCaseLongOnlyInSnakeCase, "Ünïcode",
            "9lives", "dot.json",
        ]
        try Self.makeStore(
            project.appendingPathComponent("s.sqlite").path,
            ["CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)"]
                + hostile.map { "CREATE TABLE \(quoteIdentifier($0)) (id INTEGER PRIMARY KEY, x TEXT)" })
        let before = Self.files(under: root)

        let described = try run(lucidgenBinary, ["describe", "--database", "s.sqlite"], in: project)
        #expect(described.status == 0, "\(described.output)\(described.error)")
        #expect(
            Self.files(under: root) == (before + ["a/b/.entities/item.json", "a/b/.lucid.yaml"]).sorted(),
            "only the ordinary table's description and the config")
        #expect(try String(contentsOf: root.appendingPathComponent("a/victim.json"), encoding: .utf8) == "keep")
        for name in hostile {
            let shown = Naming.problem(with: name) == nil ? name : String(reflecting: name)
            #expect(
                described.output.contains(
                    "the app's: \(shown.replacingOccurrences(of: "\t", with: "\\t")) (its name is not one lucidgen manages"),
                "\(shown) in:\n\(described.output)")
        }
        #expect(
            described.output.contains(#"rename it in the app first (ALTER TABLE "../../victim" RENAME TO …), then describe again"#),
            "\(described.output)")
        #expect(described.output.contains("described 1 table of s.sqlite"), "\(described.output)")
        let generated = try run(lucidgenBinary, ["generate"], in: project)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let planned = try run(lucidgenBinary, ["plan", "--database", "s.sqlite"], in: project)
        #expect(planned.output.contains("s.sqlite: at version 1.0, the newest. Nothing to do."), "\(planned.output)\(planned.error)")
    }

    /// `userId` and `user_id` both make the entity name `user_id`: two descriptions, the table already so
    /// named keeping it, the other numbered, said in a warning; a to-one to the renamed one names it. Two
    /// columns so named are two properties the same way. The store is recognised as described.
    @Test func twoTablesWhoseNamesMeetInSnakeCaseStayTwo() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        try Self.makeStore(
            project.root.appendingPathComponent("s.sqlite").path,
            [
                #"CREATE TABLE "userId" (id INTEGER PRIMARY KEY, name TEXT, "ownerId" INTEGER, owner_id TEXT)"#,
                "CREATE TABLE user_id (id INTEGER PRIMARY KEY, owner INTEGER REFERENCES userId(id))",
                "CREATE INDEX user_id_on_owner ON user_id(owner)",
            ])
        let described = try run(lucidgenBinary, ["describe", "--database", "s.sqlite"], in: project.root)
        #expect(described.status == 0, "\(described.output)\(described.error)")
        #expect(
            described.error.contains(
                "warning: tables user_id and userId both make the entity name user_id: userId is described as user_id_2 (user_id_2.json, persisted_name userId)"
            ), "\(described.error)")
        #expect(
            described.error.contains(
                "warning: table userId: columns owner_id and ownerId both make the property name owner_id: ownerId is described as owner_id_2 (persisted_name ownerId)"
            ), "\(described.error)")
        let renamed = try project.read(".entities/user_id_2.json")
        #expect(
            renamed.contains(#"{ "name": "owner_id_2", "persisted_name": "ownerId", "property_type": "int", "nullable": true }"#),
            "\(renamed)")
        #expect(renamed.contains(#""name": "user_id_2""#) && renamed.contains(#""persisted_name": "userId""#), "\(renamed)")
        let kept = try project.read(".entities/user_id.json")
        #expect(kept.contains(#""name": "user_id""#) && !kept.contains(#""persisted_name""#), "\(kept)")
        #expect(kept.contains(#""entity_name": "user_id_2", "association": "to_one""#), "\(kept)")
        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let planned = try run(lucidgenBinary, ["plan", "--database", "s.sqlite"], in: project.root)
        #expect(planned.output.contains("s.sqlite: at version 1.0, the newest. Nothing to do."), "\(planned.output)\(planned.error)")
    }

    /// A description's place holding a FIFO: refused even with --force (a FIFO is no file describe made),
    /// and nothing else is written (neither the other description nor the config).
    @Test func aRefusedDescribeWritesNothing() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        try Self.makeStore(
            project.root.appendingPathComponent("s.sqlite").path,
            ["CREATE TABLE item (id INTEGER PRIMARY KEY)", "CREATE TABLE room (id INTEGER PRIMARY KEY)"])
        try FileManager.default.createDirectory(at: project.root.appendingPathComponent(".entities"), withIntermediateDirectories: true)
        let fifo = project.root.appendingPathComponent(".entities/item.json").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let refused = try run(lucidgenBinary, ["describe", "--database", "s.sqlite", "--force"], in: project.root)
        #expect(refused.status == 1, "\(refused.output)\(refused.error)")
        #expect(
            refused.error.contains(".entities/item.json: error: a FIFO, not a regular file: lucidgen writes none there"), "\(refused.error)"
        )
        #expect(refused.error.contains("describe: nothing was written"), "\(refused.error)")
        #expect(Self.isFIFO(fifo))
        #expect(!project.exists(".entities/room.json") && !project.exists(".lucid.yaml"))
    }

    // MARK: import coredata

    static func modelPackage(in folder: URL, entities: [String], currentVersion: Data? = nil, contents: String? = nil) throws -> URL {
        let package = folder.appendingPathComponent("Model.xcdatamodeld")
        let version = package.appendingPathComponent("Model.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        let xml =
            contents ?? """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                \(entities.map { "    <entity name=\"\($0)\" representedClassName=\"Item\" syncable=\"YES\">\n        <attribute name=\"title\" optional=\"YES\" attributeType=\"String\"/>\n    </entity>" }.joined(separator: "\n"))
                </model>
                """
        try Data(xml.utf8).write(to: version.appendingPathComponent("contents"))
        if let currentVersion { try currentVersion.write(to: package.appendingPathComponent(".xccurrentversion")) }
        return package
    }

    /// Entity names that are paths, a line break, hidden, or too long: refused at the entity's line in the
    /// model, and nothing is written (no `.entities`, no config, nothing beside the project).
    @Test func anEntityNameChoosesNoPathImportWrites() throws {
        let long = "E" + String(repeating: "x", count: Naming.longestFileName)
        for name in ["../Evil", "a/b", "/Abs", "Line&#10;Break", ".Hidden", "Ünïcode", long, "Dot.json"] {
            let root = try CoreDataImportTests.folder()
            defer { try? FileManager.default.removeItem(at: root) }
            let project = root.appendingPathComponent("project")
            try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
            _ = try Self.modelPackage(in: project, entities: ["Item", name])
            let before = Self.files(under: root)
            let refused = try run(lucidgenBinary, ["import", "coredata", "Model.xcdatamodeld", "--force"], in: project)
            #expect(refused.status == 1, "\(name): \(refused.output)\(refused.error)")
            #expect(refused.error.contains("Model.xcdatamodeld/Model.xcdatamodel/contents:6: error: entity "), "\(name): \(refused.error)")
            #expect(refused.error.contains("cannot name a description, whose file is its name in snake_case"), "\(name): \(refused.error)")
            #expect(refused.error.contains("import: nothing was written"), "\(name): \(refused.error)")
            #expect(Self.files(under: root) == before, "\(name): nothing written")
        }
        // A report that cannot be written is a usage error before anything is written.
        let folder = try CoreDataImportTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.modelPackage(in: folder, entities: ["Item"])
        let unreported = try run(lucidgenBinary, ["import", "coredata", "Model.xcdatamodeld", "--report", "missing/notes.md"], in: folder)
        #expect(
            unreported.status == 64 && unreported.error.contains("--report missing/notes.md: its folder missing does not exist"),
            "\(unreported.error)")
        #expect(Self.files(under: folder) == ["Model.xcdatamodeld/Model.xcdatamodel/contents"])
        // A stored property's name becomes a column's; a parent entity must be one of the model's.
        for (entity, error) in [
            (
                #"<entity name="Item"><attribute name="bad&#10;name" attributeType="String"/></entity>"#,
                #"contents:3: error: attribute "bad\nname" of entity Item cannot name a property"#
            ),
            (
                #"<entity name="Item"><relationship name="../up" destinationEntity="Item"/></entity>"#,
                #"contents:3: error: relationship "../up" of entity Item cannot name a property"#
            ),
            (
                #"<entity name="Item" parentEntity="../Evil"/>"#,
                #"contents:3: error: entity Item: its parent entity "../Evil" is not an entity of this model version"#
            ),
        ] {
            let folder = try CoreDataImportTests.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            _ = try Self.modelPackage(in: folder, entities: [], contents: "<?xml version=\"1.0\"?>\n<model>\n\(entity)\n</model>\n")
            let refused = try run(lucidgenBinary, ["import", "coredata", "Model.xcdatamodeld"], in: folder)
            #expect(refused.status == 1 && refused.error.contains(error), "\(refused.error)")
            #expect(Self.files(under: folder) == ["Model.xcdatamodeld/Model.xcdatamodel/contents"])
        }
    }

    /// A binary property list bomb in `.xccurrentversion` (each array holding the next twenty times: 20^19
    /// objects once decoded) is refused at once, as is a model nested deeper than any model.
    @Test func aPropertyListBombOrADeepModelIsRefusedUnread() throws {
        let folder = try CoreDataImportTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.modelPackage(in: folder, entities: ["Item"], currentVersion: BoundedPropertyListTests.bomb(levels: 20, width: 20))
        let bombed = try run(lucidgenBinary, ["import", "coredata", "Model.xcdatamodeld"], in: folder)
        #expect(bombed.status == 1, "\(bombed.output)\(bombed.error)")
        #expect(
            bombed.error.contains(
                "Model.xcdatamodeld/.xccurrentversion: error: a binary property list that decodes into more than 100000 objects"),
            "\(bombed.error)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".entities").path))

        let deep = try CoreDataImportTests.folder()
        defer { try? FileManager.default.removeItem(at: deep) }
        let nested = String(repeating: "<userInfo>", count: 100) + String(repeating: "</userInfo>", count: 100)
        _ = try Self.modelPackage(
            in: deep, entities: [], contents: "<?xml version=\"1.0\"?>\n<model>\n<entity name=\"Item\">\n\(nested)\n</entity>\n</model>\n")
        let refused = try run(lucidgenBinary, ["import", "coredata", "Model.xcdatamodeld"], in: deep)
        #expect(refused.status == 1, "\(refused.output)\(refused.error)")
        #expect(
            refused.error.contains("Model.xcdatamodel/contents:4: error: elements nested more than 32 deep: not an Xcode data model"),
            "\(refused.error)")
    }

    // MARK: Output files

    /// `--report` naming a FIFO, or a link to `/proc/self/fd/1` (what `/dev/stdout` is): written in place,
    /// the FIFO still a FIFO, the link still a link, the report on standard output after what was printed.
    @Test func aReportThatIsNoRegularFileIsWrittenInPlace() throws {
        let fleet = try FleetProject(rows: 5)
        defer { fleet.remove() }
        _ = try fleet.makeFleet(2)
        let fifo = fleet.path("report.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let toFIFO = try run(lucidgenBinary, ["migrate", "--stores", "tenants", "--report", "report.fifo"], in: fleet.root)
        #expect(toFIFO.status == 0, "\(toFIFO.output)\(toFIFO.error)")
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let count = read(reader, &buffer, buffer.count)
        #expect(count > 0 && String(decoding: buffer[..<max(count, 0)], as: UTF8.self).contains(#""newestVersion" : "3.0""#))
        #expect(Self.isFIFO(fifo))

        if FileManager.default.fileExists(atPath: "/proc/self/fd/1") {
            _ = try fleet.makeFleet(2)
            try FileManager.default.createSymbolicLink(atPath: fleet.path("stdout"), withDestinationPath: "/proc/self/fd/1")
            let toStandardOutput = try run(lucidgenBinary, ["migrate", "--stores", "tenants", "--report", "stdout"], in: fleet.root)
            #expect(toStandardOutput.status == 0, "\(toStandardOutput.output)\(toStandardOutput.error)")
            #expect(toStandardOutput.output.contains(#""newestVersion" : "3.0""#), "\(toStandardOutput.output)")
            #expect(
                toStandardOutput.output.contains("}\n2 stores: 2 migrated"),
                "what is printed after the report follows it: \(toStandardOutput.output)")
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: fleet.path("stdout"))) == "/proc/self/fd/1")
        }
    }

    /// A `--report` that cannot be written (its folder missing, or a folder) is a usage error before any
    /// store is migrated.
    @Test func anUnwritableReportIsFoundBeforeAnyStoreMigrates() throws {
        let fleet = try FleetProject(rows: 5)
        defer { fleet.remove() }
        let (paths, start) = try fleet.makeFleet(3)
        try FileManager.default.createDirectory(atPath: fleet.path("a-folder"), withIntermediateDirectories: true)
        for (report, problem) in [("missing/report.json", "its folder"), ("a-folder", "a folder, not a file")] {
            let refused = try run(lucidgenBinary, ["migrate", "--stores", "tenants", "--report", report], in: fleet.root)
            #expect(refused.status == 64, "\(report): \(refused.output)\(refused.error)")
            #expect(refused.error.contains("--report \(report): \(problem)"), "\(refused.error)")
            for path in paths { #expect(try fleet.check(path) == start[path], "\(path) untouched") }
        }
    }

    /// A folder whose name holds `[`, `*` or `?` is that folder; a glob below it matches in it.
    @Test func aFolderNamedLikeAGlobIsThatFolder() throws {
        let fleet = try FleetProject(rows: 5)
        defer { fleet.remove() }
        for folder in ["tenants [eu]", "tenants*", "tenants?"] {
            let (paths, _) = try fleet.makeFleet(2, folder: folder)
            let listed = try run(lucidgenBinary, ["status", "--stores", folder], in: fleet.root)
            #expect(listed.status == 0, "\(folder): \(listed.output)\(listed.error)")
            #expect(listed.output.hasPrefix("\(folder): 2 stores;"), "\(listed.output)")
            let globbed = try run(lucidgenBinary, ["migrate", "--stores", "\(folder)/*.sqlite"], in: fleet.root)
            #expect(globbed.status == 0, "\(folder): \(globbed.output)\(globbed.error)")
            for path in paths { #expect(try fleet.check(path) == "3.0", "\(path)") }
        }
    }

    /// `--database` naming a device, a FIFO or a folder: a usage error for every command that takes it, and
    /// no `-journal` beside it.
    @Test func aDatabaseThatIsNoRegularFileIsAUsageError() throws {
        let fleet = try FleetProject(rows: 5)
        defer { fleet.remove() }
        #expect(mkfifo(fleet.path("store.fifo"), 0o644) == 0)
        try FileManager.default.createDirectory(atPath: fleet.path("folder.sqlite"), withIntermediateDirectories: true)
        let journalBefore = FileManager.default.fileExists(atPath: "/dev/null-journal")
        for (database, what) in [
            ("/dev/null", "a character device, not a store file"), ("store.fifo", "a FIFO, not a store file"),
            ("folder.sqlite", "a folder, not a store file"),
        ] {
            for command in [["plan"], ["migrate"], ["status"], ["describe", "-c", "other.yaml"]] {
                let refused = try run(lucidgenBinary, command + ["--database", database], in: fleet.root)
                #expect(refused.status == 64, "\(command) \(database): \(refused.output)\(refused.error)")
                #expect(refused.error.contains("\(database): \(what)"), "\(command) \(database): \(refused.error)")
            }
        }
        #expect(FileManager.default.fileExists(atPath: "/dev/null-journal") == journalBefore)
        #expect(!FileManager.default.fileExists(atPath: fleet.path("store.fifo-journal")) && !fleet.project.exists("other.yaml"))
    }

    /// `fixtures -o X` refuses when `X.sha256` exists (as it refuses when X does): the checksum is kept.
    @Test func fixturesReplaceNoChecksum() throws {
        let fleet = try FleetProject(rows: 5)
        defer { fleet.remove() }
        try fleet.project.write("f.sqlite.sha256", "0000  f.sqlite\n")
        let refused = try run(lucidgenBinary, ["fixtures", "--output", "f.sqlite"], in: fleet.root)
        #expect(refused.status != 0, "\(refused.output)\(refused.error)")
        #expect(refused.error.contains("f.sqlite.sha256"), "\(refused.error)")
        #expect(try fleet.project.read("f.sqlite.sha256") == "0000  f.sqlite\n")
        #expect(!fleet.project.exists("f.sqlite"))
    }

    // MARK: The writers

    /// All or nothing: one refused target (a file that exists, a FIFO, a folder) and nothing is written,
    /// no folder made; else every file, with the usual permissions, and no temporary file left.
    @Test func aFileTransactionWritesEveryFileOrNone() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let root = project.root.path
        try project.write("taken.json", "mine")
        #expect(mkfifo(root + "/pipe.json", 0o644) == 0)
        try FileManager.default.createDirectory(atPath: root + "/folder.json", withIntermediateDirectories: true)
        let new = FileTransaction.File(path: root + "/new/deeper/a.json", text: "a", mayReplace: false)
        for (blocker, reason) in [
            ("taken.json", "exists already"), ("pipe.json", "a FIFO, not a regular file: lucidgen writes none there"),
            ("folder.json", "a folder, not a file"),
        ] {
            let before = Self.files(under: project.root)
            #expect(throws: FileTransaction.Refusal.self) {
                try FileTransaction.write([
                    new, FileTransaction.File(path: root + "/" + blocker, text: "b", mayReplace: blocker != "taken.json"),
                ])
            }
            #expect(
                FileTransaction.refusals([new, FileTransaction.File(path: root + "/" + blocker, text: "b", mayReplace: false)]).map(
                    \.reason) == [reason])
            #expect(Self.files(under: project.root) == before)
            #expect(!project.exists("new"))
        }
        try FileTransaction.write([new, FileTransaction.File(path: root + "/taken.json", text: "theirs", mayReplace: true)])
        #expect(try project.read("new/deeper/a.json") == "a" && project.read("taken.json") == "theirs")
        let mode = try FileManager.default.attributesOfItem(atPath: root + "/new/deeper/a.json")[.posixPermissions] as? Int
        let mask = umask(0)
        umask(mask)
        #expect(mode == 0o666 & ~Int(mask))
        #expect(Self.files(under: project.root).allSatisfy { !$0.contains(".lucid-") }, "\(Self.files(under: project.root))")
    }

    /// An output file: a regular file is replaced (through a link, the file it points to: the link stays),
    /// a FIFO written in place, a folder refused.
    @Test func anOutputFileIsReplacedOnlyWhenRegular() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let root = project.root.path
        try project.write("real.json", "old")
        try FileManager.default.createSymbolicLink(atPath: root + "/link.json", withDestinationPath: "real.json")
        try OutputFile.write(Data("new".utf8), to: root + "/link.json")
        #expect(try project.read("real.json") == "new")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/link.json")) == "real.json")
        #expect(mkfifo(root + "/pipe", 0o644) == 0)
        let reader = open(root + "/pipe", O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        try OutputFile.write(Data("through".utf8), to: root + "/pipe")
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(reader, &buffer, buffer.count)
        #expect(count == 7 && Self.isFIFO(root + "/pipe"))
        #expect(OutputFile.problem(writing: root) == "a folder, not a file")
        #expect(OutputFile.problem(writing: root + "/missing/x.json") == "its folder \(root)/missing does not exist")
    }
}

/// ``BoundedPropertyList``: what Foundation writes decodes the same; a shared-reference bomb, a cycle, a
/// damaged trailer, a deep or entity-declaring XML list, the text form are refused before decoding.
@Suite struct BoundedPropertyListTests {
    /// A `bplist00` whose object `k` is an array holding object `k + 1` `width` times; the last, an empty array.
    static func bomb(levels: Int, width: Int, cycle: Bool = false) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for level in 0..<levels {
            offsets.append(bytes.count)
            let last = level == levels - 1
            let count = last ? (cycle ? 1 : 0) : width
            if count < 15 { bytes.append(0xA0 | UInt8(count)) } else { bytes += [0xAF, 0x10, UInt8(count)] }
            bytes += [UInt8](repeating: UInt8(last ? 0 : level + 1), count: count)
        }
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1]
        for value in [levels, 0, table] { bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        return Data(bytes)
    }

    @Test func whatFoundationWritesDecodesTheSame() throws {
        let value: [String: Any] = [
            "_XCCurrentVersionName": "Model 2.xcdatamodel", "numbers": [1, 2.5, true], "nested": ["a": ["b": ["c": Data([1, 2, 3])]]],
            "long": (0..<100).map { "item \($0)" }, "date": Date(timeIntervalSince1970: 1_000_000),
        ]
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let data = try PropertyListSerialization.data(fromPropertyList: value, format: format, options: 0)
            let decoded = try BoundedPropertyList.decode(data) as? NSDictionary
            #expect(decoded == value as NSDictionary, "\(format)")
        }
        // XML without its header, as a store's metadata may hold it.
        #expect(try BoundedPropertyList.decode(Data("<plist><dict/></plist>".utf8)) as? NSDictionary == NSDictionary())
    }

    @Test func aBombACycleOrADamagedListIsRefused() throws {
        func refusal(_ data: Data, _ limits: BoundedPropertyList.Limits = .init()) -> String {
            do {
                _ = try BoundedPropertyList.decode(data, limits: limits)
                return "decoded"
            } catch {
                return error.description
            }
        }
        #expect(refusal(Self.bomb(levels: 20, width: 20)).hasPrefix("a binary property list that decodes into more than 100000 objects"))
        #expect((try? BoundedPropertyList.decode(Self.bomb(levels: 3, width: 20))) != nil, "421 objects decode")
        #expect(
            refusal(Self.bomb(levels: 3, width: 20), .init(objects: 400)).hasPrefix(
                "a binary property list that decodes into more than 400 objects"))
        #expect(refusal(Self.bomb(levels: 3, width: 2, cycle: true)) == "a binary property list whose object 0 contains itself")
        // Each array holding the next twice, 60 deep (within the nesting bound): 2^60 objects once decoded.
        #expect(
            refusal(Self.bomb(levels: 60, width: 2), .init(objects: 50_000)).hasPrefix(
                "a binary property list that decodes into more than 50000 objects"))
        #expect(refusal(Self.bomb(levels: 80, width: 1)) == "a binary property list nested more than 64 deep")
        var damaged = [UInt8](Self.bomb(levels: 3, width: 2))
        damaged[damaged.count - 1] = 0xFF // the offset table beyond the file
        #expect(refusal(Data(damaged)) == "a binary property list whose offset table is outside it")
        #expect(refusal(Data(repeating: 0x20, count: 2 << 20)) == "a property list of 2097152 bytes; at most 1048576 are read")
        let deep =
            "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: 100)
            + String(repeating: "</array>", count: 100) + "</plist>"
        #expect(refusal(Data(deep.utf8)) == "an XML property list nested more than 64 deep")
        let entities = "<?xml version=\"1.0\"?><!DOCTYPE plist [<!ENTITY a \"aaaa\">]><plist version=\"1.0\"><string>&a;</string></plist>"
        #expect(refusal(Data(entities.utf8)) == "an XML property list that declares entities")
        #expect(refusal(Data("{ _XCCurrentVersionName = x; }".utf8)) == "not an XML or binary property list")
    }

    /// The shared folder's Core Data stores (`../shared/realworld`, never committed): each `Z_METADATA`
    /// decodes within the default bounds as Foundation decodes it.
    @Test func realStoresMetadataDecodesWithinBounds() throws {
        guard let folder = realWorldFolder("", holding: "coredata", for: "BoundedPropertyListTests")?.path else { return }
        var checked = 0
        let enumerator = FileManager.default.enumerator(atPath: folder + "/coredata")
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".sqlite") else { continue }
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: folder + "/coredata/" + relative, configuration: configuration)
            defer { try? queue.close() }
            let blobs = try queue.read { db in
                try db.tableExists("Z_METADATA") ? try Data.fetchAll(db, sql: "SELECT Z_PLIST FROM Z_METADATA") : []
            }
            for blob in blobs {
                let bounded = try BoundedPropertyList.decode(blob, limits: .init(bytes: 16 << 20)) as? NSDictionary
                let unbounded = try PropertyListSerialization.propertyList(from: blob, format: nil) as? NSDictionary
                #expect(bounded != nil && bounded == unbounded, "\(relative)")
                checked += 1
            }
        }
        #expect(checked > 0)
    }
}
