import ArgumentParser
import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// `lucidgen describe`: writes the descriptions of the tables an existing store has.
struct Describe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the descriptions of an existing store's tables, so that lucidgen adopts the store as it is.",
        discussion: """
            Reads the store (read-only) and writes one description per table into the descriptions' folder \
            (input_path of the config; .entities when the config does not exist yet, which is then written \
            too): each table with a one-column primary key becomes an entity at --schema-version, its name \
            and its columns' in snake_case with the store's spelling as persisted_name; each column a \
            property typed by its storage class (int, double, string, data; --type table.column=date for \
            what SQLite cannot tell apart, --type table.column=uuid for a BLOB of GRDB's UUIDs, \
            --type table.column=decimal for a TEXT column of GRDB's Decimals), nullable and default as the store has them; each one-column \
            foreign key to another described table's key a to-one relationship with its ON DELETE action; \
            each index an indexes item with its name; AUTOINCREMENT the identifier's.

            Then `lucidgen generate` and `lucidgen plan --database FILE` show the store recognised at that \
            version. A declared type other than a storage class's name (GRDB's BOOLEAN, DATETIME, DOUBLE) is \
            kept as column_type, a COLLATE as collation, an expression default (CURRENT_TIMESTAMP) as \
            { "sql": … }. What the descriptions cannot say as the store has it (an expression default outside \
            the accepted grammar, \
            a to-one column without a plain (not UNIQUE) index, a WITHOUT ROWID table, a key with a default) is listed as a warning: \
            the store is not recognised until it is resolved. The app's own objects (views, triggers, FTS \
            and other virtual tables with their shadow tables, grdb_migrations, tables without a one-column \
            key, and each --app-table) are listed and left to the app: every migration keeps them, as are tables \
            whose names (or a column's) are not identifiers, since a table's name is its description's file \
            name. Two tables whose names meet in snake_case (userId, user_id) become user_id and user_id_2. \
            Nothing is written that generate refuses: each description is checked as generate reads it first, \
            and a table whose description it would refuse (or with two indexes on the same columns) is the \
            app's, said with why; a store with no table to describe is refused, writing nothing. An \
            existing description is never replaced unless --force is given; every file is written or none.

            A history from the app's past layouts: give each store with its version, `--database \
            v1.sqlite=1.0 --database v2.sqlite=1.1`; several stores without versions are each at their \
            PRAGMA user_version N, as version N.0 (an app that numbers its layouts so; a user's store is then \
            recognised at its rung, and lucidgen never writes user_version). Each entity gets a version_history item at each version \
            whose store has its table; a column that appears later is added_at_version, one that disappears \
            removed_at_version, a changed type, nullability or default a type_history item. A renamed column is \
            never guessed: `--rename item.roomId=room_id@1.1` says that item's roomId is called room_id from 1.1 \
            on (a type_history item's persisted_name); without it, the two are a column removed and one added.
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp("The store file to describe; FILE=VERSION for each of several layouts (repeatable).", valueName: "file[=version]"))
    var database: [String]

    @Option(name: .customLong("rename"), help: ArgumentHelp("A column renamed between layouts, e.g. item.roomId=room_id@1.1 (repeatable).", valueName: "table.old=new@version"))
    var renames: [String] = []

    @Option(name: .customLong("schema-version"), help: ArgumentHelp("The version the store's tables are (default: current_version, else 1.0).", valueName: "version"))
    var schemaVersion: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("The config file (written when it does not exist).", valueName: "path"))
    var config: String = ".lucid.yaml"

    @Option(help: ArgumentHelp("The module name of a config written from scratch.", valueName: "name"))
    var module: String = "App"

    @Option(name: .customLong("type"), help: ArgumentHelp("The description type of a column SQLite cannot tell apart, e.g. item.purchased_at=date, item.token=uuid or item.price=decimal (repeatable).", valueName: "table.column=type"))
    var types: [String] = []

    @Option(name: .customLong("app-table"), help: ArgumentHelp("A table to leave to the app, undescribed (repeatable).", valueName: "table"))
    var appTables: [String] = []

    @Flag(help: "Replace descriptions that exist already.")
    var force = false

    /// What `describe` would write and print, decided before anything is written (``run()`` writes it).
    struct Described {
        /// The descriptions and, when there is none, the config.
        var writes: [FileTransaction.File]
        var output: StoreDescriber.Output
        /// The app's own objects the stores hold (views, triggers, virtual tables, `--app-table`).
        var appObjects: [(name: String, why: String)]
        /// Lines printed first (each store's rung).
        var lines: [String]
        var layouts: [StoreDescriber.Layout]
    }

    func run() throws {
        let described = try describe()
        for line in described.lines { print(line) }
        let output = described.output
        func printFindings() {
            for problem in output.warnings + output.problems { printError("warning: \(problem)\n") }
            for note in output.notes { print("note: \(note)") }
            for (name, why) in output.appTables + described.appObjects {
                // A name that is no identifier is shown quoted, so that an empty one or a line break is seen.
                print("the app's: \(Naming.problem(with: name) == nil ? name : String(reflecting: name)) (\(why)); kept by every migration")
            }
        }
        let stores = described.layouts.count == 1 ? displayPath(database[0]) : "\(described.layouts.count) stores"
        guard !output.entities.isEmpty else {
            // A config without descriptions is one `generate` refuses (its input_path is no folder): nothing at all.
            printFindings()
            printError("describe: no table of \(stores) is one lucidgen describes (each is the app's, listed above); nothing was written\n")
            throw ExitCodes.inputErrors
        }
        do {
            try FileTransaction.write(described.writes, replaceReason: "a description exists already (pass --force to replace it)")
        } catch {
            for (path, reason) in error.refused { printError("\(displayPath(path)): error: \(reason)\n") }
            printError("describe: nothing was written\n")
            throw ExitCodes.inputErrors
        }
        for file in described.writes { print("wrote    \(displayPath(file.path))") }
        printFindings()
        let at = described.layouts.map(\.version).sorted().map(\.string).joined(separator: ", ")
        let count = output.entities.count
        print("described \(count) table\(count == 1 ? "" : "s") of \(stores) at \(at)"
            + (output.problems.isEmpty ? "; next: `lucidgen generate`, then `lucidgen plan --database FILE` for each store"
                : "; \(output.problems.count) warning\(output.problems.count == 1 ? "" : "s"): the store is not recognised until they are resolved"))
    }

    /// Reads the stores and describes them, writing nothing: the files ``run()`` writes and what it prints.
    /// Every description is first loaded and resolved as `generate` does (beside a config like the one
    /// written): a table whose description `generate` would refuse is left to the app with the error, and
    /// the rest described again, so that `describe` never writes what `generate` refuses.
    func describe() throws -> Described {
        var hints: [String: String] = [:]
        for item in types {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].contains(".") else { throw ValidationError("--type \(item): expected table.column=type, e.g. item.purchased_at=date") }
            hints[sqlNameKey(parts[0])] = parts[1]
        }
        let configExists = FileManager.default.fileExists(atPath: config)
        var diagnostics = DiagnosticCollector()
        let existing = configExists ? try? Config.load(from: config, diagnostics: &diagnostics) : nil
        if configExists && existing == nil {
            printDiagnostics(diagnostics.diagnostics, verbose: false)
            throw ExitCodes.inputErrors
        }
        let version: SchemaVersion
        do {
            version = try SchemaVersion(parsing: schemaVersion ?? existing?.currentVersion?.string ?? "1.0")
        } catch {
            throw ValidationError("\(error)")
        }
        let inputFolder = existing?.inputPath ?? (((config as NSString).deletingLastPathComponent as NSString).appendingPathComponent(".entities"))

        var describer = StoreDescriber(typeHints: hints)
        for item in renames {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            let target = parts.count == 2 ? parts[1].split(separator: "@", maxSplits: 1).map(String.init) : []
            guard parts.count == 2, parts[0].contains("."), target.count == 2, let at = try? SchemaVersion(parsing: target[1]) else {
                throw ValidationError("--rename \(item): expected table.oldColumn=newColumn@version, e.g. item.roomId=room_id@1.1")
            }
            describer.renames[sqlNameKey(parts[0])] = (target[0], at)
        }
        var layouts: [StoreDescriber.Layout] = []
        var appObjects: [(name: String, why: String)] = []
        var lines: [String] = []
        // Several stores none of which says its version: each is at its rung, `PRAGMA user_version` N as version N.0
        // (FMDB, SQLite.swift and raw-SQL apps number their layouts so).
        let byUserVersion = database.count > 1 && !database.contains { $0.contains("=") }
        for item in database {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            let read = try Self.read(parts[0], appTables: Set(appTables.map { sqlNameKey($0) }))
            let at: SchemaVersion
            do {
                if byUserVersion {
                    guard read.userVersion > 0 else {
                        throw ValidationError("--database \(item): its user_version is 0, so it says no layout; give each store its version (FILE=VERSION)")
                    }
                    at = try SchemaVersion(parsing: "\(read.userVersion).0")
                    lines.append("\(displayPath(parts[0])): user_version \(read.userVersion), described at \(at)")
                } else {
                    at = parts.count == 2 ? try SchemaVersion(parsing: parts[1]) : version
                }
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError("--database \(item): \(error)")
            }
            guard !layouts.contains(where: { $0.version == at }) else { throw ValidationError("--database \(item): two stores at \(at)") }
            layouts.append(StoreDescriber.Layout(version: at, tables: read.tables))
            for object in read.appObjects where !appObjects.contains(where: { $0.name == object.0 }) { appObjects.append(object) }
        }
        guard let newest = layouts.map(\.version).max() else { throw ValidationError("give at least one --database") }
        describer.columnNaming = existing?.columnNaming ?? StoreDescriber.columnNaming(of: layouts)
        var output = describer.describe(layouts)
        // What generate would refuse is the app's, said with generate's own words: each round leaves at least one table more to the app.
        var refusedTables: [String: [String]] = [:]
        while let refused = Self.refusedByGenerate(output, version: newest, columnNaming: describer.columnNaming), !refused.isEmpty {
            for (entity, errors) in refused {
                guard let table = Self.table(of: entity, in: output) else { continue }
                refusedTables[table, default: []] += errors
                describer.leftToTheApp[sqlNameKey(table)] = "generate would refuse its description (\(errors.joined(separator: "; "))); leave it to the app, or describe it by hand"
            }
            let before = output.entities.count
            output = describer.describe(layouts)
            if output.entities.count >= before { break }
        }
        for (table, errors) in refusedTables.sorted(by: { $0.key < $1.key }) {
            output.warnings.append("table \(table): not described, since generate would refuse its description: \(errors.joined(separator: "; "))")
        }

        let files = output.entities.map { ((inputFolder as NSString).appendingPathComponent("\($0.name).json"), $0.json) }
        var writes = files.map { FileTransaction.File(path: $0.0, text: $0.1, mayReplace: force) }
        if !configExists {
            writes.append(FileTransaction.File(
                path: config, text: Self.newConfigText(inputFolder: inputFolder, version: newest.string, module: module, columnNaming: describer.columnNaming), mayReplace: false))
        }
        return Described(writes: writes, output: output, appObjects: appObjects, lines: lines, layouts: layouts)
    }

    /// The table an entity of `output` describes (its `persisted_name`, else its name).
    static func table(of entity: String, in output: StoreDescriber.Output) -> String? {
        guard let json = output.entities.first(where: { $0.name == entity })?.json,
            let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        else { return nil }
        return object["persisted_name"] as? String ?? entity
    }

    /// The errors `generate` gives for the descriptions of `output`, by entity (its file's name); nil when it
    /// accepts them. Loaded and resolved in a temporary folder beside a config like the one `describe` writes.
    static func refusedByGenerate(_ output: StoreDescriber.Output, version: SchemaVersion, columnNaming: ColumnNaming) -> [String: [String]]? {
        guard !output.entities.isEmpty else { return nil }
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("lucidgen-describe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let entities = (folder as NSString).appendingPathComponent(".entities")
        let configPath = (folder as NSString).appendingPathComponent(".lucid.yaml")
        do {
            try FileManager.default.createDirectory(atPath: entities, withIntermediateDirectories: true)
            for entity in output.entities {
                try Data(entity.json.utf8).write(to: URL(fileURLWithPath: (entities as NSString).appendingPathComponent("\(entity.name).json")))
            }
            try Data(newConfigText(inputFolder: entities, version: version.string, module: "App", columnNaming: columnNaming).utf8).write(to: URL(fileURLWithPath: configPath))
        } catch {
            return nil  // nothing to check with: the descriptions are written as they are
        }
        do {
            _ = try Resolver.resolve(try GeneratorPipeline(configPath: configPath).load())
            return nil
        } catch {
            var refused: [String: [String]] = [:]
            for diagnostic in error.errors {
                let file = diagnostic.location.map { ($0.file as NSString).lastPathComponent } ?? ""
                // An error of no one description (the config's): every entity is refused, so that none is written wrong.
                let names = file.hasSuffix(".json") ? [String(file.dropLast(5))] : output.entities.map(\.name)
                for name in names { refused[name, default: []].append(diagnostic.message + (diagnostic.path.map { " at \($0)" } ?? "")) }
            }
            return refused
        }
    }

    /// The config `describe` and `import` write when there is none: the descriptions' folder, the current
    /// version, the app target.
    static func newConfigText(inputFolder: String, version: String, module: String, columnNaming: ColumnNaming = .asNamed, stages: String = "") -> String {
        """
        input_path: \((inputFolder as NSString).lastPathComponent)
        current_version: "\(version)"\(columnNaming == .camelCase ? "\ncolumn_naming: camel_case" : "")
        targets:
          app:
            module_name: \(module)
            output_path: Sources/\(module)/Generated

        """ + stages
    }

    /// The store's tables lucidgen may describe (with their declared types, as the store reader keeps them),
    /// and the app's own objects.
    /// Whether the index names an expression (or the rowid) instead of columns.
    static func isExpressionIndex(_ name: String, _ db: Database) throws -> Bool {
        try Row.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [name]).contains { ($0["name"] as String?) == nil }
    }

    static func read(_ path: String, appTables: Set<String>) throws -> (tables: [SchemaTable], appObjects: [(String, String)], userVersion: Int) {
        guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("no store at \(path)") }
        try checkStoreFile(path)
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            let objects = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
            let virtual = objects.filter { ($0["sql"] as String? ?? "").range(of: "CREATE VIRTUAL TABLE", options: [.caseInsensitive, .anchored]) != nil }
                .map { sqlNameKey(($0["name"] as String)) }
            var tables: [SchemaTable] = []
            var appObjects: [(String, String)] = []
            for object in objects {
                let type: String = object["type"], name: String = object["name"]
                let lower = sqlNameKey(name)
                if lower.hasPrefix("sqlite_") || lower.hasPrefix("lucid_") { continue }
                switch type {
                case "table":
                    if virtual.contains(lower) {
                        appObjects.append((name, "a virtual table"))
                    } else if let owner = virtual.first(where: { lower.hasPrefix($0 + "_") }) {
                        appObjects.append((name, "a shadow table of \(owner)"))
                    } else if lower == "grdb_migrations" || appTables.contains(lower) {
                        appObjects.append((name, lower == "grdb_migrations" ? "GRDB's migrator's record" : "--app-table"))
                    } else {
                        tables.append(try StoreSchemaReader.table(named: name, db))
                    }
                case "index":
                    // A table's indexes are described with it (an automatic one has no SQL and no name to keep), but
                    // an index on an expression or a partial one has no words in a description: the app's.
                    let table: String = object["tbl_name"]
                    if try StoreSchemaReader.partialIndexNames(of: table, db).contains(name) {
                        appObjects.append((name, "a partial index (WHERE …), which a description cannot say"))
                    } else if try Self.isExpressionIndex(name, db) {
                        appObjects.append((name, "an index on an expression, which a description cannot say"))
                    }
                default:
                    appObjects.append((name, "a \(type)"))
                }
            }
            return (tables, appObjects, try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0)
        }
    }
}
