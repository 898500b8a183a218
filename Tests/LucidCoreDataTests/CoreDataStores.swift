import Foundation
import GRDB
import LucidCoreData
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// Core Data stores as Core Data lays them out, written with plain SQL for the conversion tests. Each rule
/// is one real stores show (`Tests/LucidGenCoreTests/CoreData/STORE-LAYOUT-EVIDENCE.md` cites each store):
/// - an entity table `CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, … )`, its
///   columns `Z<NAME>` declared INTEGER, FLOAT, TIMESTAMP, VARCHAR, DECIMAL or BLOB, no NOT NULL or DEFAULT
///   (§1, §2); a to-one `Z<NAME> INTEGER` with `CREATE INDEX Z<TABLE>_Z<NAME>_INDEX` (§3);
/// - a many-to-many join table named after the lower entity number's relationship, its columns
///   `Z_<entity number><name of the relationship pointing at that entity>`, primary key on both, and an
///   ordered one's `Z_FOK_<target column without Z_>` (§4, §5);
/// - `Z_PRIMARYKEY`, `Z_METADATA`, `Z_MODELCACHE` exactly as every real store has them (§7); history
///   tracking's `ACHANGE`, `ATRANSACTION`, `ATRANSACTIONSTRING` with entity numbers 16001–16003 (§6);
/// - dates as seconds since 2001-01-01, UUIDs as 16 bytes, external storage tagged 0x01 / 0x02 (§7, §8).
struct CoreDataStoreWriter {
    let version: CoreDataOrigin.Version
    /// Entity numbers, in the model's order from 1.
    var numbers: [String: Int] {
        Dictionary(uniqueKeysWithValues: version.entities.enumerated().map { ($0.element.name, $0.offset + 1) })
    }

    /// The DDL of the store (no rows but Core Data's own).
    func ddl(historyTracking: Bool) -> [String] {
        var statements: [String] = []
        for entity in version.entities {
            var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            var indexes: [String] = []
            for relationship in entity.relationships where !relationship.toMany && relationship.transient != true {
                columns.append("Z\(relationship.name.uppercased()) INTEGER")
                indexes.append(
                    "CREATE INDEX Z\(entity.name.uppercased())_Z\(relationship.name.uppercased())_INDEX ON Z\(entity.name.uppercased()) (Z\(relationship.name.uppercased()))"
                )
            }
            for attribute in entity.attributes where attribute.transient != true {
                columns.append("Z\(attribute.name.uppercased()) \(CoreDataConverter.declaredType(of: attribute.type) ?? "VARCHAR")")
            }
            statements.append("CREATE TABLE Z\(entity.name.uppercased()) ( \(columns.joined(separator: ", ")) )")
            statements += indexes
        }
        for (source, relationship, target, inverse) in manyToMany() {
            let (a, b) = (numbers[source.name]!, numbers[target.name]!)
            let sourceColumn = "Z_\(a)\(inverse.name.uppercased())", targetColumn = "Z_\(b)\(relationship.name.uppercased())"
            var columns = ["\(sourceColumn) INTEGER", "\(targetColumn) INTEGER"]
            if relationship.ordered == true { columns.append("Z_FOK_\(b)\(relationship.name.uppercased()) INTEGER") }
            let table = a <= b ? "Z_\(a)\(relationship.name.uppercased())" : "Z_\(b)\(inverse.name.uppercased())"
            statements.append(
                "CREATE TABLE \(table) ( \(columns.joined(separator: ", ")), PRIMARY KEY (\(sourceColumn), \(targetColumn)) )")
            statements.append("CREATE INDEX \(table)_\(targetColumn)_INDEX ON \(table) (\(targetColumn), \(sourceColumn))")
        }
        if historyTracking {
            statements += [
                "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
                "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
                "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
                "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
                "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
            ]
        }
        statements += [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
        ]
        return statements
    }

    /// Each many-to-many pair once: the side with the lower entity number (or the ordered side) and its inverse.
    func manyToMany() -> [(CoreDataOrigin.Entity, CoreDataOrigin.Relationship, CoreDataOrigin.Entity, CoreDataOrigin.Relationship)] {
        var pairs: [(CoreDataOrigin.Entity, CoreDataOrigin.Relationship, CoreDataOrigin.Entity, CoreDataOrigin.Relationship)] = []
        var seen: Set<String> = []
        for entity in version.entities {
            for relationship in entity.relationships where relationship.toMany && relationship.transient != true {
                guard let target = version.entities.first(where: { $0.name == relationship.destination }),
                    let inverse = target.relationships.first(where: { $0.name == relationship.inverse }), inverse.toMany
                else { continue }
                let key = [entity.name + "." + relationship.name, target.name + "." + inverse.name].sorted().joined(separator: "|")
                guard seen.insert(key).inserted else { continue }
                // The side whose targets are ordered is the one whose order the join table keeps.
                if inverse.ordered == true {
                    pairs.append((target, inverse, entity, relationship))
                } else {
                    pairs.append((entity, relationship, target, inverse))
                }
            }
        }
        return pairs
    }

    /// Writes Core Data's own rows: `Z_PRIMARYKEY` (with each entity's `Z_MAX`), `Z_METADATA` (a binary plist
    /// with the keys real stores have) and, with history tracking, its three entities.
    func bookkeeping(maxIDs: [String: Int], historyTracking: Bool, _ db: Database) throws {
        for entity in version.entities {
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY VALUES (?, ?, 0, ?)",
                arguments: [numbers[entity.name]!, entity.name, maxIDs[entity.name] ?? 0])
        }
        if historyTracking {
            for (number, name) in [(16001, "CHANGE"), (16002, "TRANSACTION"), (16003, "TRANSACTIONSTRING")] {
                try db.execute(sql: "INSERT INTO Z_PRIMARYKEY VALUES (?, ?, 0, 1)", arguments: [number, name])
            }
            try db.execute(sql: "INSERT INTO ATRANSACTIONSTRING VALUES (1, 16003, 1, 'app')")
            try db.execute(
                sql: "INSERT INTO ATRANSACTION VALUES (1, 16002, 1, 1, NULL, NULL, NULL, 700000000.5, NULL, NULL, NULL, NULL, NULL)")
            try db.execute(sql: "INSERT INTO ACHANGE VALUES (1, 16001, 1, 0, 1, 1, 1, NULL)")
        }
        let plist: [String: Any] = [
            "NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1145, "NSStoreModelVersionHashesVersion": 3,
            "NSStoreModelVersionIdentifiers": [""], "NSStoreUUID": "3E1F5D8C-0000-4000-8000-000000000001",
            "NSStoreModelVersionHashes": Dictionary(
                uniqueKeysWithValues: version.entities.map { ($0.name, Data(repeating: 7, count: 32)) }),
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, '3E1F5D8C-0000-4000-8000-000000000001', ?)", arguments: [data])
    }
}
