/// The values each template renders: one struct per template, with nested structs for the items of its
/// lists. A stored property's name is the name the template writes (`{{typeName}}`, `{{#properties}}`):
/// since `templates_path` lets an app replace a bundled template, these names are public API, documented
/// in `LucidRuntime.docc/Templates.md`. `TemplateContractTests` checks that every name a bundled template
/// uses is a key of the struct it is rendered with, and that the article lists exactly these keys.
///
/// ``ViewModels`` builds them; ``TemplateValue`` turns them into what swift-mustache renders, in one place.
/// Mustache's rules, which the structs follow:
/// - a name a section's item lacks is looked up in the enclosing contexts (`{{access}}` inside
///   `{{#properties}}` is the header's), so an item does not repeat its parents' keys;
/// - a nil optional is absent, and so looked up in the enclosing contexts too; a `Bool` opens a section
///   when true; a list repeats it once per item (none when empty); a string opens it once, as `{{.}}`, even
///   when empty (so a section that depends on a condition tests a `Bool`, not a string).
///
/// `Codable`: `Encodable` is how ``TemplateValue`` reads a context's keys, `Decodable` lets the contract
/// test list a struct's keys and their types without a value.
protocol TemplateContext: Codable, Sendable {}

/// What every template can name beside its own context (the `header` partial uses it), set by ``Renderer``.
struct HeaderContext: TemplateContext {
    /// The generated file's name.
    var fileName: String
    /// What the file is generated from, relative to the `.lucid.yaml` folder.
    var source: String
    /// `organization_name`.
    var organization: String?
    /// `access_level`: `public` or `internal`.
    var access: String
    /// `access_level` is `internal`: the generated tests `@testable import` the app.
    var testable: Bool
    /// What remakes the file: `then run \`lucidgen generate\`` or, in plugin mode, the build.
    var regenerate: String
}

// MARK: entity.mustache

/// One entity's file: a record type per version (`shapes`), then the newest's alias and extensions.
struct EntityContext: TemplateContext {
    var shapes: [Shape]
    var newest: Newest?

    /// One version's record type.
    struct Shape: TemplateContext {
        var entityName: String
        /// The entity's name at this version.
        var name: String
        var renamed: Bool
        var version: String
        var typeName: String
        var tableName: String
        /// The stored properties, in initializer order.
        var properties: [Property]
        /// The `migrationColumns` array literal.
        var migrationColumns: String
        /// `GRDB.PersistableRecord`, or `GRDB.MutablePersistableRecord` for a local identifier.
        var persistence: String
        /// Not the newest version: a `SupersededRecord`.
        var superseded: Bool
        var localIdentifier: Bool
        /// The first property's Swift name (`id` when there is none).
        var firstColumn: String
        var hasComposites: Bool
        /// The first composite property's Swift name (empty when there is none).
        var firstComposite: String
        /// The generated columns the record reads and never writes (its own `encode(to:)` leaves them out), nil
        /// when there are none.
        var generatedColumns: String?
        var links: [Link]
        var toManyNotes: [ToManyNote]
        var toOneAssociations: [ToOneAssociation]
        var toManyAssociations: [ToManyAssociation]
        var hasAssociations: Bool
        /// Entity inheritance: the kinds of rows the record reads.
        var kinds: Kinds?
        /// The newest record with composites and enum columns: its `init(row:)` names a stored value that is
        /// no case of its enum.
        var enumCheck: EnumCheck?
    }

    /// A stored property of a record (an identifier, a value, a to-one key or a composite).
    struct Property: TemplateContext {
        var swiftName: String
        var column: String
        /// The property's type, `?` included.
        var swiftType: String
        /// The type without `?`.
        var baseType: String
        var doc: String
        /// The Swift name (without backticks) is not the column name: the coding key names the column.
        var columnDiffers: Bool
        /// Stored as JSON text.
        var json: Bool
        var isComposite: Bool
        /// The initializer's default value.
        var defaultSwift: String?
        /// `Columns`' reference to the column (a composite's `Columns(prefix:)`).
        var columnReference: String
        /// The value `init(row:)` reads (records with composites).
        var rowDecode: String
        /// The statements of `encode(to container:)` (records with composites).
        var containerEncode: [String]
        /// The value `init(migrationRow:)` reads by position.
        var migrationDecode: String
        /// The statements of `encode(to values:)`, by position.
        var migrationEncode: [String]
        /// The last property.
        var last: Bool
    }

    /// A to-many relationship's link record (a row of its join table) and the owner's link helpers.
    struct Link: TemplateContext {
        var superseded: Bool
        var ownerType: String
        var ownerEntity: String
        var name: String
        var target: String
        var joinTable: String
        var linkName: String
        var sourceType: String
        var targetType: String
        var ownerKey: String
        var targetKey: String
        /// The link table's source and target columns, as Swift string literals (`"source_id"`, or the app's `"bookId"`).
        var sourceColumn: String
        var targetColumn: String
        /// `linkTags`, `unlinkTags`, `setTags`: the helpers' suffix.
        var helperSuffix: String
        /// The owner's identifier property.
        var sourceID: String
        /// The owner's identifier is local (assigned on insert).
        var localSource: Bool
        var ordered: Bool
        /// `tagsIDs`: an ordered relationship's reader of the targets' ids.
        var idsName: String
        /// The target's record type at this version (nil: none, so no `source`/`target` associations).
        var targetRecord: String?
    }

    /// A line of the record's doc comment about a to-many relationship.
    struct ToManyNote: TemplateContext {
        var name: String
        var target: String
        var joinTable: String
        var linkType: String
    }

    /// A to-one relationship as a GRDB `belongsTo` association.
    struct ToOneAssociation: TemplateContext {
        var swiftName: String
        var name: String
        var target: String
        var targetRecord: String
        var keyLiteral: String
        var column: String
        var targetKey: String
    }

    /// A to-many relationship as GRDB `hasMany` associations: its links, and its targets through them.
    struct ToManyAssociation: TemplateContext {
        var swiftName: String
        var linksName: String
        var name: String
        var target: String
        var targetRecord: String
        var linkName: String
        var joinTable: String
        var keyLiteral: String
        var linksKeyLiteral: String
        var ownerKey: String
        /// The link table's source column, as a Swift string literal.
        var sourceColumn: String
        var ordered: Bool
    }

    /// Entity inheritance: the kinds of rows a record of the hierarchy reads.
    struct Kinds: TemplateContext {
        /// The kinds as string literals, comma-separated.
        var kindList: String
        /// The kinds in backticks, for comments.
        var kindNames: String
        var abstract: Bool
    }

    /// The enum columns whose stored values a record checks on reading.
    struct EnumCheck: TemplateContext {
        /// The primary key column as a string literal (`nil` for a local identifier).
        var primaryKey: String
        /// `("column", Type.self)` tuples.
        var columns: [String]
    }

    /// The newest version: the entity's typealias, its enum check and its search.
    struct Newest: TemplateContext {
        var entityName: String
        var alias: String
        var typeName: String
        var enumColumns: EnumCheck?
        var search: Search?
    }

    /// A declared search's typed queries.
    struct Search: TemplateContext {
        var typeName: String
        var table: String
        var ftsTable: String
        var propertyList: String
        var tokenizer: String
        var sqlLiteral: String
        var noneLiteral: String
    }
}

// MARK: subtype.mustache

/// One subtype's file: exactly one of its three kinds is set.
struct SubtypeContext: TemplateContext {
    /// The newest cases, then each older case set of an enum with a history.
    var enumeration: [Enumeration]?
    var optionSet: Options?
    /// The newest members, then each older member set of a struct with a history.
    var structure: [Structure]?

    struct Enumeration: TemplateContext {
        var name: String
        var typeName: String
        var cases: [Case]
        /// An older case set: the versions that have it.
        var versions: String?
        /// `s` when `versions` names several.
        var plural: String?
    }

    struct Case: TemplateContext {
        var swiftName: String
        var raw: String
        var rawDiffers: Bool
    }

    struct Options: TemplateContext {
        var name: String
        var typeName: String
        var options: [Option]
    }

    struct Option: TemplateContext {
        var swiftName: String
        var bit: Int
    }

    struct Structure: TemplateContext {
        var name: String
        var typeName: String
        var properties: [Member]
        /// An older member set: the versions that have it.
        var versions: String?
        /// `s` when `versions` names several.
        var plural: String?
        /// Some record stores the struct as a composite attribute: it gets typed column references.
        var isComposite: Bool
        var compositeColumns: [CompositeColumn]
    }

    struct Member: TemplateContext {
        var swiftName: String
        var key: String
        var keyDiffers: Bool
        var swiftType: String
        var last: Bool
    }

    struct CompositeColumn: TemplateContext {
        var swiftName: String
        /// The column name's suffix as a string literal (`"_member"`).
        var suffix: String
        var columnType: String
        /// The member is a struct: a nested composite.
        var nested: Bool
    }
}

// MARK: schema.mustache

/// The schema registry.
struct SchemaContext: TemplateContext {
    var module: String
    var registryName: String
    var versions: [Version]
    var tables: [Table]
    var stages: [Stage]
    var hasStages: Bool
    /// Each version's route to the newest, an array literal.
    var routes: [String]
    var newestVersion: String
    var newestChecksum: String

    /// One version's schema: the first in full, each later one by what changed since the one before.
    struct Version: TemplateContext {
        var version: String
        var property: String
        var checksum: String
        var tableProperties: [String]
        var summaryLines: [String]
        /// The first version: its tables in full.
        var full: Bool
        var previous: String?
        var previousVersion: String?
        /// The `replacing:` array literal.
        var replacing: String?
        /// The `removing:` array literal.
        var removing: String?
        var hasRemovals: Bool
        /// The newest version: its statements, one comment line each.
        var ddl: [String]
        var hasDDL: Bool
    }

    /// A distinct table definition, shared by the versions that have it.
    struct Table: TemplateContext {
        var property: String
        var name: String
        var nameLiteral: String
        var json: String
        /// The versions that have it (`versions 1.0 to 2.3`).
        var usedBy: String
    }

    /// A step that needs the app's code.
    struct Stage: TemplateContext {
        var from: String
        var to: String
        var label: String
        /// The transformed tables as string literals, comma-separated.
        var tables: String
    }
}

// MARK: migrations.mustache

/// The app's migration code: the protocol it implements and the stages that call it.
struct MigrationsContext: TemplateContext {
    var module: String
    var protocolName: String
    var registryName: String
    var requirements: [Requirement]
    var steps: [Step]
    var hooks: [Hook]
    /// `migrations_provider`.
    var provider: String?

    /// A `migrate(_:)` requirement: one table's row transform.
    struct Requirement: TemplateContext {
        var from: String
        var to: String
        var table: String
        var reasons: String
        var oldType: String
        var newType: String
    }

    struct Step: TemplateContext {
        var from: String
        var to: String
        var label: String
        var tables: [StepTable]
        var hasTables: Bool
        /// The stage's hook name (its `WillMigrate`/`DidMigrate` requirements).
        var hook: String?
    }

    struct StepTable: TemplateContext {
        var table: String
        var oldType: String
        var newType: String
    }

    struct Hook: TemplateContext {
        var from: String
        var to: String
        var name: String
        var notes: [String]
        var hasNotes: Bool
    }
}

// MARK: tests.mustache

/// The generated migration tests.
struct TestsContext: TemplateContext {
    var module: String
    var registryName: String
    var protocolName: String
    /// `expectations_provider`.
    var provider: String
    var suiteName: String
    var seedsName: String
    /// The current version.
    var current: String
    /// Every version, an array literal.
    var versions: String
    /// Every version before the current one, an array literal.
    var released: String
    var seedFunctions: [SeedFunction]
    var seeders: [Seeder]
    var naming: [EntityNames]
    var recordChecks: [RecordCheck]
    var exclusions: [Exclusion]
    var transforms: [Transform]
    var hooks: [Hook]
    var subtypes: [SeedableSubtype]
    /// Expressions: the sample rows' folder, the fixture stores' folder, the current version's snapshot.
    var samplesFolder: String
    var fixturesFolder: String
    var currentSnapshot: String

    /// A seeding function and the one record type it seeds.
    struct SeedFunction: TemplateContext {
        var function: String
        var record: SeedRecord
    }

    struct SeedRecord: TemplateContext {
        var typeName: String
        var arguments: [SeedArgument]
        var links: [SeedLink]
        var superseded: Bool
        var rowCount: String
        var rowRange: String
    }

    struct SeedArgument: TemplateContext {
        var label: String
        var value: String
        var last: Bool
    }

    struct SeedLink: TemplateContext {
        var linkType: String
        var maxLinks: Int
        var rowCount: String
        var targetRows: String
        var rowRange: String
        var targetOffset: String
        var ordered: Bool
    }

    /// The versions a seeding function seeds.
    struct Seeder: TemplateContext {
        var function: String
        var from: String
        var through: String
    }

    /// How a table and its columns are named in messages.
    struct EntityNames: TemplateContext {
        var table: String
        var entity: String
        var properties: String
    }

    struct RecordCheck: TemplateContext {
        var typeName: String
        var entity: String
        /// A subentity's kinds (`Type.kinds`).
        var kinds: String?
    }

    struct Exclusion: TemplateContext {
        var table: String
        var column: String
        var from: String
        var before: String
        var why: String
    }

    struct Transform: TemplateContext {
        var from: String
        var to: String
        var table: String
        var tableName: String
        var oldType: String
        var newType: String
    }

    struct Hook: TemplateContext {
        var from: String
        var to: String
        var name: String
        var label: String
        var typesAtFrom: String
        var typesAtTo: String
    }

    /// A generated subtype's `Seedable` conformance: one of `caseIterable`, `optionSet`, `structure`.
    struct SeedableSubtype: TemplateContext {
        var typeName: String
        var caseIterable: Bool
        /// An option set: the count of its values, `(1 << n)`.
        var optionSet: String?
        var structure: Bool
        var members: [SeedMember]
        /// A composite: also `DistinctSeedable`.
        var distinct: Bool
    }

    struct SeedMember: TemplateContext {
        var label: String
        var salt: Int
        var distinctMethod: String
        var last: Bool
    }
}
