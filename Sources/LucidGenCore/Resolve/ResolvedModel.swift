import LucidSchema

/// What the Resolve stage produces: the shape of every entity at every version, and one
/// ``Schema`` per schema version, checked against the frozen snapshots.
public struct ResolvedModel: Sendable {
    public var config: Config
    /// Every schema version, oldest first: the union of the entities' histories (and removals).
    public var versions: [SchemaVersion]
    /// The version being generated: `current_version`, or the newest version.
    public var currentVersion: SchemaVersion
    /// Every entity with its shape at each version of its own history.
    public var entities: [ResolvedEntity]
    public var subtypes: [SubtypeDescription]
    /// One schema per entry of `versions`.
    public var schemas: [Schema]
    /// Snapshots to write (new or changed), by version.
    public var snapshots: [SchemaSnapshot]
    /// The steps between neighbouring versions that SQL cannot make, with the tables that need the app's code.
    public var customSteps: [CustomStep] = []
    public var diagnostics: [Diagnostic]
    /// The Swift type of each enum with a case history at each version.
    var enumTypes = EnumVersionTypes(subtypes: [], versions: [])
    /// The Swift type of each struct subtype at each version (older member sets get `Point_1_0`).
    var structTypes = StructVersionTypes(subtypes: [:], versions: [])
}

/// An entity and its record types, one per version of its `version_history`.
public struct ResolvedEntity: Sendable {
    /// The entity's current name.
    public var name: String
    /// The Swift type of its newest record (the alias of the newest version's type): `swift_name`, or
    /// `name`'s UpperCamelCase form.
    public var typeName: String
    /// The description file, for messages and generated headers.
    public var file: String
    public var shapes: [EntityShape]
    /// The version at which the entity was removed, if it was.
    public var removedAtVersion: SchemaVersion?
    /// Values the generated migration tests leave unchecked, from the history's ignore keys.
    public var checkExclusions: [CheckExclusionSpec] = []

    /// The newest shape, unless the entity was removed.
    public var newest: EntityShape? { removedAtVersion == nil ? shapes.last : nil }

    /// The shape in force at a schema version: nil before the entity exists and from its removal on.
    public func shape(at version: SchemaVersion) -> EntityShape? {
        if let removedAtVersion, version >= removedAtVersion { return nil }
        return shapes.last { $0.version <= version }
    }
}

/// Stores from versions `from ..< before` are not checked for `property` (nil: the whole entity).
public struct CheckExclusionSpec: Sendable, Equatable {
    /// The property's current name.
    public var property: String?
    public var from: SchemaVersion?
    public var before: SchemaVersion

    public init(property: String?, from: SchemaVersion?, before: SchemaVersion) {
        self.property = property
        self.from = from
        self.before = before
    }
}

/// An entity at one version: a record type and its table.
public struct EntityShape: Sendable, Equatable {
    public var entityName: String
    /// The entity's name at this version.
    public var name: String
    public var version: SchemaVersion
    /// `Aircraft_1_0`.
    public var typeName: String
    public var tableName: String
    public var identifier: IdentifierShape
    public var properties: [PropertyShape]
}

public struct IdentifierShape: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `id INTEGER PRIMARY KEY`, assigned by SQLite (`Int64?` in Swift).
        case local
        /// `id` column of the given scalar type.
        case scalar(ScalarType)
        /// A property of the entity is the primary key.
        case property(String)
    }

    public var kind: Kind
    /// The primary key column.
    public var column: String
    public var storage: SchemaColumn.StorageType
    /// The Swift type of the identifier value (as referenced by relationships).
    public var swiftType: String
    /// The record's Swift property for it: `id`, or the identifier property's Swift name (not escaped).
    public var swiftName: String = "id"
}

/// A property at one version.
public struct PropertyShape: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case value
        /// A foreign key column to `table`'s primary key.
        case toOne(entity: String, table: String, column: String)
        /// A join table named `joinTable` linking to `table`.
        case toMany(entity: String, table: String, column: String, joinTable: String, targetStorage: SchemaColumn.StorageType, targetSwiftType: String)
        /// A struct stored as a composite attribute: one column per element (`column` is their prefix).
        case composite(CompositeShape)
    }

    /// The property's name at this version.
    public var name: String
    /// Its current name (identity across versions).
    public var currentName: String
    public var swiftName: String
    /// Column name (for to-many: the property has no column).
    public var column: String
    public var storage: SchemaColumn.StorageType
    /// The Swift type, without optionality.
    public var swiftType: String
    public var nullable: Bool
    public var defaultSQL: String?
    public var defaultSwift: String?
    /// The described type, for snapshots and messages (`string`, `[int]`, `to_one aircraft`).
    public var typeDescription: String
    public var kind: Kind
    /// Arrays and struct subtypes: GRDB stores them as JSON text (every other type is a
    /// `DatabaseValueConvertible`).
    public var storedAsJSON = false
}

/// A composite attribute's value at one version (WWDC23's composite attributes): a struct subtype whose
/// members are stored as columns named `<prefix>_<member>` (nested structs flattened the same way), so
/// that every element is queryable and indexable.
public struct CompositeShape: Sendable, Equatable {
    /// The struct subtype.
    public var subtype: String
    /// Its Swift type.
    public var swiftType: String
    public var elements: [Element]
    /// The struct made of its elements' defaults (an optional element without one: nil), as a Swift
    /// expression, when every element has one: a required composite's initializer parameter defaults to it,
    /// as a defaulted property's does (code written before the composite was added keeps compiling).
    public var defaultSwift: String? = nil

    /// One member of the struct: a column, or a nested composite.
    public struct Element: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// A column holding a scalar, enum or option set value.
            case column(storage: SchemaColumn.StorageType, swiftType: String, valueType: String, typeName: String, defaultSQL: String?)
            case nested(CompositeShape)
        }

        /// The member's name at the shape's version.
        public var name: String
        /// The member's current name: the same element across versions (through renames).
        public var identity: String
        public var swiftName: String
        /// The column (for a nested composite: the prefix of its columns).
        public var column: String
        /// The member is optional (`nullable`).
        public var nullable: Bool
        public var kind: Kind
    }

    /// One column of a composite: an element at any depth, with what the generated code needs to read,
    /// write and seed it.
    public struct Leaf: Sendable, Equatable {
        public var column: String
        public var storage: SchemaColumn.StorageType
        public var swiftType: String
        public var valueType: String
        /// The scalar or subtype name of its values (`string`, `aircraft_category`), for seeding.
        public var typeName: String
        public var defaultSQL: String?
        /// NOT NULL: the element is required and so is every composite on the way to it.
        public var notNull: Bool
        /// The member names from the composite down to it (`["accent", "red"]`), as at the shape's version.
        public var memberPath: [String]
        /// The same by the members' current names: the element across versions.
        public var identityPath: [String]
        /// The indexes of those members in their structs, for the seeding salts.
        public var memberIndexes: [Int]
        /// The members' Swift names (not escaped), for messages: `["accent", "red"]`.
        public var swiftPath: [String] = []
        /// In an optional composite (or optional nested member): the columns of the innermost one, which are
        /// all NULL exactly when it is nil.
        public var group: [String]? = nil
        /// The element is required whenever its optional composite is present (its column stays nullable).
        public var requiredWhenPresent = false
    }

    /// Every column, depth first in member order; `optional`: the composite itself is optional (then
    /// no column is NOT NULL).
    public func leaves(optional: Bool) -> [Leaf] {
        var result: [Leaf] = []
        // `group`: the columns of the innermost optional composite around the element (all NULL: it is nil).
        func walk(_ shape: CompositeShape, optional: Bool, group: [String]?, path: [String], swiftPath: [String] = [], identities: [String], indexes: [Int]) {
            for (index, element) in shape.elements.enumerated() {
                switch element.kind {
                case .column(let storage, let swiftType, let valueType, let typeName, let defaultSQL):
                    var leaf = Leaf(
                        column: element.column, storage: storage, swiftType: swiftType, valueType: valueType, typeName: typeName, defaultSQL: defaultSQL,
                        notNull: !optional && !element.nullable, memberPath: path + [element.name], identityPath: identities + [element.identity],
                        memberIndexes: indexes + [index])
                    leaf.group = group
                    leaf.requiredWhenPresent = group != nil && !element.nullable
                    leaf.swiftPath = swiftPath + [element.swiftName.filter { $0 != "`" }]
                    result.append(leaf)
                case .nested(let nested):
                    let inner = element.nullable ? nested.leaves(optional: true).map(\.column) : group
                    walk(
                        nested, optional: optional || element.nullable, group: inner, path: path + [element.name],
                        swiftPath: swiftPath + [element.swiftName.filter { $0 != "`" }], identities: identities + [element.identity],
                        indexes: indexes + [index])
                }
            }
        }
        walk(self, optional: optional, group: optional ? leaves(optional: false).map(\.column) : nil, path: [], identities: [], indexes: [])
        return result
    }

    /// Whether a value of it always has a non-NULL column (a required element, at any depth through
    /// required members): then "every column NULL" can only mean the optional composite is nil.
    public var hasRequiredColumn: Bool { !leaves(optional: false).filter(\.notNull).isEmpty }
}

/// A step between two neighbouring versions that needs the app's code for some tables.
public struct CustomStep: Sendable {
    public struct Table: Sendable {
        public var table: String
        /// The record types at the step's two versions.
        public var oldType: String
        public var newType: String
        /// Why SQL cannot make the change.
        public var reasons: [String]
    }

    public var from: SchemaVersion
    public var to: SchemaVersion
    public var tables: [Table]
    /// For a stage declared in the config: its name (the hooks are `<name>WillMigrate` / `<name>DidMigrate`).
    public var hookName: String?

    /// The label the runtime and the CLI show for the step.
    public var label: String { hookName ?? "app code for \(tables.map(\.table).joined(separator: ", "))" }
}
