import LucidSchema
@_spi(Generated) import LucidSchema

/// Builds the context each template renders (`TemplateContexts.swift`): the entity and subtype files here, the
/// registry and the app's migration code in `ViewModels+Registry.swift`, the tests in `ViewModels+Tests.swift`.
struct ViewModels {
    let model: ResolvedModel
    /// The record types of each entity's newest version: full GRDB records. Every other version's record
    /// is a `SupersededRecord`: the same initializer, `Columns` and GRDB fetch and persistence methods, but
    /// neither `Codable` nor `Hashable` (no `CodingKeys`), whose synthesized conformances cost most of the
    /// build time of a long history.
    let newestTypeNames: Set<String>

    /// The struct subtypes some record stores as a composite (at any depth): they get typed column references.
    let compositeSubtypes: Set<String>

    /// The newest schema's tables by ``sqlNameKey(_:)``: each entity looks its own up (a model may have
    /// thousands).
    let newestTables: [String: SchemaTable]

    /// Each entity's initializer order (by entity name, then the property's current name): a property
    /// ranks by the first version that has it, then by whether it had a default there (those without
    /// first), then by its place in that version. So a parameter never moves relative to the others
    /// between releases (a property added later comes after them, with its default), and an entity with
    /// one version keeps the order it always had (required parameters, then those with defaults).
    let parameterRanks: [String: [String: [Int]]]

    /// Each entity by the names its tables have had (``sqlNameKey(_:)``), for associations: the record type
    /// a relationship's target table has at a version.
    let entitiesByTable: [String: [Int]]

    init(model: ResolvedModel) {
        self.model = model
        var ranks: [String: [String: [Int]]] = [:]
        for entity in model.entities {
            var entityRanks: [String: [Int]] = [:]
            for (shapeIndex, shape) in entity.shapes.enumerated() {
                for (position, property) in shape.properties.enumerated() where entityRanks[property.currentName] == nil {
                    let hasDefault = property.defaultSwift != nil || property.nullable
                    entityRanks[property.currentName] = [shapeIndex, hasDefault ? 1 : 0, position]
                }
            }
            ranks[entity.name] = entityRanks
        }
        parameterRanks = ranks
        var byTable: [String: [Int]] = [:]
        for (index, entity) in model.entities.enumerated() {
            for key in Set(entity.shapes.map { sqlNameKey($0.tableName) }) { byTable[key, default: []].append(index) }
        }
        entitiesByTable = byTable
        newestTables = model.schemas.last?.tablesByNameKey() ?? [:]
        newestTypeNames = Set(model.entities.compactMap { $0.newest?.typeName })
        var composites: Set<String> = []
        func collect(_ composite: CompositeShape) {
            guard composites.insert(composite.subtype).inserted else { return }
            for element in composite.elements { if case .nested(let nested) = element.kind { collect(nested) } }
        }
        for entity in model.entities {
            for shape in entity.shapes {
                for property in shape.properties { if case .composite(let composite) = property.kind { collect(composite) } }
            }
        }
        compositeSubtypes = composites
    }

    var registryName: String { "\(model.config.app.moduleName)Schema" }

    // MARK: Entities

    /// The typed queries of a declared search (`Recipe.search(_:)`), over the newest table.
    func searchContext(_ search: SchemaSearch, table: String, typeName: String, properties: [PropertyShape]) -> EntityContext.Search {
        let fts = SchemaTable.searchTableName(of: table)
        let names = search.columns.map { column in properties.first { $0.column == column }?.swiftName ?? column }
        let quotedTable = quoteIdentifier(table)
        let quotedFTS = quoteIdentifier(fts)
        let sql = """
            SELECT \(quotedTable).* FROM \(quotedTable)
            JOIN \(quotedFTS) ON \(quotedFTS).rowid = \(quotedTable).rowid
            WHERE \(quotedFTS) MATCH ? ORDER BY \(quotedFTS).rank
            """
        return EntityContext.Search(
            typeName: typeName, table: table, ftsTable: fts,
            propertyList: names.map { "`\($0)`" }.joined(separator: ", "),
            tokenizer: search.tokenizer.map(swiftDocCodeSpan) ?? "FTS5's default (`unicode61`)",
            // A multi-line literal, one clause per line, for `sql:` in `search(_:)`'s body.
            sqlLiteral: swiftMultilineRawStringLiteral(sql, indent: "                "),
            noneLiteral: swiftStringLiteral("SELECT * FROM \(quotedTable) WHERE 0"))
    }

    func entity(_ entity: ResolvedEntity) -> EntityContext {
        var shapes = entity.shapes.map(shape)
        guard let newest = entity.newest else { return EntityContext(shapes: shapes, newest: nil) }
        var newestContext = EntityContext.Newest(entityName: entity.name, alias: entity.typeName, typeName: newest.typeName)
        // The enum columns, a composite's included: a value that is no case names table, row and column.
        var enumColumns: [(column: String, swiftType: String)] = []
        var hasComposites = false
        for property in newest.properties {
            switch property.kind {
            case .value:
                if case .enumeration? = model.subtypes.first(where: { $0.name == property.typeDescription })?.kind {
                    enumColumns.append((property.column, property.swiftType))
                }
            case .composite(let composite):
                hasComposites = true
                for leaf in composite.leaves(optional: property.nullable) {
                    if case .enumeration = leaf.valueType { enumColumns.append((leaf.column, leaf.swiftType)) }
                }
            case .toOne, .toMany: break
            }
        }
        if !enumColumns.isEmpty {
            let key = newest.identifier.kind == .local ? "nil" : swiftStringLiteral(newest.identifier.column)
            let check = EntityContext.EnumCheck(
                primaryKey: key, columns: enumColumns.map { "(\(swiftStringLiteral($0.column)), \($0.swiftType).self)" })
            // A record with composites reads its columns one by one (its own `init(row:)`), which checks them.
            if hasComposites, let index = entity.shapes.lastIndex(where: { $0.typeName == newest.typeName }) {
                shapes[index].enumCheck = check
            } else {
                newestContext.enumColumns = check
            }
        }
        if let search = newestTables[sqlNameKey(newest.tableName)]?.search {
            newestContext.search = searchContext(search, table: newest.tableName, typeName: newest.typeName, properties: newest.properties)
        }
        return EntityContext(shapes: shapes, newest: newestContext)
    }

    /// A record's stored property before its Swift code is written: ``storedProperties(of:)`` orders them.
    private struct StoredProperty {
        var swiftName: String
        var column: String
        var baseType: String
        var optional: Bool
        var json = false
        var defaultSwift: String?
        var doc: String
        var composite: CompositeShape?
        /// The description's property (nil for an identifier that is no property): its rank in ``parameterRanks``.
        var currentName: String?
        /// A generated column: read, never written.
        var generated = false
    }

    /// A record's stored properties in initializer order (which never changes between releases: see
    /// `parameterRanks`); the identifier ranks first among the first version's parameters with (a local
    /// id) or without a default.
    private func storedProperties(of shape: EntityShape) -> [StoredProperty] {
        var properties: [StoredProperty] = []
        let identifier = shape.identifier
        if case .property = identifier.kind {
        } else {
            let local = identifier.kind == .local
            properties.append(
                StoredProperty(
                    swiftName: "id", column: identifier.column, baseType: identifier.swiftType, optional: local,
                    defaultSwift: local ? "nil" : nil,
                    doc: local ? "The row's key, assigned by SQLite on insert (nil until then)." : "The entity's identifier."))
        }
        for item in shape.properties {
            let swiftName = Naming.swiftIdentifier(item.swiftName)
            if item.isKind {
                // Entity inheritance: which entity of the hierarchy the row is, written by every insert.
                let subentities = shape.kinds.dropFirst().map { "`\($0)`" }.joined(separator: ", ")
                properties.append(
                    StoredProperty(
                        swiftName: swiftName, column: item.column, baseType: item.swiftType, optional: false,
                        defaultSwift: item.defaultSwift,
                        doc: shape.abstract
                            ? "Which entity of the hierarchy the row is (column `kind`): `\(shape.name)` is abstract, so a row is one of its subentities (\(subentities))."
                            : "Which entity of the hierarchy the row is (column `kind`): `\(shape.name)`\(shape.kinds.count > 1 ? ", or one of its subentities (\(subentities))" : "").",
                        currentName: item.currentName))
                continue
            }
            var doc = "`\(item.name)`: \(item.typeDescription)\(item.nullable ? ", nullable" : "")"
            if let defaultSQL = item.defaultSQL { doc += ", default \(defaultSQL)" }
            if item.column != item.name { doc += ", column `\(item.column)`" }
            doc += "."
            var composite: CompositeShape?
            switch item.kind {
            case .toMany: continue
            case .toOne(let target, let table, let column):
                doc =
                    "`\(item.name)`: to-one `\(target)`\(item.nullable ? ", nullable" : ""): the `\(column)` of a `\(table)` row (foreign key column `\(item.column)`)."
            case .composite(let stored):
                let columns = stored.leaves(optional: item.nullable).map { "`\($0.column)`" }
                doc =
                    "`\(item.name)`: composite `\(stored.subtype)`\(item.nullable ? ", nullable (nil: every column NULL)" : ""), columns \(columns.joined(separator: ", "))."
                composite = stored
            case .value: break
            }
            if composite == nil, identifier.kind == .property(item.name) { doc += " The identifier." }
            if item.generated { doc += " Generated: SQLite computes it, and an insert or update never writes it." }
            properties.append(
                StoredProperty(
                    swiftName: swiftName, column: item.column, baseType: item.swiftType, optional: item.nullable,
                    json: composite == nil && item.storedAsJSON,
                    defaultSwift: item.defaultSwift ?? (item.nullable ? "nil" : nil), doc: doc, composite: composite,
                    currentName: item.currentName, generated: item.generated))
        }
        if case .property(let key) = identifier.kind {
            properties.insert(
                StoredProperty(
                    swiftName: Naming.swiftIdentifier(identifier.swiftName), column: identifier.column, baseType: identifier.swiftType,
                    optional: false, defaultSwift: nil, doc: "`\(key)`: the identifier."),
                at: 0)
        }
        let ranks = parameterRanks[shape.entityName] ?? [:]
        func rank(_ property: StoredProperty) -> [Int] {
            if let name = property.currentName, let rank = ranks[name] { return rank }
            return [0, property.defaultSwift == nil ? 0 : 1, -1] // the identifier
        }
        return properties.enumerated().sorted { a, b in
            (rank(a.element) + [a.offset]).lexicographicallyPrecedes(rank(b.element) + [b.offset])
        }.map(\.element)
    }

    /// Each stored property with its Swift for the templates, a composite's as one statement per column: the
    /// column reference, GRDB's `init(row:)` and `encode(to:)` (records with composites), and the
    /// MigrationRecord conformance, which reads and writes the columns by position, in declaration order (a
    /// composite's columns one after the other). Also the column names, in that order.
    private func recordProperties(_ storedProperties: [StoredProperty]) -> (properties: [EntityContext.Property], columns: [String]) {
        var position = 0
        var columnLiterals: [String] = []
        let properties = storedProperties.enumerated().map { index, stored in
            let swiftName = stored.swiftName
            let swiftType = stored.baseType + (stored.optional ? "?" : "")
            let optional = swiftType.hasSuffix("?")
            let baseType = stored.baseType
            let literal = swiftStringLiteral(stored.column)
            let columnReference: String, rowDecode: String, containerEncode: [String], migrationDecode: String, migrationEncode: [String]
            if let composite = stored.composite {
                let code = CompositeCode(composite: composite, optional: optional, swiftName: swiftName, start: position)
                columnLiterals += code.leaves.map { swiftStringLiteral($0.column) }
                columnReference = "\(composite.swiftType).Columns(prefix: \(literal))"
                // The templates write these statements 8 spaces in (`self.x = …` in an initializer).
                rowDecode = code.namedDecode(indent: "        ")
                containerEncode = code.namedEncode()
                migrationDecode = code.positionalDecode(indent: "        ")
                migrationEncode = code.positionalEncode()
                position += code.leaves.count
            } else {
                columnLiterals.append(literal)
                columnReference = "GRDB.Column(\(literal))"
                if stored.json {
                    let statement = "self.\(swiftName) = try ".count
                    rowDecode =
                        "try "
                        + SwiftLayout.fittingCall(
                            "row.decodeJSON\(optional ? "IfPresent" : "")",
                            ["\(baseType).self", "forColumn: \(literal)", "using: Self.databaseJSONDecoder(for: \(literal))"],
                            indent: "        ", prefix: statement)
                    containerEncode =
                        stored.generated
                        ? []
                        : [
                            "try "
                                + SwiftLayout.fittingCall(
                                    "container.encodeJSON",
                                    ["self.\(swiftName)", "forColumn: \(literal)", "using: Self.databaseJSONEncoder(for: \(literal))"],
                                    indent: "        ", prefix: "try ".count)
                        ]
                } else {
                    rowDecode = "try row.decode(\(baseType)\(optional ? "?" : "").self, forColumn: \(literal))"
                    // `self.`: a property named `container` is not the parameter. A generated column is never written.
                    containerEncode = stored.generated ? [] : ["container[\(literal)] = self.\(swiftName)"]
                }
                // MigrationRecord: `row.decodeIfPresent(String.self, at: 3)`, `try values.encodeJSON(tags, at: 4)`.
                let decode = (stored.json ? "decodeJSON" : "decode") + (optional ? "IfPresent" : "")
                migrationDecode = "try row.\(decode)(\(baseType).self, at: \(position))"
                migrationEncode = ["\(stored.json ? "try values.encodeJSON" : "values.encode")(self.\(swiftName), at: \(position))"]
                position += 1
            }
            return EntityContext.Property(
                swiftName: swiftName, column: stored.column, swiftType: swiftType, baseType: baseType, doc: swiftCommentText(stored.doc),
                columnDiffers: swiftName.trimmingCharacters(in: ["`"]) != stored.column, json: stored.json,
                isComposite: stored.composite != nil,
                defaultSwift: stored.defaultSwift, columnReference: columnReference, rowDecode: rowDecode, containerEncode: containerEncode,
                migrationDecode: migrationDecode, migrationEncode: migrationEncode, last: index == storedProperties.count - 1)
        }
        return (properties, columnLiterals)
    }

    /// The generated columns of a record's properties, as the doc comment of its `encode(to:)` lists them;
    /// nil when it has none (GRDB's `Encodable` conformance then writes every column).
    private func generatedColumns(_ properties: [StoredProperty]) -> String? {
        let generated = properties.filter(\.generated).map { "`\($0.column)`" }
        return generated.isEmpty ? nil : generated.joined(separator: ", ")
    }

    private func shape(_ shape: EntityShape) -> EntityContext.Shape {
        let identifier = shape.identifier
        let superseded = !newestTypeNames.contains(shape.typeName)
        var links: [EntityContext.Link] = []
        var toManyNotes: [EntityContext.ToManyNote] = []
        // GRDB associations: to-one as belongsTo, to-many as hasMany of its links and hasMany through them.
        var toOneAssociations: [(names: [String], context: EntityContext.ToOneAssociation)] = []
        var toManyAssociations: [(names: [String], context: EntityContext.ToManyAssociation)] = []
        for item in shape.properties where !item.isKind {
            switch item.kind {
            case .toMany(let target, let table, let column, let joinTable, _, let targetSwiftType, let ordered):
                let linkName = item.linkTypeName
                let linkColumns = item.linkColumns ?? .lucid(joinTable)
                toManyNotes.append(
                    EntityContext.ToManyNote(
                        name: item.name, target: target, joinTable: joinTable, linkType: "\(shape.typeName).\(linkName)"))
                let targetRecord = recordType(ofEntity: target, table: table, at: shape.version)
                let swiftName = item.swiftName.trimmingCharacters(in: ["`"])
                links.append(
                    EntityContext.Link(
                        superseded: superseded, ownerType: shape.typeName, ownerEntity: shape.name, name: item.name, target: target,
                        joinTable: joinTable,
                        linkName: linkName, sourceType: identifier.swiftType, targetType: targetSwiftType,
                        ownerKey: swiftStringLiteral(identifier.column), targetKey: swiftStringLiteral(column),
                        sourceColumn: swiftStringLiteral(linkColumns.source), targetColumn: swiftStringLiteral(linkColumns.target),
                        // The typed link helpers: `linkTags(_:ids:)`, `unlinkTags(_:ids:)`, reading the owner's key.
                        helperSuffix: Naming.typeName(swiftName), sourceID: Naming.swiftIdentifier(identifier.swiftName),
                        localSource: identifier.kind == .local,
                        // An ordered relationship's links have a position: `setTags(_:ids:)` and `tagsIDs(_:)` too.
                        ordered: ordered, idsName: Naming.swiftIdentifier(swiftName + "IDs"), targetRecord: targetRecord))
                if let targetRecord {
                    toManyAssociations.append(
                        (
                            item.associationNames,
                            EntityContext.ToManyAssociation(
                                swiftName: Naming.swiftIdentifier(item.swiftName),
                                linksName: Naming.swiftIdentifier(item.associationNames[1]),
                                name: item.name, target: target, targetRecord: targetRecord, linkName: linkName, joinTable: joinTable,
                                keyLiteral: swiftStringLiteral(item.name), linksKeyLiteral: swiftStringLiteral(item.name + "Links"),
                                ownerKey: swiftStringLiteral(identifier.column), sourceColumn: swiftStringLiteral(linkColumns.source),
                                ordered: ordered)
                        ))
                }
            case .toOne(let target, let table, let column):
                if let targetRecord = recordType(ofEntity: target, table: table, at: shape.version) {
                    toOneAssociations.append(
                        (
                            item.associationNames,
                            EntityContext.ToOneAssociation(
                                swiftName: Naming.swiftIdentifier(item.swiftName), name: item.name, target: target,
                                targetRecord: targetRecord,
                                keyLiteral: swiftStringLiteral(item.name), column: swiftStringLiteral(item.column),
                                targetKey: swiftStringLiteral(column))
                        ))
                }
            case .value, .composite: break
            }
        }
        // An association is a static member: one named like a member GRDB's records already have (`filter`,
        // `order`, `all`…), or like another association, would break calls to it, so it is left out.
        var taken = Naming.recordStaticMembers
        let toOne = toOneAssociations.filter { taken.insert($0.names[0]).inserted }.map(\.context)
        let toMany = toManyAssociations.filter { association in
            guard association.names.allSatisfy({ !taken.contains($0) }) else { return false }
            taken.formUnion(association.names)
            return true
        }.map(\.context)
        let stored = storedProperties(of: shape)
        let (properties, columnLiterals) = recordProperties(stored)
        return EntityContext.Shape(
            entityName: shape.entityName, name: shape.name, renamed: shape.name != shape.entityName, version: shape.version.string,
            typeName: shape.typeName, tableName: shape.tableName, properties: properties,
            migrationColumns: SwiftLayout.arrayLiteral(
                columnLiterals, indent: "    ",
                prefix: "\(model.config.accessLevel.rawValue) static let migrationColumns: [Swift.String] = ".count),
            persistence: identifier.kind == .local ? "GRDB.MutablePersistableRecord" : "GRDB.PersistableRecord",
            superseded: superseded, localIdentifier: identifier.kind == .local, firstColumn: properties.first?.swiftName ?? "id",
            hasComposites: properties.contains(where: \.isComposite),
            firstComposite: properties.first(where: \.isComposite)?.swiftName ?? "",
            generatedColumns: generatedColumns(stored),
            links: links, toManyNotes: toManyNotes, toOneAssociations: toOne, toManyAssociations: toMany,
            hasAssociations: !toOne.isEmpty || !toMany.isEmpty,
            kinds: shape.kinds.isEmpty
                ? nil
                : EntityContext.Kinds(
                    kindList: shape.kinds.map(swiftStringLiteral).joined(separator: ", "),
                    kindNames: shape.kinds.map { "`\($0)`" }.joined(separator: ", "),
                    abstract: shape.abstract),
            enumCheck: nil)
    }

    /// The record type of entity `target` (its current name) whose table is `table` at `version` (the shape in
    /// effect then); else of the entity whose own table it is (not a subentity, which shares its root's).
    func recordType(ofEntity target: String, table: String, at version: SchemaVersion) -> String? {
        for index in entitiesByTable[sqlNameKey(table)] ?? [] where model.entities[index].name == target {
            let entity = model.entities[index]
            if let removed = entity.removedAtVersion, removed <= version { continue }
            if let shape = entity.shapes.last(where: { $0.version <= version }), sqlNameKey(shape.tableName) == sqlNameKey(table) {
                return shape.typeName
            }
        }
        for index in entitiesByTable[sqlNameKey(table)] ?? [] where model.entities[index].parent(at: version) == nil {
            let entity = model.entities[index]
            if let removed = entity.removedAtVersion, removed <= version { continue }
            if let shape = entity.shapes.last(where: { $0.version <= version }), sqlNameKey(shape.tableName) == sqlNameKey(table) {
                return shape.typeName
            }
        }
        return nil
    }

    /// The Swift names of a record's initializer parameters, in order (the generated tests' seeding calls).
    func initializerParameters(of shape: EntityShape) -> [String] {
        storedProperties(of: shape).map(\.swiftName)
    }

    // MARK: Subtypes

    func subtype(_ subtype: SubtypeDescription) -> SubtypeContext {
        switch subtype.kind {
        case .enumeration(let cases):
            /// `version`: the version the cases are at (nil: the newest).
            func items(_ cases: [String], at version: SchemaVersion?) -> [SubtypeContext.Case] {
                cases.map { item in
                    let swiftName = Naming.swiftIdentifier(subtype.swiftCaseName(item, at: version))
                    return SubtypeContext.Case(swiftName: swiftName, raw: item, rawDiffers: swiftName.trimmingCharacters(in: ["`"]) != item)
                }
            }
            // The newest cases, then each older case set of an enum with a history (`AircraftCategory_1_0`).
            let newest = SubtypeContext.Enumeration(name: subtype.name, typeName: subtype.swiftTypeName, cases: items(cases, at: nil))
            let older = (model.enumTypes.olderTypes[subtype.name] ?? []).map { type in
                SubtypeContext.Enumeration(
                    name: subtype.name, typeName: type.typeName, cases: items(type.cases, at: type.versions.first),
                    versions: type.versions.map(\.string).joined(separator: ", "), plural: type.versions.count > 1 ? "s" : "")
            }
            return SubtypeContext(enumeration: [newest] + older)
        case .optionSet(let options):
            let items = options.enumerated().map { index, option in
                SubtypeContext.Option(swiftName: Naming.swiftIdentifier(Naming.propertyName(option)), bit: index)
            }
            return SubtypeContext(optionSet: SubtypeContext.Options(name: subtype.name, typeName: subtype.swiftTypeName, options: items))
        case .structure:
            // The newest members (plain name), then each older member set of a struct with a history
            // (`Point_1_0`), each with the nested structs' types of its version.
            let newest = model.versions.last ?? SchemaVersion("0")
            var structures = [structure(subtype, typeName: subtype.swiftTypeName, at: newest, versions: nil)]
            for type in model.structTypes.olderTypes[subtype.name] ?? [] {
                structures.append(structure(subtype, typeName: type.typeName, at: type.version, versions: type.versions))
            }
            return SubtypeContext(structure: structures)
        }
    }

    /// One generated struct: its members at `version`; typed column references where some record stores
    /// the struct as a composite.
    private func structure(_ subtype: SubtypeDescription, typeName: String, at version: SchemaVersion, versions: [SchemaVersion]?)
        -> SubtypeContext.Structure
    {
        let properties = subtype.members(at: version) ?? []
        let members = properties.enumerated().map { index, property in
            let swiftName = Naming.swiftIdentifier(property.swiftMemberName)
            return SubtypeContext.Member(
                swiftName: swiftName, key: property.name, keyDiffers: swiftName.trimmingCharacters(in: ["`"]) != property.name,
                swiftType: swiftType(of: property.type, at: version) + (property.nullable ? "?" : ""), last: index == properties.count - 1)
        }
        let isComposite = compositeSubtypes.contains(subtype.name)
        // Typed column references: a member that is a struct is a nested composite.
        let compositeColumns: [SubtypeContext.CompositeColumn] =
            !isComposite
            ? []
            : properties.map { property in
                var nested: String?
                if case .subtype(let name) = property.type, case .structure? = model.subtypes.first(where: { $0.name == name })?.kind {
                    nested = model.structTypes.typeName(of: name, at: version)
                }
                return SubtypeContext.CompositeColumn(
                    swiftName: Naming.swiftIdentifier(property.swiftMemberName), suffix: swiftStringLiteral("_" + property.name),
                    columnType: nested.map { "\($0).Columns" } ?? "GRDB.Column", nested: nested != nil)
            }
        return SubtypeContext.Structure(
            name: subtype.name, typeName: typeName, properties: members,
            versions: versions.map { $0.map(\.string).joined(separator: ", ") }, plural: versions.map { $0.count > 1 ? "s" : "" },
            isComposite: isComposite, compositeColumns: compositeColumns)
    }

    private func swiftType(of type: PropertyType, at version: SchemaVersion) -> String {
        switch type {
        case .scalar(let scalar): ShapeBuilder.storage(of: scalar).1
        case .subtype(let name), .composite(let name):
            if let subtype = model.subtypes.first(where: { $0.name == name }), case .enumeration = subtype.kind {
                subtype.swiftTypeName
            } else {
                model.structTypes.typeName(of: name, at: version)
            }
        case .array(let element): "[\(swiftType(of: element, at: version))]"
        case .relationship: SwiftTypes.never
        }
    }
}

extension PropertyShape {
    var isToOne: Bool {
        if case .toOne = kind { true } else { false }
    }

    var isToMany: Bool {
        if case .toMany = kind { true } else { false }
    }
}
