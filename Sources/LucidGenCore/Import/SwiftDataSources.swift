import Foundation

/// What a SwiftData app's Swift sources declare about its stored models, as `lucidgen-swiftdata` reads them
/// with swift-syntax and prints them (JSON) for `lucidgen import swiftdata`: every `VersionedSchema`, every
/// `@Model` class with its stored properties and their macros, the typealiases and value types the models
/// name, and every `SchemaMigrationPlan` with its stages. Nothing is resolved yet: names are as written
/// (``SwiftDataHistory`` resolves them), so the reader stays a plain syntax walk.
///
/// Every item keeps its ``Place`` (a file of ``files`` and a line), so each decision is reported at the
/// `File.swift:line` that led to it.
package struct SwiftDataSources: Codable, Sendable, Equatable {
    /// The source files read, as given (relative to where the command ran): a ``Place``'s `file` indexes them.
    package var files: [String] = []
    package var schemas: [VersionedSchema] = []
    package var models: [Model] = []
    package var typealiases: [Alias] = []
    package var valueTypes: [ValueType] = []
    package var plans: [Plan] = []
    /// What the reader could not read as SwiftData declares it (a macro argument that is not a literal, a
    /// file too large): each is an error of the import.
    package var problems: [Problem] = []

    package init() {}

    package struct Place: Codable, Sendable, Hashable, Comparable {
        package var file: Int
        package var line: Int
        package init(file: Int, line: Int) {
            self.file = file
            self.line = line
        }
        package static func < (a: Place, b: Place) -> Bool { (a.file, a.line) < (b.file, b.line) }
    }

    /// A type named in code (`Video.self`, `UnwatchedSchemaV1.Video.self`, `SchemaV2.self`): its dotted name
    /// without `.self`, where it was written, and the types it was written inside (to resolve it lexically).
    package struct TypeReference: Codable, Sendable, Equatable {
        package var name: String
        package var scope: [String]
        package var place: Place
        package init(name: String, scope: [String], place: Place) {
            self.name = name
            self.scope = scope
            self.place = place
        }
    }

    /// `enum SchemaV2: VersionedSchema { static let versionIdentifier = Schema.Version(2, 0, 0); static var models … }`.
    package struct VersionedSchema: Codable, Sendable, Equatable {
        /// The type's name and the types it is declared inside (`[]` at the top level).
        package var name: String
        package var scope: [String]
        package var place: Place
        /// `Schema.Version(a, b, c)`'s numbers; nil when the identifier is not written with literals.
        package var version: [Int]?
        package var versionPlace: Place?
        /// The `models` list's elements, in order.
        package var models: [TypeReference]
        package init(
            name: String, scope: [String], place: Place, version: [Int]?, versionPlace: Place?, models: [TypeReference]
        ) {
            self.name = name
            self.scope = scope
            self.place = place
            self.version = version
            self.versionPlace = versionPlace
            self.models = models
        }
        package var qualifiedName: String { (scope + [name]).joined(separator: ".") }
    }

    /// A `@Model` class: its name (the entity's), where it is declared (nested in a `VersionedSchema`, in an
    /// extension of one, or at the top level), its superclass as written, its stored properties and its
    /// `#Unique` and `#Index` macros.
    package struct Model: Codable, Sendable, Equatable {
        package var name: String
        package var scope: [String]
        package var place: Place
        package var inherits: [String]
        package var properties: [Property]
        /// `#Unique<T>([\.a, \.b], [\.c])`: each array one constraint, property names.
        package var uniques: [KeyPaths]
        /// `#Index<T>([\.a], [\.b, \.c])`: each array one index.
        package var indexes: [KeyPaths]
        package init(
            name: String, scope: [String], place: Place, inherits: [String], properties: [Property], uniques: [KeyPaths],
            indexes: [KeyPaths]
        ) {
            self.name = name
            self.scope = scope
            self.place = place
            self.inherits = inherits
            self.properties = properties
            self.uniques = uniques
            self.indexes = indexes
        }
        package var qualifiedName: String { (scope + [name]).joined(separator: ".") }
    }

    package struct KeyPaths: Codable, Sendable, Equatable {
        package var properties: [String]
        package var place: Place
        package init(properties: [String], place: Place) {
            self.properties = properties
            self.place = place
        }
    }

    /// A stored property of a model (`var`/`let` without accessors, not `static`).
    package struct Property: Codable, Sendable, Equatable {
        package var name: String
        package var place: Place
        /// The type as written (`[Video]?`, `SchemaV11.HabitCategoryModel?`), nil when only an initializer says it.
        package var type: String?
        /// The initializer's source text (`false`, `"-"`, `UUID().uuidString`, `VideoPlacement.defaultPlacement`).
        package var initializer: String?
        /// `@Attribute` options as written without their leading dot (`unique`, `externalStorage`,
        /// `transformable(by: ColorTransformer.self)`, `preserveValueOnDeletion`).
        package var attributeOptions: [String] = []
        /// `@Attribute(originalName: "notes")`.
        package var originalName: String?
        /// `@Relationship(…)`, when the property has it.
        package var relationship: RelationshipMacro?
        /// `@Transient`: SwiftData does not store it.
        package var transient: Bool = false
        package init(name: String, place: Place, type: String?, initializer: String?) {
            self.name = name
            self.place = place
            self.type = type
            self.initializer = initializer
        }
    }

    package struct RelationshipMacro: Codable, Sendable, Equatable {
        /// `.cascade`, `.nullify`, `.deny`, `.noAction` without the dot; nil when not written (`.nullify`).
        package var deleteRule: String?
        /// `\InboxEntry.video` → `InboxEntry.video`.
        package var inverse: String?
        package var minimumModelCount: Int?
        package var maximumModelCount: Int?
        /// Options besides these (`.unique`, `originalName:`), as written.
        package var options: [String] = []
        package var originalName: String?
        package init() {}
    }

    /// `typealias Item = ItemSchemaV002.Item` (top level or inside a type).
    package struct Alias: Codable, Sendable, Equatable {
        package var name: String
        package var scope: [String]
        package var target: String
        package var place: Place
        package init(name: String, scope: [String], target: String, place: Place) {
            self.name = name
            self.scope = scope
            self.target = target
            self.place = place
        }
    }

    /// An enum or struct a model's property may name: a raw-value enum (`enum ChapterCategory: Int, Codable`),
    /// an enum with associated values, a Codable struct (SwiftData stores its fields as a composite).
    package struct ValueType: Codable, Sendable, Equatable {
        package enum Kind: String, Codable, Sendable { case `enum`, `struct` }
        package var name: String
        package var scope: [String]
        package var kind: Kind
        package var inherits: [String]
        package var place: Place
        /// A struct's stored properties (name, type as written); an enum's cases with associated values count.
        package var fields: [Field] = []
        package var hasAssociatedValues: Bool = false
        /// An enum's cases in order, with their raw values as written (a literal's text; nil when implicit).
        package var cases: [Case] = []
        package struct Case: Codable, Sendable, Equatable {
            package var name: String
            package var rawValue: String?
            package init(name: String, rawValue: String?) {
                self.name = name
                self.rawValue = rawValue
            }
        }
        package init(name: String, scope: [String], kind: Kind, inherits: [String], place: Place) {
            self.name = name
            self.scope = scope
            self.kind = kind
            self.inherits = inherits
            self.place = place
        }
        package struct Field: Codable, Sendable, Equatable {
            package var name: String
            package var type: String?
            package var place: Place
            package init(name: String, type: String?, place: Place) {
                self.name = name
                self.type = type
                self.place = place
            }
        }
    }

    /// `enum AppMigrationPlan: SchemaMigrationPlan { static var schemas … static var stages … }`.
    package struct Plan: Codable, Sendable, Equatable {
        package var name: String
        package var scope: [String]
        package var place: Place
        package var schemas: [TypeReference]
        /// Every `MigrationStage.lightweight(…)`/`.custom(…)` written in the plan, in source order.
        package var stages: [Stage]
        package init(name: String, scope: [String], place: Place, schemas: [TypeReference], stages: [Stage]) {
            self.name = name
            self.scope = scope
            self.place = place
            self.schemas = schemas
            self.stages = stages
        }
    }

    package struct Stage: Codable, Sendable, Equatable {
        package enum Kind: String, Codable, Sendable { case lightweight, custom }
        package var kind: Kind
        /// The `static let` it is bound to (`migrateV1toV2`), nil when written inline in `stages`.
        package var name: String?
        package var from: TypeReference?
        package var to: TypeReference?
        package var place: Place
        /// Where `willMigrate`'s and `didMigrate`'s code is (a closure's first line, a function's name and
        /// line); nil when `nil` or not given.
        package var willMigrate: Hook?
        package var didMigrate: Hook?
        package init(kind: Kind, name: String?, from: TypeReference?, to: TypeReference?, place: Place) {
            self.kind = kind
            self.name = name
            self.from = from
            self.to = to
            self.place = place
        }
    }

    package struct Hook: Codable, Sendable, Equatable {
        package var place: Place
        /// The closure's lines, or the function named (`OldStoreMigration.prepare`).
        package var summary: String
        package init(place: Place, summary: String) {
            self.place = place
            self.summary = summary
        }
    }

    package struct Problem: Codable, Sendable, Equatable {
        package var place: Place
        package var message: String
        package init(place: Place, message: String) {
            self.place = place
            self.message = message
        }
    }

    /// `File.swift:12`.
    package func location(_ place: Place) -> String {
        "\(place.file < files.count ? files[place.file] : "?"):\(place.line)"
    }
}
