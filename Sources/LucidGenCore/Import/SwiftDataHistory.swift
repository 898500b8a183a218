import Foundation
import LucidSchema

/// `lucidgen import swiftdata`'s middle stage: the ``SwiftDataSources`` a syntax walk found, resolved into the
/// model history SwiftData builds from them, as the Core Data model package it is underneath (SwiftData's
/// store is a Core Data store: an entity per `@Model` class, named after it, with attributes and
/// relationships). ``CoreDataImporter`` then makes the descriptions and the origin file, so that a SwiftData
/// user's store converts like a Core Data one.
///
/// The stages: choose the migration plan (its `schemas` order is the history; without a plan, the schemas by
/// their `versionIdentifier`), resolve each schema's `models` to `@Model` classes (the schema's own
/// declarations and extensions first, then typealiases, then the top level, as Swift resolves them), map each
/// stored property to a Core Data attribute or relationship, and the plan's `.custom` stages to declared
/// stages. Every guess is a note and every refusal an error at the `File.swift:line` that led to it.
package struct SwiftDataHistory {
    package struct Output: Sendable {
        package var package: CoreDataModelPackage
        /// The plan's `.custom` stages, as config stages (their notes name `willMigrate`/`didMigrate`'s code).
        package var stages: [CoreDataMappingStages.Stage]
        /// What resolving the sources guessed or left out (the importer's notes come on top).
        package var notes: [CoreDataImporter.Note]
        /// The plan read (nil when the sources have none).
        package var plan: String?
        /// Each model version's virtual file (the importer's location) → the places its lines index.
        fileprivate var places: [String: [SwiftDataSources.Place]]
        fileprivate var files: [String]

        /// An importer location (`swiftdata-2:14`) as the source's `File.swift:line`; others as they are.
        package func sourceLocation(_ location: String) -> String {
            let parts = location.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, let places = places[parts[0]], let line = Int(parts[1]), places.indices.contains(line) else {
                return location
            }
            let place = places[line]
            return "\(place.file < files.count ? files[place.file] : "?"):\(place.line)"
        }

        /// ``CoreDataImporter`` run on ``package``: the descriptions and origin, with every note (this
        /// resolution's, then the importer's) and every refusal at the source's `File.swift:line`.
        package func imported() throws(CoreDataImportRefusals) -> CoreDataImporter.Output {
            func located(_ note: CoreDataImporter.Note) -> CoreDataImporter.Note {
                .init(location: sourceLocation(note.location), message: note.message)
            }
            func located(_ error: CoreDataImportError) -> CoreDataImportError {
                .init(location: sourceLocation(error.location), message: error.message)
            }
            do {
                var output = try CoreDataImporter.run(package)
                output.notes = notes + output.notes.map(located)
                return output
            } catch let refusals as CoreDataImportRefusals {
                throw CoreDataImportRefusals(errors: refusals.errors.map(located), notes: notes + refusals.notes.map(located))
            } catch let error as CoreDataImportError {
                throw CoreDataImportRefusals(errors: [located(error)], notes: notes)
            } catch {
                throw CoreDataImportRefusals(errors: [.init(location: files.first ?? ".", message: "\(error)")], notes: notes)
            }
        }
    }

    private let sources: SwiftDataSources
    private var notes: [CoreDataImporter.Note] = []
    /// By place, so that they print in the sources' order.
    private var errors: [(place: SwiftDataSources.Place, error: CoreDataImportError)] = []
    private var noted: Set<String> = []
    /// Composite attributes, noted once the whole history is read (``settleComposites(_:)``): the property's
    /// key (`Model.property`), where it is, and the note it gets when its struct stays one.
    private var pendingComposites: [(key: String, place: SwiftDataSources.Place, message: String)] = []

    private init(_ sources: SwiftDataSources) { self.sources = sources }

    /// Resolves `sources` with the plan named `plan` (needed only when they have several). Throws
    /// ``CoreDataImportRefusals`` with every error at once.
    package static func resolve(_ sources: SwiftDataSources, plan: String? = nil) throws(CoreDataImportRefusals) -> Output {
        var history = SwiftDataHistory(sources)
        return try history.run(plan: plan)
    }

    private func at(_ place: SwiftDataSources.Place) -> String { sources.location(place) }

    private mutating func note(_ place: SwiftDataSources.Place, _ message: String, key: String? = nil) {
        guard noted.insert(key ?? "\(place.file):\(place.line):\(message)").inserted else { return }
        notes.append(.init(location: at(place), message: message))
    }

    private mutating func error(_ place: SwiftDataSources.Place, _ message: String) {
        errors.append((place, .init(location: at(place), message: message)))
    }

    // MARK: Names

    private enum Found {
        case model(Int), value(Int), schema(Int)
    }

    /// `name` as Swift resolves it where `scope` is: the innermost enclosing type first, then outwards; a
    /// typealias on the way is followed (from its own scope).
    private func find(_ name: String, in scope: [String], depth: Int = 0) -> Found? {
        guard depth < 32 else { return nil }
        let name = name.hasPrefix("Self.") ? String(name.dropFirst(5)) : name
        for length in stride(from: scope.count, through: 0, by: -1) {
            let qualified = (scope.prefix(length) + [name]).joined(separator: ".")
            if let index = sources.models.firstIndex(where: { $0.qualifiedName == qualified }) { return .model(index) }
            if let index = sources.schemas.firstIndex(where: { $0.qualifiedName == qualified }) { return .schema(index) }
            if let index = sources.valueTypes.firstIndex(where: { ($0.scope + [$0.name]).joined(separator: ".") == qualified }) {
                return .value(index)
            }
            if let alias = sources.typealiases.first(where: { ($0.scope + [$0.name]).joined(separator: ".") == qualified }) {
                return find(alias.target, in: alias.scope, depth: depth + 1)
            }
        }
        // `ActiveSchemaVersion.HabitModel`, where `ActiveSchemaVersion` is a typealias of a schema.
        if let dot = name.firstIndex(of: ".") {
            let head = String(name[..<dot]), rest = String(name[name.index(after: dot)...])
            for length in stride(from: scope.count, through: 0, by: -1) {
                let qualified = (scope.prefix(length) + [head]).joined(separator: ".")
                if let alias = sources.typealiases.first(where: { ($0.scope + [$0.name]).joined(separator: ".") == qualified }) {
                    return find(alias.target + "." + rest, in: alias.scope, depth: depth + 1)
                }
            }
        }
        return nil
    }

    // MARK: The history

    private mutating func run(plan wanted: String?) throws(CoreDataImportRefusals) -> Output {
        for problem in sources.problems { error(problem.place, problem.message) }
        var chosen: SwiftDataSources.Plan?
        if let wanted {
            chosen = sources.plans.first { $0.name == wanted || ($0.scope + [$0.name]).joined(separator: ".") == wanted }
            if chosen == nil {
                throw CoreDataImportRefusals(
                    errors: [
                        .init(
                            location: sources.files.first ?? ".",
                            message:
                                "no SchemaMigrationPlan named \(wanted) in these sources (they have \(sources.plans.isEmpty ? "none" : sources.plans.map(\.name).joined(separator: ", ")))"
                        )
                    ], notes: [])
            }
        } else if sources.plans.count > 1 {
            throw CoreDataImportRefusals(
                errors: sources.plans.map {
                    .init(
                        location: at($0.place),
                        message: "one of \(sources.plans.count) SchemaMigrationPlans: choose the app's with --plan \($0.name)")
                }, notes: [])
        } else {
            chosen = sources.plans.first
        }
        // The history: the plan's schemas in its order, else every schema by its version.
        var schemaIndices: [Int] = []
        if let chosen {
            for reference in chosen.schemas {
                guard case .schema(let index) = find(reference.name, in: reference.scope) else {
                    error(
                        reference.place, "\(chosen.name).schemas names \(reference.name), which is not a VersionedSchema of these sources")
                    continue
                }
                schemaIndices.append(index)
            }
            // Another plan's schemas are another store's history: one note per plan.
            var others: [String: [Int]] = [:]
            for plan in sources.plans where plan.name != chosen.name {
                for reference in plan.schemas {
                    if case .schema(let index) = find(reference.name, in: reference.scope), !schemaIndices.contains(index) {
                        others[plan.name, default: []].append(index)
                    }
                }
            }
            for plan in sources.plans where others[plan.name] != nil {
                let names = others[plan.name]!.map { sources.schemas[$0].name }
                note(
                    plan.place,
                    "\(plan.name)'s \(names.count) schema\(names.count == 1 ? "" : "s") (\(names.joined(separator: ", "))) \(names.count == 1 ? "is" : "are") another store's history: left out; import \(names.count == 1 ? "it" : "them") with --plan \(plan.name) into a folder of \(names.count == 1 ? "its" : "their") own"
                )
            }
            let elsewhere = Set(others.values.joined())
            for (index, schema) in sources.schemas.enumerated() where !schemaIndices.contains(index) && !elsewhere.contains(index) {
                note(
                    schema.place,
                    "the VersionedSchema \(schema.qualifiedName) is not in \(chosen.name).schemas: left out (SwiftData does not open stores at it through this plan)"
                )
            }
        } else {
            schemaIndices = sources.schemas.indices.sorted {
                (sources.schemas[$0].version ?? []).lexicographicallyPrecedes(sources.schemas[$1].version ?? [])
            }
            if let first = sources.schemas.first, sources.schemas.count > 1 {
                note(
                    first.place,
                    "no SchemaMigrationPlan in these sources: the history is every VersionedSchema in the order of its versionIdentifier")
            }
        }
        guard !schemaIndices.isEmpty || !errors.isEmpty else {
            throw CoreDataImportRefusals(
                errors: [
                    .init(
                        location: sources.files.first ?? ".",
                        message:
                            "no VersionedSchema in these sources (\(sources.files.count) Swift files read): SwiftData's history is its VersionedSchemas; an app with one unversioned schema has no history to import yet"
                    )
                ],
                notes: notes)
        }
        var versions: [(model: CoreDataModel, version: SchemaVersion)] = []
        var places: [String: [SwiftDataSources.Place]] = [:]
        var previous: (version: [Int], name: String, models: [Int])?
        for (position, index) in schemaIndices.enumerated() {
            let schema = sources.schemas[index]
            guard let numbers = schema.version else { continue } // the reader's problem says why
            let version = try! SchemaVersion(parsing: numbers.map(String.init).joined(separator: "."))
            if let previous, !numbers.lexicographicallyPrecedes(previous.version) && numbers != previous.version {
                // increasing: fine
            } else if let previous {
                error(
                    schema.versionPlace ?? schema.place,
                    "\(schema.name)'s versionIdentifier \(version) does not come after \(previous.name)'s \(previous.version.map(String.init).joined(separator: ".")), which is before it in the history: SwiftData refuses equal versions too; give each schema its own, increasing"
                )
            }
            let file = "swiftdata-\(position)"
            var table: [SwiftDataSources.Place] = [schema.place, schema.place]
            let (model, modelIndices) = coreDataModel(of: schema, file: file, places: &table)
            if let previous, previous.models == modelIndices {
                note(
                    schema.place,
                    "\(schema.name) lists the same model classes as \(previous.name) (\(modelIndices.map { sources.models[$0].qualifiedName }.joined(separator: ", "))): SwiftData computes the same hashes for both versions and cannot tell their stores apart; declare the changed models in \(schema.name) itself"
                )
            }
            places[file] = table
            if let last = versions.last { noteRenamedClasses(from: last.model, to: model, at: version, places: table) }
            versions.append((model, version))
            previous = (numbers, schema.name, modelIndices)
        }
        settleComposites(&versions)
        var stages: [CoreDataMappingStages.Stage] = []
        if let chosen { stages = self.stages(of: chosen, schemaIndices: schemaIndices, versions: versions.map(\.version)) }
        if !errors.isEmpty {
            throw CoreDataImportRefusals(
                errors: errors.enumerated().sorted { ($0.element.place, $0.offset) < ($1.element.place, $1.offset) }.map(\.element.error),
                notes: notes)
        }
        let orderBasis = chosen.map { "\($0.name).schemas, \(at($0.place))" } ?? "the schemas' versionIdentifiers"
        return Output(
            package: CoreDataModelPackage(path: sources.files.first ?? ".", versions: versions, orderBasis: orderBasis, skipped: []),
            stages: stages, notes: notes, plan: chosen?.name, places: places, files: sources.files)
    }

    /// A class that goes where one with mostly the same stored properties comes (`EventV1` then `Event`,
    /// `CustomFont` then `CustomFontV1`): SwiftData names an entity by its class, so it sees another entity,
    /// whose rows a lightweight migration does not carry; so does this import. Said, never guessed.
    private mutating func noteRenamedClasses(
        from old: CoreDataModel, to new: CoreDataModel, at version: SchemaVersion, places: [SwiftDataSources.Place]
    ) {
        func stored(_ entity: CoreDataModel.Entity) -> Set<String> {
            Set(entity.attributes.filter { !$0.transient }.map(\.name) + entity.relationships.filter { !$0.transient }.map(\.name))
        }
        let oldNames = Set(old.entities.map(\.name)), newNames = Set(new.entities.map(\.name))
        let gone = old.entities.filter { !newNames.contains($0.name) }
        for added in new.entities where !oldNames.contains(added.name) {
            let properties = stored(added)
            guard
                let match = gone.max(by: { stored($0).intersection(properties).count < stored($1).intersection(properties).count }),
                case let shared = stored(match).intersection(properties), !shared.isEmpty,
                shared.count * 2 >= min(properties.count, stored(match).count)
            else { continue }
            note(
                places[added.line],
                "\(added.name) comes at \(version) where \(match.name) goes, with \(shared.count) of the same properties (\(shared.sorted().prefix(5).joined(separator: ", "))\(shared.count > 5 ? ", …" : "")): SwiftData names an entity by its class, so it sees a new entity and does not carry \(match.name)'s rows, and neither does this import; if the class was renamed, write a stage at \(version) that copies them"
            )
        }
    }

    private mutating func stages(of plan: SwiftDataSources.Plan, schemaIndices: [Int], versions: [SchemaVersion]) -> [CoreDataMappingStages
        .Stage]
    {
        var stages: [CoreDataMappingStages.Stage] = []
        for stage in plan.stages {
            guard let from = stage.from, let to = stage.to else { continue }
            guard case .schema(let fromIndex) = find(from.name, in: from.scope), case .schema(let toIndex) = find(to.name, in: to.scope),
                let fromPosition = schemaIndices.firstIndex(of: fromIndex), let toPosition = schemaIndices.firstIndex(of: toIndex),
                fromPosition < versions.count, toPosition < versions.count
            else {
                error(
                    stage.place,
                    "the stage \(stage.name.map { $0 + " " } ?? "")from \(from.name) to \(to.name) names a schema that is not in \(plan.name).schemas"
                )
                continue
            }
            if toPosition <= fromPosition {
                error(
                    stage.place,
                    "the stage \(stage.name.map { $0 + " " } ?? "")goes from \(from.name) to \(to.name), which is not later in \(plan.name).schemas"
                )
                continue
            }
            if toPosition != fromPosition + 1 {
                note(
                    stage.place,
                    "the stage \(stage.name.map { $0 + " " } ?? "")skips versions (\(from.name) to \(to.name)): lucidgen runs it at \(versions[toPosition]) after the steps in between"
                )
            }
            guard stage.kind == .custom else { continue }
            var notes = ["SwiftData's MigrationStage.custom at \(at(stage.place)) (\(plan.name))"]
            if let will = stage.willMigrate {
                notes.append("willMigrate (before the schema changes, on \(from.name)'s models): \(at(will.place)), \(will.summary)")
            }
            if let did = stage.didMigrate {
                notes.append("didMigrate (after the schema changes, on \(to.name)'s models): \(at(did.place)), \(did.summary)")
            }
            if stage.willMigrate == nil && stage.didMigrate == nil {
                notes.append("both willMigrate and didMigrate are nil: the stage changes no data")
            }
            var name = stage.name ?? "migrate\(from.name.split(separator: ".").last!)To\(to.name.split(separator: ".").last!)"
            if stages.contains(where: { $0.name == name }) { name += "\(stages.count + 1)" }
            stages.append(.init(name: name, from: versions[fromPosition], to: versions[toPosition], notes: notes))
        }
        return stages
    }

    // MARK: One version

    /// The Core Data model SwiftData builds from `schema`, with `file` as its location and each element's line
    /// an index into `places` (the importer reports `file:line`; ``Output/sourceLocation(_:)`` maps it back).
    private mutating func coreDataModel(
        of schema: SwiftDataSources.VersionedSchema, file: String, places: inout [SwiftDataSources.Place]
    ) -> (CoreDataModel, [Int]) {
        func line(_ place: SwiftDataSources.Place) -> Int {
            places.append(place)
            return places.count - 1
        }
        var modelIndices: [Int] = []
        for reference in schema.models {
            switch find(reference.name, in: reference.scope) {
            case .model(let index):
                if modelIndices.contains(index) {
                    note(reference.place, "\(schema.name).models lists \(reference.name) twice")
                } else {
                    modelIndices.append(index)
                }
            case .value, .schema:
                error(reference.place, "\(schema.name).models names \(reference.name), which is not a @Model class")
            case nil:
                error(
                    reference.place,
                    "\(schema.name).models names \(reference.name), which is not a @Model class of these sources (read the folder that declares it too)"
                )
            }
        }
        // An entity's name is its class's name; two classes of one name in one version are one entity to SwiftData.
        var byName: [String: Int] = [:]
        for index in modelIndices {
            let model = sources.models[index]
            if let other = byName[model.name] {
                error(
                    model.place,
                    "\(schema.name) has two @Model classes named \(model.name) (\(sources.models[other].qualifiedName) and \(model.qualifiedName)): SwiftData names an entity by its class's name alone"
                )
            }
            byName[model.name] = index
        }
        var entities: [CoreDataModel.Entity] = []
        for index in modelIndices {
            let model = sources.models[index]
            var entity = CoreDataModel.Entity(
                name: model.name, line: line(model.place), representedClassName: model.name, parentEntity: nil, isAbstract: false,
                elementID: nil)
            for inherited in model.inherits {
                if case .model(let parent) = find(inherited, in: model.scope) {
                    if modelIndices.contains(parent) {
                        entity.parentEntity = sources.models[parent].name
                    } else {
                        error(model.place, "\(model.name) inherits from \(inherited), which \(schema.name).models does not list")
                    }
                }
            }
            for property in model.properties {
                self.property(property, of: model, in: schema, modelIndices: modelIndices, line: line, into: &entity)
            }
            for unique in model.uniques { entity.uniquenessConstraints.append((unique.properties, line(unique.place))) }
            for index in model.indexes {
                entity.indexes.append(.init(name: nil, properties: index.properties, descending: false, line: line(index.place)))
            }
            entities.append(entity)
        }
        pairInverses(&entities, places: places)
        return (CoreDataModel(name: schema.name, file: file, entities: entities, unstored: []), modelIndices)
    }

    /// A property's type as written, without its optionality: (`Video`, optional) from `Video?`.
    static func unwrapped(_ type: String) -> (type: String, optional: Bool) {
        let type = type.trimmingCharacters(in: .whitespaces)
        if type.hasSuffix("?") || type.hasSuffix("!") { return (String(type.dropLast()).trimmingCharacters(in: .whitespaces), true) }
        if type.hasPrefix("Optional<"), type.hasSuffix(">") { return (String(type.dropFirst(9).dropLast()), true) }
        return (type, false)
    }

    /// `[T]`, `Array<T>`, `Set<T>`: the element type (nil for a dictionary or a scalar).
    static func element(of type: String) -> String? {
        if type.hasPrefix("["), type.hasSuffix("]") {
            let inner = String(type.dropFirst().dropLast())
            var depth = 0
            for character in inner {
                if "[<(".contains(character) { depth += 1 }
                if "]>)".contains(character) { depth -= 1 }
                if character == ":" && depth == 0 { return nil } // a dictionary
            }
            return inner.trimmingCharacters(in: .whitespaces)
        }
        for prefix in ["Array<", "Set<"] where type.hasPrefix(prefix) && type.hasSuffix(">") {
            return String(type.dropFirst(prefix.count).dropLast())
        }
        return nil
    }

    /// Swift's value types as SwiftData stores them (Core Data's attribute types).
    static let scalarTypes: [String: String] = [
        "Int": "Integer 64", "Int64": "Integer 64", "UInt": "Integer 64", "UInt64": "Integer 64", "Int32": "Integer 32",
        "UInt32": "Integer 64",
        "Int16": "Integer 16", "UInt16": "Integer 32", "Int8": "Integer 16", "UInt8": "Integer 16", "Double": "Double", "CGFloat": "Double",
        "TimeInterval": "Double", "Float": "Float", "Bool": "Boolean", "String": "String", "Date": "Date", "Data": "Binary", "UUID": "UUID",
        "URL": "URI", "Decimal": "Decimal",
    ].merging(
        [
            "Swift.Int": "Integer 64", "Swift.String": "String", "Swift.Bool": "Boolean", "Swift.Double": "Double",
            "Foundation.Date": "Date",
        ],
        uniquingKeysWith: { a, _ in a })

    private mutating func property(
        _ property: SwiftDataSources.Property, of model: SwiftDataSources.Model, in schema: SwiftDataSources.VersionedSchema,
        modelIndices: [Int], line: (SwiftDataSources.Place) -> Int, into entity: inout CoreDataModel.Entity
    ) {
        let label = "\(model.name).\(property.name)"
        let key = "\(model.name).\(property.name)" // once for every version where it recurs
        guard var written = property.type ?? Self.literalType(property.initializer) ?? caseType(of: property.initializer, in: model.scope)
        else {
            let initializer = property.initializer ?? ""
            let named = initializer.split(separator: ".").first.map(String.init) ?? ""
            // `VideoPlacement.defaultPlacement` whose enum is in a folder not read: say which.
            let hint =
                initializer.contains(".") && named.first?.isUppercase == true && find(named, in: model.scope) == nil
                ? "; \(named) is not declared in these sources: pass the folder that declares it too, or write the type"
                : ": write its type"
            error(property.place, "\(label) has no type written and its initial value \(initializer) is not a literal\(hint)")
            return
        }
        written = written.replacingOccurrences(of: " ", with: "")
        let (type, optional) = Self.unwrapped(written)
        let elementType = Self.element(of: type)
        // A relationship: its type (or its collection's element) is a model.
        let target = elementType.map { Self.unwrapped($0).type } ?? type
        if case .model(let found) = find(target, in: model.scope) {
            // SwiftData finds a relationship's destination by its entity name: a model shared with an older
            // version (a typealias) that names that version's class relates to this version's class of that name.
            let destination =
                modelIndices.contains(found) ? found : modelIndices.first { sources.models[$0].name == sources.models[found].name } ?? found
            let destinationModel = sources.models[destination]
            if !modelIndices.contains(destination) {
                error(
                    property.place,
                    "\(label) relates to \(target) (\(destinationModel.qualifiedName)), which \(schema.name).models does not list")
                return
            }
            let macro = property.relationship ?? .init()
            let rule: String
            switch macro.deleteRule ?? "nullify" {
            case "nullify": rule = "Nullify"
            case "cascade": rule = "Cascade"
            case "deny": rule = "Deny"
            case "noAction": rule = "No Action"
            case let other:
                error(property.place, "\(label): @Relationship's deleteRule .\(other) is not one SwiftData has")
                return
            }
            var relationship = CoreDataModel.Relationship(
                name: property.name, line: line(property.place), optional: optional || elementType != nil, toMany: elementType != nil,
                ordered: false, deletionRule: rule, destination: destinationModel.name, inverseName: nil, inverseEntity: nil,
                elementID: macro.originalName ?? property.originalName, transient: property.transient)
            if let inverse = macro.inverse {
                let parts = inverse.split(separator: ".").map(String.init)
                if case .model(let owner) = find(parts.dropLast().joined(separator: "."), in: model.scope),
                    sources.models[owner].name == destinationModel.name
                {
                    relationship.inverseName = parts.last
                    relationship.inverseEntity = destinationModel.name
                } else {
                    error(
                        property.place,
                        "\(label)'s inverse \\\(inverse) is not a property of \(destinationModel.name), the model it relates to")
                }
            }
            if macro.minimumModelCount != nil || macro.maximumModelCount != nil {
                note(
                    property.place,
                    "\(label) limits its count (minimumModelCount/maximumModelCount): SwiftData checks it when saving; the SQLite schema does not",
                    key: "count " + key)
            }
            for option in macro.options {
                note(property.place, "\(label): @Relationship's option .\(option) is left out", key: "ropt \(option) " + key)
            }
            entity.relationships.append(relationship)
            return
        }
        var attribute = CoreDataModel.Attribute(
            name: property.name, line: line(property.place), type: nil, optional: optional, transient: property.transient, indexed: false,
            defaultValueString: nil, defaultDateTimeInterval: nil, valueTransformerName: nil, customClassName: nil, externalStorage: false,
            elementID: property.originalName, derivation: nil)
        if property.relationship != nil {
            note(
                property.place, "\(label) has @Relationship but its type \(written) is not a model of \(schema.name): read as an attribute",
                key: "notrel " + key)
        }
        for option in property.attributeOptions {
            switch option {
            case "unique": entity.uniquenessConstraints.append(([property.name], attribute.line))
            case "externalStorage": attribute.externalStorage = true
            case "ephemeral": attribute.transient = true
            case "preserveValueOnDeletion":
                note(
                    property.place,
                    "\(label) is .preserveValueOnDeletion (kept in SwiftData's history tombstones): lucidgen has no history; the column is as any other",
                    key: "preserve " + key)
            case "spotlight", "allowsCloudEncryption", "hashModifier", "encrypt":
                note(property.place, "\(label): @Attribute's .\(option) has no place in SQLite: left out", key: "opt \(option) " + key)
            case let transformable where transformable.hasPrefix("transformable("):
                attribute.type = "Transformable"
                let inside = transformable.dropFirst("transformable(".count).dropLast()
                let transformer = inside.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                attribute.valueTransformerName = transformer.hasSuffix(".self") ? String(transformer.dropLast(5)) : transformer
                attribute.customClassName = type
            default:
                note(
                    property.place, "\(label): @Attribute's option .\(option) is not one lucidgen knows: left out",
                    key: "opt \(option) " + key)
            }
        }
        if attribute.type == nil {
            attribute.type = storedType(
                type, optional: optional, elementType: elementType, label: label, property: property, model: model,
                composite: &attribute.composite)
        }
        if let initializer = property.initializer, !attribute.transient {
            attribute.defaultValueString =
                rawValue(of: initializer, type: type, in: model.scope)
                ?? defaultValue(initializer, type: attribute.type ?? "", label: label, property: property)
        }
        entity.attributes.append(attribute)
    }

    /// The Core Data attribute type SwiftData stores a property of this Swift type as.
    private mutating func storedType(
        _ type: String, optional: Bool, elementType: String?, label: String, property: SwiftDataSources.Property,
        model: SwiftDataSources.Model, composite: inout CoreDataModel.Composite?
    ) -> String {
        let key = "\(model.name).\(property.name)" // once for every version where it recurs
        if let scalar = Self.scalarTypes[type] { return scalar }
        if elementType != nil {
            note(
                property.place,
                "\(label) is a collection of values (\(type)): SwiftData stores it in one column as a binary property list (inferred, not confirmed on a store); imported as data, decode it in the app",
                key: "array " + key)
            return "Binary"
        }
        if case .value(let index) = find(type, in: model.scope) {
            let value = sources.valueTypes[index]
            if value.kind == .enum, !value.hasAssociatedValues, let raw = value.inherits.first, let scalar = Self.scalarTypes[raw] {
                note(
                    property.place,
                    "\(label) is the enum \(value.name) with \(raw) raw values: imported as its raw value (\(raw)), as SwiftData encodes a Codable RawRepresentable (inferred); the app maps it back with \(value.name)(rawValue:)",
                    key: "enum " + key)
                return scalar
            }
            if value.kind == .struct {
                switch compositeStructure(index, stack: []) {
                case .success(let structure):
                    if optional, !structure.hasRequiredLeaf {
                        note(
                            property.place,
                            "\(label) is the optional struct \(value.name), whose members are all optional: nil and a \(value.name) of nils would be the same NULL columns, which lucidgen refuses for a composite: imported as data, so a store that has it is refused when it converts, never converted with a loss (make one member required to import it as a composite)",
                            key: "struct " + key)
                        return "Binary"
                    }
                    composite = structure
                    if !pendingComposites.contains(where: { $0.key == key }) {
                        pendingComposites.append(
                            (
                                key, property.place,
                                "\(label) is the struct \(value.name) (\(structure.leaves.map { $0.path.joined(separator: ".") }.joined(separator: ", "))): imported as a composite, one column per member, as SwiftData stores a Codable struct on the entity's table (published); the store's column of each member is found by its name when a store converts (inferred, see the SwiftData guide)"
                            ))
                    }
                    return "Composite"
                case .failure(let reason):
                    note(
                        property.place,
                        "\(label) is the struct \(value.name), which SwiftData stores as a composite attribute, one column per member, but \(reason.text), which a composite element cannot be: imported as data, so a store that has it is refused when it converts, never converted with a loss (partial)",
                        key: "struct " + key)
                }
            } else {
                note(
                    property.place,
                    "\(label) is the enum \(value.name)\(value.hasAssociatedValues ? " with associated values" : " without raw values"): SwiftData stores its Codable encoding: imported as data",
                    key: "enumdata " + key)
            }
            return "Binary"
        }
        note(
            property.place,
            "\(label) has the type \(type), which these sources do not declare: imported as data, the bytes SwiftData's Codable encoding wrote (guessed; pass the folder that declares it, so that an enum is stored by its raw value and a struct known)",
            key: "unknown " + key)
        return "Binary"
    }

    /// Composites whose struct is not one thing: two structs of one name that differ (one declared inside
    /// each schema version, changed), or a struct named like a model. One subtype file cannot say both, and
    /// struct members have no history here, so such a property is imported as data, noted; the others get
    /// their composite note.
    private mutating func settleComposites(_ versions: inout [(model: CoreDataModel, version: SchemaVersion)]) {
        var seen: [String: CoreDataModel.Composite] = [:]
        var conflicting = Set(versions.flatMap { $0.model.entities.map { Naming.snakeCase($0.name) } })
        let models = conflicting
        var differing: Set<String> = []
        func visit(_ composite: CoreDataModel.Composite) {
            let name = CoreDataImporter.subtypeName(of: composite)
            if let earlier = seen[name], earlier != composite { differing.insert(name) }
            seen[name] = seen[name] ?? composite
            for member in composite.members { if case .nested(let inner) = member.kind { visit(inner) } }
        }
        for (model, _) in versions {
            for entity in model.entities { for attribute in entity.attributes { attribute.composite.map(visit) } }
        }
        conflicting = differing.union(models.intersection(seen.keys))
        func involved(_ composite: CoreDataModel.Composite) -> Bool {
            conflicting.contains(CoreDataImporter.subtypeName(of: composite))
                || composite.members.contains { if case .nested(let inner) = $0.kind { involved(inner) } else { false } }
        }
        var given: [String: String] = [:] // property key → its struct
        for v in versions.indices {
            for e in versions[v].model.entities.indices {
                for a in versions[v].model.entities[e].attributes.indices {
                    guard let composite = versions[v].model.entities[e].attributes[a].composite, involved(composite) else { continue }
                    given["\(versions[v].model.entities[e].name).\(versions[v].model.entities[e].attributes[a].name)"] = composite.name
                    versions[v].model.entities[e].attributes[a].type = "Binary"
                    versions[v].model.entities[e].attributes[a].composite = nil
                }
            }
        }
        for (key, place, message) in pendingComposites {
            if let name = given[key] {
                note(
                    place,
                    "\(key) is the struct \(name), but a struct of that name is not the same in every version, or a model has its name: one subtype cannot say both, so it is imported as data, and a store that has it is refused when it converts, never converted with a loss (partial)",
                    key: "struct " + key)
            } else {
                note(place, message, key: "struct " + key)
            }
        }
    }

    /// Why a struct is no composite: the member path and what it is.
    struct NotComposite: Error {
        var text: String
    }

    /// A Codable struct as SwiftData's composite attribute: each stored property a value (a scalar, or an
    /// enum's raw value) or a nested struct; anything else (a collection, a model, an enum without raw
    /// values, a type these sources do not declare, a struct that contains itself) is no element.
    private func compositeStructure(_ index: Int, stack: [Int]) -> Result<CoreDataModel.Composite, NotComposite> {
        let value = sources.valueTypes[index]
        guard !stack.contains(index) else { return .failure(NotComposite(text: "it contains itself")) }
        guard !value.fields.isEmpty else { return .failure(NotComposite(text: "it has no stored property")) }
        var members: [CoreDataModel.Composite.Member] = []
        for field in value.fields {
            guard let written = field.type?.replacingOccurrences(of: " ", with: "") else {
                return .failure(NotComposite(text: "its member \(field.name) has no type written"))
            }
            let (type, optional) = Self.unwrapped(written)
            if let scalar = Self.scalarTypes[type] {
                members.append(.init(name: field.name, optional: optional, kind: .value(scalar)))
                continue
            }
            guard case .value(let found) = find(type, in: value.scope + [value.name]) else {
                let what = Self.element(of: type) != nil || type.hasPrefix("[") ? "a collection" : "a type these sources do not declare"
                return .failure(NotComposite(text: "its member \(field.name) is \(written), \(what)"))
            }
            let inner = sources.valueTypes[found]
            if inner.kind == .enum {
                guard !inner.hasAssociatedValues, let raw = inner.inherits.first, let scalar = Self.scalarTypes[raw] else {
                    return .failure(NotComposite(text: "its member \(field.name) is the enum \(inner.name) without raw values"))
                }
                members.append(.init(name: field.name, optional: optional, kind: .value(scalar)))
                continue
            }
            switch compositeStructure(found, stack: stack + [index]) {
            case .success(let nested):
                if optional, !nested.hasRequiredLeaf {
                    return .failure(
                        NotComposite(text: "its optional member \(field.name) is the struct \(inner.name), whose members are all optional"))
                }
                members.append(.init(name: field.name, optional: optional, kind: .nested(nested)))
            case .failure(let reason):
                return .failure(NotComposite(text: "\(reason.text) (in \(inner.name), its member \(field.name))"))
            }
        }
        return .success(CoreDataModel.Composite(name: value.name, members: members))
    }

    /// A literal initial value as Core Data's default text (SwiftData's schema takes the initial value as the
    /// attribute's default); an expression is noted, never evaluated.
    private mutating func defaultValue(_ initializer: String, type: String, label: String, property: SwiftDataSources.Property) -> String? {
        let text = initializer.trimmingCharacters(in: .whitespaces)
        switch text {
        case "nil", "[]", "[:]": return nil
        case "true": return "YES"
        case "false": return "NO"
        default: break
        }
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2, !text.dropFirst().dropLast().contains("\\"),
            !text.dropFirst().dropLast().contains("\"")
        {
            return String(text.dropFirst().dropLast())
        }
        let number = text.replacingOccurrences(of: "_", with: "")
        if Double(number) != nil, number.allSatisfy({ $0.isNumber || "-+.eE".contains($0) }) { return number }
        note(
            property.place,
            "\(label)'s initial value \(text) is an expression, which SwiftData evaluates when it builds the schema (the value a lightweight migration gives existing rows); lucidgen does not evaluate code: the column gets no default (give one in the description where rows exist when it is added)",
            key: "default \(label) \(text)")
        return nil
    }

    /// An enum case's raw value, when `initializer` names one (`.inbox`, `Placement.inbox`,
    /// `Placement.inbox.rawValue`) of a raw-value enum: what SwiftData stores for it.
    private func rawValue(of initializer: String, type: String, in scope: [String]) -> String? {
        var text = initializer.replacingOccurrences(of: " ", with: "")
        if text.hasSuffix(".rawValue") { text = String(text.dropLast(9)) }
        guard let dot = text.lastIndex(of: ".") else { return nil }
        let typeName = text[..<dot].isEmpty ? type : String(text[..<dot])
        let caseName = String(text[text.index(after: dot)...])
        guard case .value(let index) = find(typeName, in: scope) else { return nil }
        let value = sources.valueTypes[index]
        guard value.kind == .enum, !value.hasAssociatedValues, let raw = value.inherits.first,
            let position = value.cases.firstIndex(where: { $0.name == caseName })
        else { return nil }
        if let written = value.cases[position].rawValue {
            return written.hasPrefix("\"") ? String(written.dropFirst().dropLast()) : written
        }
        if raw == "String" { return caseName }
        guard Self.scalarTypes[raw]?.hasPrefix("Integer") == true else { return nil }
        // Implicit integer raw values count up from the previous case's (0 for the first).
        var number = -1
        for item in value.cases[...position] {
            if let written = item.rawValue, let given = Int(written) { number = given } else { number += 1 }
        }
        return String(number)
    }

    /// The type of an initial value that names an enum's case (`VideoPlacement.defaultPlacement`; with
    /// `.rawValue`, the raw type), as Swift infers it for `var placeVideosIn = VideoPlacement.defaultPlacement`.
    private func caseType(of initializer: String?, in scope: [String]) -> String? {
        guard var text = initializer?.replacingOccurrences(of: " ", with: "") else { return nil }
        let raw = text.hasSuffix(".rawValue")
        if raw { text = String(text.dropLast(9)) }
        guard let dot = text.lastIndex(of: "."), dot != text.startIndex else { return nil }
        let typeName = String(text[..<dot])
        guard case .value(let index) = find(typeName, in: scope), sources.valueTypes[index].kind == .enum else { return nil }
        return raw ? sources.valueTypes[index].inherits.first : typeName
    }

    /// The type Swift infers from a literal initializer (`var done = false`).
    static func literalType(_ initializer: String?) -> String? {
        guard let text = initializer?.trimmingCharacters(in: .whitespaces) else { return nil }
        if text == "true" || text == "false" { return "Bool" }
        if text.hasPrefix("\"") { return "String" }
        if Int(text.replacingOccurrences(of: "_", with: "")) != nil { return "Int" }
        if Double(text.replacingOccurrences(of: "_", with: "")) != nil { return "Double" }
        if text == "Date()" || text == "Date.now" { return "Date" }
        if text == "UUID()" { return "UUID" }
        if text == "Data()" { return "Data" }
        return nil
    }

    /// SwiftData pairs a relationship with its inverse when one side names it (`inverse:`) and, when neither
    /// does, when the other model has exactly one relationship back: both sides get the pair.
    private mutating func pairInverses(_ entities: inout [CoreDataModel.Entity], places: [SwiftDataSources.Place]) {
        func index(_ entity: String) -> Int? { entities.firstIndex { $0.name == entity } }
        // Declared on one side: the other side names it back.
        for e in entities.indices {
            for r in entities[e].relationships.indices {
                let relationship = entities[e].relationships[r]
                guard let inverseName = relationship.inverseName, let d = index(relationship.inverseEntity ?? "") else { continue }
                guard let back = entities[d].relationships.firstIndex(where: { $0.name == inverseName }) else {
                    error(
                        places[relationship.line],
                        "\(entities[e].name).\(relationship.name)'s inverse \(inverseName) is not a relationship of \(entities[d].name)")
                    continue
                }
                let other = entities[d].relationships[back]
                if let named = other.inverseName, named != relationship.name || other.inverseEntity != entities[e].name {
                    error(
                        places[relationship.line],
                        "\(entities[e].name).\(relationship.name) and \(entities[d].name).\(inverseName) name different inverses")
                    continue
                }
                entities[d].relationships[back].inverseName = relationship.name
                entities[d].relationships[back].inverseEntity = entities[e].name
            }
        }
        // Neither side says: SwiftData infers the pair when it is the only one between the two models.
        for e in entities.indices {
            for r in entities[e].relationships.indices where entities[e].relationships[r].inverseName == nil {
                let relationship = entities[e].relationships[r]
                guard let d = index(relationship.destination ?? "") else { continue }
                let candidates = entities[d].relationships.indices.filter {
                    entities[d].relationships[$0].destination == entities[e].name && entities[d].relationships[$0].inverseName == nil
                        && !(d == e && $0 == r)
                }
                let fromHere = entities[e].relationships.filter { $0.destination == relationship.destination && $0.inverseName == nil }
                guard candidates.count == 1, fromHere.count == 1 else { continue }
                let back = candidates[0]
                entities[e].relationships[r].inverseName = entities[d].relationships[back].name
                entities[e].relationships[r].inverseEntity = entities[d].name
                entities[d].relationships[back].inverseName = relationship.name
                entities[d].relationships[back].inverseEntity = entities[e].name
                note(
                    places[relationship.line],
                    "\(entities[e].name).\(relationship.name) and \(entities[d].name).\(entities[d].relationships[back].name) name no inverse: paired as SwiftData infers it (the only relationships between the two); write inverse: to be sure",
                    key: "pair \(entities[e].name).\(relationship.name)")
            }
        }
    }
}
