import ArgumentParser
import Foundation
import LucidGenCore
import LucidRuntime

struct Fixtures: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a fixture store: a single-file SQLite database at a version, with deterministic rows.",
        discussion: """
            The store is created at --version (default: current_version) with its lucidgen version record, \
            and every entity gets --rows rows of edge values (empty and unicode strings, integer extremes, \
            dates with milliseconds, NULL where allowed, arrays, subtypes) and relationships in both \
            directions. The same descriptions always give the same rows. An existing file is not replaced.
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp("The config file.", valueName: "path"))
    var config: String = ".lucid.yaml"

    @Option(help: ArgumentHelp("The version of the store (default: current_version).", valueName: "version"))
    var version: String?

    @Option(help: "Rows per entity.")
    var rows: Int = 12

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write (default: fixtures/<Module>_<version>.sqlite beside the config).", valueName: "file"))
    var output: String?

    func validate() throws {
        guard rows >= 1 else { throw ValidationError("--rows must be at least 1") }
    }

    func run() throws {
        let model: ResolvedModel
        do {
            model = try Resolver.resolve(try GeneratorPipeline(configPath: absolutePath(config)).load())
        } catch {
            printDiagnostics(error.diagnostics, verbose: false)
            throw ExitCodes.inputErrors
        }
        let target: SchemaVersion
        if let version {
            guard let parsed = try? SchemaVersion(parsing: version), let schema = model.schemas.first(where: { $0.version == parsed }) else {
                throw ValidationError("--version \(version) is not one of the versions \(model.schemas.map(\.version.string).joined(separator: ", "))")
            }
            target = schema.version
        } else {
            target = model.schemas.last { $0.version <= model.currentVersion }!.version
        }
        let path = output.map(absolutePath)
            ?? (model.config.directory as NSString).appendingPathComponent("fixtures/\(model.config.app.moduleName)_\(target.identifierSuffix).sqlite")
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        do {
            let database = try LucidStore.create(atPath: path, versions: model.schemas, version: target)
            let statements = FixtureRows(model: model).insertStatements(at: target, rows: rows)
            try database.write { db in
                for statement in statements { try db.execute(sql: statement) }
            }
            try database.close()
            print("wrote \(displayPath(path)): version \(target), \(statements.count) rows")
        } catch let error as StoreError {
            throw fail(error)
        }
    }
}
