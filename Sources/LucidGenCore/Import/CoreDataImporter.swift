import Foundation
import LucidSchema

/// `lucidgen import coredata`: turns an `.xcdatamodeld` history into entity descriptions, one file per entity,
/// with every model version a version of the descriptions.
///
/// The stages: read the package in its order (``CoreDataModelPackage``), follow each entity and property
/// through the versions (the same name in the previous version, or a renaming identifier, `elementID`, naming
/// it there), decide per version what each Core Data element becomes, then merge each lineage's states into a
/// description whose history (`version_history`, `added_at_version`, `removed_at_version`, `previous_name`,
/// `type_history`) gives back every version. Every decision that loses or guesses something is a ``Note``
/// located at `<version>.xcdatamodel/contents:line`. The same package gives the same bytes.
package struct CoreDataImporter {
    /// A lossy or uncertain decision, where the model says what led to it.
    package struct Note: Sendable, CustomStringConvertible {
        package var location: String
        package var message: String
        package var description: String { "\(location): note: \(message)" }
    }

    package struct Output: Sendable {
        /// `(description name, JSON text)`, by name.
        package var files: [(name: String, json: String)]
        package var currentVersion: SchemaVersion
        package var notes: [Note]
        /// `CoreDataOrigin`'s JSON (LucidRuntime): each model version's entities as Core Data stored them,
        /// with the lucidgen table and column each attribute and relationship became.
        package var origin: String
    }

    private let package: CoreDataModelPackage
    private let columnNaming: ColumnNaming
    private var notes: [Note] = []
    /// Version index → model entity → model property → description property, for the origin.
    private var described: [Int: [String: [String: String]]] = [:]
    /// Relationships added or removed at a version (not at their entity's first or after its last), for
    /// spotting a pair whose stored side moves (a link table replaced by a column, or the other way).
    private var relationshipEvents:
        [(entity: String, property: String, target: String, version: Int, added: Bool, file: String, line: Int)] = []
    private var noted: Set<String> = []
    /// Subtype name → the struct subtype a composite attribute's struct became.
    private var subtypes: [String: SubtypeDocument] = [:]

    /// Model version name → entity name → version hash, from the compiled model (`--momd`).
    private let versionHashes: [String: [String: Data]]

    package init(_ package: CoreDataModelPackage, columnNaming: ColumnNaming = .asNamed, versionHashes: [String: [String: Data]] = [:]) {
        self.package = package
        self.columnNaming = columnNaming
        self.versionHashes = versionHashes
    }

    package static func run(
        _ package: CoreDataModelPackage, columnNaming: ColumnNaming = .asNamed, versionHashes: [String: [String: Data]] = [:]
    ) throws -> Output {
        var importer = CoreDataImporter(package, columnNaming: columnNaming, versionHashes: versionHashes)
        return try importer.run()
    }

    /// The entities' version hashes of each model version of a compiled model (`Model.momd`, from the app's
    /// build): its `VersionInfo.plist`'s `NSManagedObjectModel_VersionHashes`.
    package static func versionHashes(momd path: String) throws -> [String: [String: Data]] {
        let file = (path as NSString).appendingPathComponent("VersionInfo.plist")
        let limits = BoundedPropertyList.Limits(bytes: 16 << 20, objects: 1_000_000)
        guard let data = try CoreDataModelPackage.contents(of: file, location: file, maxBytes: limits.bytes) else {
            throw CoreDataImportError(
                location: path,
                message: "no VersionInfo.plist here: give the compiled model folder (Model.momd, inside the app's bundle or DerivedData)")
        }
        guard let plist = try? BoundedPropertyList.decode(data, limits: limits) as? [String: Any],
            let versions = plist["NSManagedObjectModel_VersionHashes"] as? [String: Any]
        else {
            throw CoreDataImportError(location: file, message: "not a property list with NSManagedObjectModel_VersionHashes")
        }
        var result: [String: [String: Data]] = [:]
        for (version, entities) in versions {
            guard let entities = entities as? [String: Any] else { continue }
            result[version] = entities.compactMapValues { $0 as? Data }
        }
        return result
    }

    // MARK: Naming

    /// Each entity's description name is the name of the file it is written to: one that is not an
    /// identifier (`../x`, `a/b`, a line break) is refused where the model has it, before anything is written.
    /// So are a stored property's name that is none (it would name a column) and a parent entity the model
    /// does not have.
    static func checkEntityNames(_ package: CoreDataModelPackage) throws(CoreDataImportError) {
        let rule = "ASCII letters, digits and underscores, starting with a letter, not starting with sqlite_ or lucid_"
        for (model, _) in package.versions {
            let names = Set(model.entities.map(\.name))
            for entity in model.entities {
                if Naming.fileNameProblem(with: Naming.snakeCase(entity.name)) != nil {
                    throw CoreDataImportError(
                        location: "\(model.file):\(entity.line)",
                        message:
                            "entity \(String(reflecting: entity.name)) cannot name a description, whose file is its name in snake_case (\(String(reflecting: Naming.snakeCase(entity.name) + ".json"))): "
                            + "a description's name is \(rule), at most \(Naming.longestFileName) characters; rename the entity in the model"
                    )
                }
                if let parent = entity.parentEntity, !names.contains(parent) {
                    throw CoreDataImportError(
                        location: "\(model.file):\(entity.line)",
                        message:
                            "entity \(entity.name): its parent entity \(String(reflecting: parent)) is not an entity of this model version")
                }
                let stored =
                    entity.attributes.filter { !$0.transient }.map { ($0.name, $0.line, "attribute") }
                    + entity.relationships.filter { !$0.transient }.map { ($0.name, $0.line, "relationship") }
                for (name, line, kind) in stored where Naming.problem(with: Naming.snakeCase(Self.propertyBaseName(name))) != nil {
                    throw CoreDataImportError(
                        location: "\(model.file):\(line)",
                        message:
                            "\(kind) \(String(reflecting: name)) of entity \(entity.name) cannot name a property (and its column): a property's name is \(rule); rename it in the model"
                    )
                }
            }
        }
    }

    /// The Swift name to write when the description name's own form is not the model's.
    static func swiftName(of original: String, description name: String, type: Bool) -> String? {
        let derived = type ? Naming.typeName(name) : Naming.propertyName(name)
        // A model name Swift cannot take (a hostile file's `bad name`) is left to the derived form.
        return derived == original || Naming.swiftNameProblem(original, type: type) != nil ? nil : original
    }

    // MARK: Lineages

    /// An entity followed through the versions.
    struct EntityLineage {
        var states: [(version: Int, entity: CoreDataModel.Entity)] = []
        /// `(version index, previous model name)` of each rename.
        var renames: [(version: Int, from: String)] = []
        /// The version (`2_6_1`) that removed this entity when a later one takes its name: its records are
        /// then named after it (`AlbumDeleteBefore2_6_1`), the later one's have the model's class name.
        var gaveUpNameAt: String?
        /// The lineage whose name this one takes, and the version (`2_7_0`) it does: it is named after it
        /// (`album_delete_from_2_7_0`), so that the earlier one's name, and the released snapshots that
        /// hold it, stay when a later import brings the name back.
        var takesNameOf: (lineage: Int, at: String)?
        /// The table (the name it has, its own or taken).
        var tableName: String { Naming.snakeCase(states.last!.entity.name) }
        var name: String { tableName + (takesNameOf.map { "_from_\($0.at)" } ?? "") }
    }

    /// What stops the import, collected over the whole history (each once) and thrown together at its end.
    private var refusals: [CoreDataImportError] = []

    private mutating func refuse(_ location: String, _ message: String) {
        guard noted.insert("refusal|\(location)|\(message)").inserted else { return }
        refusals.append(CoreDataImportError(location: location, message: message))
    }

    private mutating func note(_ file: String, _ line: Int, _ message: String) {
        let key = "\(file):\(line): \(message)"
        guard noted.insert(key).inserted else { return }
        notes.append(Note(location: "\(file):\(line)", message: message))
    }

    /// A note that holds for every version where it recurs: reported once, at its first version.
    private mutating func noteOnce(_ key: String, _ file: String, _ line: Int, _ message: String) {
        guard noted.insert("once|" + key).inserted else { return }
        note(file, line, message)
    }

    private mutating func entityLineages() -> [EntityLineage] {
        var lineages: [EntityLineage] = []
        var alive: [String: Int] = [:]
        var removed: [String: (lineage: Int, model: String, removedAt: Int)] = [:]
        for (versionIndex, (model, _)) in package.versions.enumerated() {
            var next: [String: Int] = [:]
            let names = Set(model.entities.map(\.name))
            for entity in model.entities {
                if let lineage = alive[entity.name] {
                    lineages[lineage].states.append((versionIndex, entity))
                    next[entity.name] = lineage
                } else if let previous = entity.elementID, previous != entity.name, let lineage = alive[previous], !names.contains(previous)
                {
                    lineages[lineage].states.append((versionIndex, entity))
                    lineages[lineage].renames.append((versionIndex, previous))
                    next[entity.name] = lineage
                } else {
                    var lineage = EntityLineage(states: [(versionIndex, entity)])
                    // A name that comes back without a renaming identifier: a new entity, as Core Data's
                    // migration from the version that removed it saw it.
                    if let gone = removed[Naming.snakeCase(entity.name)] {
                        let removedAt = package.versions[gone.removedAt].version.string
                        lineages[gone.lineage].gaveUpNameAt = removedAt.replacingOccurrences(of: ".", with: "_")
                        lineage.takesNameOf = (
                            gone.lineage, package.versions[versionIndex].version.string.replacingOccurrences(of: ".", with: "_")
                        )
                        note(
                            model.file, entity.line,
                            "entity \(entity.name) comes back after \(gone.model) removed it, without a renaming identifier: a new entity (its rows start empty, as Core Data's migration from \(gone.model) on saw it), \(lineage.name), which takes the table and Swift name of the earlier one (whose records become \(Self.givenUpTypeName(of: lineages[gone.lineage], removedAt: lineages[gone.lineage].gaveUpNameAt!))). A store that skipped the versions between keeps its rows under Core Data (which migrates straight to the newest model); lucidgen migrates version by version, so write a stage at \(package.versions[versionIndex].version.string) if they must be kept"
                        )
                    }
                    lineages.append(lineage)
                    next[entity.name] = lineages.count - 1
                }
            }
            for (name, lineage) in alive where !next.values.contains(lineage) {
                removed[Naming.snakeCase(name)] = (lineage, model.name, versionIndex)
            }
            alive = next
        }
        // Renaming identifiers that name nothing in the previous version.
        for (versionIndex, (model, _)) in package.versions.enumerated() where versionIndex > 0 {
            let previous = Set(package.versions[versionIndex - 1].model.entities.map(\.name))
            for entity in model.entities {
                if let id = entity.elementID, id != entity.name, !previous.contains(id), !previous.contains(entity.name) {
                    let before = package.versions[versionIndex - 1].model
                    var message =
                        "entity \(entity.name): its renaming identifier \(id) names no entity of \(before.name), so it is imported as an entity added here (Core Data's inferred migration matched it with none either: the rows of stores it migrated were not carried over)"
                    if lineages.contains(where: { $0.states.contains { $0.entity.name == id } }) {
                        message += "; \(id) exists in an older version, not the previous one"
                    }
                    let gone = before.entities.map(\.name).filter { !names(in: model).contains($0) }
                    if let near = gone.first(where: { Self.nearMiss($0, id) }) {
                        message +=
                            "; \(before.name)'s \(near), removed here, differs from it by a letter or two: if it is the same entity, fix the renaming identifier in the model"
                    }
                    noteOnce("element \(entity.name) \(id)", model.file, entity.line, message)
                }
            }
        }
        var byName: [String: Int] = [:]
        for (index, lineage) in lineages.enumerated() {
            if let other = byName[lineage.name] {
                let a = lineages[other].states.last!, b = lineage.states.last!
                refuse(
                    "\(package.versions[b.version].model.file):\(b.entity.line)",
                    "entities \(a.entity.name) and \(b.entity.name) both become the description \(lineage.name); rename one in the model")
            }
            byName[lineage.name] = index
        }
        return lineages
    }

    private func names(in model: CoreDataModel) -> Set<String> { Set(model.entities.map(\.name)) }

    /// Whether two names differ by at most two edits (a typo), ignoring case.
    static func nearMiss(_ a: String, _ b: String) -> Bool {
        let x = Array(a.lowercased()), y = Array(b.lowercased())
        guard abs(x.count - y.count) <= 2, x != y else { return false }
        var row = Array(0...y.count)
        for i in 1...max(x.count, 1) where !x.isEmpty {
            var next = [i] + Array(repeating: 0, count: y.count)
            for j in stride(from: 1, through: y.count, by: 1) {
                next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            row = next
        }
        return row[y.count] <= 2
    }

    // MARK: One version

    /// What a property is at one version, as a description says it.
    struct PropertyState: Equatable {
        var key: String
        var modelName: String
        var line: Int
        var type: DescriptionDocument.PropertyType
        var nullable: Bool
        var defaultValue: DescriptionDocument.Value?
        var onDelete: SchemaForeignKey.Action?
        var indexed: Bool
        var elementID: String?
        /// A struct subtype stored a column per element (a composite attribute).
        var composite = false
        static func == (a: PropertyState, b: PropertyState) -> Bool {
            a.type == b.type && a.nullable == b.nullable && a.defaultValue == b.defaultValue && a.composite == b.composite
        }
    }

    /// Each lineage's description name, by index.
    private var takenNames: [String] = []
    /// Description name → table, of the lineages whose name is not their table's.
    private var takenTables: [String: String] = [:]
    /// Every entity's table, at any version.
    private var allTables: Set<String> = []
    /// Lineage → to-many property → the column its link table is named by, where that is not its name.
    private var linkColumns: [String: [String: String]] = [:]

    /// The description name of every model entity name at each version.
    private var entityNames: [[String: String]] = []

    private mutating func properties(of entity: CoreDataModel.Entity, at versionIndex: Int) -> [PropertyState] {
        let model = package.versions[versionIndex].model
        var result: [PropertyState] = []
        for attribute in entity.attributes {
            if let state = attributeState(attribute, entity: entity, model: model, versionIndex: versionIndex) { result.append(state) }
        }
        for relationship in entity.relationships {
            if let state = relationshipState(relationship, entity: entity, model: model, versionIndex: versionIndex) {
                result.append(state)
            }
        }
        return result
    }

    /// Lineage → model property → description name, for properties that share their name with another
    /// entity's of the same hierarchy (one table in lucidgen, so one name each).
    private var hierarchyRenames: [String: [String: String]] = [:]

    /// A model's name without its leading underscores (`_shortsSetting`, a backing property the app wraps in
    /// a computed one): a description's name starts with a letter; the Swift name keeps the model's.
    static func propertyBaseName(_ name: String) -> String {
        let trimmed = name.drop { $0 == "_" }
        return trimmed.first?.isLetter == true ? String(trimmed) : name
    }

    private func descriptionName(ofProperty name: String, in lineage: String? = nil) -> String {
        if let lineage, let renamed = hierarchyRenames[lineage]?[name] { return renamed }
        let snake = Naming.snakeCase(Self.propertyBaseName(name))
        // `id` is the record's identifier; a column named `rowid` would hide SQLite's rowid (Naming.columnProblem).
        if snake == "id" { return "core_data_id" }
        return Naming.columnProblem(with: snake) != nil ? "core_data_\(sqlNameKey(snake))" : snake
    }

    /// Finds the properties an entity hierarchy has twice under one name (Wire's `text` in two sibling
    /// messages, or `delivered` moved from subentities to their parent): the first entity to use the name
    /// (the root first, then by depth and name, oldest version first) keeps it; the others are prefixed with
    /// their entity's name, their Swift name kept.
    /// An entity that, at version `index`, is in one hierarchy with `entity` though at `since` they had no
    /// common root (both existing then and now): what Core Data calls merging two hierarchies.
    private func mergedHierarchy(of entity: String, at index: Int, since: Int) -> String? {
        func root(_ lineage: String, _ version: Int) -> String? {
            let model = package.versions[version].model
            let modelName = entityNames[version].first { $0.value == lineage }?.key
            guard var current = model.entities.first(where: { $0.name == modelName }) else { return nil }
            var seen: Set<String> = [current.name]
            while let parent = current.parentEntity, let next = model.entities.first(where: { $0.name == parent }),
                seen.insert(next.name).inserted
            { current = next }
            return entityNames[version][current.name]
        }
        guard let lineage = entityNames[index][entity] else { return nil }
        let (rootNow, rootThen) = (root(lineage, index), root(lineage, since))
        for (modelName, other) in entityNames[index].sorted(by: { $0.key < $1.key }) where other != lineage {
            guard let otherThen = root(other, since), let otherNow = root(other, index) else { continue }
            if otherNow == rootNow, otherThen != rootThen { return modelName }
        }
        return nil
    }

    /// Lineage → model property → the lineage it moved from, at the version it moved: a property that
    /// leaves an entity of a hierarchy and appears, under the same name, in an ancestor or a subentity of it
    /// at the next version moves (Core Data's lightweight migration keeps its values; so does `moved_from`).
    private var moves: [String: [String: (from: String, version: Int)]] = [:]

    private mutating func findMoves() {
        func chain(_ entity: CoreDataModel.Entity, in model: CoreDataModel) -> [String] {
            var result = [entity.name]
            var current = entity
            while let parent = current.parentEntity, let next = model.entities.first(where: { $0.name == parent }),
                !result.contains(next.name)
            {
                result.append(next.name)
                current = next
            }
            return result
        }
        func storedNames(_ entity: CoreDataModel.Entity) -> Set<String> {
            Set(entity.attributes.filter { !$0.transient }.map(\.name) + entity.relationships.filter { !$0.transient }.map(\.name))
        }
        for index in package.versions.indices.dropFirst() {
            let (model, before) = (package.versions[index].model, package.versions[index - 1].model)
            let lineageBefore = Dictionary(entityNames[index - 1].map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
            for entity in model.entities {
                guard let lineage = entityNames[index][entity.name] else { continue }
                let had = lineageBefore[lineage].flatMap { name in before.entities.first { $0.name == name } }.map(storedNames) ?? []
                let related = model.entities.filter { other in
                    other.name != entity.name
                        && (chain(entity, in: model).contains(other.name) || chain(other, in: model).contains(entity.name))
                }
                for name in storedNames(entity).subtracting(had) {
                    for other in related {
                        guard let source = entityNames[index][other.name], !storedNames(other).contains(name),
                            let sourceBefore = lineageBefore[source].flatMap({ old in before.entities.first { $0.name == old } }),
                            storedNames(sourceBefore).contains(name)
                        else { continue }
                        moves[lineage, default: [:]][name] = (source, index)
                        break
                    }
                }
            }
        }
    }

    private mutating func findHierarchyCollisions() {
        var owners: [String: [String: String]] = [:] // root lineage → description name → lineage owning it
        for (index, (model, _)) in package.versions.enumerated() {
            func chain(_ entity: CoreDataModel.Entity) -> [CoreDataModel.Entity] {
                var result = [entity]
                while let parent = result.last!.parentEntity, let next = model.entities.first(where: { $0.name == parent }),
                    !result.contains(where: { $0.name == next.name })
                { result.append(next) }
                return result
            }
            let members = model.entities.filter { entity in
                entity.parentEntity != nil || model.entities.contains(where: { $0.parentEntity == entity.name })
            }
            .sorted { (chain($0).count, $0.name) < (chain($1).count, $1.name) }
            for entity in members {
                guard let lineage = entityNames[index][entity.name], let root = entityNames[index][chain(entity).last!.name] else {
                    continue
                }
                let names =
                    entity.attributes.filter { !$0.transient }.map(\.name) + entity.relationships.filter { !$0.transient }.map(\.name)
                for name in names {
                    let plain = descriptionName(ofProperty: name)
                    if hierarchyRenames[lineage]?[name] != nil { continue }
                    if let owner = owners[root]?[plain], owner != lineage, moves[lineage]?[name]?.from != owner,
                        moves[owner]?[name]?.from != lineage
                    {
                        let renamed = "\(lineage)_\(plain)"
                        hierarchyRenames[lineage, default: [:]][name] = renamed
                        let line =
                            (entity.attributes.first { $0.name == name }?.line) ?? (entity.relationships.first { $0.name == name }?.line)
                            ?? entity.line
                        noteOnce(
                            "collision \(lineage).\(name)", model.file, line,
                            "\(entity.name).\(name) has the name of \(owner)'s \(plain) in the hierarchy of \(root), whose entities share one table in lucidgen: imported as \(renamed) (Swift name \(name)); Core Data stores the two apart (Z\(name.uppercased())1), which the converter does not read yet"
                        )
                    } else {
                        owners[root, default: [:]][plain] = lineage
                    }
                }
            }
        }
    }

    private mutating func attributeState(
        _ attribute: CoreDataModel.Attribute, entity: CoreDataModel.Entity, model: CoreDataModel, versionIndex: Int
    ) -> PropertyState? {
        let file = model.file, line = attribute.line, label = "\(entity.name).\(attribute.name)"
        let lineage = entityNames.indices.contains(versionIndex) ? entityNames[versionIndex][entity.name] ?? entity.name : entity.name
        func noteOnce(_ key: String, _ file: String, _ line: Int, _ message: String) {
            self.noteOnce(key.replacingOccurrences(of: label, with: "\(lineage).\(attribute.name)"), file, line, message)
        }
        if attribute.transient {
            noteOnce("transient \(label)", file, line, "\(label) is transient (not stored): left out")
            return nil
        }
        let type: String
        switch attribute.type {
        case let scalar? where Self.scalarType(of: scalar) != nil: type = Self.scalarType(of: scalar)!
        case "Composite" where attribute.composite != nil:
            type = subtype(of: attribute.composite!)
        case "Transformable":
            type = "data"
            let transformer =
                attribute.valueTransformerName.flatMap { $0.isEmpty ? nil : "its transformer \($0)" }
                ?? "NSKeyedUnarchiveFromData (no valueTransformerName)"
            noteOnce(
                "transformable \(label)", file, line,
                "\(label) is Transformable\(attribute.customClassName.map { " (\($0))" } ?? ""): imported as data, the bytes \(transformer) wrote; decode them with it in the app"
            )
        default:
            noteOnce(
                "type \(label) \(attribute.type ?? "")", file, line,
                "\(label) has attribute type \(attribute.type ?? "none"), which lucidgen does not store: left out")
            return nil
        }
        if attribute.externalStorage {
            noteOnce("external \(label)", file, line, "\(label) allows external storage: lucidgen stores every value in its row")
        }
        if let derivation = attribute.derivation {
            noteOnce(
                "derived \(label)", file, line,
                "\(label) is derived (\(derivation)): imported as a stored value, which lucidgen does not recompute")
        }
        if attribute.hasUserInfo {
            noteOnce("userinfo \(label)", file, line, "\(label) has userInfo, which has no place in SQLite: left out")
        }
        var defaultValue: DescriptionDocument.Value?
        if let text = attribute.defaultValueString {
            defaultValue = Self.defaultJSON(text, type: type)
            // Xcode writes a Boolean's spelling on integers too (Wire's mutedStatus, "NO"): momc reads it as a number.
            if defaultValue == nil, type == "int", ["YES", "NO"].contains(text) {
                defaultValue = .number(text == "YES" ? "1" : "0")
                noteOnce(
                    "yesno \(label)", file, line, "\(label): its default \"\(text)\" on an integer is read as \(text == "YES" ? "1" : "0")")
            }
            if defaultValue == nil {
                noteOnce(
                    "default \(label) \(text)", file, line,
                    "\(label): its default \(DescriptionWriter.string(text)) is not \(type == "int" ? "an" : "a") \(type): left out")
            }
        }
        if type == "date", let interval = attribute.defaultDateTimeInterval, let seconds = Double(interval) {
            // Seconds since 2001-01-01 (Core Data's reference date), as the text form dates are stored in.
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            defaultValue = .sql("('\(Self.dateText(date))')")
            noteOnce(
                "datedefault \(label)", file, line,
                "\(label): its default date (\(interval) s after 2001-01-01) is the column's SQL default \(Self.dateText(date)); the record initializer has none"
            )
        }
        let name = descriptionName(ofProperty: attribute.name)
        if name == "core_data_id" {
            noteOnce(
                "id \(label)", file, line,
                "\(label) is named like lucidgen's identifier: imported as core_data_id (swift_name id is taken too; its Swift name is coreDataID)"
            )
        } else if name == "core_data_rowid" {
            noteOnce(
                "rowid \(label)", file, line,
                "\(label) is named like SQLite's rowid, which a column may not hide: imported as core_data_rowid (its Swift name stays \(attribute.name))"
            )
        }
        return PropertyState(
            key: attribute.name, modelName: attribute.name, line: line, type: .scalar(type), nullable: attribute.optional,
            defaultValue: defaultValue, onDelete: nil,
            indexed: attribute.indexed, elementID: attribute.elementID, composite: attribute.composite != nil)
    }

    /// A Core Data attribute type's description type (nil: lucidgen stores no such value).
    static func scalarType(of attributeType: String) -> String? {
        switch attributeType {
        case "Integer 16", "Integer 32", "Integer 64": "int"
        case "Double": "double"
        case "Float": "float"
        case "Decimal": "decimal"
        case "String": "string"
        case "Boolean": "bool"
        case "Date": "date"
        case "Binary": "data"
        case "UUID": "uuid"
        case "URI": "url"
        default: nil
        }
    }

    /// The subtype a composite's struct becomes (and its nested structs): its description name.
    private mutating func subtype(of composite: CoreDataModel.Composite) -> String {
        let name = Self.subtypeName(of: composite)
        var members: [SubtypeDocument.Member] = []
        for member in composite.members {
            let memberName = descriptionName(ofProperty: member.name)
            let type: String =
                switch member.kind {
                case .value(let attributeType): Self.scalarType(of: attributeType) ?? "data"
                case .nested(let inner): subtype(of: inner)
                }
            var item = SubtypeDocument.Member(name: memberName, type: type, nullable: member.optional)
            item.swiftName = Self.swiftName(of: member.name, description: memberName, type: false)
            members.append(item)
        }
        var document = SubtypeDocument(name: name, kind: .members(members))
        document.swiftName = Self.swiftName(of: composite.name, description: name, type: true)
        subtypes[name] = document
        return name
    }

    static func subtypeName(of composite: CoreDataModel.Composite) -> String { Naming.snakeCase(composite.name) }

    /// Each member's column under the composite's column, depth first: lucidgen's columns of its elements.
    private func leafColumns(of composite: CoreDataModel.Composite, prefix: String) -> [String] {
        composite.members.flatMap { member -> [String] in
            let column = prefix + "_" + descriptionName(ofProperty: member.name)
            return switch member.kind {
            case .value: [column]
            case .nested(let inner): leafColumns(of: inner, prefix: column)
            }
        }
    }

    static func dateText(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        let milliseconds = Int((Double(c.nanosecond ?? 0) / 1_000_000).rounded(.down))
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0,
            milliseconds)
    }

    /// `defaultValueString` as a description's JSON value of `type`, or nil when it is not one.
    static func defaultJSON(_ text: String, type: String) -> DescriptionDocument.Value? {
        switch type {
        case "int": return Int64(text).map { .number(String($0)) }
        case "double", "float":
            guard let value = Double(text), value.isFinite else { return nil }
            return .number(value == value.rounded() && abs(value) < 1e15 ? String(format: "%.1f", value) : "\(value)")
        case "decimal":
            guard Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) != nil,
                text.allSatisfy({ $0.isNumber || "+-.eE".contains($0) })
            else { return nil }
            return .string(text)
        case "bool":
            switch text.lowercased() {
            case "yes", "true", "1": return .bool(true)
            case "no", "false", "0": return .bool(false)
            default: return nil
            }
        case "string":
            // Lucid's spellings would be read as something else: `nil`, `current_date`, `.case`, `30s`.
            if text == "nil" || text == "current_date" || text.hasPrefix(".")
                || text.hasSuffix("s") && Double(text.dropLast().replacingOccurrences(of: "m", with: "")) != nil
            {
                return nil
            }
            return .string(text)
        case "url": return URL(string: text) == nil ? nil : .string(text)
        case "uuid": return UUIDText.bytes(text) == nil ? nil : .string(text)
        default: return nil
        }
    }

    /// Core Data's deletion rule of the side that is deleted, as the owner's foreign-key action.
    static func action(_ rule: String) -> SchemaForeignKey.Action? {
        switch rule {
        case "Cascade": .cascade
        case "Nullify": .setNull
        case "Deny": .restrict
        case "No Action": .noAction
        default: nil
        }
    }

    private func inverse(of relationship: CoreDataModel.Relationship, in model: CoreDataModel) -> CoreDataModel.Relationship? {
        guard let name = relationship.inverseName, let entity = relationship.inverseEntity ?? relationship.destination,
            let target = model.entities.first(where: { $0.name == entity })
        else { return nil }
        return target.relationships.first { $0.name == name }
    }

    /// Whether this side describes the pair: the to-one (its column is the link), else the ordered side, else
    /// the side whose entity and name sort first.
    private func owns(_ relationship: CoreDataModel.Relationship, of entity: CoreDataModel.Entity, inverse: CoreDataModel.Relationship?)
        -> Bool
    {
        guard let inverse, !(relationship.inverseEntity == entity.name && inverse.name == relationship.name) else { return true }
        let other = relationship.inverseEntity ?? relationship.destination ?? ""
        let first = (entity.name, relationship.name) < (other, inverse.name)
        switch (relationship.toMany, inverse.toMany) {
        case (false, true): return !inverse.ordered
        case (true, false): return relationship.ordered
        case (false, false):
            // The side whose deletion cascades to the other is the parent: the other side holds the column,
            // whose ON DELETE CASCADE says exactly that.
            if relationship.deletionRule == "Cascade" && inverse.deletionRule != "Cascade" { return false }
            if inverse.deletionRule == "Cascade" && relationship.deletionRule != "Cascade" { return true }
            return first
        case (true, true): return relationship.ordered != inverse.ordered ? relationship.ordered : first
        }
    }

    private mutating func relationshipState(
        _ relationship: CoreDataModel.Relationship, entity: CoreDataModel.Entity, model: CoreDataModel, versionIndex: Int
    ) -> PropertyState? {
        let file = model.file, line = relationship.line, label = "\(entity.name).\(relationship.name)"
        let lineage = entityNames[versionIndex][entity.name] ?? entity.name
        func noteOnce(_ key: String, _ file: String, _ line: Int, _ message: String) {
            self.noteOnce(key.replacingOccurrences(of: label, with: "\(lineage).\(relationship.name)"), file, line, message)
        }
        if relationship.transient {
            noteOnce("transient \(label)", file, line, "\(label) is transient (not stored): left out")
            return nil
        }
        guard let destination = relationship.destination, let target = entityNames[versionIndex][destination] else {
            noteOnce("nodest \(label)", file, line, "\(label) has no destination entity in this version: left out")
            return nil
        }
        let inverse = inverse(of: relationship, in: model)
        if relationship.inverseName != nil && inverse == nil {
            noteOnce(
                "noinverse \(label)", file, line,
                "\(label): its inverse \(relationship.inverseEntity ?? destination).\(relationship.inverseName!) is not in this version: described alone"
            )
        }
        guard owns(relationship, of: entity, inverse: inverse) else { return nil }
        let pair = inverse.map { " (with its inverse \(relationship.inverseEntity ?? destination).\($0.name), described once, here)" } ?? ""
        var onDelete: SchemaForeignKey.Action?
        var nullable = relationship.optional
        let type: DescriptionDocument.PropertyType
        if relationship.toMany {
            type = .relationship(.init(entityName: target, association: .toMany, ordered: relationship.ordered))
            nullable = false
            if relationship.deletionRule == "Cascade" || relationship.deletionRule == "Deny" {
                noteOnce(
                    "rule \(label)", file, line,
                    "\(label)\(pair) has the deletion rule \(relationship.deletionRule): a link table's rows go with either row, but deleting the targets (Cascade) or refusing the delete (Deny) is the app's code"
                )
            }
            if let inverse, !inverse.toMany {
                noteOnce(
                    "orderedparent \(label)", file, line,
                    "\(label) is an ordered to-many whose inverse is a to-one: imported as an ordered link table, which keeps the order but not that a row has one owner"
                )
            }
            if let inverse, inverse.toMany, inverse.ordered, relationship.ordered {
                noteOnce(
                    "bothordered \(label)", file, line,
                    "\(label) and its inverse are both ordered: the link table keeps this side's order only")
            }
            if let inverse, inverse.toMany, inverse.deletionRule == "Cascade" || inverse.deletionRule == "Deny" {
                noteOnce(
                    "invrule \(label)", file, line,
                    "\(label)'s inverse \(inverse.name) has the deletion rule \(inverse.deletionRule), which the app's code must do (a link table's rows go with either row)"
                )
            }
        } else {
            type = .relationship(.init(entityName: target, association: .toOne))
            if let inverse, let action = Self.action(inverse.deletionRule) {
                if action == .setNull && !nullable {
                    // Core Data nullifies, then refuses to save the owner without it: the delete does not happen.
                    onDelete = .restrict
                    noteOnce(
                        "nullifyrequired \(label)", file, line,
                        "\(label) is required but its inverse nullifies it when the target is deleted, which Core Data then refuses to save: on_delete restrict (the target cannot be deleted while rows point at it)"
                    )
                } else {
                    onDelete = action
                }
            }
            if relationship.deletionRule == "Cascade" {
                noteOnce(
                    "rule \(label)", file, line,
                    "\(label) cascades deletes to its target, which a foreign key cannot say (it acts the other way): the app's code must delete the target"
                )
            }
        }
        return PropertyState(
            key: relationship.name, modelName: relationship.name, line: line, type: type, nullable: nullable, defaultValue: nil,
            onDelete: onDelete,
            indexed: false, elementID: relationship.elementID)
    }

    // MARK: The whole history

    private mutating func run() throws -> Output {
        try Self.checkEntityNames(package)
        let versions = package.versions.map(\.version)
        let lineages = entityLineages()
        takenNames = lineages.map(\.name)
        for lineage in lineages where lineage.name != lineage.tableName { takenTables[lineage.name] = lineage.tableName }
        allTables = Set(lineages.map(\.tableName))
        entityNames = package.versions.indices.map { index in
            var names: [String: String] = [:]
            for lineage in lineages {
                for state in lineage.states where state.version == index { names[state.entity.name] = lineage.name }
            }
            return names
        }
        findMoves()
        findHierarchyCollisions()
        for (model, _) in package.versions {
            for (what, line) in model.unstored {
                noteOnce("unstored \(what)", model.file, line, "the model's \(what) has no place in SQLite: left out")
            }
        }
        // An entity's history lists the versions where it changes; a model version where nothing changes
        // is listed by every entity then, so that every model version is a version of the descriptions.
        var covered: Set<Int> = []
        for lineage in lineages {
            covered.formUnion(describe(lineage, versions: versions, quiet: []).changes)
            if lineage.states.last!.version + 1 < versions.count { covered.insert(lineage.states.last!.version + 1) }
        }
        let quiet = Set(versions.indices).subtracting(covered)
        var files: [(String, String)] = []
        var indexHistoryDiffers = false
        for lineage in lineages {
            let (json, differs, _) = describe(lineage, versions: versions, quiet: quiet)
            files.append((lineage.name, json))
            indexHistoryDiffers = indexHistoryDiffers || differs
        }
        // A pair whose stored side moves: one relationship between the same two entities removed where
        // another is added. lucidgen sees two relationships; the links are not carried over by SQL.
        for added in relationshipEvents where added.added {
            for removed in relationshipEvents
            where !removed.added && removed.version == added.version
                && Set([removed.entity, removed.target]) == Set([added.entity, added.target])
            {
                noteOnce(
                    "moved \(added.entity).\(added.property) \(removed.entity).\(removed.property)", added.file, added.line,
                    "\(added.entity).\(added.property) is added where \(removed.entity).\(removed.property) is removed (a relationship between the same entities whose stored side moves, e.g. a link table replaced by a to-one column): lucidgen sees one relationship removed and another added, so the links are not carried over; write a stage at \(versions[added.version].string) that copies them"
                )
            }
        }
        if indexHistoryDiffers {
            let newest = package.versions.last!.model
            note(
                newest.file, 1,
                "the indexes changed between model versions; descriptions have no index history, so every version gets this version's indexes where their properties exist (plain indexes change speed, never data; a uniqueness constraint of an older version only is noted where it is)"
            )
        }
        let sortedNotes = inHistoryOrder(notes, location: \.location)
        if !refusals.isEmpty { throw CoreDataImportRefusals(errors: inHistoryOrder(refusals, location: \.location), notes: sortedNotes) }
        files += subtypes.values.map { ("Subtypes/" + $0.name, DescriptionWriter.json($0)) }
        return Output(files: files.sorted { $0.0 < $1.0 }, currentVersion: versions.last!, notes: sortedNotes, origin: origin().json())
    }

    /// Oldest model version first, in the order found within one.
    private func inHistoryOrder<Item>(_ items: [Item], location: (Item) -> String) -> [Item] {
        let order = Dictionary(uniqueKeysWithValues: package.versions.enumerated().map { ($0.element.model.file, $0.offset) })
        return items.enumerated().sorted { a, b in
            let fa = String(location(a.element).prefix { $0 != ":" }), fb = String(location(b.element).prefix { $0 != ":" })
            if order[fa] != order[fb] { return (order[fa] ?? -1) < (order[fb] ?? -1) }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// One entity's description: its JSON and whether its indexes differ between versions. In named steps:
    /// the entity's own keys, its properties followed through its versions, each property's description,
    /// the versions where it changes, its indexes.
    private mutating func describe(_ lineage: EntityLineage, versions: [SchemaVersion], quiet: Set<Int>) -> (
        json: String, indexesDiffer: Bool, changes: Set<Int>
    ) {
        var object = entityKeys(of: lineage, versions: versions)
        let tracked = trackedProperties(of: lineage, versions: versions)
        var taken: [String: Int] = [:]
        let present = lineage.states.map(\.version)
        let takesNameOf = namesThatComeBack(
            tracked.states, order: tracked.order, present: present, entity: lineage.states.last!.entity.name, lineage: lineage.name,
            versions: versions)
        for id in tracked.order {
            object.properties.append(
                property(id, of: lineage, tracked: tracked, takesNameOf: takesNameOf[id], taken: &taken, versions: versions))
        }
        let changes = changedVersions(of: lineage, tracked: tracked)
        object.versionHistory = changes.union(quiet.intersection(present)).sorted().map { version in
            DescriptionDocument.VersionItem(
                version: versions[version].string,
                previousName: lineage.renames.first { $0.version == version }.map { Naming.snakeCase($0.from) })
        }

        // Indexes: the newest state's (descriptions have no index history).
        let (indexes, differs) = indexItems(lineage, propertyStates: tracked.states, order: tracked.order)
        object.indexes = indexes
        return (DescriptionWriter.json(object, layout: .versionHistoryOnLines), differs, changes)
    }

    /// An entity's own keys: names, parent or identifier, `parent_history`, its removal; notes for what the
    /// model has that SQLite has no place for.
    private mutating func entityKeys(of lineage: EntityLineage, versions: [SchemaVersion]) -> DescriptionDocument {
        let newest = lineage.states.last!.entity
        var object = DescriptionDocument(name: lineage.name)
        // One that takes a name keeps the table and the model's class name; the one that gave it up keeps its
        // description name (its snapshots' name) and its records are named after the version that removed it.
        if lineage.takesNameOf != nil, newest.parentEntity == nil { object.persistedName = lineage.tableName }
        if let removedAt = lineage.gaveUpNameAt {
            object.swiftName = Self.givenUpTypeName(of: lineage, removedAt: removedAt)
        } else if let swift = Self.swiftTypeName(newest), let name = Self.swiftName(of: swift, description: lineage.name, type: true) {
            object.swiftName = name
        }
        if let earlier = lineage.takesNameOf { object.takesNameOf = takenNames[earlier.lineage] }
        if let parent = newest.parentEntity {
            object.parent = entityNames[lineage.states.last!.version][parent] ?? Naming.snakeCase(parent)
        } else {
            object.identifier = DescriptionDocument.Identifier(autoincrement: true)
        }
        object.abstract = newest.isAbstract
        // A parent gained, lost or changed (not merging two hierarchies): `parent_history` says the parent before
        // each version where it changes, and the rows move to the new root's table there.
        for (earlier, state) in zip(lineage.states, lineage.states.dropFirst())
        where earlier.entity.parentEntity != state.entity.parentEntity {
            let was = package.versions[earlier.version].model.name
            let change =
                "entity \(state.entity.name) has parent \(state.entity.parentEntity ?? "none") here and \(earlier.entity.parentEntity ?? "none") in \(was)"
            if let other = mergedHierarchy(of: state.entity.name, at: state.version, since: earlier.version) {
                refuse(
                    "\(package.versions[state.version].model.file):\(state.entity.line)",
                    "\(change), which puts it in one hierarchy with \(other), though they have no common root in \(was): that merges two hierarchies, which Core Data's lightweight migration refuses too; keep them apart, or move the rows in your own code (a stage) between two imported versions"
                )
            } else {
                let was = earlier.entity.parentEntity.map { entityNames[earlier.version][$0] ?? Naming.snakeCase($0) }
                object.parentHistory.append(DescriptionDocument.ParentChange(untilVersion: versions[state.version].string, parent: was))
                noteOnce(
                    "parent \(state.entity.name) \(state.version)", package.versions[state.version].model.file, state.entity.line,
                    "\(change): its rows move to the table of its new root at \(versions[state.version].string), ids kept (parent_history)")
            }
        }
        for state in lineage.states {
            let file = package.versions[state.version].model.file
            for (name, line) in state.entity.fetchedProperties {
                noteOnce(
                    "fetched \(state.entity.name).\(name)", file, line,
                    "\(state.entity.name).\(name) is a fetched property (a saved query): left out")
            }
            if let line = state.entity.hasUserInfo {
                noteOnce(
                    "userinfo \(state.entity.name)", file, line,
                    "entity \(state.entity.name) has userInfo, which has no place in SQLite: left out")
            }
        }
        let last = lineage.states.last!.version
        if last + 1 < versions.count { object.removedAtVersion = versions[last + 1].string }
        return object
    }

    /// Each property of a lineage followed through its versions: one id per property (renames kept by
    /// their renaming identifier), its state at each version it exists in, in the order first met.
    struct TrackedProperties {
        var order: [Int] = []
        var states: [[(version: Int, state: PropertyState)]] = []
        /// The first rename of each property: the version and its model name before.
        var renames: [Int: (version: Int, from: String)] = [:]
    }

    private mutating func trackedProperties(of lineage: EntityLineage, versions: [SchemaVersion]) -> TrackedProperties {
        var tracked = TrackedProperties()
        var pending: [(version: Int, entity: String, property: String, id: Int)] = []
        var previous: [String: Int] = [:]
        for state in lineage.states {
            let file = package.versions[state.version].model.file
            let current = properties(of: state.entity, at: state.version)
            let names = Set(current.map(\.key))
            var next: [String: Int] = [:]
            for property in current {
                let id: Int
                if let known = previous[property.key] {
                    id = known
                } else if let old = property.elementID, old != property.key, let known = previous[old], !names.contains(old) {
                    id = known
                    if let earlier = tracked.renames[id] {
                        refuse(
                            "\(file):\(property.line)",
                            "\(state.entity.name).\(property.modelName) is renamed a second time (from \(old); first from \(earlier.from) at \(versions[earlier.version].string)): the importer keeps one rename per property for now; import from \(package.versions[earlier.version].model.name) on (--version-map)"
                        )
                    }
                    if tracked.renames[id] == nil { tracked.renames[id] = (state.version, old) }
                } else {
                    if let old = property.elementID, old != property.key, state.version != lineage.states.first!.version {
                        noteOnce(
                            "pelement \(state.entity.name).\(property.key)", file, property.line,
                            "\(state.entity.name).\(property.modelName): its renaming identifier \(old) names no property of the previous version, so it is imported as a property added here"
                        )
                    }
                    tracked.states.append([])
                    id = tracked.states.count - 1
                    tracked.order.append(id)
                }
                tracked.states[id].append((state.version, property))
                next[property.key] = id
                pending.append((state.version, state.entity.name, property.modelName, id))
            }
            previous = next
        }
        for item in pending {
            // The property's name at that version: its model name there (renames follow the model's names).
            described[item.version, default: [:]][item.entity, default: [:]][item.property] = descriptionName(
                ofProperty: item.property, in: lineage.name)
        }
        return tracked
    }

    /// One property's description from its states: its names, default (a zero where existing rows need
    /// one), removal, rename and `type_history`; notes and refusals located at the model line.
    private mutating func property(
        _ id: Int, of lineage: EntityLineage, tracked: TrackedProperties, takesNameOf: (name: String, from: String)?,
        taken: inout [String: Int], versions: [SchemaVersion]
    ) -> DescriptionDocument.Property {
        let newest = lineage.states.last!.entity
        let firstVersion = lineage.states.first!.version
        let present = lineage.states.map(\.version)
        let propertyStates = tracked.states, renames = tracked.renames
        let states = propertyStates[id]
        let now = states.last!.state
        let nowFile = package.versions[states.last!.version].model.file
        let plainName = descriptionName(ofProperty: now.modelName, in: lineage.name)
        let name = takesNameOf?.name ?? plainName
        // Names that come back one after another are told apart above: these are two at once.
        if let other = taken[name] {
            refuse(
                "\(nowFile):\(now.line)",
                "\(newest.name).\(now.modelName) and \(propertyStates[other].last!.state.modelName) both become the property \(name); rename one in the model"
            )
        }
        taken[name] = id
        var property = DescriptionDocument.Property(name: name, type: now.type)
        property.composite = now.composite
        if plainName == "core_data_id" {
            property.swiftName = "coreDataID"
        } else if let swift = Self.swiftName(of: now.modelName, description: name, type: false)
            ?? (name != plainName ? Naming.propertyName(plainName) : nil)
        {
            property.swiftName = swift
        }
        // A property that takes a name an earlier one gave up: the column and Swift name are that name's.
        if let taken = takesNameOf {
            // A to-many's link table is named by the column: the earlier one's, `_links` and all.
            let toMany = now.type.isToMany
            let column = (toMany ? linkColumn(of: plainName, in: lineage) : nil) ?? columnNaming.column(plainName)
            property.persistedName = column
            if toMany, column != columnNaming.column(plainName) { linkColumns[lineage.name, default: [:]][name] = column }
            property.takesNameOf = taken.from
        } else if now.type.isToMany, let linkName = linkColumn(of: name, in: lineage) {
            property.persistedName = linkName
            linkColumns[lineage.name, default: [:]][name] = linkName
            noteOnce(
                "linktable \(lineage.name).\(name)", nowFile, now.line,
                "\(newest.name).\(now.modelName)'s link table would be \(LinkTable.name(owner: ownerTable(of: lineage), relationship: columnNaming.column(name))), an entity's table: it is \(LinkTable.name(owner: ownerTable(of: lineage), relationship: linkName)) (persisted_name \(linkName))"
            )
        }
        property.nullable = now.nullable
        var defaultValue = now.defaultValue
        let added = states.first!.version
        // A required property added to existing rows needs a value for them (not a to-many: a link table,
        // where existing rows start with no links, which SQL can say).
        let toMany = now.type.isToMany
        let move = moves[lineage.name]?[now.modelName].flatMap { $0.version == added ? $0 : nil }
        if let move, !now.nullable, defaultValue == nil, let zero = Self.zero(now.type) {
            defaultValue = zero
            noteOnce(
                "zero \(newest.name).\(now.modelName)", package.versions[added].model.file, states.first!.state.line,
                "\(newest.name).\(now.modelName) moves here from \(move.from) and is required without a default: the rows that were not \(move.from)'s get \(DescriptionWriter.json(zero))"
            )
        } else if added != firstVersion, !now.nullable, defaultValue == nil, let zero = Self.zero(now.type) {
            defaultValue = zero
            noteOnce(
                "zero \(newest.name).\(now.modelName)", package.versions[added].model.file, states.first!.state.line,
                "\(newest.name).\(now.modelName) is added as required without a default: existing rows get \(DescriptionWriter.json(zero)) (Core Data's lightweight migration would have refused a store with rows)"
            )
        }
        if added != firstVersion, !now.nullable, !toMany, defaultValue == nil, Self.zero(now.type) == nil {
            noteOnce(
                "stage \(newest.name).\(now.modelName)", package.versions[added].model.file, states.first!.state.line,
                "\(newest.name).\(now.modelName) is added as required without a default: SQL cannot give existing rows a value, so `generate` asks for a stage (your code) at \(versions[added].string)"
            )
        }
        property.defaultValue = defaultValue
        property.onDelete = now.onDelete
        if Set(states.map { $0.state.onDelete }).count > 1 {
            noteOnce(
                "ondelete \(newest.name).\(now.modelName)", nowFile, now.line,
                "\(newest.name).\(now.modelName): its deletion rule changed between versions; on_delete has no history, so every version gets \(now.onDelete?.descriptionName ?? "the default")"
            )
        }
        property.indexed = now.indexed
        if added != firstVersion { property.addedAtVersion = versions[added].string }
        property.movedFrom = move?.from
        let lastSeen = states.last!.version
        if let gone = present.first(where: { $0 > lastSeen }) { property.removedAtVersion = versions[gone].string }
        if let rename = renames[id] {
            property.previousName = descriptionName(ofProperty: rename.from, in: lineage.name)
            property.renamedAtVersion = versions[rename.version].string
        }
        // A gap (removed then added under the same name) is two properties to lucidgen.
        let versionsSeen = states.map(\.version)
        if let firstIndex = present.firstIndex(of: versionsSeen.first!),
            Array(present[firstIndex..<(firstIndex + versionsSeen.count)]) != versionsSeen
        {
            refuse(
                "\(nowFile):\(now.line)",
                "\(newest.name).\(now.modelName) is removed and later added again under the same name; rename one of them in the model (lucidgen keeps one lineage per name)"
            )
        }
        if let target = now.type.entityName {
            let first = states.first!
            if first.version != firstVersion {
                relationshipEvents.append(
                    (lineage.name, name, target, first.version, true, package.versions[first.version].model.file, first.state.line))
            }
            if let gone = present.first(where: { $0 > states.last!.version }) {
                relationshipEvents.append((lineage.name, name, target, gone, false, nowFile, now.line))
            }
        }
        for (earlier, later) in zip(states, states.dropFirst()) where earlier.state != later.state {
            var item = DescriptionDocument.TypeChange(untilVersion: versions[later.version].string)
            if earlier.state.type != later.state.type { item.propertyType = earlier.state.type }
            if earlier.state.nullable != later.state.nullable { item.nullable = earlier.state.nullable }
            if earlier.state.defaultValue != later.state.defaultValue { item.defaultValue = earlier.state.defaultValue ?? .null }
            property.typeHistory.append(item)
        }
        return property
    }

    /// The versions where the entity changes: its first, its renames, and each property's addition,
    /// removal, rename and change of type, nullability or default.
    private func changedVersions(of lineage: EntityLineage, tracked: TrackedProperties) -> Set<Int> {
        let present = lineage.states.map(\.version)
        var changes: Set<Int> = [lineage.states.first!.version]
        changes.formUnion(lineage.renames.map(\.version))
        for states in tracked.states {
            changes.insert(states.first!.version)
            if let gone = present.first(where: { $0 > states.last!.version }) { changes.insert(gone) }
            for (earlier, later) in zip(states, states.dropFirst()) where earlier.state != later.state { changes.insert(later.version) }
        }
        changes.formUnion(tracked.renames.values.map(\.version))
        return changes
    }

    /// The table that holds a lineage's rows at its newest version: its root entity's.
    private func ownerTable(of lineage: EntityLineage) -> String {
        let (version, entity) = lineage.states.last!
        let model = package.versions[version].model
        var root = entity
        var seen: Set<String> = [entity.name]
        while let parent = root.parentEntity, let next = model.entities.first(where: { $0.name == parent }), seen.insert(parent).inserted {
            root = next
        }
        guard root.name != entity.name, let rootLineage = entityNames[version][root.name] else { return lineage.tableName }
        return takenTables[rootLineage] ?? Naming.snakeCase(root.name)
    }

    /// The column name (`search_results_links`) that gives a to-many relationship's link table a name no
    /// entity's table has (WooCommerce's `Order.searchResults` beside its entity `OrderSearchResults`), or nil
    /// when its own name does.
    private func linkColumn(of property: String, in lineage: EntityLineage) -> String? {
        let owner = ownerTable(of: lineage)
        var column = columnNaming.column(property)
        guard allTables.contains(LinkTable.name(owner: owner, relationship: column)) else { return nil }
        while allTables.contains(LinkTable.name(owner: owner, relationship: column)) { column += "_links" }
        return column
    }

    /// The Swift type of an entity's records once a later entity took its name: `AlbumDeleteBefore261`.
    static func givenUpTypeName(of lineage: EntityLineage, removedAt: String) -> String {
        let own = swiftTypeName(lineage.states.last!.entity) ?? Naming.typeName(lineage.name)
        return own + "Before" + removedAt.replacingOccurrences(of: "_", with: "")
    }

    /// The properties of an entity whose name comes back: removed at one version and added again, under the
    /// same name and without a renaming identifier, at a later one. Core Data's migration from the version
    /// between finds no value to carry, so each is a property of its own: the later one is named after the
    /// version it comes back at (`is_private_from_9_0`, taking the column and Swift name: `takes_name_of`), so
    /// that the earlier one's name, and the released snapshots that hold it, stay when a later import brings
    /// the name back. Returns id → its name and the name of the one it takes it from.
    private mutating func namesThatComeBack(
        _ propertyStates: [[(version: Int, state: PropertyState)]], order: [Int], present: [Int], entity: String, lineage: String,
        versions: [SchemaVersion]
    ) -> [Int: (name: String, from: String)] {
        var byName: [String: [Int]] = [:]
        for id in order {
            byName[descriptionName(ofProperty: propertyStates[id].last!.state.modelName, in: lineage), default: []].append(id)
        }
        var takesNameOf: [Int: (name: String, from: String)] = [:]
        for (name, ids) in byName.sorted(by: { $0.key < $1.key }) where ids.count > 1 {
            let sorted = ids.sorted { propertyStates[$0].first!.version < propertyStates[$1].first!.version }
            // Lifetimes that overlap are two properties with one name at once: refused where they are described.
            guard zip(sorted, sorted.dropFirst()).allSatisfy({ propertyStates[$0].last!.version < propertyStates[$1].first!.version })
            else { continue }
            for (earlier, later) in zip(sorted, sorted.dropFirst()) {
                let removedAt = present.first { $0 > propertyStates[earlier].last!.version }!
                let back = propertyStates[later].first!
                let laterName = "\(name)_from_\(versions[back.version].string.replacingOccurrences(of: ".", with: "_"))"
                takesNameOf[later] = (laterName, takesNameOf[earlier]?.name ?? name)
                note(
                    package.versions[back.version].model.file, back.state.line,
                    "\(entity).\(back.state.modelName) comes back after \(package.versions[removedAt].model.name) removed it, without a renaming identifier: a new property, as Core Data's migration from \(package.versions[removedAt].model.name) on saw it: \(laterName), which takes the column and Swift name of the earlier one. A store that skipped the versions between keeps its values under Core Data (which migrates straight to the newest model); lucidgen migrates version by version, so write a stage at \(versions[back.version].string) if they must be kept"
                )
            }
        }
        return takesNameOf
    }

    /// A value for existing rows of a required property added later.
    static func zero(_ type: DescriptionDocument.PropertyType) -> DescriptionDocument.Value? {
        guard case .scalar(let name) = type else { return nil }
        switch name {
        case "int": return .number("0")
        case "double", "float": return .number("0.0")
        case "bool": return .bool(false)
        case "string": return .string("")
        case "decimal": return .string("0")
        default: return nil
        }
    }

    /// `WMF.ReadingList` → `ReadingList`; nil for `NSManagedObject` or none.
    static func swiftTypeName(_ entity: CoreDataModel.Entity) -> String? {
        guard var name = entity.representedClassName, !name.isEmpty else { return entity.name }
        if let dot = name.lastIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
        if name == "NSManagedObject" { return entity.name }
        return Naming.swiftNameProblem(name, type: true) == nil ? name : entity.name
    }

    private mutating func indexItems(_ lineage: EntityLineage, propertyStates: [[(version: Int, state: PropertyState)]], order: [Int]) -> (
        [DescriptionDocument.Index], Bool
    ) {
        func signature(_ entity: CoreDataModel.Entity) -> [String] {
            (entity.indexes.map { "i:" + $0.properties.joined(separator: ",") }
                + entity.uniquenessConstraints.map { "u:" + $0.properties.joined(separator: ",") }).sorted()
        }
        let differs = Set(lineage.states.map { signature($0.entity) }).count > 1
        let (versionIndex, entity) = lineage.states.last!
        let model = package.versions[versionIndex].model
        // Model property name → (description name, type) at the newest version.
        var described: [String: (String, DescriptionDocument.PropertyType)] = [:]
        for id in order {
            guard let last = propertyStates[id].last, last.version == versionIndex else { continue }
            described[last.state.modelName] = (descriptionName(ofProperty: last.state.modelName, in: lineage.name), last.state.type)
        }
        var collected: [(names: [String], unique: Bool)] = []
        var seen: Set<String> = []
        func add(_ properties: [String], unique: Bool, line: Int, what: String) {
            var names: [String] = []
            for property in properties {
                guard let (name, type) = described[property] else {
                    let isToMany = entity.relationships.contains { $0.name == property && $0.toMany }
                    noteOnce(
                        "index \(entity.name) \(what) \(property)", model.file, line,
                        "\(entity.name)'s \(what) uses \(property), \(isToMany ? "a to-many relationship, which has no column" : "which has no column here"): left out"
                    )
                    return
                }
                if type.isToMany {
                    noteOnce(
                        "index \(entity.name) \(what) \(property)", model.file, line,
                        "\(entity.name)'s \(what) uses \(property), a to-many relationship, which has no column: left out")
                    return
                }
                names.append(name)
            }
            // A to-one alone is indexed already (its foreign key's index).
            if names.count == 1, !unique, described.values.contains(where: { $0.0 == names[0] && $0.1.isToOne }) { return }
            let key = "\(unique)|" + names.joined(separator: ",")
            guard seen.insert(key).inserted else { return }
            collected.append((names, unique))
        }
        for index in entity.indexes {
            let what = index.name.map { "fetch index \($0)" } ?? "compound index"
            if let why = index.unsupported {
                noteOnce(
                    "index \(entity.name) \(what)", model.file, index.line,
                    "\(entity.name)'s \(what) is \(why), which lucidgen's indexes do not say: left out")
                continue
            }
            if index.descending {
                noteOnce(
                    "desc \(entity.name) \(what)", model.file, index.line,
                    "\(entity.name)'s \(what) sorts descending; lucidgen's index is ascending (SQLite reads it either way)")
            }
            add(index.properties, unique: false, line: index.line, what: what)
        }
        for constraint in entity.uniquenessConstraints {
            add(constraint.properties, unique: true, line: constraint.line, what: "uniqueness constraint")
        }
        // A uniqueness constraint an older version had and the newest has not: no version keeps it.
        let newestConstraints = Set(entity.uniquenessConstraints.map(\.properties))
        for (index, older) in lineage.states.dropLast() {
            for constraint in older.uniquenessConstraints where !newestConstraints.contains(constraint.properties) {
                noteOnce(
                    "lostunique \(lineage.name) \(constraint.properties)", package.versions[index].model.file, constraint.line,
                    "\(older.name)'s uniqueness constraint on \(constraint.properties.joined(separator: ", ")) is not in the newest model version: descriptions have no index history, so no version of the descriptions has it"
                )
            }
        }
        // A single-property unique index on a property that is `indexed` stays an item; plain indexes of
        // one property that the property's `indexed` says already are dropped.
        // A fetch index on the properties of a uniqueness constraint: the unique index serves it (SQLite
        // refuses neither, lucidgen refuses the duplicate).
        let items = collected.filter { item in item.unique || !seen.contains("true|" + item.names.joined(separator: ",")) }
            .map { DescriptionDocument.Index(properties: $0.names, unique: $0.unique) }
        return (items, differs)
    }

    // MARK: The origin

    /// Each model version as Core Data stored it, mapped onto lucidgen's tables and columns: what
    /// `CoreDataOrigin` (LucidRuntime) reads to recognise and convert a user's store. Written as
    /// `<input_path>/.coredata/origin.json`; the same package gives the same bytes.
    private func origin() -> CoreDataOriginDocument {
        var versionItems: [CoreDataOriginDocument.Version] = []
        for (index, (model, version)) in package.versions.enumerated() {
            var entities: [CoreDataOriginDocument.Entity] = []
            for entity in model.entities {
                // lucidgen's names as they are at this version: a renamed entity's table and a renamed
                // property's column have their earlier names before the rename.
                // A hierarchy's rows are in its root's table; each row's kind is its entity's name then.
                var root = entity
                var seen: Set<String> = [entity.name]
                while let parent = root.parentEntity, let next = model.entities.first(where: { $0.name == parent }),
                    seen.insert(parent).inserted
                { root = next }
                let inHierarchy = entity.parentEntity != nil || model.entities.contains { $0.parentEntity == entity.name }
                let table = entityNames[index][entity.name] != nil ? Naming.snakeCase(root.name) : nil
                let properties = described[index]?[entity.name] ?? [:]
                var item = CoreDataOriginDocument.Entity(
                    name: entity.name, parent: entity.parentEntity, abstract: entity.isAbstract ? true : nil, table: table)
                for attribute in entity.attributes {
                    let column = properties[attribute.name].map(columnNaming.column)
                    var described = CoreDataOriginDocument.Attribute(
                        name: attribute.name, type: attribute.type ?? "", column: column, transient: attribute.transient ? true : nil,
                        externalStorage: attribute.externalStorage ? true : nil)
                    if let composite = attribute.composite {
                        let columns = column.map { leafColumns(of: composite, prefix: $0) }
                        described.elements = composite.leaves.enumerated().map { index, leaf in
                            CoreDataOriginDocument.Element(path: leaf.path, type: leaf.type, column: columns?[index])
                        }
                    }
                    item.attributes.append(described)
                }
                for relationship in entity.relationships {
                    var described = CoreDataOriginDocument.Relationship(
                        name: relationship.name, toMany: relationship.toMany, ordered: relationship.ordered ? true : nil,
                        destination: relationship.destination,
                        inverse: relationship.inverseName, transient: relationship.transient ? true : nil)
                    if let name = properties[relationship.name], let table {
                        let column = entityNames[index][entity.name].flatMap { linkColumns[$0]?[name] } ?? columnNaming.column(name)
                        if relationship.toMany {
                            described.linkTable = LinkTable.name(owner: table, relationship: column)
                        } else {
                            described.column = column
                        }
                    }
                    item.relationships.append(described)
                }
                // A row's kind is its entity's description name: a subentity that took a name that came
                // back (`draft_from_3_0`) has its own, which its records read.
                if inHierarchy {
                    item.kind =
                        entityNames[index][entity.name].flatMap { takenTables[$0] != nil ? $0 : nil } ?? Naming.snakeCase(entity.name)
                }
                entities.append(item)
            }
            let hashes = versionHashes[model.name].flatMap { $0.isEmpty ? nil : $0.mapValues { $0.base64EncodedString() } }
            versionItems.append(
                CoreDataOriginDocument.Version(version: version.string, model: model.name, entities: entities, hashes: hashes))
        }
        return CoreDataOriginDocument(versions: versionItems)
    }
}
