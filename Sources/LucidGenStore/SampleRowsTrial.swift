import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting

/// `lucidgen check`'s trial of the project's sample rows: each file `SampleRowsValidation` passed goes
/// into an in-memory store of its version seeded as the generated tests seed it (the rows `lucidgen
/// fixtures` writes, as many as the tests seed), the way the tests insert it (`SampleRows.insert`), and
/// SQLite decides what only it can: a key or unique value a seeded row has, a CHECK, a type, a foreign key
/// that points at no row. A refused row is an error at its line.
package enum SampleRowsTrial {
    package static func diagnostics(model: ResolvedModel, files: [SampleRowsValidation.File]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let folder = absolutePath(model.config.samplesPath)
        for file in files {
            let display = displayPath(file.path)
            guard let schema = model.schemas.first(where: { $0.version == file.version }) else { continue }
            do {
                var configuration = Configuration()
                configuration.prepareDatabase { db in try CommonFunctions.registerMissing(db) }
                let database = try DatabaseQueue(configuration: configuration)
                try database.write { db in
                    for statement in schema.ddl { try db.execute(sql: statement) }
                }
                try SeedWriter.write(database) { db in
                    _ = try FixtureStore.insertRows(model, at: file.version, rows: SeedValues.rows, db)
                    try SampleRows.insert(from: folder, version: file.version, schema: schema, db)
                }
            } catch let error as SampleRowsError {
                let location = error.table.flatMap { file.rowLocations[$0] }.flatMap { rows in
                    error.row.flatMap { $0 < rows.count ? rows[$0] : nil }
                }
                diagnostics.append(
                    Diagnostic(.error, "sample row refused by SQLite: \(error.message)", at: location ?? SourceLocation(file: display)))
            } catch let error as SeedError {
                // At the first sample row whose reference points nowhere (a seeded row's never does).
                let row = error.violations.lazy.compactMap { file.rowsByKey[sqlNameKey($0.table)]?[$0.row] }.first
                diagnostics.append(
                    Diagnostic(
                        .error,
                        "sample rows break \(error.count) foreign key(s) once seeded beside the generated tests' rows: \(error.located)",
                        at: row ?? SourceLocation(file: display, line: 1, column: 1)))
            } catch {
                diagnostics.append(
                    Diagnostic(
                        .error, "cannot try the sample rows in a store at \(file.version): \(error)", at: SourceLocation(file: display)))
            }
        }
        return diagnostics
    }
}
