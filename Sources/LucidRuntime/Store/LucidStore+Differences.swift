import Foundation
import GRDB
@_spi(Generated) import LucidSchema

extension LucidStore {
    /// How the tables of the store at `path` differ from `schema` (columns, keys, indexes, declared search;
    /// the app's own tables, views, triggers and indexes are not compared), one line each, empty when they
    /// match. Opens the file read-only and changes nothing. What `lucidgen check` asks of every committed
    /// fixture store: that it is its version as the descriptions define that version now.
    ///
    /// ```swift
    /// let problems = try LucidStore.differences(atPath: "Fixtures/App_1_0.sqlite", from: AppSchema.versions[0])
    /// ```
    package static func differences(atPath path: String, from schema: Schema) throws(StoreError) -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreMigrator.storeError(error, path: path, step: "open read-only", version: nil)
        }
        defer { try? queue.close() }
        do {
            return try queue.read { db in
                let owned = OwnedNames([schema])
                let tables = try StoreSchemaReader.tables(db, owned: owned)
                let search = try StoreSchemaReader.searchObjects(db, owned: owned)
                return StoreSchemaReader.differences(expected: schema, actual: tables, search: search)
            }
        } catch {
            throw StoreMigrator.storeError(error, path: path, step: "read the tables", version: schema.version)
        }
    }
}
