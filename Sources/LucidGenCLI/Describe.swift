import ArgumentParser
import Foundation
import LucidGenCore
import LucidGenStore
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

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The store file to describe; FILE=VERSION for each of several layouts (repeatable).", valueName: "file[=version]"))
    var database: [String]

    @Option(
        name: .customLong("rename"),
        help: ArgumentHelp(
            "A column renamed between layouts, e.g. item.roomId=room_id@1.1 (repeatable).", valueName: "table.old=new@version"))
    var renames: [String] = []

    @Option(
        name: .customLong("schema-version"),
        help: ArgumentHelp("The version the store's tables are (default: current_version, else 1.0).", valueName: "version"))
    var schemaVersion: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("The config file (written when it does not exist).", valueName: "path"))
    var config: String = ".lucid.yaml"

    @Option(help: ArgumentHelp("The module name of a config written from scratch.", valueName: "name"))
    var module: String = "App"

    @Option(
        name: .customLong("type"),
        help: ArgumentHelp(
            "The description type of a column SQLite cannot tell apart, e.g. item.purchased_at=date, item.token=uuid or item.price=decimal (repeatable).",
            valueName: "table.column=type"))
    var types: [String] = []

    @Option(
        name: .customLong("app-table"), help: ArgumentHelp("A table to leave to the app, undescribed (repeatable).", valueName: "table"))
    var appTables: [String] = []

    @Flag(help: "Replace descriptions that exist already.")
    var force = false

    typealias Described = StoreDescription.Described

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
        print(
            "described \(count) table\(count == 1 ? "" : "s") of \(stores) at \(at)"
                + (output.problems.isEmpty
                    ? "; next: `lucidgen generate`, then `lucidgen plan --database FILE` for each store"
                    : "; \(output.problems.count) warning\(output.problems.count == 1 ? "" : "s"): the store is not recognised until they are resolved")
        )
    }

    /// Reads the stores and describes them, writing nothing: the files ``run()`` writes and what it prints.
    func describe() throws -> Described {
        var options = StoreDescription.Options(databases: database)
        options.renames = renames
        options.schemaVersion = schemaVersion
        options.config = config
        options.module = module
        options.types = types
        options.appTables = appTables
        options.force = force
        return try storeWork { try StoreDescription.describe(options) }
    }
}
