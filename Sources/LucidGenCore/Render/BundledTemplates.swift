// Generated from Templates/ by `swift run template-embedder Templates Sources/LucidGenCore/Render/BundledTemplates.swift`.
// Do not edit; TemplateEmbeddingTests fail when it is out of date.

enum BundledTemplates {
    /// Template name (file name without `.mustache`) → template text.
    static let all: [String: String] = [
        "entity": #"""
{{%CONTENT_TYPE:TEXT}}
{{> header}}

import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
{{#shapes}}

/// The `{{entityName}}` entity{{#renamed}} (then named `{{name}}`){{/renamed}} at schema version {{version}}: one row of table `{{tableName}}`.
{{#toManyNotes}}
///
/// The to-many relationship `{{name}}` to `{{target}}` is stored in table `{{joinTable}}`; see ``{{linkType}}``.
{{/toManyNotes}}
{{#superseded}}
///
/// A superseded version: a ``SupersededRecord``, with the API it had as the newest version (initializer,
/// `Columns`, GRDB's fetch and persistence methods); only the newest version is also `Codable` and `Hashable`.
{{access}} struct {{typeName}}: Swift.Equatable, Swift.Sendable {
{{/superseded}}
{{^superseded}}
{{access}} struct {{typeName}}:
    Swift.Codable, Swift.Hashable, Swift.Sendable, GRDB.FetchableRecord, {{persistence}}
{
{{/superseded}}
    {{access}} static let databaseTableName = "{{tableName}}"
{{#properties}}

    /// {{doc}}
    {{access}} var {{swiftName}}: {{swiftType}}
{{/properties}}

    {{access}} init(
{{#properties}}
        {{swiftName}}: {{swiftType}}{{#defaultSwift}} = {{defaultSwift}}{{/defaultSwift}}{{^last}},{{/last}}
{{/properties}}
    ) {
{{#properties}}
        self.{{swiftName}} = {{swiftName}}
{{/properties}}
    }

    /// The columns of `{{tableName}}`, for queries: `{{typeName}}.filter(Columns.{{firstColumn}} == value)`{{#hasComposites}}; a
    /// composite's elements by name, e.g. `Columns.{{firstComposite}}.<element>`{{/hasComposites}}.
    {{access}} enum Columns {
{{#properties}}
        {{access}} static let {{swiftName}} = {{columnReference}}
{{/properties}}
    }
{{^superseded}}

    /// The keys of the record's `Codable` form{{#hasComposites}} (a composite is one nested value there){{/hasComposites}}; the table's
    /// columns are ``Columns``.
    {{access}} enum CodingKeys: Swift.String, Swift.CodingKey, Swift.CaseIterable {
{{#properties}}
        case {{swiftName}}{{#columnDiffers}} = "{{column}}"{{/columnDiffers}}
{{/properties}}
    }
{{#hasComposites}}

    /// Reads a row: each composite from its columns (nil when they are all NULL, for an optional one).
    {{access}} init(row: GRDB.Row) throws {
{{^enumCheck}}
        try self.init(columnsOf: row)
{{/enumCheck}}
{{#enumCheck}}
        do {
            try self.init(columnsOf: row)
        } catch {
            // A stored value that is no case of its enum: named with its table, row and column.
            try LucidRuntime.UnknownEnumValueError.check(
                row,
                table: Self.databaseTableName,
                primaryKey: {{primaryKey}},
                enumColumns: [
{{#columns}}
                    {{.}},
{{/columns}}
                ])
            throw error
        }
{{/enumCheck}}
    }

    private init(columnsOf row: GRDB.Row) throws {
{{#properties}}
        self.{{swiftName}} = {{rowDecode}}
{{/properties}}
    }

    /// Writes a row: each composite element to its own column{{#generatedColumns}}, all but the generated {{.}}{{/generatedColumns}}.
    {{access}} func encode(to container: inout GRDB.PersistenceContainer) throws {
{{#properties}}
{{#containerEncode}}
        {{.}}
{{/containerEncode}}
{{/properties}}
    }
{{/hasComposites}}
{{^hasComposites}}
{{#generatedColumns}}

    /// Writes a row, all but the generated {{.}} (SQLite computes them).
    {{access}} func encode(to container: inout GRDB.PersistenceContainer) throws {
{{#properties}}
{{#containerEncode}}
        {{.}}
{{/containerEncode}}
{{/properties}}
    }
{{/generatedColumns}}
{{/hasComposites}}
{{/superseded}}
{{#localIdentifier}}

    {{access}} mutating func didInsert(_ inserted: GRDB.InsertionSuccess) {
        self.id = inserted.rowID
    }
{{/localIdentifier}}
}

/// Reads and writes `{{tableName}}` rows by column position, for row transform stages{{#superseded}} and tests{{/superseded}}.
extension {{typeName}}: {{#superseded}}LucidRuntime.SupersededRecord{{^localIdentifier}}, GRDB.PersistableRecord{{/localIdentifier}}{{/superseded}}{{^superseded}}LucidRuntime.MigrationRecord{{/superseded}} {
    {{access}} static let migrationColumns: [Swift.String] = {{migrationColumns}}

    {{access}} init(migrationRow row: LucidRuntime.MigrationRow) throws {
{{#properties}}
        self.{{swiftName}} = {{migrationDecode}}
{{/properties}}
    }

    {{access}} func encode(to values: inout LucidRuntime.MigrationValues) throws {
{{#properties}}
{{#migrationEncode}}
        {{.}}
{{/migrationEncode}}
{{/properties}}
    }
}
{{#kinds}}

/// Entity inheritance: table `{{tableName}}` holds every entity of the hierarchy, each row's in column `kind`.
extension {{typeName}} {
    /// The kinds of the rows a `{{name}}` record reads: {{kindNames}}.
    {{access}} static let kinds: Swift.Set<Swift.String> = [{{kindList}}]

    /// The rows of those kinds only: `{{typeName}}.allOfKind().filter(…).fetchAll(db)`. GRDB's table API on
    /// the type itself (`all()`, `fetchAll`, `fetchCount`, `filter`…) reads every row of `{{tableName}}`,
    /// whatever its kind{{^abstract}}; inserting a record writes its `kind`{{/abstract}}{{#abstract}}; `{{name}}` is abstract: insert its subentities' records{{/abstract}}.
    {{access}} static func allOfKind() -> GRDB.QueryInterfaceRequest<{{typeName}}> {
        Self.all().filter(Self.kinds.contains(GRDB.Column("kind")))
    }
}
{{/kinds}}
{{#hasAssociations}}

/// The relationships of `{{tableName}}` as GRDB associations: `row.request(for: {{typeName}}.<name>)`,
/// `{{typeName}}.including(all: {{typeName}}.<to-many>)`.
extension {{typeName}} {
{{#toOneAssociations}}
    /// `{{name}}`: the `{{target}}` row this row's foreign key points at.
    {{access}} static let {{swiftName}} = Self.belongsTo(
        {{targetRecord}}.self,
        key: {{keyLiteral}},
        using: GRDB.ForeignKey([{{column}}], to: [{{targetKey}}]))
{{/toOneAssociations}}
{{#toManyAssociations}}
    /// The links of `{{name}}`: the rows of `{{joinTable}}` whose source is this row.
    {{access}} static let {{linksName}} = Self.hasMany(
        {{linkName}}.self,
        key: {{linksKeyLiteral}},
        using: GRDB.ForeignKey([{{sourceColumn}}], to: [{{ownerKey}}])
    ){{#ordered}}.order({{linkName}}.Columns.position){{/ordered}}
{{^ordered}}
    /// `{{name}}`: the `{{target}}` rows this row links to, through `{{joinTable}}`.
{{/ordered}}
{{#ordered}}
    /// `{{name}}`: the `{{target}}` rows this row links to, through `{{joinTable}}`, in order (by the links' `position`).
{{/ordered}}
    {{access}} static let {{swiftName}} = Self.hasMany(
        {{targetRecord}}.self,
        through: Self.{{linksName}},
        using: {{linkName}}.target,
        key: {{keyLiteral}})
{{/toManyAssociations}}
}
{{/hasAssociations}}
{{#links}}

extension {{ownerType}} {
    /// One link of the to-many relationship `{{name}}` (`{{ownerEntity}}` → `{{target}}`): a row of table `{{joinTable}}`.
{{#superseded}}
    {{access}} struct {{linkName}}: Swift.Equatable, Swift.Sendable {
{{/superseded}}
{{^superseded}}
    {{access}} struct {{linkName}}:
        Swift.Codable, Swift.Hashable, Swift.Sendable, GRDB.FetchableRecord, GRDB.PersistableRecord
    {
{{/superseded}}
        {{access}} static let databaseTableName = "{{joinTable}}"

        /// The `{{ownerEntity}}` row.
        {{access}} var sourceID: {{sourceType}}
        /// The `{{target}}` row.
        {{access}} var targetID: {{targetType}}
{{#ordered}}
        /// The link's place in its source's list (0-based and increasing; unlinking leaves gaps):
        /// `ORDER BY position`.
        {{access}} var position: Swift.Int
{{/ordered}}

        {{access}} init(sourceID: {{sourceType}}, targetID: {{targetType}}{{#ordered}}, position: Swift.Int{{/ordered}}) {
            self.sourceID = sourceID
            self.targetID = targetID
{{#ordered}}
            self.position = position
{{/ordered}}
        }
{{#targetRecord}}

        /// The link's `{{ownerEntity}}` row.
        {{access}} static let source = Self.belongsTo(
            {{ownerType}}.self,
            using: GRDB.ForeignKey([{{sourceColumn}}], to: [{{ownerKey}}]))
        /// The link's `{{target}}` row.
        {{access}} static let target = Self.belongsTo(
            {{targetRecord}}.self,
            using: GRDB.ForeignKey([{{targetColumn}}], to: [{{targetKey}}]))
{{/targetRecord}}

        /// The columns of `{{joinTable}}`.
        {{access}} enum Columns {
            {{access}} static let sourceID = GRDB.Column({{sourceColumn}})
            {{access}} static let targetID = GRDB.Column({{targetColumn}})
{{#ordered}}
            {{access}} static let position = GRDB.Column("position")
{{/ordered}}
        }
{{^superseded}}

        /// The keys of the link's `Codable` form; the table's columns are ``Columns``.
        {{access}} enum CodingKeys: Swift.String, Swift.CodingKey, Swift.CaseIterable {
            case sourceID = {{sourceColumn}}
            case targetID = {{targetColumn}}
{{#ordered}}
            case position
{{/ordered}}
        }
{{/superseded}}
    }
}

extension {{ownerType}} {
{{^ordered}}
    /// Links this row to the `{{target}}` rows `targetIDs` through `{{name}}` (rows of `{{joinTable}}`; a link that exists
    /// already is kept): `try row.link{{helperSuffix}}(db, ids: [id1, id2])`.
    {{access}} func link{{helperSuffix}}(_ db: GRDB.Database, ids targetIDs: [{{targetType}}]) throws {
        let sourceID = {{#localSource}}try Self.linkSourceID(self.{{sourceID}}){{/localSource}}{{^localSource}}self.{{sourceID}}{{/localSource}}
        for targetID in targetIDs {
            let link = {{linkName}}(sourceID: sourceID, targetID: targetID)
            try link.insert(db, onConflict: .ignore)
        }
    }
{{/ordered}}
{{#ordered}}
    /// Links this row to the `{{target}}` rows `targetIDs` through `{{name}}`, in that order after its last link
    /// (rows of `{{joinTable}}`; a target linked already keeps its place):
    /// `try row.link{{helperSuffix}}(db, ids: [id1, id2])`.
    {{access}} func link{{helperSuffix}}(_ db: GRDB.Database, ids targetIDs: [{{targetType}}]) throws {
        let sourceID = {{#localSource}}try Self.linkSourceID(self.{{sourceID}}){{/localSource}}{{^localSource}}self.{{sourceID}}{{/localSource}}
        let last = try {{linkName}}
            .filter({{linkName}}.Columns.sourceID == sourceID)
            .select(GRDB.max({{linkName}}.Columns.position), as: Swift.Int.self)
            .fetchOne(db)
        var position = last.map { $0 + 1 } ?? 0
        for targetID in targetIDs {
            let link = {{linkName}}(sourceID: sourceID, targetID: targetID, position: position)
            try link.insert(db, onConflict: .ignore)
            if db.changesCount > 0 { position += 1 }
        }
    }
{{/ordered}}

    /// Removes the links of this row to the `{{target}}` rows `targetIDs` through `{{name}}`{{#ordered}} (the others keep
    /// their positions and order){{/ordered}}.
    {{access}} func unlink{{helperSuffix}}(_ db: GRDB.Database, ids targetIDs: [{{targetType}}]) throws {
        let sourceID = {{#localSource}}try Self.linkSourceID(self.{{sourceID}}){{/localSource}}{{^localSource}}self.{{sourceID}}{{/localSource}}
        try {{linkName}}
            .filter({{linkName}}.Columns.sourceID == sourceID)
            .filter(targetIDs.contains({{linkName}}.Columns.targetID))
            .deleteAll(db)
    }
{{#ordered}}

    /// Replaces the links of this row through `{{name}}` with the `{{target}}` rows `targetIDs`, in that order
    /// (positions 0, 1, …; an id given twice keeps its first place).
    {{access}} func set{{helperSuffix}}(_ db: GRDB.Database, ids targetIDs: [{{targetType}}]) throws {
        let sourceID = {{#localSource}}try Self.linkSourceID(self.{{sourceID}}){{/localSource}}{{^localSource}}self.{{sourceID}}{{/localSource}}
        try {{linkName}}.filter({{linkName}}.Columns.sourceID == sourceID).deleteAll(db)
        var position = 0
        for targetID in targetIDs {
            let link = {{linkName}}(sourceID: sourceID, targetID: targetID, position: position)
            try link.insert(db, onConflict: .ignore)
            if db.changesCount > 0 { position += 1 }
        }
    }

    /// The `{{target}}` rows this row links to through `{{name}}`, in order.
    {{access}} func {{idsName}}(_ db: GRDB.Database) throws -> [{{targetType}}] {
        let sourceID = {{#localSource}}try Self.linkSourceID(self.{{sourceID}}){{/localSource}}{{^localSource}}self.{{sourceID}}{{/localSource}}
        return try {{linkName}}
            .filter({{linkName}}.Columns.sourceID == sourceID)
            .order({{linkName}}.Columns.position)
            .select({{linkName}}.Columns.targetID, as: {{targetType}}.self)
            .fetchAll(db)
    }
{{/ordered}}

    // The spelling from before the database came first (as in GRDB's API), kept for the app code that calls it.

    @available(*, deprecated, message: "use link{{helperSuffix}}(db, ids:)")
    {{access}} func link{{helperSuffix}}(_ targetIDs: [{{targetType}}], _ db: GRDB.Database) throws {
        try link{{helperSuffix}}(db, ids: targetIDs)
    }

    @available(*, deprecated, message: "use unlink{{helperSuffix}}(db, ids:)")
    {{access}} func unlink{{helperSuffix}}(_ targetIDs: [{{targetType}}], _ db: GRDB.Database) throws {
        try unlink{{helperSuffix}}(db, ids: targetIDs)
    }
{{#ordered}}

    @available(*, deprecated, message: "use set{{helperSuffix}}(db, ids:)")
    {{access}} func set{{helperSuffix}}(_ targetIDs: [{{targetType}}], _ db: GRDB.Database) throws {
        try set{{helperSuffix}}(db, ids: targetIDs)
    }
{{/ordered}}
}

/// Reads and writes `{{joinTable}}` rows by column position, for row transform stages{{#superseded}} and tests{{/superseded}}.
extension {{ownerType}}.{{linkName}}: {{#superseded}}LucidRuntime.SupersededRecord, GRDB.PersistableRecord{{/superseded}}{{^superseded}}LucidRuntime.MigrationRecord{{/superseded}} {
    {{access}} static let migrationColumns: [Swift.String] = [{{sourceColumn}}, {{targetColumn}}{{#ordered}}, "position"{{/ordered}}]

    {{access}} init(migrationRow row: LucidRuntime.MigrationRow) throws {
        self.sourceID = try row.decode({{sourceType}}.self, at: 0)
        self.targetID = try row.decode({{targetType}}.self, at: 1)
{{#ordered}}
        self.position = try row.decode(Swift.Int.self, at: 2)
{{/ordered}}
    }

    {{access}} func encode(to values: inout LucidRuntime.MigrationValues) throws {
        values.encode(self.sourceID, at: 0)
        values.encode(self.targetID, at: 1)
{{#ordered}}
        values.encode(self.position, at: 2)
{{/ordered}}
    }
}
{{/links}}
{{/shapes}}
{{#newest}}

/// The newest version of the `{{entityName}}` entity.
{{access}} typealias {{alias}} = {{typeName}}
{{#enumColumns}}

extension {{typeName}} {
    /// Decodes a fetched row with `Decodable`; a stored value that is no case of its enum (one a newer app
    /// wrote, or garbage) throws ``UnknownEnumValueError`` naming the table, the row and the column.
    {{access}} init(row: GRDB.Row) throws {
        self = try LucidRuntime.UnknownEnumValueError.decode(
            Self.self,
            from: row,
            primaryKey: {{primaryKey}},
            enumColumns: [
{{#columns}}
                {{.}},
{{/columns}}
            ])
    }
}
{{/enumColumns}}
{{#search}}

extension {{typeName}} {
    /// The rows whose searched properties ({{propertyList}}) match `pattern`, best match first (FTS5's
    /// `rank`), through the table's full-text index `{{ftsTable}}` (tokenizer {{tokenizer}}), which
    /// triggers and every migration keep in step. (GRDB's `matching(_:)` is for FTS tables themselves.)
    ///
    /// ```swift
    /// let found = try {{typeName}}.search(FTS5Pattern(matchingPhrase: "green salad")!).fetchAll(db)
    /// ```
    {{access}} static func search(_ pattern: GRDB.FTS5Pattern) -> GRDB.SQLRequest<{{typeName}}> {
        GRDB.SQLRequest(
            sql: {{sqlLiteral}},
            arguments: [pattern])
    }

    /// The rows that contain a word starting with each word of `text`, best match first: `"pas carb"`
    /// finds "Pasta carbonara" (GRDB's `FTS5Pattern(matchingAllPrefixesIn:)`). Text with no word finds
    /// nothing.
    {{access}} static func search(_ text: Swift.String) -> GRDB.SQLRequest<{{typeName}}> {
        guard let pattern = GRDB.FTS5Pattern(matchingAllPrefixesIn: text) else {
            return GRDB.SQLRequest(sql: {{noneLiteral}})
        }
        return Self.search(pattern)
    }
}
{{/search}}
{{/newest}}

"""#,
        "header": #"""
{{%CONTENT_TYPE:TEXT}}
// {{fileName}}
// Generated by lucidgen from {{source}}.
// Do not edit: change the descriptions; {{regenerate}}.
{{#organization}}
// Copyright (c) {{organization}}.
{{/organization}}

"""#,
        "migrations": #"""
{{%CONTENT_TYPE:TEXT}}
{{> header}}

import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// The steps of {{module}}'s history that SQL alone cannot make. Implement each requirement in the app's
/// type, then migrate with `options.stages = {{registryName}}.stages(using: YourType())`.
{{access}} protocol {{protocolName}}: Swift.Sendable {
{{#requirements}}

    /// {{from}} → {{to}}, table `{{table}}`: {{reasons}}.
    /// Return the row as it must be at {{to}}, or nil to drop it.
    func migrate(_ old: {{oldType}}) throws -> {{newType}}?
{{/requirements}}
{{#hooks}}

    /// {{from}} → {{to}}, stage `{{name}}` (declared in .lucid.yaml): runs at {{from}}'s schema, before the
    /// step's SQL.
{{#hasNotes}}
    ///
{{/hasNotes}}
{{#notes}}
    /// - {{.}}
{{/notes}}
    func {{name}}WillMigrate(_ db: GRDB.Database) throws

    /// {{from}} → {{to}}, stage `{{name}}`: runs at {{to}}'s schema, after the step's SQL.
    func {{name}}DidMigrate(_ db: GRDB.Database) throws
{{/hooks}}
}

extension {{registryName}} {
    /// The stages that run the app's code, for `StoreOptions.stages`.
    {{access}} static func stages(using migrations: some {{protocolName}}) -> [LucidRuntime.MigrationStage] {
        [
{{#steps}}
            LucidRuntime.MigrationStage(
                from: LucidSchema.SchemaVersion("{{from}}"),
                to: LucidSchema.SchemaVersion("{{to}}"),
                label: "{{label}}",
{{^tables}}
                transforms: []{{#hook}},
                willMigrate: { db in try migrations.{{.}}WillMigrate(db) },
                didMigrate: { db in try migrations.{{.}}DidMigrate(db) }{{/hook}}),
{{/tables}}
{{#hasTables}}
                transforms: [
{{#tables}}
                    .records(table: "{{table}}") { (old: {{oldType}}) in
                        try migrations.migrate(old)
                    },
{{/tables}}
                ]{{#hook}},
                willMigrate: { db in try migrations.{{.}}WillMigrate(db) },
                didMigrate: { db in try migrations.{{.}}DidMigrate(db) }{{/hook}}),
{{/hasTables}}
{{/steps}}
        ]
    }
}
{{#provider}}

/// `migrations_provider` in .lucid.yaml: the app's `{{provider}}` implements every requirement above, and
/// one it lacks is a build error on this line (never a failure when a store migrates).
extension {{provider}}: {{protocolName}} {}
{{/provider}}

"""#,
        "schema": #"""
{{%CONTENT_TYPE:TEXT}}
{{> header}}

@_spi(Generated) import LucidSchema

/// Every schema version of {{module}}, oldest first: what `LucidRuntime` reads to create, recognise and migrate
/// stores.
{{access}} enum {{registryName}}: LucidSchema.SchemaRegistry {
    /// The newest version and its checksum: all that opening an up-to-date store reads (no schema is
    /// built).
    {{access}} static let newestVersion = LucidSchema.SchemaVersion("{{newestVersion}}")
    {{access}} static let newestChecksum = "{{newestChecksum}}"

    {{access}} static let versions: [LucidSchema.Schema] = [
{{#versions}}
        {{property}},
{{/versions}}
    ]

    /// The checksum of each version's DDL, as `lucidgen generate` computed it.
    {{access}} static let checksums: [Swift.String] = [
{{#versions}}
        "{{checksum}}",
{{/versions}}
    ]

    /// Each version's path to the newest as the planner takes it, computed by `lucidgen generate` (the
    /// versions it passes through): a migration infers only the steps of its own path.
    {{access}} static let versionRoutes: [[LucidSchema.SchemaVersion]] = [
{{#routes}}
        {{.}},
{{/routes}}
    ]
{{#hasStages}}

    /// The steps that need the app's code (see `{{module}}Migrations`): never inferred around.
    {{access}} static let stages: [LucidSchema.ExplicitStage] = [
{{#stages}}
        LucidSchema.ExplicitStage(
            from: LucidSchema.SchemaVersion("{{from}}"),
            to: LucidSchema.SchemaVersion("{{to}}"),
            label: "{{label}}",
            transformedTables: [{{tables}}]),
{{/stages}}
    ]
{{/hasStages}}
{{#versions}}

{{#summaryLines}}
    /// {{.}}
{{/summaryLines}}
{{#hasDDL}}
    ///
    /// ```sql
{{#ddl}}
    /// {{.}}
{{/ddl}}
    /// ```
{{/hasDDL}}
{{#full}}
    static let {{property}}: LucidSchema.Schema = LucidSchema.Schema(
        version: LucidSchema.SchemaVersion("{{version}}"),
        tables: [
{{#tableProperties}}
            {{.}},
{{/tableProperties}}
        ])
{{/full}}
{{^full}}
    static let {{property}}: LucidSchema.Schema = LucidSchema.Schema(
        version: LucidSchema.SchemaVersion("{{version}}"),
        basedOn: {{previous}},
        replacing: {{replacing}}{{#hasRemovals}},
        removing: {{removing}}{{/hasRemovals}})
{{/full}}
{{/versions}}
{{#tables}}

    /// Table `{{name}}` ({{usedBy}}).
    static let {{property}} = LucidSchema.SchemaTable.Deferred(
        name: {{nameLiteral}},
        json: {{json}})
{{/tables}}
}

"""#,
        "subtype": #"""
{{%CONTENT_TYPE:TEXT}}
{{> header}}

import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
{{#enumeration}}

/// The `{{name}}` enum subtype{{#versions}} as it was at schema version{{plural}} {{.}}{{/versions}}, stored as its case
/// name (TEXT).
{{access}} enum {{typeName}}:
    Swift.String, Swift.Codable, Swift.Hashable, Swift.Sendable, Swift.CaseIterable, GRDB.DatabaseValueConvertible,
    LucidRuntime.StoredEnumeration
{
{{#cases}}
    case {{swiftName}}{{#rawDiffers}} = "{{raw}}"{{/rawDiffers}}
{{/cases}}
}
{{/enumeration}}
{{#optionSet}}

/// The `{{name}}` option set subtype, stored as an INTEGER bit mask.
{{access}} struct {{typeName}}:
    Swift.OptionSet, Swift.Codable, Swift.Hashable, Swift.Sendable, GRDB.DatabaseValueConvertible
{
    {{access}} let rawValue: Swift.Int64

    {{access}} init(rawValue: Swift.Int64) {
        self.rawValue = rawValue
    }
{{#options}}

    {{access}} static let {{swiftName}} = {{typeName}}(rawValue: 1 << {{bit}})
{{/options}}
}
{{/optionSet}}
{{#structure}}

/// The `{{name}}` struct subtype{{#versions}} as it was at version{{plural}} {{versions}} (its members have a
/// history){{/versions}}, stored as JSON text (queryable with SQLite's `json_extract`) or, as a composite
/// attribute, one column per member.
{{access}} struct {{typeName}}: Swift.Codable, Swift.Hashable, Swift.Sendable {
{{#properties}}
    {{access}} var {{swiftName}}: {{swiftType}}
{{/properties}}

    {{access}} init(
{{#properties}}
        {{swiftName}}: {{swiftType}}{{^last}},{{/last}}
{{/properties}}
    ) {
{{#properties}}
        self.{{swiftName}} = {{swiftName}}
{{/properties}}
    }

    {{access}} enum CodingKeys: Swift.String, Swift.CodingKey, Swift.CaseIterable {
{{#properties}}
        case {{swiftName}}{{#keyDiffers}} = "{{key}}"{{/keyDiffers}}
{{/properties}}
    }
}
{{#isComposite}}

extension {{typeName}} {
    /// Typed references to the columns of a `{{name}}` stored as a composite attribute, one per element
    /// (`<property column>_<member>`), for queries and indexes:
    /// `Record.filter(Record.Columns.property.<member> == value)`.
    {{access}} struct Columns: Swift.Sendable {
{{#compositeColumns}}
        {{access}} let {{swiftName}}: {{columnType}}
{{/compositeColumns}}

        /// The columns of the composite stored under `prefix` (the property's column name).
        {{access}} init(prefix: Swift.String) {
{{#compositeColumns}}
            self.{{swiftName}} = {{columnType}}({{#nested}}prefix: {{/nested}}prefix + {{suffix}})
{{/compositeColumns}}
        }
    }
}
{{/isComposite}}
{{/structure}}

"""#,
        "tests": #"""
{{%CONTENT_TYPE:TEXT}}
{{> header}}

import Foundation
import GRDB
{{#testable}}@testable {{/testable}}import {{module}}
import LucidRuntime
@_spi(Generated) import LucidTesting
import Testing

/// What the migration tests need from the app: the options it opens its store with, and what its own
/// migration code does to the data, for every step lucidgen cannot predict. `{{provider}}`
/// (`targets.app_tests.expectations_provider` in .lucid.yaml) implements it; a missing requirement is a
/// build error of the test target.
{{access}} protocol {{protocolName}} {
    init()

    /// The options the app opens its store with (its stages and data migrations): the tests migrate with them.
    func storeOptions() -> LucidRuntime.StoreOptions
{{#transforms}}

    /// {{from}} → {{to}}, table `{{tableName}}`: the row the app's `migrate(_:)` must make of `old` (nil: dropped).
    /// Write what you expect, independently of the stage's code.
    func expectedRow(migrating old: {{module}}.{{oldType}}) throws -> {{module}}.{{newType}}?
{{/transforms}}
{{#hooks}}

    /// {{from}} → {{to}}, stage `{{name}}`: change `after` (the rows at {{to}} as SQL alone leaves them) the
    /// way the stage changes the store; `before` holds the rows at {{from}}.
    /// Record types at {{from}}: {{typesAtFrom}}; at {{to}}: {{typesAtTo}}.
    func {{name}}Expectation(before: LucidTesting.ExpectedRows, after: inout LucidTesting.ExpectedRows) throws
{{/hooks}}

    /// What each of the app's data migrations does to the rows. A data migration that runs without one
    /// fails the test that runs it.
    var dataMigrationExpectations: [LucidTesting.DataMigrationExpectation] { get }
}

extension {{protocolName}} {
    {{access}} var dataMigrationExpectations: [LucidTesting.DataMigrationExpectation] { [] }
}

/// `expectations_provider` in .lucid.yaml: the tests' `{{provider}}` implements every requirement above, and
/// one it lacks is a build error on this line (never a test that passes without checking).
extension {{provider}}: {{protocolName}} {}

/// Every historical version of {{module}}'s store, and every committed fixture store, migrated to {{current}}
/// with the app's real registry and options, then checked row by row and value by value.
@Suite("{{module}} migrations (generated)")
struct {{suiteName}} {
    static let harness = LucidTesting.MigrationTestHarness(
        registry: {{module}}.{{registryName}}.self,
        options: {{provider}}().storeOptions(),
        expectations: LucidTesting.MigrationExpectations(
            transforms: [
{{#transforms}}
                .records(
                    from: LucidRuntime.SchemaVersion("{{from}}"),
                    to: LucidRuntime.SchemaVersion("{{to}}"),
                    table: {{table}}
                ) { (old: {{module}}.{{oldType}}) in
                    try {{provider}}().expectedRow(migrating: old)
                },
{{/transforms}}
            ],
            stages: [
{{#hooks}}
                LucidTesting.StageExpectation(
                    from: LucidRuntime.SchemaVersion("{{from}}"),
                    to: LucidRuntime.SchemaVersion("{{to}}"),
                    label: {{label}}
                ) { before, after in
                    try {{provider}}().{{name}}Expectation(before: before, after: &after)
                },
{{/hooks}}
            ],
            dataMigrations: {{provider}}().dataMigrationExpectations),
        naming: [
{{#naming}}
            LucidTesting.EntityNaming(
                table: {{table}},
                entity: {{entity}},
                properties: {{properties}}),
{{/naming}}
        ],
        exclusions: [
{{#exclusions}}
            // {{why}}
            LucidTesting.CheckExclusion(
                table: {{table}},
                column: {{column}},
                from: {{from}},
                before: LucidRuntime.SchemaVersion("{{before}}")),
{{/exclusions}}
        ],
        recordChecks: [
{{#recordChecks}}
{{^kinds}}
            .records({{module}}.{{typeName}}.self, entity: {{entity}}),
{{/kinds}}
{{#kinds}}
            .records({{module}}.{{typeName}}.self, entity: {{entity}}, kinds: {{module}}.{{.}}),
{{/kinds}}
{{/recordChecks}}
        ],
        // The project's sample rows per version (.samples/<version>.json beside the descriptions), seeded too.
        samplesFolder: Self.samplesFolder)

    /// The folder of the sample rows.
    static let samplesFolder = {{{samplesFolder}}}

    /// The committed fixture stores' folder.
    static let fixturesFolder = {{{fixturesFolder}}}

    @Test(
        "a store seeded at each version migrates to {{current}} with every value as expected",
        arguments: {{versions}})
    func seededStoreMigrates(from version: Swift.String) throws {
        let failures = Self.harness.checkSeeded(from: try LucidRuntime.SchemaVersion(parsing: version)) { db, rows in
            try {{seedsName}}.seed(version: version, db, rows: rows)
        }
        for failure in failures { Testing.Issue.record("\(failure)") }
    }

    /// The released versions: each one before {{current}}, and {{current}} once `lucidgen release` marked its
    /// snapshot.
    static let releasedVersions: [Swift.String] = {{released}}
        + (LucidTesting.FixtureFiles.isMarkedReleased(snapshotAt: Self.currentSnapshot) ? ["{{current}}"] : [])

    /// The snapshot of {{current}}, which `lucidgen release` marks released.
    static let currentSnapshot = {{{currentSnapshot}}}

    /// The committed fixture stores, listed once. Finding none passes only while no version is released: a
    /// fixture folder that is missing then, or cannot be read, is one failing case.
    static let fixtures = LucidTesting.FixtureFiles.cases(
        in: Self.fixturesFolder, releasedVersions: Self.releasedVersions)

    @Test(
        "each committed fixture store migrates to {{current}} with every value as expected",
        arguments: Self.fixtures)
    func fixtureMigrates(_ fixture: LucidTesting.FixtureFiles.Case) throws {
        for failure in Self.harness.checkFixture(at: try fixture.path) { Testing.Issue.record("\(failure)") }
    }

    /// Each released version keeps the fixture store it wrote: every later release must migrate it.
    @Test("each released version has a committed fixture store", arguments: Self.releasedVersions)
    func releasedVersionHasFixture(_ version: Swift.String) throws {
        let missing = LucidTesting.FixtureFiles.missingFixture(
            module: "{{module}}", version: try LucidRuntime.SchemaVersion(parsing: version), in: Self.fixturesFolder)
        if let missing { Testing.Issue.record("\(missing)") }
    }
}

/// Deterministic rows for each version, built with that version's record types: edge values cycle
/// through every property (`Seedable`), to-one relationships point at other rows, to-many
/// relationships get zero, one or two links. One function per record type, and the versions it seeds.
enum {{seedsName}} {
    static let seeders: [LucidTesting.VersionedSeeder] = makeSeeders()

    /// One statement per seeder: one array literal of a long history's thousands took the type checker 15 GB.
    static func makeSeeders() -> [LucidTesting.VersionedSeeder] {
        var seeders: [LucidTesting.VersionedSeeder] = []
{{#seeders}}
        seeders.append(
            LucidTesting.VersionedSeeder(
                from: LucidRuntime.SchemaVersion("{{from}}"),
                through: LucidRuntime.SchemaVersion("{{through}}"),
                {{function}}))
{{/seeders}}
        return seeders
    }

    static func seed(version: Swift.String, _ db: GRDB.Database, rows: Swift.Int) throws {
        try LucidTesting.VersionedSeeder.seed(
            seeders, version: try LucidRuntime.SchemaVersion(parsing: version), db, rows: rows)
    }
{{#seedFunctions}}

    static func {{function}}(_ db: GRDB.Database, rows: Swift.Int) throws {
{{#record}}
        for row in {{rowRange}} {
            _ = try {{module}}.{{typeName}}(
{{#arguments}}
                {{label}}: {{value}}{{^last}},{{/last}}
{{/arguments}}
            ).inserted(db)
        }
{{#links}}
{{^ordered}}
        for row in {{rowRange}} {
            for target in LucidTesting.Seed.links(row: row, rows: {{targetRows}}, maxLinks: {{maxLinks}}) {
                try {{module}}.{{linkType}}(
                    sourceID: LucidTesting.Seed.identifier(row: row),
                    targetID: LucidTesting.Seed.identifier(row: target{{targetOffset}})
                ).insert(db)
            }
        }
{{/ordered}}
{{#ordered}}
        for row in {{rowRange}} {
            // Ordered: positions in the reverse of the insertion order (a migration must keep them, not renumber
            // by rowid).
            let targets = LucidTesting.Seed.links(row: row, rows: {{targetRows}}, maxLinks: {{maxLinks}})
            for (index, target) in targets.enumerated() {
                try {{module}}.{{linkType}}(
                    sourceID: LucidTesting.Seed.identifier(row: row),
                    targetID: LucidTesting.Seed.identifier(row: target{{targetOffset}}),
                    position: targets.count - 1 - index
                ).insert(db)
            }
        }
{{/ordered}}
{{/links}}
{{/record}}
    }
{{/seedFunctions}}
}
{{#subtypes}}
{{#caseIterable}}

extension {{module}}.{{typeName}}: LucidTesting.Seedable {}
{{/caseIterable}}
{{#optionSet}}

extension {{module}}.{{typeName}}: LucidTesting.Seedable {
    {{access}} static func seed(row: Swift.Int, salt: Swift.Int) -> {{module}}.{{typeName}} {
        {{module}}.{{typeName}}(rawValue: Swift.Int64((row + salt) % {{.}}))
    }
}
{{/optionSet}}
{{#structure}}

extension {{module}}.{{typeName}}: LucidTesting.Seedable {
    {{access}} static func seed(row: Swift.Int, salt: Swift.Int) -> {{module}}.{{typeName}} {
        {{module}}.{{typeName}}(
{{#members}}
            {{label}}: .seed(row: row, salt: salt + {{salt}}){{^last}},{{/last}}
{{/members}}
        )
    }
}
{{#distinct}}

/// A composite: distinct per row in every element that can be (a unique index may name any of them).
extension {{module}}.{{typeName}}: LucidTesting.DistinctSeedable {
    {{access}} static func seedDistinct(row: Swift.Int, salt: Swift.Int) -> {{module}}.{{typeName}} {
        {{module}}.{{typeName}}(
{{#members}}
            {{label}}: .{{distinctMethod}}(row: row, salt: salt + {{salt}}){{^last}},{{/last}}
{{/members}}
        )
    }
}
{{/distinct}}
{{/structure}}
{{/subtypes}}

"""#,
    ]
}
