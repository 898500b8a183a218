import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting

/// `lucidgen fixtures`' work (and `release`'s fixture): a store at a version with deterministic rows, and
/// its `.sha256`.
package enum FixtureStore {
    /// A fixture written.
    package struct Written: Sendable {
        package var path: String
        package var version: SchemaVersion
        package var rows: Int
        /// Whether it is the committed fixture (its default place), which is committed with its `.sha256`.
        package var committed: Bool
    }

    /// A fixture not written, since SQLite refused one of its rows.
    package struct NotWritten: Error {
        package var path: String
        package var refused: RefusedRow
    }

    /// The resolved model of the project at `config` (its diagnostics when it does not resolve).
    package static func model(config: String) throws -> ResolvedModel {
        do {
            return try Resolver.resolve(try GeneratorPipeline(configPath: absolutePath(config)).load())
        } catch {
            throw StoreWorkError.input(error.diagnostics)
        }
    }

    /// The version a fixture is written at: `requested`, else the current version's. A committed fixture
    /// (no `output`) of the current version is refused unless `unreleased` or the version is marked released.
    package static func version(_ requested: String?, of model: ResolvedModel, output: String?, unreleased: Bool) throws -> SchemaVersion {
        let target: SchemaVersion
        if let version = requested {
            guard let parsed = try? SchemaVersion(parsing: version), let schema = model.schemas.first(where: { $0.version == parsed })
            else {
                throw StoreWorkError.usage(
                    "--schema-version \(version) is not one of the versions \(model.schemas.map(\.version.string).joined(separator: ", "))")
            }
            target = schema.version
        } else {
            target = model.schemas.last { $0.version <= model.currentVersion }!.version
        }
        // A committed fixture is a store as a release wrote it: the current version can still change, and a
        // fixture of it would no longer be that version after the next edit (once `lucidgen release` marked it,
        // it cannot: then a lost fixture of it is written again here).
        if output == nil, target == model.currentVersion, !unreleased,
            !SchemaSnapshot.isMarkedReleased(version: target, in: model.config.schemaPath)
        {
            throw StoreWorkError.usage(
                "\(target) is the current version, which can still change (each generate rewrites its snapshot): its fixture is written by "
                    + "`lucidgen release` once \(target) is final, which checks the project first (or pass --unreleased to write it now anyway)"
            )
        }
        return target
    }

    /// The committed fixture's path for `version` (or `output`), written with its `.sha256`: where, and how
    /// many rows. Refuses an existing file, unless `replacing` (`lucidgen release`, over a fixture whose
    /// version was never marked released). Throws a ``StoreError`` or ``NotWritten``.
    ///
    /// The store is written under a hidden name beside its place (`.<name>.partial`), its `.sha256` (naming
    /// the final file) next, and then it is renamed into place: an interrupted write leaves at worst a
    /// partial file no command reads, or a `.sha256` without its store, never a fixture that does not
    /// match its checksum.
    package static func write(model: ResolvedModel, version target: SchemaVersion, rows: Int, output: String?, replacing: Bool = false)
        throws -> Written
    {
        var model = model
        if model.seedCheckProbe == nil { model.seedCheckProbe = SchemaTrial.seedCheckProbe } // seeds the tables' CHECKs let through
        let fileName = FixtureFiles.fileName(module: model.config.app.moduleName, version: target)
        let path = output ?? (defaultFolder(model) as NSString).appendingPathComponent(fileName)
        for file in [path, path + ".sha256"] {
            switch FileKind.at(file) {
            case .missing: continue
            case .regular where replacing: continue
            case .regular:
                throw StoreError.cannotWrite(
                    path: file,
                    message:
                        "the file already exists (a fixture and its checksum are never replaced; delete it first if it was never committed)"
                )
            case .folder: throw StoreError.cannotWrite(path: file, message: "a folder, not a fixture")
            case .special(let what), .other(let what):
                throw StoreError.cannotWrite(path: file, message: "\(what), not a fixture: nothing is written there")
            }
        }
        let folder = (path as NSString).deletingLastPathComponent
        let partial = (folder as NSString).appendingPathComponent("." + (path as NSString).lastPathComponent + ".partial")
        func removePartial() {
            for suffix in [""] + StoreFiles.companions { try? FileManager.default.removeItem(atPath: partial + suffix) }
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError.cannotWrite(path: path, message: "cannot create its folder: \(error.localizedDescription)")
        }
        removePartial() // left by an interrupted run
        if replacing {
            // The old store and its checksum go first: interrupted from here, the folder holds no fixture
            // rather than one whose .sha256 describes another file.
            for file in [path, path + ".sha256"] + StoreFiles.companions.map({ path + $0 })
            where FileManager.default.fileExists(atPath: file) {
                do {
                    try FileManager.default.removeItem(atPath: file)
                } catch {
                    throw StoreError.cannotWrite(path: file, message: "cannot replace it: \(error.localizedDescription)")
                }
            }
        }
        do {
            // The steps that need the app's code, so that the store's compatibility record (which older apps
            // may open it) counts them as not additive.
            let stages = model.customSteps.map {
                ExplicitStage(from: $0.from, to: $0.to, label: $0.label, transformedTables: $0.tables.map(\.table))
            }
            let database = try LucidStore.create(atPath: partial, versions: model.schemas, version: target, stages: stages)
            // Foreign keys off while inserting, checked before committing: rows may reference rows
            // inserted after them (self-references, cycles).
            var count = 0
            try SeedWriter.write(database) { db in count = try Self.insertRows(model, at: target, rows: rows, db) }
            // One self-contained file: no -wal or -journal beside it (the store is in rollback-journal mode,
            // whose journal goes with the committed transaction), no free pages. A store written in one
            // transaction rarely has any; VACUUM copies every table into a new file, which for 2,000 tables
            // took longer than everything else, so it runs only when there are free pages to remove.
            try database.writeWithoutTransaction { db in
                if try Int.fetchOne(db, sql: "PRAGMA freelist_count") != 0 { try db.execute(sql: "VACUUM") }
            }
            try database.close()
            let line = "\(try FixtureFiles.checksum(ofFileAt: partial))  \((path as NSString).lastPathComponent)\n"
            try line.write(toFile: path + ".sha256", atomically: true, encoding: .utf8)
            guard rename(partial, path) == 0 else {
                throw StoreError.cannotWrite(path: path, message: String(cString: strerror(errno)))
            }
            return Written(path: path, version: target, rows: count, committed: output == nil)
        } catch {
            // A half-written fixture is worse than none.
            removePartial()
            if let error = error as? StoreError { throw error }
            if let error = error as? RefusedRow { throw NotWritten(path: path, refused: error) }
            throw StoreError.cannotWrite(path: path, message: "\(error)")
        }
    }

    /// Inserts the deterministic rows of `model` at `version`, `rows` per entity (what a fixture and the
    /// generated tests' seeds hold), and returns how many. Row by row, never all in memory: a fixture of
    /// millions of rows costs what one of forty does. Consecutive rows of a table go in one statement each
    /// (up to 100), in their order. Run it inside ``SeedWriter/write(_:_:)`` (foreign keys off, checked).
    package static func insertRows(_ model: ResolvedModel, at version: SchemaVersion, rows: Int, _ db: Database) throws -> Int {
        var count = 0
        let batchSize = 100
        var batch: [FixtureRows.Row] = []
        try FixtureRows(model: model).forEachRow(at: version, rows: rows) { row in
            if let first = batch.first, batch.count == batchSize || !first.canShareInsert(with: row) {
                try insert(batch, db)
                batch.removeAll(keepingCapacity: true)
            }
            batch.append(row)
            count += 1
        }
        if !batch.isEmpty { try insert(batch, db) }
        return count
    }

    /// A seeded row SQLite refused (a CHECK no edge value passes, one naming several columns, a NOT NULL
    /// or a UNIQUE the seeds break): the table, SQLite's words (which name the constraint) and the row.
    package struct RefusedRow: Error, CustomStringConvertible {
        package var table: String
        package var message: String
        package var columns: [String]
        package var values: [String]

        package var description: String {
            "table \(table) refuses a seeded row (\(message)): (\(columns.joined(separator: ", "))) = (\(values.joined(separator: ", ")))"
                + "; the fixture's rows are edge values of each type, and a CHECK that no edge value of a column passes, or one that names"
                + " several columns, is not met by them (see KnownLimits)"
        }
    }

    /// One multi-row `INSERT`; when SQLite refuses it (the statement inserts nothing then), row by row to
    /// name the row it refuses.
    package static func insert(_ batch: [FixtureRows.Row], _ db: Database) throws {
        do {
            try db.execute(sql: FixtureRows.Row.sql(inserting: batch))
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            for row in batch {
                do {
                    try db.execute(sql: row.sql)
                } catch let rowError as DatabaseError where rowError.resultCode == .SQLITE_CONSTRAINT {
                    throw RefusedRow(
                        table: row.table, message: rowError.message ?? "\(rowError.resultCode)", columns: row.columns, values: row.values)
                }
            }
            throw error
        }
    }

    /// Where committed fixtures go: `<app_tests output_path>/Fixtures`, or `fixtures/` beside the config.
    package static func defaultFolder(_ model: ResolvedModel) -> String {
        model.config.appTests.map { ($0.outputPath as NSString).appendingPathComponent("Fixtures") }
            ?? (model.config.directory as NSString).appendingPathComponent("fixtures")
    }
}
