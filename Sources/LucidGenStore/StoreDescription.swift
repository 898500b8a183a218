import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// `lucidgen describe`'s work: reads existing stores and decides the descriptions (and, when there is none,
/// the config) that describe them, writing nothing.
package enum StoreDescription {
    /// What `describe` is asked: its command line, as values.
    package struct Options: Sendable {
        /// The store files, each `FILE` or `FILE=VERSION`.
        package var databases: [String]
        /// Columns renamed between layouts, each `table.old=new@version`.
        package var renames: [String] = []
        package var schemaVersion: String?
        package var config = ".lucid.yaml"
        /// The module name of a config written from scratch.
        package var module = "App"
        /// Description types SQLite cannot tell apart, each `table.column=type`.
        package var types: [String] = []
        package var appTables: [String] = []
        /// Whether existing descriptions may be replaced.
        package var force = false

        package init(databases: [String]) {
            self.databases = databases
        }
    }

    /// What `describe` would write and print, decided before anything is written.
    package struct Described {
        /// The descriptions and, when there is none, the config.
        package var writes: [FileTransaction.File]
        package var output: StoreDescriber.Output
        /// The app's own objects the stores hold (views, triggers, virtual tables, `--app-table`).
        package var appObjects: [(name: String, why: String)]
        /// Lines printed first (each store's rung).
        package var lines: [String]
        package var layouts: [StoreDescriber.Layout]
    }

    /// Reads the stores and describes them, writing nothing: the files `describe` writes and what it prints.
    /// Every description is first loaded and resolved as `generate` does (beside a config like the one
    /// written): a table whose description `generate` would refuse is left to the app with the error, and
    /// the rest described again, so that `describe` never writes what `generate` refuses.
    package static func describe(_ options: Options) throws -> Described {
        let (database, renames, schemaVersion, config, module, types, appTables, force) = (
            options.databases, options.renames, options.schemaVersion, options.config, options.module, options.types, options.appTables,
            options.force
        )
        var hints: [String: String] = [:]
        for item in types {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].contains(".") else {
                throw StoreWorkError.usage("--type \(item): expected table.column=type, e.g. item.purchased_at=date")
            }
            hints[sqlNameKey(parts[0])] = parts[1]
        }
        let configExists = FileManager.default.fileExists(atPath: config)
        var diagnostics = DiagnosticCollector()
        let existing = configExists ? try? Config.load(from: config, diagnostics: &diagnostics) : nil
        if configExists && existing == nil { throw StoreWorkError.input(diagnostics.diagnostics) }
        let version: SchemaVersion
        do {
            version = try SchemaVersion(parsing: schemaVersion ?? existing?.currentVersion?.string ?? "1.0")
        } catch {
            throw StoreWorkError.usage("\(error)")
        }
        let inputFolder =
            existing?.inputPath ?? (((config as NSString).deletingLastPathComponent as NSString).appendingPathComponent(".entities"))

        var describer = StoreDescriber(typeHints: hints)
        for item in renames {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            let target = parts.count == 2 ? parts[1].split(separator: "@", maxSplits: 1).map(String.init) : []
            guard parts.count == 2, parts[0].contains("."), target.count == 2, let at = try? SchemaVersion(parsing: target[1]) else {
                throw StoreWorkError.usage("--rename \(item): expected table.oldColumn=newColumn@version, e.g. item.roomId=room_id@1.1")
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
                        throw StoreWorkError.usage(
                            "--database \(item): its user_version is 0, so it says no layout; give each store its version (FILE=VERSION)")
                    }
                    at = try SchemaVersion(parsing: "\(read.userVersion).0")
                    lines.append("\(displayPath(parts[0])): user_version \(read.userVersion), described at \(at)")
                } else {
                    at = parts.count == 2 ? try SchemaVersion(parsing: parts[1]) : version
                }
            } catch let error as StoreWorkError {
                throw error
            } catch {
                throw StoreWorkError.usage("--database \(item): \(error)")
            }
            guard !layouts.contains(where: { $0.version == at }) else {
                throw StoreWorkError.usage("--database \(item): two stores at \(at)")
            }
            layouts.append(StoreDescriber.Layout(version: at, tables: read.tables))
            for object in read.appObjects where !appObjects.contains(where: { $0.name == object.0 }) { appObjects.append(object) }
        }
        guard let newest = layouts.map(\.version).max() else { throw StoreWorkError.usage("give at least one --database") }
        describer.columnNaming = existing?.columnNaming ?? StoreDescriber.columnNaming(of: layouts)
        var output = describer.describe(layouts)
        // What generate would refuse is the app's, said with generate's own words: each round leaves at least one table more to the app.
        var refusedTables: [String: [String]] = [:]
        while let refused = Self.refusedByGenerate(output, version: newest, columnNaming: describer.columnNaming), !refused.isEmpty {
            for (entity, errors) in refused {
                guard let table = Self.table(of: entity, in: output) else { continue }
                refusedTables[table, default: []] += errors
                describer.leftToTheApp[sqlNameKey(table)] =
                    "generate would refuse its description (\(errors.joined(separator: "; "))); leave it to the app, or describe it by hand"
            }
            let before = output.entities.count
            output = describer.describe(layouts)
            if output.entities.count >= before { break }
        }
        for (table, errors) in refusedTables.sorted(by: { $0.key < $1.key }) {
            output.warnings.append(
                "table \(table): not described, since generate would refuse its description: \(errors.joined(separator: "; "))")
        }

        let files = output.entities.map { ((inputFolder as NSString).appendingPathComponent("\($0.name).json"), $0.json) }
        var writes = files.map { FileTransaction.File(path: $0.0, text: $0.1, mayReplace: force) }
        if !configExists {
            writes.append(
                FileTransaction.File(
                    path: config,
                    text: Self.newConfigText(
                        inputFolder: inputFolder, version: newest.string, module: module, columnNaming: describer.columnNaming),
                    mayReplace: false))
        }
        return Described(writes: writes, output: output, appObjects: appObjects, lines: lines, layouts: layouts)
    }

    /// The table an entity of `output` describes (its `persisted_name`, else its name).
    package static func table(of entity: String, in output: StoreDescriber.Output) -> String? {
        guard let json = output.entities.first(where: { $0.name == entity })?.json,
            let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        else { return nil }
        return object["persisted_name"] as? String ?? entity
    }

    /// The errors `generate` gives for the descriptions of `output`, by entity (its file's name); nil when it
    /// accepts them. Loaded and resolved in a temporary folder beside a config like the one `describe` writes.
    package static func refusedByGenerate(_ output: StoreDescriber.Output, version: SchemaVersion, columnNaming: ColumnNaming) -> [String:
        [String]]?
    {
        guard !output.entities.isEmpty else { return nil }
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("lucidgen-describe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let entities = (folder as NSString).appendingPathComponent(".entities")
        let configPath = (folder as NSString).appendingPathComponent(".lucid.yaml")
        do {
            try FileManager.default.createDirectory(atPath: entities, withIntermediateDirectories: true)
            for entity in output.entities {
                try Data(entity.json.utf8).write(
                    to: URL(fileURLWithPath: (entities as NSString).appendingPathComponent("\(entity.name).json")))
            }
            try Data(newConfigText(inputFolder: entities, version: version.string, module: "App", columnNaming: columnNaming).utf8).write(
                to: URL(fileURLWithPath: configPath))
        } catch {
            return nil // nothing to check with: the descriptions are written as they are
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
                // A message naming another place ("already used by …/item.json:6:5") names describe's own unwritten file, not this folder.
                let message = diagnostic.message.replacingOccurrences(of: entities + "/", with: "describe's ")
                for name in names { refused[name, default: []].append(message + (diagnostic.path.map { " at \($0)" } ?? "")) }
            }
            return refused
        }
    }

    /// The config `describe` and `import` write when there is none: the descriptions' folder, the current
    /// version, the app target.
    package static func newConfigText(
        inputFolder: String, version: String, module: String, columnNaming: ColumnNaming = .asNamed, stages: String = ""
    ) -> String {
        """
        input_path: \((inputFolder as NSString).lastPathComponent)
        current_version: "\(version)"\(columnNaming == .camelCase ? "\ncolumn_naming: camel_case" : "")
        targets:
          app:
            module_name: \(module)
            output_path: Sources/\(module)/Generated

        """ + stages
    }

    /// Whether the index names an expression (or the rowid) instead of columns.
    package static func isExpressionIndex(_ name: String, _ db: Database) throws -> Bool {
        try Row.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [name]).contains { ($0["name"] as String?) == nil }
    }

    /// The store's tables lucidgen may describe (with their declared types, as the store reader keeps them),
    /// the app's own objects, and its `PRAGMA user_version`.

    package static func read(_ path: String, appTables: Set<String>) throws -> (
        tables: [SchemaTable], appObjects: [(String, String)], userVersion: Int
    ) {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreWorkError.usage("no store at \(path)") }
        if let problem = storeFileProblem(path) { throw StoreWorkError.usage(problem) }
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            // What is the app's and what could be lucidgen's is the runtime's call, as every migration makes
            // it: with nothing described yet, each object but lucidgen's and SQLite's own comes back with its kind.
            let objects = try AppObjects.read(db, owned: OwnedNames(tables: []), precise: false)
            let virtual = objects.filter { $0.kind == .virtualTable }.map { sqlNameKey($0.name) }
            var tables: [SchemaTable] = []
            var appObjects: [(String, String)] = []
            for object in objects {
                let name = object.name
                let lower = sqlNameKey(name)
                if lower.hasPrefix("sqlite_") || lower.hasPrefix("lucid_") { continue }
                switch object.kind {
                case .virtualTable:
                    appObjects.append((name, "a virtual table"))
                case .shadowTable:
                    appObjects.append((name, "a shadow table of \(virtual.first { lower.hasPrefix($0 + "_") } ?? "")"))
                case .table:
                    if lower == "grdb_migrations" || appTables.contains(lower) {
                        appObjects.append((name, lower == "grdb_migrations" ? "GRDB's migrator's record" : "--app-table"))
                    } else {
                        tables.append(try StoreSchemaReader.table(named: name, db))
                    }
                case .index:
                    // A table's indexes are described with it (an automatic one has no SQL and no name to keep), but
                    // an index on an expression or a partial one has no words in a description: the app's.
                    if try StoreSchemaReader.partialIndexNames(of: object.table, db).contains(name) {
                        appObjects.append((name, "a partial index (WHERE …), which a description cannot say"))
                    } else if try Self.isExpressionIndex(name, db) {
                        appObjects.append((name, "an index on an expression, which a description cannot say"))
                    }
                case .view, .trigger:
                    appObjects.append((name, "a \(object.kind.rawValue)"))
                }
            }
            return (tables, appObjects, try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0)
        }
    }
}
