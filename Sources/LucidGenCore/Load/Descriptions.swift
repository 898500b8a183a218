import LucidSchema

/// Everything the Load stage read: the config and the descriptions, as written (not yet resolved).
public struct LoadedInput: Sendable {
    public var config: Config
    public var entities: [EntityDescription]
    public var subtypes: [SubtypeDescription]
    /// Warnings and notes found while loading.
    public var diagnostics: [Diagnostic]
}

/// One entity description file.
public struct EntityDescription: Sendable {
    public var name: String
    public var persistedName: String?
    public var identifier: IdentifierDescription
    public var properties: [PropertyDescription]
    public var versionHistory: [VersionHistoryItem]
    public var persist: Bool
    /// The version at which the entity was removed; the description stays so older versions keep their shape.
    public var removedAtVersion: SchemaVersion?
    /// The entity-level `indexes` (multi-column or named indexes), as written.
    public var indexes: [IndexDescription] = []
    /// The entity's declared full-text search, as written.
    public var search: SearchDescription? = nil
    /// `swift_name`: the Swift type of the newest record instead of `name`'s UpperCamelCase form (the
    /// records of versions also take it: `<swift_name>_1_0`, except versions before a rename).
    public var swiftName: String? = nil
    public var location: SourceLocation

    /// The table name: `persisted_name`, or `name`.
    public var tableName: String { persistedName ?? name }

    /// The Swift type of the newest record: `swift_name`, or `name`'s UpperCamelCase form.
    public var swiftTypeName: String { Naming.typeName(name, swiftName: swiftName) }
}

public struct IdentifierDescription: Sendable {
    public enum Kind: Sendable, Equatable {
        /// No identifier in the description: a local integer key assigned by SQLite.
        case local
        case scalar(ScalarType)
        /// The identifier is one of the entity's properties.
        case property(String)
    }

    public var kind: Kind
    public var location: SourceLocation
}

/// One item of `version_history`.
public struct VersionHistoryItem: Sendable {
    public var version: SchemaVersion
    /// The entity's name before this version.
    public var previousName: String?
    public var ignoreMigrationChecks: Bool
    public var ignorePropertyMigrationChecksOn: [String]
    public var location: SourceLocation
}

public struct PropertyDescription: Sendable {
    public var name: String
    public var type: PropertyType
    public var nullable: Bool
    public var defaultValue: DefaultValue?
    public var previousName: String?
    /// Which version the rename through `previous_name` happened at, when the history leaves it ambiguous.
    public var renamedAtVersion: SchemaVersion?
    public var addedAtVersion: SchemaVersion?
    /// The version at which the property was removed (lucidgen's acknowledgement of a removal).
    public var removedAtVersion: SchemaVersion?
    public var persistedName: String?
    public var unused: Bool
    public var lazy: Bool
    /// `"indexed": true`: a single-column index on the property's column.
    public var indexed: Bool = false
    /// `"unique": true`: a unique single-column index (implies `indexed`).
    public var unique: Bool = false
    /// What the property was before some versions (type, nullability, default), newest last.
    public var typeHistory: [PropertyTypeHistoryItem] = []
    /// For a composite added at a version: which of the entity's properties (by current name, each removed
    /// at that version) each element (by its path, `accent.red`) was before. Their columns become the
    /// elements' columns; nothing is guessed.
    public var elementsFrom: [(element: String, property: String)] = []
    /// Where `elements_from` is written.
    public var elementsFromLocation: SourceLocation? = nil
    /// `swift_name`: the Swift property instead of `name`'s lowerCamelCase form (the column stays).
    public var swiftName: String? = nil
    public var location: SourceLocation
    /// Where `property_type` is written.
    public var typeLocation: SourceLocation
    public var path: String

    /// The column name: `persisted_name`, or `name`.
    public var columnName: String { persistedName ?? name }
}

/// One item of an entity's `indexes`: an index over one or more properties (by their current names), in
/// order, optionally unique and optionally named.
public struct IndexDescription: Sendable, Equatable {
    /// The properties' current names, in index order.
    public var properties: [String]
    public var unique: Bool
    /// The index's name in SQLite; nil: `<table>_<column>_…_index` (or `_unique`).
    public var name: String?
    public var location: SourceLocation
    public var path: String

    public init(properties: [String], unique: Bool, name: String? = nil, location: SourceLocation, path: String) {
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
public struct SearchDescription: Sendable {
    /// The searched properties' current names, in the index's column order.
    public var properties: [String]
    /// FTS5's `tokenize` option; nil: FTS5's default (`unicode61`).
    public var tokenizer: String?
    /// The version that introduced the search (default: the entity's first version).
    public var addedAtVersion: SchemaVersion?
    /// The version from which the entity has no search any more.
    public var removedAtVersion: SchemaVersion?
    /// What the search was before some versions, oldest first.
    public var history: [SearchHistoryItem]
    public var location: SourceLocation
    public var path: String

    public init(
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
    public func state(at version: SchemaVersion) -> (properties: [String], tokenizer: String?, location: SourceLocation, path: String)? {
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
public struct SearchHistoryItem: Sendable {
    public var untilVersion: SchemaVersion
    /// nil: as in the next item (or the search itself).
    public var properties: [String]?
    /// nil: as in the next item; `.some(nil)`: FTS5's default tokenizer.
    public var tokenizer: String??
    public var location: SourceLocation
    public var path: String

    public init(untilVersion: SchemaVersion, properties: [String]?, tokenizer: String??, location: SourceLocation, path: String) {
        self.untilVersion = untilVersion
        self.properties = properties
        self.tokenizer = tokenizer
        self.location = location
        self.path = path
    }
}

/// One item of a property's `type_history`: what it was at versions before `untilVersion` (and from the
/// previous item's `untilVersion` on). Fields left out are as in the next item (or the property itself).
public struct PropertyTypeHistoryItem: Sendable {
    public var untilVersion: SchemaVersion
    public var type: PropertyType?
    public var nullable: Bool?
    /// nil: unchanged; `.some(nil)`: no default then.
    public var defaultValue: DefaultValue??
    /// `lossy_conversion`: the change from this item's type to the next one (at `untilVersion`) is
    /// accepted to lose values, so it is inferred as SQLite's `CAST` (only between numbers, and from a
    /// number to a string) instead of needing the app's code.
    public var lossyConversion: Bool = false
    public var location: SourceLocation
    public var path: String

    public init(
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

public indirect enum PropertyType: Sendable, Equatable, CustomStringConvertible {
    case scalar(ScalarType)
    case subtype(String)
    /// A struct subtype stored as a composite attribute (`"composite": true`): one column per element,
    /// nested structs flattened too (`color_scheme_primary`), instead of one JSON text column.
    case composite(String)
    case array(PropertyType)
    case relationship(entity: String, toMany: Bool)

    public var description: String {
        switch self {
        case .scalar(let scalar): scalar.rawValue
        case .subtype(let name): name
        case .composite(let name): "composite \(name)"
        case .array(let element): "[\(element)]"
        case .relationship(let entity, let toMany): "\(toMany ? "to_many" : "to_one") \(entity)"
        }
    }
}

/// Lucid's scalar types, plus `data` for binary values.
public enum ScalarType: String, Sendable, CaseIterable {
    case string, int, date, double, float, bool, seconds, milliseconds, url, color, data

    /// Parses a scalar name case-insensitively, with Lucid's aliases (`time` = `seconds`).
    public init?(name: String) {
        switch name.lowercased() {
        case "time": self = .seconds
        case let lowered: self.init(rawValue: lowered)
        }
    }
}

/// A `default_value`, classified as Lucid does (but `"100ms"` is milliseconds here, not seconds).
public enum DefaultValue: Sendable, Equatable {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case currentDate
    case null
    case seconds(Double)
    case milliseconds(Double)
    case enumCase(String)
}

public struct SubtypeDescription: Sendable {
    public enum Kind: Sendable {
        case enumeration(cases: [String])
        case optionSet(options: [String])
        case structure(properties: [SubtypeProperty])
    }

    public var name: String
    /// For an enum, `cases` lists the newest cases (sorted); ``caseHistory`` every case ever described.
    public var kind: Kind
    public var location: SourceLocation
    /// An enum's items of `cases` as written, with their history (empty for other subtypes).
    public var caseHistory: [EnumCaseDescription] = []
    /// `swift_name`: the Swift type instead of `name`'s UpperCamelCase form.
    public var swiftName: String? = nil

    /// The Swift type (of the newest shape): `swift_name`, or `name`'s UpperCamelCase form.
    public var swiftTypeName: String { Naming.typeName(name, swiftName: swiftName) }
}

/// One item of an enum's `cases`: a plain name (`"glider"`), or an object giving its history
/// (`{"name": "balloon", "previous_name": "lighter_than_air", "renamed_at_version": "2.0"}`,
/// `{"name": "glider", "added_at_version": "2.0"}`, `{"name": "seaplane", "removed_at_version": "3.0", "fallback": "airplane"}`).
public struct EnumCaseDescription: Sendable, Equatable {
    public var name: String
    public var previousName: String?
    public var renamedAtVersion: SchemaVersion?
    public var addedAtVersion: SchemaVersion?
    public var removedAtVersion: SchemaVersion?
    /// What rows holding a removed case become: nil, none given (the app's code decides); `.some(nil)`, NULL.
    public var fallback: String??
    /// `swift_name`: the Swift case instead of `name`'s lowerCamelCase form (the stored value stays `name`).
    public var swiftName: String? = nil
    public var location: SourceLocation
    public var path: String

    public init(
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
    public var hasHistory: Bool { previousName != nil || renamedAtVersion != nil || addedAtVersion != nil || removedAtVersion != nil }
}

/// A member of a struct subtype (an element when the struct is stored as a composite).
public struct SubtypeProperty: Sendable {
    public var name: String
    public var type: PropertyType
    public var nullable: Bool
    /// Only used where the struct is a composite: the element column's `DEFAULT` (existing rows, and
    /// an element that becomes required). A struct stored as JSON is stored whole.
    public var defaultValue: DefaultValue? = nil
    public var location: SourceLocation
    public var path: String = ""
    /// The member's history, as for an entity's properties: the version it was added at (default: always
    /// there), removed at, and renamed at (from `previousName`); `typeHistory` gives its nullability and
    /// default before some versions.
    public var addedAtVersion: SchemaVersion? = nil
    public var removedAtVersion: SchemaVersion? = nil
    public var previousName: String? = nil
    public var renamedAtVersion: SchemaVersion? = nil
    public var typeHistory: [PropertyTypeHistoryItem] = []
    /// `swift_name`: the Swift member instead of `name`'s lowerCamelCase form (the JSON key or column stays).
    public var swiftName: String? = nil
    /// The member's current name, its identity across versions (``SubtypeDescription/members(at:)``
    /// gives members named as at a version).
    public var identity: String

    public init(name: String, type: PropertyType, nullable: Bool, defaultValue: DefaultValue? = nil, location: SourceLocation, path: String = "") {
        self.name = name
        self.type = type
        self.nullable = nullable
        self.defaultValue = defaultValue
        self.location = location
        self.path = path
        self.identity = name
    }

    /// Whether the member says when it was added, removed or renamed, or what it was before.
    public var hasHistory: Bool { addedAtVersion != nil || removedAtVersion != nil || previousName != nil || !typeHistory.isEmpty }
}
