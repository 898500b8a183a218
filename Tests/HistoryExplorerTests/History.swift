import Foundation

/// A history as a user writes it: a list of releases, each a list of edits to the descriptions.
///
/// Edits name entities and properties by a stable `key` (never by name, which edits change), so that
/// removing an edit while shrinking leaves the others meaningful: an edit that no longer applies
/// (its entity was never added, its property is gone) is skipped when the history is replayed.
struct History: Sendable, CustomStringConvertible {
    var releases: [Release]

    struct Release: Sendable {
        /// The version as the user spells it in `version_history` and `current_version`.
        var version: String
        /// How `current_version` spells it in `.lucid.yaml` (`1.0` may be written `1.0.0`).
        var configSpelling: String
        var edits: [Edit]
        /// Entities whose `version_history` spells this version with a trailing `.0` (`1.1.0` for `1.1`).
        var respelledBy: [Int] = []
        /// Whether the user writes `type_history` for this release's in-place changes (else the generator
        /// infers them from the released snapshots). Both must give the same result.
        var typeHistoryByHand = false
    }

    var description: String {
        releases.map { release in
            "\(release.version)\(release.configSpelling != release.version ? " (current_version \"\(release.configSpelling)\")" : "")"
                + (release.respelledBy.isEmpty
                    ? "" : " (spelled \(release.version).0 by \(release.respelledBy.map { "#\($0)" }.joined(separator: ", ")))")
                + (release.typeHistoryByHand ? " (type_history written by hand)" : "") + ":\n"
                + (release.edits.isEmpty ? "    (nothing changes)\n" : release.edits.map { "    - \($0)\n" }.joined())
        }.joined()
    }
}

/// The type of a property as descriptions write it.
enum PropertyKind: Sendable, Hashable, CustomStringConvertible {
    case scalar(String)
    case array(String)
    case subtype(String)
    /// A struct subtype stored as a composite attribute (`"composite": true`): one column per element.
    case composite(String)
    case toOne(entity: Int)
    case toMany(entity: Int)

    var description: String {
        switch self {
        case .scalar(let name): name
        case .array(let name): "[\(name)]"
        case .subtype(let name): name
        case .composite(let name): "composite \(name)"
        case .toOne(let entity): "to_one #\(entity)"
        case .toMany(let entity): "to_many #\(entity)"
        }
    }

    var isRelationship: Bool {
        switch self {
        case .toOne, .toMany: true
        default: false
        }
    }

    var target: Int? {
        switch self {
        case .toOne(let entity), .toMany(let entity): entity
        default: nil
        }
    }
}

/// A property at the time it is added.
struct PropertySpec: Sendable, CustomStringConvertible {
    var key: Int
    var name: String
    var kind: PropertyKind
    var nullable: Bool
    /// A JSON value, as written in the description.
    var defaultJSON: String?

    var description: String {
        "#\(key) \(name): \(kind)\(nullable ? "?" : "")\(defaultJSON.map { " = \($0)" } ?? "")"
    }
}

enum IdentifierKind: String, Sendable, CaseIterable {
    case local, int, string, property
}

/// An entity at the time it is added.
struct EntitySpec: Sendable, CustomStringConvertible {
    var key: Int
    var name: String
    var identifier: IdentifierKind
    var properties: [PropertySpec]

    var description: String {
        "#\(key) \(name) (identifier \(identifier.rawValue)) { \(properties.map(\.description).joined(separator: ", ")) }"
    }
}

/// One edit of the descriptions.
enum Edit: Sendable, CustomStringConvertible {
    case addEntity(EntitySpec)
    /// `removed_at_version` on the entity (and on every relationship that points at it).
    case removeEntity(Int)
    /// A `version_history` item with `previous_name`.
    case renameEntity(Int, to: String)
    case addProperty(entity: Int, PropertySpec)
    /// `removed_at_version` on the property.
    case removeProperty(entity: Int, property: Int)
    /// `previous_name` (and `renamed_at_version` when `explicitVersion`).
    case renameProperty(entity: Int, property: Int, to: String, explicitVersion: Bool)
    /// The property's type edited in place: the released snapshot says what it was.
    /// A lossy change is followed by the app's row transform (the explorer supplies it).
    case changeType(entity: Int, property: Int, to: PropertyKind)
    /// `nullable` edited in place (required gets `defaultJSON`).
    case setNullable(entity: Int, property: Int, nullable: Bool, defaultJSON: String?)
    /// `default_value` edited in place.
    case setDefault(entity: Int, property: Int, defaultJSON: String?)
    /// `ignore_property_migration_checks_on` on this version's history item.
    case ignoreChecks(entity: Int, property: Int)
    /// `ignore_migration_checks: true` on this version's history item.
    case ignoreEntityChecks(Int)
    /// `"indexed": true` (or `"unique": true`) added to, changed on or removed from a scalar property in
    /// place: the released snapshot keeps what the version had. `unique` only where the seeds keep it
    /// (``Workspace/canBeUnique(_:)``): the seeders give one column of each unique index distinct values.
    case setIndexed(entity: Int, property: Int, indexed: Bool, unique: Bool = false)
    /// `"composite": true` added to a JSON-stored struct property in place: the released snapshot says it was JSON.
    case makeComposite(entity: Int, property: Int)
    /// An entity `indexes` item naming an element of a composite (`"frame.origin.x"`), added or removed.
    case setElementIndexed(entity: Int, property: Int, element: String, indexed: Bool)
    /// A case added to `status` (`added_at_version`); `key` names the case in later edits.
    case addCase(key: Int, name: String)
    /// `previous_name` and `renamed_at_version` on a case of `status`.
    case renameCase(key: Int, to: String)
    /// `removed_at_version` on a case of `status`, with its fallback.
    case removeCase(key: Int, fallback: CaseFallback)
    /// A member added to a struct subtype (`added_at_version`): optional, or required with a default.
    case addMember(structName: String, key: Int, name: String, type: String, nullable: Bool, defaultJSON: String?)
    /// `removed_at_version` on a member of a struct.
    case removeMember(structName: String, key: Int)
    /// `previous_name` and `renamed_at_version` on a member of a struct.
    case renameMember(structName: String, key: Int, to: String)
    /// A member made optional, or required with a default (a `type_history` item keeps what it was).
    case setMemberNullable(structName: String, key: Int, nullable: Bool, defaultJSON: String?)
    /// A history item for this version without any change.
    case touch(Int)

    var description: String {
        switch self {
        case .addEntity(let spec): "add entity \(spec)"
        case .removeEntity(let key): "remove entity #\(key)"
        case .renameEntity(let key, let name): "rename entity #\(key) to \(name)"
        case .addProperty(let entity, let spec): "add property to #\(entity): \(spec)"
        case .removeProperty(let entity, let property): "remove property #\(entity).#\(property)"
        case .renameProperty(let entity, let property, let name, let explicit):
            "rename property #\(entity).#\(property) to \(name)\(explicit ? " (with renamed_at_version)" : "")"
        case .changeType(let entity, let property, let kind): "change type of #\(entity).#\(property) to \(kind)"
        case .setNullable(let entity, let property, let nullable, let defaultJSON):
            "make #\(entity).#\(property) \(nullable ? "nullable" : "required")\(defaultJSON.map { " with default \($0)" } ?? "")"
        case .setDefault(let entity, let property, let defaultJSON): "set default of #\(entity).#\(property) to \(defaultJSON ?? "none")"
        case .ignoreChecks(let entity, let property): "ignore checks on #\(entity).#\(property)"
        case .ignoreEntityChecks(let entity): "ignore checks on #\(entity)"
        case .setIndexed(let entity, let property, let indexed, let unique):
            "\(indexed ? (unique ? "make unique" : "index") : "unindex") #\(entity).#\(property)"
        case .makeComposite(let entity, let property): "make #\(entity).#\(property) composite"
        case .setElementIndexed(let entity, let property, let element, let indexed):
            "\(indexed ? "index" : "unindex") element \(element) of #\(entity).#\(property)"
        case .addCase(let key, let name): "add case #\(key) \(name) to status"
        case .renameCase(let key, let name): "rename case #\(key) of status to \(name)"
        case .removeCase(let key, let fallback): "remove case #\(key) of status (\(fallback))"
        case .addMember(let structName, let key, let name, let type, let nullable, let defaultJSON):
            "add member #\(key) \(name): \(type)\(nullable ? "?" : "")\(defaultJSON.map { " = \($0)" } ?? "") to \(structName)"
        case .removeMember(let structName, let key): "remove member #\(key) of \(structName)"
        case .renameMember(let structName, let key, let name): "rename member #\(key) of \(structName) to \(name)"
        case .setMemberNullable(let structName, let key, let nullable, let defaultJSON):
            "make member #\(key) of \(structName) \(nullable ? "optional" : "required")\(defaultJSON.map { " with default \($0)" } ?? "")"
        case .touch(let key): "history item for #\(key) without change"
        }
    }

    /// The entities whose `version_history` gets an item for the release of this edit.
    var touchedEntities: [Int] {
        switch self {
        case .addEntity(let spec): [spec.key]
        // A case change touches every entity holding `status` (``Workspace`` adds their items).
        // A member change touches every entity holding the struct (``Workspace`` adds their items).
        case .removeEntity, .addCase, .renameCase, .removeCase, .addMember, .removeMember, .renameMember, .setMemberNullable: []
        case .renameEntity(let key, _), .touch(let key), .ignoreEntityChecks(let key): [key]
        case .addProperty(let entity, _), .removeProperty(let entity, _), .renameProperty(let entity, _, _, _),
            .changeType(let entity, _, _),
            .setNullable(let entity, _, _, _), .setDefault(let entity, _, _), .ignoreChecks(let entity, _),
            .setIndexed(let entity, _, _, _),
            .makeComposite(let entity, _), .setElementIndexed(let entity, _, _, _):
            [entity]
        }
    }
}

/// What the rows holding a removed enum case become.
enum CaseFallback: Sendable, Hashable, CustomStringConvertible {
    /// `"fallback": "<that case's name>"`.
    case toCase(Int)
    /// `"fallback": null` (every column of the enum is nullable).
    case null
    /// No fallback: the app's code decides (the explorer's app maps the case to `active`).
    case appCode

    var description: String {
        switch self {
        case .toCase(let key): "fallback #\(key)"
        case .null: "fallback null"
        case .appCode: "the app's code"
        }
    }
}
