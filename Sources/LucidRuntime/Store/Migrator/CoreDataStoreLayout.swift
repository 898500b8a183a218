import GRDB
@_spi(Generated) import LucidSchema

/// What a Core Data (or SwiftData) store says of itself in its own bookkeeping: `Z_PRIMARYKEY` lists each
/// entity with its number (`Z_ENT`), its parent's (`Z_SUPER`, 0 for none) and the highest id it handed out
/// (`Z_MAX`, -1 when Core Data did not record it); `Z_METADATA` holds the store's metadata. Both tables are
/// what tells such a store apart from a database of the app's own: lucidgen never initialises its tables
/// beside them.
package struct CoreDataStoreLayout: Sendable {
    package struct Entity: Sendable, Equatable {
        package var number: Int64
        package var name: String
        package var parent: Int64
        /// The highest id handed out; nil when not recorded (Core Data writes -1).
        package var maxID: Int64?
    }

    package var entities: [Entity]
    /// `Z_PRIMARYKEY` rows that are not what Core Data writes (a value of another type, a `Z_MAX` that
    /// leaves no id for a new row), each naming its row and column: such a store is refused, never read on.
    package var damage: [String] = []

    /// The store's Core Data entities, or nil when it is not a Core Data store (no `Z_PRIMARYKEY` and
    /// `Z_METADATA`). Reads only those two tables' names and `Z_PRIMARYKEY`'s rows, every value as it is
    /// stored (a file from anywhere: a value of another type is damage, never a crash): nothing the store
    /// carries is run.
    package static func read(_ db: Database) throws -> CoreDataStoreLayout? {
        let names = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('Z_PRIMARYKEY', 'Z_METADATA') COLLATE NOCASE")
        guard Set(names.map(sqlNameKey)) == ["z_primarykey", "z_metadata"] else { return nil }
        let columns = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Z_PRIMARYKEY')").map(sqlNameKey))
        guard columns.isSuperset(of: ["z_ent", "z_name", "z_super", "z_max"]) else { return CoreDataStoreLayout(entities: []) }
        var layout = CoreDataStoreLayout(entities: [])
        for row in try Row.fetchAll(db, sql: "SELECT rowid, Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY rowid") {
            let place = "Z_PRIMARYKEY row \(Self.describe(row[0] as DatabaseValue))"
            func integer(_ index: Int, _ column: String, absent: Int64?) -> Int64?? {
                let value = row[index] as DatabaseValue
                switch value.storage {
                case .int64(let integer): return .some(integer)
                case .null where absent != nil: return .some(absent)
                default:
                    layout.damage.append("\(place): \(column) is \(Self.describe(value)), not an integer")
                    return nil
                }
            }
            let name: String?
            if case .string(let text) = (row[2] as DatabaseValue).storage {
                name = text
            } else {
                layout.damage.append("\(place): Z_NAME is \(Self.describe(row[2] as DatabaseValue)), not a name")
                name = nil
            }
            // Each column read (and each wrong one named) before the row is given up.
            let (number, parent, recorded) = (
                integer(1, "Z_ENT", absent: nil), integer(3, "Z_SUPER", absent: 0), integer(4, "Z_MAX", absent: -1)
            )
            guard let number = number ?? nil, let parent = parent ?? nil, let recorded, let name else { continue }
            switch recorded {
            case .some(Int64.max):
                layout.damage.append("\(place) (\(name)): Z_MAX is \(Int64.max), which leaves no id for a new row")
            case .some(let value) where value < -1:
                layout.damage.append("\(place) (\(name)): Z_MAX is \(value), not an id handed out (nor -1, not recorded)")
            default:
                break
            }
            layout.entities.append(Entity(number: number, name: name, parent: parent, maxID: recorded.flatMap { $0 < 0 ? nil : $0 }))
        }
        return layout
    }

    /// A stored value as a message shows it: its type and a short form of it.
    package static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64(let value): "\(value)"
        case .double(let value): "the real \(value)"
        case .string(let text): "the text '\(text.count > 40 ? String(text.prefix(40)) + "…" : text)'"
        case .blob(let data): "a blob of \(data.count) bytes"
        }
    }

    /// For a refusal: what the store is, and what to do.
    package var refusal: String {
        let listed = entities.filter { $0.number < 16000 }.map(\.name)
        let shown = listed.prefix(8).joined(separator: ", ") + (listed.count > 8 ? ", and \(listed.count - 8) more" : "")
        return
            "it is a Core Data store (Z_PRIMARYKEY and Z_METADATA\(listed.isEmpty ? "" : "; entities \(shown)")), which lucidgen does not convert yet: "
            + "nothing was changed; import the app's model history with `lucidgen import coredata` (see \"Coming from Core Data\")"
    }
}
