import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting
import PropertyBased
import Testing

@testable import LucidGenCLI

/// `describe` never writes what `generate` refuses, and never drops a table silently:
/// random stores are described in process, and
///
/// - when describe writes descriptions, `generate` accepts them, and `plan` recognises the store at the
///   described version with nothing to do, unless describe warned (each warning names its table);
/// - every table of the store is an entity's, a link table of a to-many relationship, or listed as the app's
///   with why;
/// - when no table can be described, describe refuses and writes nothing at all (no config either).
///
/// Two kinds of stores: ones an app made by raw SQL, with the odd names and defaults an audit of 147 stores
/// found (`+5`, `.5`, `5.`, `007`, `1e999`, `((7))`, `1E5`, `-0`, `userId` beside `user_id`, `/`, quotes,
/// line breaks, unicode, very long names, `my"idx`); and the history explorer's, each release's fixture of a
/// random history with lucidgen's records removed (a store of unknown origin).
///
/// A fixed seed; any seed and count: `LUCIDGEN_DESCRIBE_SEED=<n> LUCIDGEN_DESCRIBE_COUNT=<n>
/// LUCIDGEN_DESCRIBE_HISTORIES=<n> swift test --filter DescribeProperty` (`LUCIDGEN_DESCRIBE_STATS=1` prints
/// what each store became, `LUCIDGEN_DESCRIBE_DUMP=<folder>` keeps the raw-SQL stores).
@Suite("DescribeProperty")
struct DescribePropertyTests {
    static let environment = ProcessInfo.processInfo.environment
    static let firstSeed = environment["LUCIDGEN_DESCRIBE_SEED"].flatMap(UInt64.init) ?? 1
    static let count = environment["LUCIDGEN_DESCRIBE_COUNT"].flatMap(Int.init) ?? 60
    static let histories = environment["LUCIDGEN_DESCRIBE_HISTORIES"].flatMap(Int.init) ?? 3

    @Test("stores an app made by SQL, with odd names and defaults", arguments: Array(firstSeed..<(firstSeed + UInt64(count))))
    func oddStore(seed: UInt64) throws {
        var generator = OddStoreGenerator(seed: seed)
        let statements = generator.statements()
        let project = try DescribeProject()
        defer { project.remove() }
        let queue = try DatabaseQueue(path: project.store)
        var made: [String] = []
        try queue.write { db in
            for statement in statements where (try? db.execute(sql: statement)) != nil { made.append(statement) }
        }
        try queue.close()
        // `LUCIDGEN_DESCRIBE_DUMP=<folder>` keeps a copy of each store (to try another lucidgen on them).
        if let folder = DescribePropertyTests.environment["LUCIDGEN_DESCRIBE_DUMP"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: project.store, toPath: (folder as NSString).appendingPathComponent("odd-\(seed).sqlite"))
        }
        for failure in try project.check() {
            Issue.record(Comment(rawValue: "seed \(seed): \(failure)\nThe store:\n" + made.map { "  \($0);" }.joined(separator: "\n")))
        }
    }

    @Test("the history explorer's stores, without lucidgen's records", arguments: Array(firstSeed..<(firstSeed + UInt64(histories))))
    func explorerStores(seed: UInt64) throws {
        var generator = HistoryGenerator(seed: seed, codeChanges: false)
        let history = generator.history()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-describe-history-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var outcome = Explorer.Outcome()
        guard try Explorer(history: history, fixtureRows: 2).playReleases(in: root, &outcome) != nil, outcome.failures.isEmpty else {
            Issue.record(Comment(rawValue: "seed \(seed): the history itself fails: \(outcome.failures)"))
            return
        }
        let fixtures = try FixtureFiles.list(in: root.appendingPathComponent("Tests/ExploredTests/Generated/Fixtures").path)
        #expect(!fixtures.isEmpty)
        // All of them at once, each at its version: one history, each store recognised at its version.
        let layouts = try DescribeProject()
        defer { layouts.remove() }
        var stores: [(path: String, version: SchemaVersion)] = []
        for fixture in fixtures {
            guard let version = FixtureFiles.version(inName: (fixture as NSString).lastPathComponent) else { continue }
            let copy = layouts.root.appendingPathComponent((fixture as NSString).lastPathComponent).path
            try FileManager.default.copyItem(atPath: fixture, toPath: copy)
            try Self.removeLucidTables(copy)
            stores.append((copy, version))
        }
        for failure in try layouts.checkLayouts(stores) {
            Issue.record(Comment(rawValue: "seed \(seed), every fixture as one history: \(failure)\nHistory:\n\(history)"))
        }
        for fixture in fixtures {
            let project = try DescribeProject()
            defer { project.remove() }
            try FileManager.default.copyItem(atPath: fixture, toPath: project.store)
            try Self.removeLucidTables(project.store)
            for failure in try project.check() {
                Issue.record(
                    Comment(rawValue: "seed \(seed), \((fixture as NSString).lastPathComponent): \(failure)\nHistory:\n\(history)"))
            }
        }
    }
}

extension DescribePropertyTests {
    /// lucidgen's records dropped: a store of unknown origin.
    static func removeLucidTables(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            for name in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'lucid\\_%' ESCAPE '\\'")
            {
                try db.execute(sql: "DROP TABLE \(quoteIdentifier(name))")
            }
        }
        try queue.close()
    }
}

/// A project folder without a config and one store, described in process.
struct DescribeProject {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-describe-\(UUID().uuidString)")
    var store: String { root.appendingPathComponent("store.sqlite").path }
    var configPath: String { root.appendingPathComponent(".lucid.yaml").path }

    init() throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// Describes the store, writes what describe writes, generates, plans: what breaks the property.
    func check() throws -> [String] {
        let reader = try DatabaseQueue(path: store)
        let tables = try reader.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
        }
        try reader.close()
        let command = try Describe.parse(["--database", store, "--config", configPath])
        let described = try command.describe()
        let output = described.output
        var failures: [String] = []
        let listed = Set((output.appTables.map(\.name) + described.appObjects.map(\.name)).map { sqlNameKey($0) })
        if output.entities.isEmpty {
            do {
                try command.run()
                failures.append("describe describes no table but did not refuse")
            } catch {}
            if FileManager.default.fileExists(atPath: configPath) { failures.append("describe refused but wrote \(configPath)") }
            for table in tables where !listed.contains(sqlNameKey(table)) {
                failures.append("table \(String(reflecting: table)) is neither described nor listed as the app's")
            }
            return failures
        }
        try FileTransaction.write(described.writes, replaceReason: "exists")
        // Every table: an entity's, a to-many's link table, or the app's (listed with why).
        var described_: Set<String> = []
        var toMany: [String] = []
        for entity in output.entities {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(entity.json.utf8)) as? [String: Any])
            let table = object["persisted_name"] as? String ?? entity.name
            described_.insert(sqlNameKey(table))
            for property in object["properties"] as? [[String: Any]] ?? [] {
                if let type = property["property_type"] as? [String: Any], type["association"] as? String == "to_many" {
                    toMany.append(sqlNameKey("\(table)_\(property["persisted_name"] as? String ?? property["name"] as! String)"))
                }
            }
        }
        for table in tables
        where !described_.contains(sqlNameKey(table)) && !listed.contains(sqlNameKey(table)) && !toMany.contains(sqlNameKey(table)) {
            failures.append("table \(String(reflecting: table)) is neither described nor listed as the app's (dropped silently)")
        }
        for warning in output.warnings + output.problems where !tables.contains(where: { warning.contains($0) }) {
            failures.append("a warning names no table: \(warning)")
        }
        let files = output.entities.map { "\($0.name).json:\n\($0.json)" }.joined(separator: "\n")
        let model: ResolvedModel
        do {
            model = try GeneratorPipeline(configPath: configPath).run(check: false).model
        } catch {
            return failures + [
                "generate refuses what describe wrote:\n" + error.diagnostics.map { "    \($0)" }.joined(separator: "\n") + "\n" + files
            ]
        }
        let refused = output.warnings.filter { $0.contains("generate would refuse") }
        if DescribePropertyTests.environment["LUCIDGEN_DESCRIBE_STATS"] == "1" {
            print(
                "describe-stats: tables \(tables.count) entities \(output.entities.count) app \(listed.count) problems \(output.problems.count) refused \(refused.count)"
            )
            for line in output.problems + refused { print("describe-finding: \(line)") }
        }
        // The check before writing is a net: what describe writes should need none of it.
        failures += refused.map { "describe wrote a description generate refuses (left to the app by the check): \($0)" }
        guard output.problems.isEmpty else { return failures } // describe said the store is not recognised until they are resolved
        let version = model.schemas[model.schemas.count - 1].version
        do {
            let resolved = try StoreCommandOptions.parse(["--config", configPath]).resolve()
            let (versions, stages) = (resolved.versions, resolved.stages)
            let status = try LucidStore.inspect(atPath: store, versions: versions, stages: stages)
            if status.start != .version(version, adopted: true) || status.needsMigration {
                failures.append(
                    "plan does not recognise the store at \(version) with nothing to do: \(status.start), steps \(status.steps.map(\.label))\n\(files)"
                )
            }
        } catch {
            failures.append("plan does not recognise the store: \(error)\n\(files)")
        }
        return failures
    }
}

extension DescribeProject {
    /// Describes several stores as the layouts of one history (`--database FILE=VERSION` each), writes,
    /// generates, and plans each: generate accepts the history, and each store is recognised at its version
    /// unless describe warned.
    func checkLayouts(_ stores: [(path: String, version: SchemaVersion)]) throws -> [String] {
        let command = try Describe.parse(stores.flatMap { ["--database", "\($0.path)=\($0.version)"] } + ["--config", configPath])
        let described = try command.describe()
        guard !described.output.entities.isEmpty else { return [] }
        try FileTransaction.write(described.writes, replaceReason: "exists")
        let files = described.output.entities.map { "\($0.name).json:\n\($0.json)" }.joined(separator: "\n")
        do {
            _ = try GeneratorPipeline(configPath: configPath).run(check: false)
        } catch {
            return [
                "generate refuses what describe wrote:\n" + error.diagnostics.map { "    \($0)" }.joined(separator: "\n") + "\n" + files
            ]
        }
        let refused = described.output.warnings.filter { $0.contains("generate would refuse") }
        guard described.output.problems.isEmpty, refused.isEmpty else {
            return refused.map { "describe wrote a description generate refuses (left to the app by the check): \($0)" }
        }
        var failures: [String] = []
        let resolved = try StoreCommandOptions.parse(["--config", configPath]).resolve()
        let (versions, stages) = (resolved.versions, resolved.stages)
        for store in stores {
            do {
                let status = try LucidStore.inspect(atPath: store.path, versions: versions, stages: stages)
                // Layouts with the same tables are recognised as the newest of them, which describe says.
                let same = described.output.warnings.contains { warning in
                    guard case .version(let version, true) = status.start, warning.hasPrefix("the stores at "),
                        let list = warning.split(separator: ":").first
                    else { return false }
                    let versions =
                        list.dropFirst("the stores at ".count).split(separator: " ").first.map { _ in
                            list.dropFirst("the stores at ".count).replacingOccurrences(of: " have the same tables", with: "").components(
                                separatedBy: ", ")
                        } ?? []
                    return versions.contains(store.version.string) && versions.contains(version.string)
                }
                if status.start != .version(store.version, adopted: true) && !same {
                    failures.append(
                        "\((store.path as NSString).lastPathComponent) is recognised as \(status.start), not \(store.version)\n\(files)")
                }
            } catch {
                failures.append("\((store.path as NSString).lastPathComponent) is not recognised: \(error)\n\(files)")
            }
        }
        return failures
    }
}

/// Raw SQL an app might have run: tables with odd names, columns with odd types and defaults, keys of
/// every shape, foreign keys, indexes with odd names. A statement SQLite refuses is left out of the store.
struct OddStoreGenerator {
    var rng: Xoshiro

    init(seed: UInt64) {
        var state = seed &* 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        rng = Xoshiro(seed: (next(), next(), next(), next()))
    }

    static let tableNames = [
        "item", "userId", "user_id", "Order", "select", "room", "roomId", "we\"ird", "a/b", "../victim", ".hidden", "line\nbreak", "Café",
        "has space",
        String(repeating: "long_table_", count: 8), String(repeating: "t", count: 210), "group", "Note", "note_tag",
    ]
    static let columnNames = [
        "name", "userId", "user_id", "my\"col", "Value", "value", "a b", "ünï", String(repeating: "c", count: 100), "count", "select",
        "group",
        "createdAt", "created_at", "body", "flag", "score", "oid",
    ]
    static let types = ["INTEGER", "REAL", "TEXT", "BLOB", "", "BOOLEAN", "DATETIME", "DOUBLE", "VARCHAR(20)", "NUMERIC", "INT"]
    static let defaults = [
        "+5", ".5", "5.", "007", "1e999", "((7))", "1E5", "-0", "0", "-7", "2.5", "5.0", "1", "'it''s'", "'a\nb'", "NULL", "null",
        "CURRENT_TIMESTAMP",
        "(datetime('now'))", "((1)+(2))", "'ünï ✈︎'", "X'00'", "TRUE", "''", "(-1)", "0.1", "1e300", "-1e+300", "9223372036854775807", "'5'",
        "(')')",
    ]
    static let indexNames = [
        "my\"idx", "idx with space", "idx\nline", "Ünï_idx", String(repeating: "i", count: 80), "by_value", "sqlite_autoindex_x",
    ]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Gen.int(in: range).run(using: &rng) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }

    mutating func statements() -> [String] {
        var statements: [String] = []
        var tables: [(name: String, key: String?)] = []
        for _ in 0..<int(1...4) {
            // Half the tables plainly named, so that most stores have something to describe.
            let name = chance(50) ? pick(["item", "room", "note", "tag", "person", "event"]) : pick(Self.tableNames)
            guard !tables.contains(where: { sqlNameKey($0.name) == sqlNameKey(name) }) else { continue }
            var definitions: [String] = []
            var columns: [String] = []
            var key: String?
            switch int(0...5) {
            case 0, 1:
                key = "id"
                definitions.append("\"id\" INTEGER PRIMARY KEY\(chance(30) ? " AUTOINCREMENT" : "")")
            case 2:
                key = "code"
                definitions.append("\"code\" TEXT PRIMARY KEY NOT NULL")
            case 3:
                key = "n"
                definitions.append("\"n\" INTEGER PRIMARY KEY\(chance(50) ? " AUTOINCREMENT" : "")")
            case 4:
                break // no key: the app's
            default:
                key = nil
                definitions.append("\"a\" INTEGER NOT NULL")
                definitions.append("\"b\" INTEGER NOT NULL")
                columns += ["a", "b"]
            }
            if let key { columns.append(key) }
            for _ in 0..<int(1...4) {
                let column = pick(Self.columnNames)
                guard !columns.contains(where: { sqlNameKey($0) == sqlNameKey(column) }) else { continue }
                columns.append(column)
                var definition = "\(quoteIdentifier(column)) \(pick(Self.types))"
                if chance(35) { definition += " NOT NULL" }
                if chance(55) { definition += " DEFAULT \(pick(Self.defaults))" }
                definitions.append(definition)
            }
            // A to-one: a column referencing an earlier table's key.
            var after: [String] = []
            let keyed = tables.filter { $0.key != nil }
            if !keyed.isEmpty, chance(40) {
                let target = pick(keyed)
                let column = "\(target.name.prefix(8))Ref"
                if !columns.contains(where: { sqlNameKey($0) == sqlNameKey(column) }) {
                    columns.append(column)
                    definitions.append(
                        "\(quoteIdentifier(column)) INTEGER\(chance(50) ? " NOT NULL" : "") REFERENCES \(quoteIdentifier(target.name))(\(quoteIdentifier(target.key!)))"
                            + (chance(50) ? " ON DELETE CASCADE" : ""))
                    if chance(80) {
                        after.append(
                            "CREATE INDEX \(quoteIdentifier("\(name)_on_\(column)")) ON \(quoteIdentifier(name))(\(quoteIdentifier(column)))"
                        )
                    }
                }
            }
            if key == nil && definitions.count >= 2 && definitions[0].hasPrefix("\"a\"") {
                definitions.append("PRIMARY KEY (\"a\", \"b\")")
            }
            statements.append("CREATE TABLE \(quoteIdentifier(name)) (\(definitions.joined(separator: ", ")))")
            statements += after
            tables.append((name, key))
            for _ in 0..<int(0...2) where columns.count > 1 {
                let column = pick(columns.filter { $0 != key })
                statements.append(
                    "CREATE \(chance(30) ? "UNIQUE " : "")INDEX \(quoteIdentifier(pick(Self.indexNames) + "\(int(0...9))")) ON \(quoteIdentifier(name))(\(quoteIdentifier(column)))"
                )
            }
            if chance(50) { statements.append("INSERT INTO \(quoteIdentifier(name)) DEFAULT VALUES") }
        }
        if chance(20) { statements.append("PRAGMA user_version = \(int(1...5))") }
        return statements
    }
}
