@_spi(Generated) import LucidSchema
import Testing

/// CloudKit's additive-only rule on tables: each kind of change is reported (and only it), and what is
/// additive reports nothing.
@Suite struct AdditiveRuleTests {
    static func column(
        _ name: String, _ type: SchemaColumn.StorageType = .text, notNull: Bool = false, defaultSQL: String? = nil,
        renamedFrom: String? = nil
    ) -> SchemaColumn {
        SchemaColumn(name: name, type: type, notNull: notNull, defaultSQL: defaultSQL, renamedFrom: renamedFrom)
    }

    static let team = SchemaTable(name: "team", columns: [column("id", .integer, notNull: true), column("name")], primaryKey: ["id"])

    static func person(
        _ extra: [SchemaColumn] = [], name: String = "person", renamedFrom: String? = nil, email: SchemaColumn = column("email"),
        keys: [SchemaForeignKey] = [], indexes: [SchemaIndex] = []
    ) -> SchemaTable {
        SchemaTable(
            name: name, columns: [column("id", .integer, notNull: true), column("name", notNull: true), email] + extra, primaryKey: ["id"],
            foreignKeys: keys, indexes: indexes, renamedFrom: renamedFrom)
    }

    static let v1 = Schema(version: SchemaVersion("1.0"), tables: [person(), team])

    func changes(_ tables: [SchemaTable], appCode: String? = nil, dataMigration: String? = nil) -> [AdditiveRule.Change] {
        AdditiveRule.changes(
            from: Self.v1, to: Schema(version: SchemaVersion("2.0"), tables: tables), appCode: appCode, dataMigration: dataMigration)
    }

    @Test func newTablesAndOptionalOrDefaultedColumnsAreAdditive() {
        let tables = [
            Self.person(
                [Self.column("nickname"), Self.column("score", .integer, notNull: true, defaultSQL: "0")],
                indexes: [SchemaIndex(name: "person_name", columns: ["name"])]),
            Self.team,
            SchemaTable(
                name: "badge", columns: [Self.column("id", .integer, notNull: true), Self.column("person_id", .integer)],
                primaryKey: ["id"],
                foreignKeys: [SchemaForeignKey(columns: ["person_id"], table: "person", tableColumns: ["id"], onDelete: .cascade)]),
        ]
        #expect(changes(tables).isEmpty)
        #expect(changes(Self.v1.tables).isEmpty)
    }

    @Test func eachKindOfChangeIsNamed() {
        let cases: [([SchemaTable], AdditiveRule.Change.Kind, String)] = [
            ([Self.person()], .tableRemoved, "table team removed"),
            (
                [Self.person(), SchemaTable(name: "crew", columns: Self.team.columns, primaryKey: ["id"], renamedFrom: "team")],
                .tableRenamed, "table team renamed to crew"
            ),
            (
                [Self.person(email: Self.column("mail", renamedFrom: "email")), Self.team], .columnRenamed,
                "column person.email renamed to mail"
            ),
            (
                [SchemaTable(name: "person", columns: Self.person().columns.dropLast().map { $0 }, primaryKey: ["id"]), Self.team],
                .columnRemoved, "column person.email removed"
            ),
            (
                [Self.person(email: Self.column("email", notNull: true, defaultSQL: "''")), Self.team], .columnChanged,
                "column person.email changed: optional → required, default none → ''"
            ),
            (
                [Self.person(email: Self.column("email", .blob)), Self.team], .columnChanged,
                "column person.email changed: type TEXT → BLOB"
            ),
            (
                [Self.person([Self.column("age", .integer, notNull: true)]), Self.team], .requiredColumnAdded,
                "required column person.age added without a default: an older app's inserts would fail"
            ),
            (
                [
                    Self.person(
                        [Self.column("team_id", .integer)],
                        keys: [SchemaForeignKey(columns: ["team_id"], table: "team", tableColumns: ["id"], onDelete: .setNull)]), Self.team,
                ],
                .foreignKeyAdded,
                "foreign key person(team_id) → team added: an older app's writes are checked against a constraint it does not know"
            ),
            (
                [Self.person(indexes: [SchemaIndex(name: "person_email", columns: ["email"], unique: true)]), Self.team],
                .uniqueIndexChanged,
                "uniqueness of person(email) added: an older app's writes may break it"
            ),
            (
                [SchemaTable(name: "person", columns: Self.person().columns, primaryKey: ["name"]), Self.team], .primaryKeyChanged,
                "table person's primary key changed from (id) to (name)"
            ),
            (
                [
                    Self.person(), Self.team,
                    SchemaTable(
                        name: "badge", columns: [Self.column("id", .integer, notNull: true), Self.column("team_id", .integer)],
                        primaryKey: ["id"],
                        foreignKeys: [SchemaForeignKey(columns: ["team_id"], table: "team", tableColumns: ["id"], onDelete: .noAction)]),
                ],
                .foreignKeyAdded,
                "new table badge references team without ON DELETE CASCADE or SET NULL: an older app's deletes of team rows would fail"
            ),
        ]
        for (tables, kind, message) in cases {
            let found = changes(tables)
            #expect(found.map(\.kind) == [kind], "\(message)")
            #expect(found.map(\.message) == [message])
        }
    }

    @Test func aUniquenessAnOlderAppReliedOnIsAChangeWhenRemoved() {
        let unique = SchemaIndex(name: "person_email", columns: ["email"], unique: true)
        let old = Schema(version: SchemaVersion("1.0"), tables: [Self.person(indexes: [unique]), Self.team])
        let new = Schema(version: SchemaVersion("2.0"), tables: [Self.person(), Self.team])
        #expect(AdditiveRule.changes(from: old, to: new).map(\.kind) == [.uniqueIndexChanged])
        // The same uniqueness under another index name is no change.
        let renamed = Schema(
            version: SchemaVersion("2.0"),
            tables: [Self.person(indexes: [SchemaIndex(name: "other", columns: ["EMAIL"], unique: true)]), Self.team])
        #expect(AdditiveRule.changes(from: old, to: renamed).isEmpty)
    }

    @Test func appCodeAndDataMigrationsAreNeverAdditive() {
        let found = changes(Self.v1.tables, appCode: "FlightData stage", dataMigration: "backfill")
        #expect(found.map(\.kind) == [.appCode, .dataMigration])
        #expect(found.map(\.message) == ["the step runs the app's code (FlightData stage)", "a data migration runs at 2.0 (backfill)"])
    }

    @Test func aTableThatReusesARemovedTablesNameIsARemovalAndANewTable() {
        let new = SchemaTable(name: "team", columns: [Self.column("id", .integer, notNull: true)], primaryKey: ["id"], reusesName: true)
        #expect(changes([Self.person(), new]).map(\.message) == ["table team removed"])
    }
}

extension AdditiveRuleTests {
    @Test func aRenameAnnotationCarriedOverFromAnEarlierVersionIsNoRename() {
        // 2.0 renamed team to crew (and email to mail); 2.1 carries the same table values unchanged.
        let crew = SchemaTable(name: "crew", columns: Self.team.columns, primaryKey: ["id"], renamedFrom: "team")
        let v2 = Schema(version: SchemaVersion("2.0"), tables: [Self.person(email: Self.column("mail", renamedFrom: "email")), crew])
        let v21 = Schema(version: SchemaVersion("2.1"), tables: v2.tables)
        #expect(AdditiveRule.changes(from: v2, to: v21).isEmpty)
    }
}
