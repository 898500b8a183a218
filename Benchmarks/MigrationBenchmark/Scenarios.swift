import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// The benchmark's schema changes: version 1.0 is always the same `person` table (the one
/// SQLite's own costs were measured on, plus a `team_id` column) and a small `team` table;
/// each scenario's 2.0 makes one change.
enum Scenarios: String, CaseIterable, CustomStringConvertible {
    case addColumn, renameColumn, renameTable, addTable, dropColumn, requireNote, convertType, changeDefault, dropTable, toOneBecomesToMany

    static var all: [Scenarios] { allCases }

    var description: String { rawValue }

    var isConstantTime: Bool { [.addColumn, .renameColumn, .renameTable, .addTable].contains(self) }

    var label: String {
        switch self {
        case .addColumn: "add column with default (O(1), .timer)"
        case .renameColumn: "rename column (O(1), .timer)"
        case .renameTable: "rename table (O(1), .timer)"
        case .addTable: "add table (O(1), .timer)"
        case .dropColumn: "drop column (rewrites rows)"
        case .requireNote: "optional -> required with default (rebuild)"
        case .convertType: "int -> real (rebuild)"
        case .changeDefault: "default change (rebuild)"
        case .dropTable: "drop table"
        case .toOneBecomesToMany: "to-one -> to-many (fill join table)"
        }
    }

    static func column(
        _ name: String, _ type: SchemaColumn.StorageType, notNull: Bool = true, defaultSQL: String? = nil, renamedFrom: String? = nil,
        valueType: ValueType? = nil, lossyConversionFrom: ValueType? = nil
    ) -> SchemaColumn {
        SchemaColumn(
            name: name, type: type, notNull: notNull, defaultSQL: defaultSQL, renamedFrom: renamedFrom, valueType: valueType,
            lossyConversionFrom: lossyConversionFrom)
    }

    static let team = SchemaTable(name: "team", columns: [column("id", .integer), column("name", .text)], primaryKey: ["id"])
    static let teamKey = SchemaForeignKey(columns: ["team_id"], table: "team", tableColumns: ["id"], onDelete: .setNull)

    static func person(
        name: String = "person", renamedFrom: String? = nil, email: SchemaColumn = column("email", .text),
        score: SchemaColumn = column("score", .integer, valueType: .int),
        note: SchemaColumn? = column("note", .text, notNull: false), extra: [SchemaColumn] = [], team: Bool = true
    ) -> SchemaTable {
        var columns = [column("id", .integer), column("name", .text), email, column("age", .integer), score, column("balance", .real)]
        if let note { columns.append(note) }
        if team { columns.append(column("team_id", .integer, notNull: false)) }
        return SchemaTable(
            name: name, columns: columns + extra, primaryKey: ["id"], foreignKeys: team ? [teamKey] : [],
            indexes: team ? [SchemaIndex(name: "person_team_index", columns: ["team_id"])] : [], renamedFrom: renamedFrom)
    }

    static let version1 = Schema(version: SchemaVersion("1.0"), tables: [person(), team])

    static func versions(for scenario: Scenarios) -> [Schema] {
        let tables: [SchemaTable]
        switch scenario {
        case .addColumn: tables = [person(extra: [column("status", .integer, defaultSQL: "0")]), team]
        case .renameColumn: tables = [person(email: column("email_address", .text, renamedFrom: "email")), team]
        case .renameTable: tables = [person(name: "member", renamedFrom: "person").withIndexName("person_team_index"), team]
        case .addTable:
            tables = [
                person(), team,
                SchemaTable(name: "audit", columns: [column("id", .integer), column("message", .text)], primaryKey: ["id"]),
            ]
        case .dropColumn: tables = [person(note: nil), team]
        case .requireNote: tables = [person(note: column("note", .text, defaultSQL: "''")), team]
        // int → double is not exact (2^53 + 1 rounds): accepted as `"lossy_conversion": true` in a description does.
        case .convertType: tables = [person(score: column("score", .real, valueType: .double, lossyConversionFrom: .int)), team]
        case .changeDefault: tables = [person(note: column("note", .text, notNull: false, defaultSQL: "'none'")), team]
        case .dropTable: tables = [team]
        case .toOneBecomesToMany:
            var join = SchemaTable(
                name: "person_team", kind: .join, columns: [column("source_id", .integer), column("target_id", .integer)],
                primaryKey: ["source_id", "target_id"],
                foreignKeys: [
                    SchemaForeignKey(columns: ["source_id"], table: "person", tableColumns: ["id"], onDelete: .cascade),
                    SchemaForeignKey(columns: ["target_id"], table: "team", tableColumns: ["id"], onDelete: .cascade),
                ], indexes: [SchemaIndex(name: "person_team_target_index", columns: ["target_id"])])
            join.convertedFromColumn = "team_id"
            tables = [person(team: false), team, join]
        }
        return [version1, Schema(version: SchemaVersion("2.0"), tables: tables)]
    }

    /// 1.0 → 1.4: add `status` (1.1), rename it `state` (1.2), change its default (1.3), remove it (1.4).
    static func cancellingPath() -> [Schema] {
        [
            version1,
            Schema(version: SchemaVersion("1.1"), tables: [person(extra: [column("status", .integer, defaultSQL: "0")]), team]),
            Schema(
                version: SchemaVersion("1.2"),
                tables: [person(extra: [column("state", .integer, defaultSQL: "0", renamedFrom: "status")]), team]),
            Schema(version: SchemaVersion("1.3"), tables: [person(extra: [column("state", .integer, defaultSQL: "1")]), team]),
            Schema(version: SchemaVersion("1.4"), tables: [person(), team]),
        ]
    }

    /// The statements of ``sql`` without its `BEGIN`/`COMMIT`: what an app runs in one GRDB `write`.
    var statementsInTransaction: String {
        sql.split(separator: "\n").filter { $0 != "BEGIN;" && $0 != "COMMIT;" }.joined(separator: "\n")
    }

    /// The hand-written SQL a careful developer would run for the same change (sqlite3 CLI), with the
    /// foreign key discipline of SQLite's documentation where tables are rebuilt.
    var sql: String {
        let columns = "id, name, email, age, score, balance, note, team_id"
        func rebuild(_ create: String, select: String) -> String {
            """
            PRAGMA foreign_keys = OFF;
            BEGIN;
            \(create);
            INSERT INTO person_new (\(columns)) SELECT \(select) FROM person;
            DROP TABLE person;
            ALTER TABLE person_new RENAME TO person;
            CREATE INDEX person_team_index ON person (team_id);
            PRAGMA foreign_key_check;
            COMMIT;
            PRAGMA foreign_keys = ON;
            """
        }
        let newTable = { (note: String, score: String) in
            "CREATE TABLE person_new (id INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, email TEXT NOT NULL, age INTEGER NOT NULL, score \(score) NOT NULL, balance REAL NOT NULL, note \(note), team_id INTEGER REFERENCES team(id) ON DELETE SET NULL)"
        }
        switch self {
        case .addColumn: return "BEGIN;\nALTER TABLE person ADD COLUMN status INTEGER NOT NULL DEFAULT 0;\nCOMMIT;"
        case .renameColumn: return "BEGIN;\nALTER TABLE person RENAME COLUMN email TO email_address;\nCOMMIT;"
        case .renameTable: return "BEGIN;\nALTER TABLE person RENAME TO member;\nCOMMIT;"
        case .addTable: return "BEGIN;\nCREATE TABLE audit (id INTEGER PRIMARY KEY NOT NULL, message TEXT NOT NULL);\nCOMMIT;"
        case .dropColumn: return "BEGIN;\nALTER TABLE person DROP COLUMN note;\nCOMMIT;"
        case .requireNote:
            return rebuild(
                newTable("TEXT NOT NULL DEFAULT ''", "INTEGER"), select: "id, name, email, age, score, balance, COALESCE(note, ''), team_id"
            )
        case .convertType:
            return rebuild(newTable("TEXT", "REAL"), select: "id, name, email, age, CAST(score AS REAL), balance, note, team_id")
        case .changeDefault: return rebuild(newTable("TEXT DEFAULT 'none'", "INTEGER"), select: columns)
        case .dropTable: return "PRAGMA foreign_keys = OFF;\nBEGIN;\nDROP TABLE person;\nCOMMIT;"
        case .toOneBecomesToMany:
            // SQLite refuses DROP COLUMN on a foreign key column, so the table is rebuilt.
            return """
                PRAGMA foreign_keys = OFF;
                BEGIN;
                CREATE TABLE person_team (source_id INTEGER NOT NULL, target_id INTEGER NOT NULL, PRIMARY KEY (source_id, target_id), FOREIGN KEY (source_id) REFERENCES person(id) ON DELETE CASCADE, FOREIGN KEY (target_id) REFERENCES team(id) ON DELETE CASCADE);
                CREATE INDEX person_team_target_index ON person_team (target_id);
                INSERT INTO person_team (source_id, target_id) SELECT id, team_id FROM person WHERE team_id IS NOT NULL;
                CREATE TABLE person_new (id INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, email TEXT NOT NULL, age INTEGER NOT NULL, score INTEGER NOT NULL, balance REAL NOT NULL, note TEXT);
                INSERT INTO person_new (id, name, email, age, score, balance, note) SELECT id, name, email, age, score, balance, note FROM person;
                DROP TABLE person;
                ALTER TABLE person_new RENAME TO person;
                PRAGMA foreign_key_check;
                COMMIT;
                PRAGMA foreign_keys = ON;
                """
        }
    }
}

extension SchemaTable {
    func withIndexName(_ name: String) -> SchemaTable {
        var copy = self
        copy.indexes = copy.indexes.map { SchemaIndex(name: name, columns: $0.columns, unique: $0.unique) }
        return copy
    }
}
