import Foundation

/// An entity's description document (`.entities/<name>.json`) as lucidgen's own tools write it (`describe`,
/// `import coredata`): every key they emit, typed, so that a writer never builds JSON text by hand.
/// ``DescriptionWriter`` turns it into the readable text the descriptions are committed as.
package struct DescriptionDocument: Sendable, Hashable {
    package var name: String
    package var persistedName: String?
    package var swiftName: String?
    package var takesNameOf: String?
    package var parent: String?
    package var identifier: Identifier?
    package var abstract = false
    package var strict = false
    package var checks: [Check] = []
    package var parentHistory: [ParentChange] = []
    package var versionHistory: [VersionItem] = []
    package var removedAtVersion: String?
    package var properties: [Property] = []
    package var indexes: [Index] = []

    package init(name: String) {
        self.name = name
    }

    /// `identifier`: lucidgen's own key column (`type`), or a property that is the key (`property_name`).
    package struct Identifier: Sendable, Hashable {
        /// `int`, `string`, `uuid`, `property`; nil leaves it to the loader's default.
        package var type: String?
        package var propertyName: String?
        package var autoincrement = false
        /// The primary key's ON CONFLICT resolution, lower-cased.
        package var onConflict: String?

        package init(type: String? = nil, propertyName: String? = nil, autoincrement: Bool = false, onConflict: String? = nil) {
            self.type = type
            self.propertyName = propertyName
            self.autoincrement = autoincrement
            self.onConflict = onConflict
        }
    }

    /// A table CHECK constraint: its expression alone, or named.
    package struct Check: Sendable, Hashable {
        package var name: String?
        package var expression: String

        package init(name: String? = nil, expression: String) {
            self.name = name
            self.expression = expression
        }
    }

    /// `parent_history`: the parent an entity had before `untilVersion` (nil: none).
    package struct ParentChange: Sendable, Hashable {
        package var untilVersion: String
        package var parent: String?

        package init(untilVersion: String, parent: String?) {
            self.untilVersion = untilVersion
            self.parent = parent
        }
    }

    /// `version_history`: a version of the entity, and the name it had before when renamed there.
    package struct VersionItem: Sendable, Hashable {
        package var version: String
        package var previousName: String?
        /// `ignore_migration_checks`: the generated migration tests skip this version's checks of the entity.
        package var ignoreMigrationChecks = false
        /// `ignore_property_migration_checks_on`: the properties whose checks they skip at this version.
        package var ignorePropertyMigrationChecksOn: [String] = []

        package init(
            version: String, previousName: String? = nil, ignoreMigrationChecks: Bool = false,
            ignorePropertyMigrationChecksOn: [String] = []
        ) {
            self.version = version
            self.previousName = previousName
            self.ignoreMigrationChecks = ignoreMigrationChecks
            self.ignorePropertyMigrationChecksOn = ignorePropertyMigrationChecksOn
        }
    }

    /// An `indexes` item.
    package struct Index: Sendable, Hashable {
        package var properties: [String]
        package var unique = false
        package var onConflict: String?
        package var name: String?

        package init(properties: [String], unique: Bool = false, onConflict: String? = nil, name: String? = nil) {
            self.properties = properties
            self.unique = unique
            self.onConflict = onConflict
            self.name = name
        }
    }

    /// A value as a description writes it: `default_value`.
    package enum Value: Sendable, Hashable {
        case null
        case bool(Bool)
        /// A JSON number, as its text (`5`, `5.0`, `1.5e-07`): the text is what the generator reads back.
        case number(String)
        case string(String)
        /// `{ "sql": … }`: an SQL expression.
        case sql(String)
    }

    /// A property's `property_type`: a scalar type's name, or a relationship.
    package enum PropertyType: Sendable, Hashable {
        case scalar(String)
        case relationship(Relationship)

        package var isToMany: Bool {
            if case .relationship(let relationship) = self { return relationship.association == .toMany }
            return false
        }

        package var isToOne: Bool {
            if case .relationship(let relationship) = self { return relationship.association == .toOne }
            return false
        }

        /// The target entity of a relationship.
        package var entityName: String? {
            if case .relationship(let relationship) = self { return relationship.entityName }
            return nil
        }
    }

    package struct Relationship: Sendable, Hashable {
        package enum Association: String, Sendable, Hashable {
            case toOne = "to_one"
            case toMany = "to_many"
        }

        package var entityName: String
        package var association: Association
        package var ordered = false
        package var linkTable: LinkTable?

        package init(entityName: String, association: Association, ordered: Bool = false, linkTable: LinkTable? = nil) {
            self.entityName = entityName
            self.association = association
            self.ordered = ordered
            self.linkTable = linkTable
        }
    }

    /// A to-many relationship's `link_table`: the app's own join table it is stored in, with the columns
    /// the schema model gives such a table.
    package struct LinkTable: Sendable, Hashable {
        package var name: String
        package var columns: LucidSchema.LinkTable.Columns

        package init(name: String, columns: LucidSchema.LinkTable.Columns) {
            self.name = name
            self.columns = columns
        }
    }

    /// `generated`: a column SQLite computes.
    package struct Generated: Sendable, Hashable {
        package var expression: String
        package var stored = false

        package init(expression: String, stored: Bool = false) {
            self.expression = expression
            self.stored = stored
        }
    }

    /// A `type_history` item: what a property was before `untilVersion` (nil: unchanged).
    package struct TypeChange: Sendable, Hashable {
        package var untilVersion: String
        package var propertyType: PropertyType?
        package var nullable: Bool?
        package var defaultValue: Value?
        /// `.some(nil)`: the column had the name the property's name makes (written `null`).
        package var persistedName: String??

        package init(
            untilVersion: String, propertyType: PropertyType? = nil, nullable: Bool? = nil, defaultValue: Value? = nil,
            persistedName: String?? = nil
        ) {
            self.untilVersion = untilVersion
            self.propertyType = propertyType
            self.nullable = nullable
            self.defaultValue = defaultValue
            self.persistedName = persistedName
        }
    }

    package struct Property: Sendable, Hashable {
        package var name: String
        package var swiftName: String?
        package var persistedName: String?
        package var takesNameOf: String?
        package var type: PropertyType
        /// `composite`: a struct subtype stored a column per element instead of as JSON.
        package var composite = false
        package var columnType: String?
        package var collation: String?
        package var nullable = false
        package var onConflict: String?
        package var check: String?
        package var generated: Generated?
        package var defaultValue: Value?
        package var onDelete: SchemaForeignKey.Action?
        package var onUpdate: SchemaForeignKey.Action?
        /// `unique`: a unique single-column index (written instead of `indexed`).
        package var unique = false
        package var indexed = false
        package var addedAtVersion: String?
        package var movedFrom: String?
        package var removedAtVersion: String?
        package var previousName: String?
        package var renamedAtVersion: String?
        package var typeHistory: [TypeChange] = []

        package init(name: String, type: PropertyType) {
            self.name = name
            self.type = type
        }
    }
}
