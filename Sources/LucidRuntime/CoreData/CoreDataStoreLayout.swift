import GRDB
@_spi(Generated) import LucidSchema

/// What a Core Data (or SwiftData) store says of itself in its own bookkeeping: `Z_PRIMARYKEY` lists each
/// entity with its number (`Z_ENT`), its parent's (`Z_SUPER`, 0 for none) and the highest id it handed out
/// (`Z_MAX`); `Z_METADATA` holds the store's metadata. Both tables are what tells such a store apart from a
/// database of the app's own: lucidgen never initialises its tables beside them.
struct CoreDataStoreLayout: Sendable {
    struct Entity: Sendable, Equatable {
        var number: Int64
        var name: String
        var parent: Int64
        var maxID: Int64
    }

    var entities: [Entity]

    /// The store's Core Data entities, or nil when it is not a Core Data store (no `Z_PRIMARYKEY` and
    /// `Z_METADATA`). Reads only those two tables' names and `Z_PRIMARYKEY`'s rows: nothing the store
    /// carries is run.
    static func read(_ db: Database) throws -> CoreDataStoreLayout? {
        let names = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('Z_PRIMARYKEY', 'Z_METADATA') COLLATE NOCASE")
        guard Set(names.map(sqlNameKey)) == ["z_primarykey", "z_metadata"] else { return nil }
        let columns = Set(try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Z_PRIMARYKEY')").map { sqlNameKey($0["name"] as String) })
        guard columns.isSuperset(of: ["z_ent", "z_name", "z_super", "z_max"]) else { return CoreDataStoreLayout(entities: []) }
        let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        return CoreDataStoreLayout(entities: rows.map { row in
            Entity(number: row[0] ?? 0, name: row[1] ?? "", parent: row[2] ?? 0, maxID: row[3] ?? 0)
        })
    }

    /// For a refusal: what the store is, and what to do.
    var refusal: String {
        let listed = entities.filter { $0.number < 16000 }.map(\.name)
        let shown = listed.prefix(8).joined(separator: ", ") + (listed.count > 8 ? ", and \(listed.count - 8) more" : "")
        return "it is a Core Data store (Z_PRIMARYKEY and Z_METADATA\(listed.isEmpty ? "" : "; entities \(shown)")), which lucidgen does not convert yet: "
            + "nothing was changed; import the app's model history with `lucidgen import coredata` (see \"Coming from Core Data\")"
    }
}
