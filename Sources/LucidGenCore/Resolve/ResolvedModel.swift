import Foundation
@_spi(Generated) import LucidSchema

/// What the Resolve stage produces: the shape of every entity at every version, and one
/// ``Schema`` per schema version, checked against the frozen snapshots.
package struct ResolvedModel: Sendable {
    package var config: Config
    /// Every schema version, oldest first: the union of the entities' histories (and removals).
    package var versions: [SchemaVersion]
    /// The version being generated: `current_version`, or the newest version.
    package var currentVersion: SchemaVersion
    /// How many tables the schemas took from the version before (``TableReuse``): a measure, not part of the model.
    package var reusedTables = 0
    /// How long each of the Resolve stage's phases took.
    package var times = StageTimes()
    /// Every entity with its shape at each version of its own history.
    package var entities: [ResolvedEntity]
    package var subtypes: [SubtypeDescription]
    /// One schema per entry of `versions`.
    package var schemas: [Schema]
    /// Each schema's checksum as the Resolve stage computed it for its snapshot, parallel to `schemas` (empty for a
    /// model made otherwise: ``checksum(at:)`` then computes it).
    package var checksums: [String] = []
    /// Snapshots to write (new or changed), by version.
    package var snapshots: [SchemaSnapshot]
    /// The snapshot each of `snapshots` continues (the version before's, as its file reads; nil: the first version),
    /// parallel to `snapshots`: the file written holds what changed since it (``SnapshotFile``).
    package var snapshotBases: [SchemaSnapshot?] = []
    /// The steps between neighbouring versions that SQL cannot make, with the tables that need the app's code.
    package var customSteps: [CustomStep] = []
    package var diagnostics: [Diagnostic]
    /// The versions stores exist at: every version before the current one, and the current one once
    /// `lucidgen release` marked it. Each should have its committed fixture store.
    package var releasedVersions: [SchemaVersion] = []
    /// Tries seeded values against a table's CHECK constraints in SQLite (the CLI sets it: this module
    /// links no SQLite); nil: seeds are not tried, and a CHECK that refuses one fails the insert.
    package var seedCheckProbe: SeedCheckProbe?
    /// The Swift type of each enum with a case history at each version.
    var enumTypes = EnumVersionTypes(subtypes: [], versions: [])
    /// The Swift type of each struct subtype at each version (older member sets get `Point_1_0`).
    var structTypes = StructVersionTypes(subtypes: [:], versions: [])
    /// The checksum of `schemas[index]`: hashing a version's whole DDL is a tenth of a long history's run, so once.
    package func checksum(at index: Int) -> String {
        checksums.count == schemas.count ? checksums[index] : schemas[index].checksum
    }

    /// ``planRoutes()`` once made (shared by the model's copies).
    private let routesMemo = RoutesMemo()

    /// How long ``planRoutes()`` took, once made (wall time on the thread that made them; CPU time of the process
    /// meanwhile, which counts the other threads' work too).
    package var routesTimes: StageTimes { routesMemo.madeTimes }

    /// Each version's path to the newest with the model's stages (``MigrationPlanner/routes()``), planned the first
    /// time it is asked (from `schemas` and `customSteps` as they are then) and kept: the registry's render and the
    /// history digest both write it, and at a thousand versions planning them is much of a run.
    package func planRoutes() -> [[SchemaVersion]] {
        routesMemo.value {
            let explicit = customSteps.map {
                ExplicitStage(from: $0.from, to: $0.to, label: $0.label, transformedTables: $0.tables.map(\.table))
            }
            return (try? MigrationPlanner(versions: schemas, stages: explicit))?.routes() ?? []
        }
    }
}

/// A value made once, under a lock (``ResolvedModel/planRoutes()``), and how long making it took.
private final class RoutesMemo: @unchecked Sendable {
    private let lock = NSLock()
    private var made: [[SchemaVersion]]?
    private var times = StageTimes()

    func value(_ make: () -> [[SchemaVersion]]) -> [[SchemaVersion]] {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        let value = times.measure("routes", make)
        made = value
        return value
    }

    /// The time making the routes took (nothing before they are made).
    var madeTimes: StageTimes {
        lock.lock()
        defer { lock.unlock() }
        return times
    }
}

/// Which of `literals` (SQL literals of one column's seeds) the CHECK constraints of `table` that name only
/// `column` let through, in order; nil when they cannot be tried.
package typealias SeedCheckProbe = @Sendable (_ table: SchemaTable, _ column: SchemaColumn, _ literals: [String]) -> [Bool]?

/// An entity and its record types, one per version of its `version_history`.
package struct ResolvedEntity: Sendable {
    /// The entity's current name.
    package var name: String
    /// The Swift type of its newest record (the alias of the newest version's type): `swift_name`, or
    /// `name`'s UpperCamelCase form.
    package var typeName: String
    /// The description file, for messages and generated headers.
    package var file: String
    package var shapes: [EntityShape]
    /// The version at which the entity was removed, if it was.
    package var removedAtVersion: SchemaVersion?
    /// Values the generated migration tests leave unchecked, from the history's ignore keys.
    package var checkExclusions: [CheckExclusionSpec] = []
    /// Entity inheritance: the entity's parent (current name), nil for a root or a plain entity.
    package var parent: String? = nil
    /// Its parent before each version where it changes (`parent_history`), oldest first.
    package var parentHistory: [(until: SchemaVersion, parent: String?)] = []
    /// `abstract`: no row is of exactly this entity.
    package var abstract = false
    /// For an entity of a hierarchy: the description names of the kinds its records read at the newest
    /// version, its own and its subentities' at any depth (abstract ones included); empty otherwise.
    package var kinds: [String] = []

    /// The parent at a version (``parent`` from its last change on).
    package func parent(at version: SchemaVersion) -> String? {
        if let item = parentHistory.first(where: { version < $0.until }) { return item.parent }
        return parent
    }

    /// The newest shape, unless the entity was removed.
    package var newest: EntityShape? { removedAtVersion == nil ? shapes.last : nil }

    /// The shape in force at a schema version: nil before the entity exists and from its removal on.
    package func shape(at version: SchemaVersion) -> EntityShape? {
        if let removedAtVersion, version >= removedAtVersion { return nil }
        return shapes.last { $0.version <= version }
    }
}

/// Stores from versions `from ..< before` are not checked for `property` (nil: the whole entity).
package struct CheckExclusionSpec: Sendable, Equatable {
    /// The property's current name.
    package var property: String?
    package var from: SchemaVersion?
    package var before: SchemaVersion

    package init(property: String?, from: SchemaVersion?, before: SchemaVersion) {
        self.property = property
        self.from = from
        self.before = before
    }
}

/// An entity at one version: a record type and its table.
package struct EntityShape: Sendable, Equatable {
    package var entityName: String
    /// The entity's name at this version.
    package var name: String
    package var version: SchemaVersion
    /// `Aircraft_1_0`.
    package var typeName: String
    package var tableName: String
    package var identifier: IdentifierShape
    package var properties: [PropertyShape]
    /// For an entity of a hierarchy (from the version its root has a `kind` column): the kinds its records
    /// read while this shape is in force, its own and its subentities' (abstract ones included), by their
    /// names then. Empty otherwise.
    package var kinds: [String] = []
    /// `abstract`: no row is of exactly this entity.
    package var abstract = false
}

package struct IdentifierShape: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// `id INTEGER PRIMARY KEY`, assigned by SQLite (`Int64?` in Swift).
        case local
        /// `id` column of the given scalar type.
        case scalar(ScalarType)
        /// A property of the entity is the primary key.
        case property(String)
    }

    package var kind: Kind
    /// The primary key column.
    package var column: String
    package var storage: SchemaColumn.StorageType
    /// The Swift type of the identifier value (as referenced by relationships).
    package var swiftType: String
    /// The record's Swift property for it: `id`, or the identifier property's Swift name (not escaped).
    package var swiftName: String = "id"
    /// When the identifier property is a to-one relationship (a one-to-one extension of another entity's rows,
    /// keyed by its parent's key): the foreign key its column is.
    package var foreignKey: SchemaForeignKey? = nil
}

/// A property at one version.
package struct PropertyShape: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case value
        /// A foreign key column to `table`'s primary key.
        case toOne(entity: String, table: String, column: String)
        /// A join table named `joinTable` linking to `table`; `ordered`: its links keep their order (a
        /// `position` column).
        case toMany(
            entity: String, table: String, column: String, joinTable: String, targetStorage: SchemaColumn.StorageType,
            targetSwiftType: String, ordered: Bool)
        /// A struct stored as a composite attribute: one column per element (`column` is their prefix).
        case composite(CompositeShape)
    }

    /// A to-many relationship's link table columns: lucidgen's, or the app's own join table's (`link_table`).
    package var linkColumns: LinkTable.Columns?

    /// The property's name at this version.
    package var name: String
    /// Its current name (identity across versions).
    package var currentName: String
    package var swiftName: String
    /// Column name (for to-many: the property has no column).
    package var column: String
    package var storage: SchemaColumn.StorageType
    /// The Swift type, without optionality.
    package var swiftType: String
    package var nullable: Bool
    package var defaultSQL: String?
    package var defaultSwift: String?
    /// The described type, for snapshots and messages (`string`, `[int]`, `to_one aircraft`).
    package var typeDescription: String
    package var kind: Kind
    /// Arrays and struct subtypes: GRDB stores them as JSON text (every other type is a
    /// `DatabaseValueConvertible`).
    package var storedAsJSON = false
    /// The `kind` of a record of an entity hierarchy (which entity its row is), not a described property.
    package var isKind = false
    /// A generated column (`generated`): the record reads it, and never writes it.
    package var generated = false
}

/// A composite attribute's value at one version (WWDC23's composite attributes): a struct subtype whose
/// members are stored as columns named `<prefix>_<member>` (nested structs flattened the same way), so
/// that every element is queryable and indexable.
package struct CompositeShape: Sendable, Equatable {
    /// The struct subtype.
    package var subtype: String
    /// Its Swift type.
    package var swiftType: String
    package var elements: [Element]
    /// The struct made of its elements' defaults (an optional element without one: nil), as a Swift
    /// expression, when every element has one: a required composite's initializer parameter defaults to it,
    /// as a defaulted property's does (code written before the composite was added keeps compiling).
    package var defaultSwift: String? = nil

    /// One member of the struct: a column, or a nested composite.
    package struct Element: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            /// A column holding a scalar, enum or option set value.
            case column(storage: SchemaColumn.StorageType, swiftType: String, valueType: ValueType, typeName: String, defaultSQL: String?)
            case nested(CompositeShape)
        }

        /// The member's name at the shape's version.
        package var name: String
        /// The member's current name: the same element across versions (through renames).
        package var identity: String
        package var swiftName: String
        /// The column (for a nested composite: the prefix of its columns).
        package var column: String
        /// The member is optional (`nullable`).
        package var nullable: Bool
        package var kind: Kind
    }

    /// One column of a composite: an element at any depth, with what the generated code needs to read,
    /// write and seed it.
    package struct Leaf: Sendable, Equatable {
        package var column: String
        package var storage: SchemaColumn.StorageType
        package var swiftType: String
        package var valueType: ValueType
        /// The scalar or subtype name of its values (`string`, `aircraft_category`), for seeding.
        package var typeName: String
        package var defaultSQL: String?
        /// NOT NULL: the element is required and so is every composite on the way to it.
        package var notNull: Bool
        /// The member names from the composite down to it (`["accent", "red"]`), as at the shape's version.
        package var memberPath: [String]
        /// The same by the members' current names: the element across versions.
        package var identityPath: [String]
        /// The indexes of those members in their structs, for the seeding salts.
        package var memberIndexes: [Int]
        /// The members' Swift names (not escaped), for messages: `["accent", "red"]`.
        package var swiftPath: [String] = []
        /// In an optional composite (or optional nested member): the columns of the innermost one, which are
        /// all NULL exactly when it is nil.
        package var group: [String]? = nil
        /// The element is required whenever its optional composite is present (its column stays nullable).
        package var requiredWhenPresent = false
    }

    /// Every column, depth first in member order; `optional`: the composite itself is optional (then
    /// no column is NOT NULL).
    package func leaves(optional: Bool) -> [Leaf] {
        var result: [Leaf] = []
        // `group`: the columns of the innermost optional composite around the element (all NULL: it is nil).
        func walk(
            _ shape: CompositeShape, optional: Bool, group: [String]?, path: [String], swiftPath: [String] = [], identities: [String],
            indexes: [Int]
        ) {
            for (index, element) in shape.elements.enumerated() {
                switch element.kind {
                case .column(let storage, let swiftType, let valueType, let typeName, let defaultSQL):
                    var leaf = Leaf(
                        column: element.column, storage: storage, swiftType: swiftType, valueType: valueType, typeName: typeName,
                        defaultSQL: defaultSQL,
                        notNull: !optional && !element.nullable, memberPath: path + [element.name],
                        identityPath: identities + [element.identity],
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
    package var hasRequiredColumn: Bool { !leaves(optional: false).filter(\.notNull).isEmpty }
}

/// A step between two neighbouring versions that needs the app's code for some tables.
package struct CustomStep: Sendable {
    package struct Table: Sendable {
        package var table: String
        /// The record types at the step's two versions.
        package var oldType: String
        package var newType: String
        /// Why SQL cannot make the change.
        package var reasons: [String]
    }

    package var from: SchemaVersion
    package var to: SchemaVersion
    package var tables: [Table]
    /// For a stage declared in the config: its name (the hooks are `<name>WillMigrate` / `<name>DidMigrate`).
    package var hookName: String?
    /// The stage's `notes` from the config, for the generated requirements' comment.
    package var hookNotes: [String] = []

    /// The label the runtime and the CLI show for the step.
    package var label: String { hookName ?? "app code for \(tables.map(\.table).joined(separator: ", "))" }
}
