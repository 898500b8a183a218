@_spi(Generated) import LucidSchema

/// Everything the Load stage read: the config and the descriptions, as written (not yet resolved).
package struct LoadedInput: Sendable {
    package var config: Config
    package var entities: [EntityDescription]
    package var subtypes: [SubtypeDescription]
    /// Warnings and notes found while loading.
    package var diagnostics: [Diagnostic]
}

/// One entity description file.
package struct EntityDescription: Sendable {
    package var name: String
    package var persistedName: String?
    package var identifier: IdentifierDescription
    package var properties: [PropertyDescription]
    package var versionHistory: [VersionHistoryItem]
    package var persist: Bool
    /// The version at which the entity was removed; the description stays so older versions keep their shape.
    package var removedAtVersion: SchemaVersion?
    /// The entity-level `indexes` (multi-column or named indexes), as written.
    package var indexes: [IndexDescription] = []
    /// The entity's declared full-text search, as written.
    package var search: SearchDescription? = nil
    /// `swift_name`: the Swift type of the newest record instead of `name`'s UpperCamelCase form (the
    /// records of versions also take it: `<swift_name>_1_0`, except versions before a rename).
    package var swiftName: String? = nil
    /// `parent`: the entity (by its current name) this one is a subentity of (Core Data's entity
    /// inheritance): its rows live in its root's table, with a `kind` column saying which entity a row is.
    package var parent: String? = nil
    /// Where `parent` is written.
    package var parentLocation: SourceLocation? = nil
    /// `parent_history`: the entity's parent at the versions before each item's `until_version` (and from
    /// the previous item's on), when it gained, lost or changed its parent; `parent` is the newest.
    package var parentHistory: [ParentHistoryItem] = []
    /// `abstract`: no row is of exactly this entity (Core Data's `isAbstract`).
    package var abstract: Bool = false
    /// `strict`: the table is `STRICT` at every version (SQLite refuses a value that is not of its column's
    /// declared type), and every rebuild keeps it so.
    package var strict: Bool = false
    /// Where `strict` is written.
    package var strictLocation: SourceLocation? = nil
    /// `checks`: the table's CHECK constraints (a change of them rebuilds the table).
    package var checks: [CheckDescription] = []
    /// Whether the description writes `identifier` (a subentity shares its root's and may only repeat it).
    package var declaresIdentifier: Bool = false
    /// `takes_name_of`: the entity, removed before this one is added, whose table this new one takes (a
    /// name that comes back is a new entity, not a rename).
    package var takesNameOf: String? = nil
    package var location: SourceLocation

    /// The table name: `persisted_name`, or `name`.
    package var tableName: String { persistedName ?? name }

    /// The Swift type of the newest record: `swift_name`, or `name`'s UpperCamelCase form.
    package var swiftTypeName: String { Naming.typeName(name, swiftName: swiftName) }
}

package struct IdentifierDescription: Sendable {
    package enum Kind: Sendable, Equatable {
        /// No identifier in the description: a local integer key assigned by SQLite.
        case local
        case scalar(ScalarType)
        /// The identifier is one of the entity's properties.
        case property(String)
    }

    package var kind: Kind
    package var location: SourceLocation
    /// `"autoincrement": true` on an integer identifier (GRDB's `autoIncrementedPrimaryKey`): SQLite never
    /// hands an id out twice, even after its row is deleted (`INTEGER PRIMARY KEY AUTOINCREMENT`).
    package var autoincrement = false
    /// `on_conflict`: the primary key's `ON CONFLICT` resolution, upper-cased.
    package var onConflict: String? = nil
    /// Where `autoincrement` is written on a property identifier (whose property must be an int).
    package var autoincrementLocation: SourceLocation? = nil
}

/// One item of `version_history`.
package struct VersionHistoryItem: Sendable {
    package var version: SchemaVersion
    /// The entity's name before this version.
    package var previousName: String?
    package var ignoreMigrationChecks: Bool
    package var ignorePropertyMigrationChecksOn: [String]
    package var location: SourceLocation
}

/// An item of an entity's `checks`: the constraint, and the versions it holds at (from `addedAtVersion`,
/// before `removedAtVersion`; every version when neither is given).
package struct CheckDescription: Sendable, Hashable {
    package var check: SchemaCheck
    package var addedAtVersion: SchemaVersion? = nil
    package var removedAtVersion: SchemaVersion? = nil

    /// Whether the table has it at `version`.
    package func holds(at version: SchemaVersion) -> Bool {
        addedAtVersion.map { version >= $0 } ?? true && removedAtVersion.map { version < $0 } ?? true
    }
}

/// A generated column's `GENERATED ALWAYS AS (expression)`, `STORED` or `VIRTUAL`.
package struct GeneratedColumn: Sendable, Hashable {
    package var expression: String
    package var stored: Bool
}

package struct PropertyDescription: Sendable {
    package var name: String
    package var type: PropertyType
    package var nullable: Bool
    package var defaultValue: DefaultValue?
    package var previousName: String?
    /// Which version the rename through `previous_name` happened at, when the history leaves it ambiguous.
    package var renamedAtVersion: SchemaVersion?
    package var addedAtVersion: SchemaVersion?
    /// The version at which the property was removed (lucidgen's acknowledgement of a removal).
    package var removedAtVersion: SchemaVersion?
    package var persistedName: String?
    package var unused: Bool
    package var lazy: Bool
    /// `"indexed": true`: a single-column index on the property's column.
    package var indexed: Bool = false
    /// `"unique": true`: a unique single-column index (implies `indexed`).
    package var unique: Bool = false
    /// `on_delete` of a to-one relationship: what SQLite does to this row when the row it points at is
    /// deleted; nil for the default (CASCADE when required, SET NULL when optional).
    package var onDelete: SchemaForeignKey.Action? = nil
    /// `on_update`: the foreign key's ON UPDATE action (nil: NO ACTION).
    package var onUpdate: SchemaForeignKey.Action? = nil
    /// `column_type`: the column's declared type when the store's is not its storage class's name (`BOOLEAN`,
    /// `DATETIME`, `DOUBLE`, as GRDB writes them), upper-cased; it holds at every version.
    package var columnType: String? = nil
    /// `collation`: the column's collating sequence when it is not BINARY (`NOCASE`, `RTRIM`, an app's).
    package var collation: String? = nil
    /// `on_conflict`: the `ON CONFLICT` resolution of the required column's `NOT NULL` (`REPLACE`: an insert
    /// of NULL takes the default), upper-cased; it holds at every version the column is required.
    package var onConflict: String? = nil
    /// `check`: the expression of the column's CHECK constraint, at every version of the property.
    package var check: String? = nil
    /// `generated`: the column's values are SQLite's to compute from this expression (no insert writes
    /// them), at every version of the property.
    package var generated: GeneratedColumn? = nil
    /// What the property was before some versions (type, nullability, default), newest last.
    package var typeHistory: [PropertyTypeHistoryItem] = []
    /// For a composite added at a version: which of the entity's properties (by current name, each removed
    /// at that version) each element (by its path, `accent.red`) was before. Their columns become the
    /// elements' columns; nothing is guessed.
    package var elementsFrom: [(element: String, property: String)] = []
    /// Where `elements_from` is written.
    package var elementsFromLocation: SourceLocation? = nil
    /// `swift_name`: the Swift property instead of `name`'s lowerCamelCase form (the column stays).
    package var swiftName: String? = nil
    /// `takes_name_of`: the property of the same entity, removed before this one is added, whose column
    /// (and Swift name) this new one takes: a name that comes back is a new property, not a rename.
    package var takesNameOf: String? = nil
    /// `moved_from`: the entity of the same hierarchy (an ancestor or a subentity) that had this property,
    /// of the same name and column, until this one's `added_at_version`, where it is removed: the property
    /// moves up or down the hierarchy and its column, with its values, stays.
    package var movedFrom: String? = nil
    /// A to-many relationship's `link_table`: the app's own join table it is stored in (nil: lucidgen's).
    package var linkTable: LinkTableDescription? = nil
    package var location: SourceLocation
    /// Where `property_type` is written.
    package var typeLocation: SourceLocation
    package var path: String

    /// The column name: `persisted_name`, or `name`.
    package var columnName: String { persistedName ?? name }
}

/// One item of an entity's `indexes`: an index over one or more properties (by their current names), in
/// order, optionally unique and optionally named.
package struct IndexDescription: Sendable, Equatable {
    /// The properties' current names, in index order.
    package var properties: [String]
    package var unique: Bool
    /// The index's name in SQLite; nil: `<table>_<column>_…_index` (or `_unique`).
    package var name: String?
    /// `on_conflict` on a unique index: the table's `UNIQUE (…) ON CONFLICT …` constraint instead of an index.
    package var onConflict: String? = nil
    package var location: SourceLocation
    package var path: String

    package init(properties: [String], unique: Bool, name: String? = nil, location: SourceLocation, path: String) {
        self.properties = properties
        self.unique = unique
        self.name = name
        self.location = location
        self.path = path
    }
}

/// An entity's `search`: an FTS5 index over some of its text properties, kept in step by every migration.
///
/// ```json
/// "search": { "properties": ["title", "notes"], "tokenizer": "unicode61 remove_diacritics 2", "added_at_version": "2.0",
///             "history": [{ "until_version": "3.0", "properties": ["title"] }] }
/// ```
package struct SearchDescription: Sendable {
    /// The searched properties' current names, in the index's column order.
    package var properties: [String]
    /// FTS5's `tokenize` option; nil: FTS5's default (`unicode61`).
    package var tokenizer: String?
    /// The version that introduced the search (default: the entity's first version).
    package var addedAtVersion: SchemaVersion?
    /// The version from which the entity has no search any more.
    package var removedAtVersion: SchemaVersion?
    /// What the search was before some versions, oldest first.
    package var history: [SearchHistoryItem]
    package var location: SourceLocation
    package var path: String

    package init(
        properties: [String], tokenizer: String?, addedAtVersion: SchemaVersion? = nil, removedAtVersion: SchemaVersion? = nil,
        history: [SearchHistoryItem] = [], location: SourceLocation, path: String
    ) {
        self.properties = properties
        self.tokenizer = tokenizer
        self.addedAtVersion = addedAtVersion
        self.removedAtVersion = removedAtVersion
        self.history = history
        self.location = location
        self.path = path
    }

    /// The searched properties (current names) and tokenizer at `version` (a version of the entity's
    /// history), or nil when the entity has no search then.
    package func state(at version: SchemaVersion) -> (properties: [String], tokenizer: String?, location: SourceLocation, path: String)? {
        if let addedAtVersion, version < addedAtVersion { return nil }
        if let removedAtVersion, version >= removedAtVersion { return nil }
        var state = (properties: properties, tokenizer: tokenizer, location: location, path: path)
        // Items apply from the newest down: fields an item leaves out are as in the next one.
        for item in history.reversed() where version < item.untilVersion {
            if let properties = item.properties { state.properties = properties }
            if let tokenizer = item.tokenizer { state.tokenizer = tokenizer }
            state.location = item.location
            state.path = item.path
        }
        return state
    }
}

/// One item of a search's `history`: what it was at versions before `untilVersion`.
package struct SearchHistoryItem: Sendable {
    package var untilVersion: SchemaVersion
    /// nil: as in the next item (or the search itself).
    package var properties: [String]?
    /// nil: as in the next item; `.some(nil)`: FTS5's default tokenizer.
    package var tokenizer: String??
    package var location: SourceLocation
    package var path: String

    package init(untilVersion: SchemaVersion, properties: [String]?, tokenizer: String??, location: SourceLocation, path: String) {
        self.untilVersion = untilVersion
        self.properties = properties
        self.tokenizer = tokenizer
        self.location = location
        self.path = path
    }
}

/// One item of an entity's `parent_history`: its parent (nil: none, it was a root) at the versions before
/// `untilVersion`, from the previous item's `untilVersion` on.
package struct ParentHistoryItem: Sendable {
    package var untilVersion: SchemaVersion
    package var parent: String?
    package var location: SourceLocation
    package var path: String
}

extension EntityDescription {
    /// The parent at a version: the first `parent_history` item after it, else `parent`.
    package func parent(at version: SchemaVersion) -> String? {
        if let item = parentHistory.first(where: { version < $0.untilVersion }) { return item.parent }
        return parent
    }

    /// Every parent it has at some version (nil not included).
    package var allParents: [String] {
        var result: [String] = []
        for name in parentHistory.compactMap(\.parent) + (parent.map { [$0] } ?? []) where !result.contains(name) { result.append(name) }
        return result
    }

    /// Versions at which its parent changes, oldest first.
    package var parentChanges: [SchemaVersion] { parentHistory.map(\.untilVersion) }
}

/// One item of a property's `type_history`: what it was at versions before `untilVersion` (and from the
/// previous item's `untilVersion` on). Fields left out are as in the next item (or the property itself).
package struct PropertyTypeHistoryItem: Sendable {
    package var untilVersion: SchemaVersion
    package var type: PropertyType?
    package var nullable: Bool?
    /// nil: unchanged; `.some(nil)`: no default then.
    package var defaultValue: DefaultValue??
    /// `lossy_conversion`: the change from this item's type to the next one (at `untilVersion`) is
    /// accepted to lose values, so it is inferred as SQLite's `CAST` (only between numbers, and from a
    /// number to a string) instead of needing the app's code.
    package var lossyConversion: Bool = false
    /// `persisted_name`: the column's name before `untilVersion` (a column renamed at that version is renamed
    /// in the store, `ALTER TABLE … RENAME COLUMN`); `.some(nil)`: the property's name was the column's then.
    package var persistedName: String?? = nil
    /// The app's join table of `type` when it is a to-many relationship with `link_table` (with `type` only).
    package var linkTable: LinkTableDescription? = nil
    package var location: SourceLocation
    package var path: String

    package init(
        untilVersion: SchemaVersion, type: PropertyType?, nullable: Bool?, defaultValue: DefaultValue??, lossyConversion: Bool = false,
        location: SourceLocation, path: String
    ) {
        self.untilVersion = untilVersion
        self.type = type
        self.nullable = nullable
        self.defaultValue = defaultValue
        self.lossyConversion = lossyConversion
        self.location = location
        self.path = path
    }
}

/// A to-many relationship's `"link_table": { "name": "bookAuthor", "source_column": "bookId", "target_column":
/// "authorId", "target_index": "index_bookAuthor_on_authorId" }`: the app's own join table, with its names,
/// instead of lucidgen's `<owner>_<relationship>(source_id, target_id)`. Its primary key is the two columns
/// (source first), each a foreign key with ON DELETE CASCADE; `target_index` is its index on the target
/// column (left out: it has none).
package struct LinkTableDescription: Sendable, Equatable {
    package var name: String
    /// Its columns, index, strictness and `ON UPDATE` actions, as the schema model gives an app's join table.
    package var columns: LinkTable.Columns
    package var location: SourceLocation

    package init(name: String, columns: LinkTable.Columns, location: SourceLocation) {
        self.name = name
        self.columns = columns
        self.location = location
    }
}

package indirect enum PropertyType: Sendable, Equatable, CustomStringConvertible {
    case scalar(ScalarType)
    case subtype(String)
    /// A struct subtype stored as a composite attribute (`"composite": true`): one column per element,
    /// nested structs flattened too (`color_scheme_primary`), instead of one JSON text column.
    case composite(String)
    case array(PropertyType)
    /// `ordered`: a to-many relationship whose links keep their order (Core Data's ordered to-many, an
    /// `NSOrderedSet`), stored in the link table's `position` column. Always false for a to-one.
    case relationship(entity: String, toMany: Bool, ordered: Bool = false)

    package var description: String {
        switch self {
        case .scalar(let scalar): scalar.rawValue
        case .subtype(let name): name
        case .composite(let name): "composite \(name)"
        case .array(let element): "[\(element)]"
        case .relationship(let entity, let toMany, let ordered): "\(ordered ? "ordered " : "")\(toMany ? "to_many" : "to_one") \(entity)"
        }
    }
}

/// Lucid's scalar types, plus `data` for binary values, `uuid` (`Foundation.UUID`, stored as GRDB
/// stores it: a BLOB of its 16 bytes) and `decimal` (`Foundation.Decimal`, stored as GRDB stores it: its
/// text, ``DecimalText``).
package enum ScalarType: String, Sendable, CaseIterable {
    case string, int, date, double, float, bool, seconds, milliseconds, url, color, data, uuid, decimal

    /// Parses a scalar name case-insensitively, with Lucid's aliases (`time` = `seconds`).
    package init?(name: String) {
        switch name.lowercased() {
        case "time": self = .seconds
        case let lowered: self.init(rawValue: lowered)
        }
    }
}

/// A `default_value`, classified as Lucid does (but `"100ms"` is milliseconds here, not seconds).
package enum DefaultValue: Sendable, Equatable {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// A JSON number that is no 64-bit integer, its text as written (`12.50`): a `decimal` keeps it exactly,
    /// the floating-point types read it as a `Double`.
    case number(String)
    case string(String)
    case currentDate
    /// `{ "sql": "CURRENT_TIMESTAMP" }`: an SQL expression, checked by ``SQLDefaultExpression``.
    case sqlExpression(String)
    case null
    case seconds(Double)
    case milliseconds(Double)
    case enumCase(String)
}

package struct SubtypeDescription: Sendable {
    package enum Kind: Sendable {
        case enumeration(cases: [String])
        case optionSet(options: [String])
        case structure(properties: [SubtypeProperty])
    }

    package var name: String
    /// For an enum, `cases` lists the newest cases (sorted); ``caseHistory`` every case ever described.
    package var kind: Kind
    package var location: SourceLocation
    /// An enum's items of `cases` as written, with their history (empty for other subtypes).
    package var caseHistory: [EnumCaseDescription] = []
    /// `swift_name`: the Swift type instead of `name`'s UpperCamelCase form.
    package var swiftName: String? = nil
    /// `added_at_version`: the first version that has the subtype (a property using it earlier is an error).
    package var addedAtVersion: SchemaVersion? = nil
    package var addedAtLocation: SourceLocation? = nil

    /// The Swift type (of the newest shape): `swift_name`, or `name`'s UpperCamelCase form.
    package var swiftTypeName: String { Naming.typeName(name, swiftName: swiftName) }
}

/// One item of an enum's `cases`: a plain name (`"glider"`), or an object giving its history
/// (`{"name": "balloon", "previous_name": "lighter_than_air", "renamed_at_version": "2.0"}`,
/// `{"name": "glider", "added_at_version": "2.0"}`, `{"name": "seaplane", "removed_at_version": "3.0", "fallback": "airplane"}`).
package struct EnumCaseDescription: Sendable, Equatable {
    package var name: String
    package var previousName: String?
    package var renamedAtVersion: SchemaVersion?
    package var addedAtVersion: SchemaVersion?
    package var removedAtVersion: SchemaVersion?
    /// What rows holding a removed case become: nil, none given (the app's code decides); `.some(nil)`, NULL.
    package var fallback: String??
    /// `swift_name`: the Swift case instead of `name`'s lowerCamelCase form (the stored value stays `name`).
    package var swiftName: String? = nil
    package var location: SourceLocation
    package var path: String

    package init(
        name: String, previousName: String? = nil, renamedAtVersion: SchemaVersion? = nil, addedAtVersion: SchemaVersion? = nil,
        removedAtVersion: SchemaVersion? = nil, fallback: String?? = nil, location: SourceLocation, path: String
    ) {
        self.name = name
        self.previousName = previousName
        self.renamedAtVersion = renamedAtVersion
        self.addedAtVersion = addedAtVersion
        self.removedAtVersion = removedAtVersion
        self.fallback = fallback
        self.location = location
        self.path = path
    }

    /// Whether the item says anything beyond its name.
    package var hasHistory: Bool { previousName != nil || renamedAtVersion != nil || addedAtVersion != nil || removedAtVersion != nil }
}

/// A member of a struct subtype (an element when the struct is stored as a composite).
package struct SubtypeProperty: Sendable {
    package var name: String
    package var type: PropertyType
    package var nullable: Bool
    /// Only used where the struct is a composite: the element column's `DEFAULT` (existing rows, and
    /// an element that becomes required). A struct stored as JSON is stored whole.
    package var defaultValue: DefaultValue? = nil
    package var location: SourceLocation
    package var path: String = ""
    /// The member's history, as for an entity's properties: the version it was added at (default: always
    /// there), removed at, and renamed at (from `previousName`); `typeHistory` gives its nullability and
    /// default before some versions.
    package var addedAtVersion: SchemaVersion? = nil
    package var removedAtVersion: SchemaVersion? = nil
    package var previousName: String? = nil
    package var renamedAtVersion: SchemaVersion? = nil
    package var typeHistory: [PropertyTypeHistoryItem] = []
    /// `swift_name`: the Swift member instead of `name`'s lowerCamelCase form (the JSON key or column stays).
    package var swiftName: String? = nil
    /// The member's current name, its identity across versions (``SubtypeDescription/members(at:)``
    /// gives members named as at a version).
    package var identity: String

    package init(
        name: String, type: PropertyType, nullable: Bool, defaultValue: DefaultValue? = nil, location: SourceLocation, path: String = ""
    ) {
        self.name = name
        self.type = type
        self.nullable = nullable
        self.defaultValue = defaultValue
        self.location = location
        self.path = path
        self.identity = name
    }

    /// Whether the member says when it was added, removed or renamed, or what it was before.
    package var hasHistory: Bool { addedAtVersion != nil || removedAtVersion != nil || previousName != nil || !typeHistory.isEmpty }
}
