@_spi(Generated) import LucidSchema

/// Builds the values each template renders: plain dictionaries whose keys the templates name.
///
/// Every key a template uses is set here; a misspelled key renders as nothing in Mustache, which the
/// golden tests catch.
struct ViewModels {
    let model: ResolvedModel
    /// The record types of each entity's newest version: full GRDB records. Every other version's record
    /// is a `SupersededRecord` (a migration type: no `Codable`, `FetchableRecord`, `PersistableRecord` or
    /// `Columns`, which cost most of the build time of a long history).
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
    func searchContext(_ search: SchemaSearch, table: String, typeName: String, properties: [PropertyShape]) -> [String: Any] {
        let fts = SchemaTable.searchTableName(of: table)
        let names = search.columns.map { column in properties.first { $0.column == column }?.swiftName ?? column }
        let quotedTable = quoteIdentifier(table)
        let quotedFTS = quoteIdentifier(fts)
        let sql = """
            SELECT \(quotedTable).* FROM \(quotedTable)
            JOIN \(quotedFTS) ON \(quotedFTS).rowid = \(quotedTable).rowid
            WHERE \(quotedFTS) MATCH ? ORDER BY \(quotedFTS).rank
            """
        return [
            "typeName": typeName, "table": table, "ftsTable": fts,
            "propertyList": names.map { "`\($0)`" }.joined(separator: ", "),
            "tokenizer": search.tokenizer.map(swiftDocCodeSpan) ?? "FTS5's default (`unicode61`)",
            // A multi-line literal, one clause per line, for `sql:` in `search(_:)`'s body.
            "sqlLiteral": swiftMultilineRawStringLiteral(sql, indent: "                "),
            "noneLiteral": swiftStringLiteral("SELECT * FROM \(quotedTable) WHERE 0"),
        ]
    }

    func entity(_ entity: ResolvedEntity) -> [String: Any] {
        var shapes = entity.shapes.map(shape)
        var context: [String: Any] = [:]
        if let newest = entity.newest {
            var newestContext: [String: Any] = ["entityName": entity.name, "alias": entity.typeName, "typeName": newest.typeName]
            // The enum columns, a composite's included: a value that is no case names table, row and column.
            var enumColumns: [(column: String, swiftType: String)] = []
            var hasComposites = false
            for property in newest.properties {
                switch property.kind {
                case .value:
                    if case .enumeration? = model.subtypes.first(where: { $0.name == property.typeDescription })?.kind { enumColumns.append((property.column, property.swiftType)) }
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
                let check: [String: Any] = [
                    "primaryKey": key, "columns": enumColumns.map { "(\(swiftStringLiteral($0.column)), \($0.swiftType).self)" },
                ]
                // A record with composites reads its columns one by one (its own `init(row:)`), which checks them.
                if hasComposites, let index = entity.shapes.lastIndex(where: { $0.typeName == newest.typeName }) {
                    shapes[index]["enumCheck"] = check
                } else {
                    newestContext["enumColumns"] = check
                }
            }
            if let search = newestTables[sqlNameKey(newest.tableName)]?.search {
                newestContext["search"] = searchContext(search, table: newest.tableName, typeName: newest.typeName, properties: newest.properties)
            }
            context["newest"] = newestContext
        }
        context["shapes"] = shapes
        return context
    }

    private func shape(_ shape: EntityShape) -> [String: Any] {
        var properties: [[String: Any]] = []
        let identifier = shape.identifier
        if case .property = identifier.kind {} else {
            let local = identifier.kind == .local
            properties.append(
                property(
                    swiftName: "id", column: identifier.column, baseType: identifier.swiftType, optional: local,
                    defaultSwift: local ? "nil" : nil,
                    doc: local ? "The row's key, assigned by SQLite on insert (nil until then)." : "The entity's identifier."))
        }
        var links: [[String: Any]] = []
        var toManyNotes: [[String: Any]] = []
        // GRDB associations: to-one as belongsTo, to-many as hasMany of its links and hasMany through them.
        var toOneAssociations: [[String: Any]] = []
        var toManyAssociations: [[String: Any]] = []
        let ranks = parameterRanks[shape.entityName] ?? [:]
        for item in shape.properties {
            if item.isKind {
                // Entity inheritance: which entity of the hierarchy the row is, written by every insert.
                var entry = property(
                    swiftName: Naming.swiftIdentifier(item.swiftName), column: item.column, baseType: item.swiftType, optional: false, defaultSwift: item.defaultSwift,
                    doc: shape.abstract
                        ? "Which entity of the hierarchy the row is (column `kind`): `\(shape.name)` is abstract, so a row is one of its subentities (\(shape.kinds.dropFirst().map { "`\($0)`" }.joined(separator: ", ")))."
                        : "Which entity of the hierarchy the row is (column `kind`): `\(shape.name)`\(shape.kinds.count > 1 ? ", or one of its subentities (\(shape.kinds.dropFirst().map { "`\($0)`" }.joined(separator: ", ")))" : "")."
                )
                entry["currentName"] = item.currentName
                properties.append(entry)
                continue
            }
            var doc = "`\(item.name)`: \(item.typeDescription)\(item.nullable ? ", nullable" : "")"
            if let defaultSQL = item.defaultSQL { doc += ", default \(defaultSQL)" }
            if item.column != item.name { doc += ", column `\(item.column)`" }
            doc += "."
            switch item.kind {
            case .toMany(let target, let table, let column, let joinTable, _, let targetSwiftType, let ordered):
                let linkName = item.linkTypeName
                toManyNotes.append(["name": item.name, "target": target, "joinTable": joinTable, "linkType": "\(shape.typeName).\(linkName)"])
                let targetRecord = recordType(ofEntity: target, table: table, at: shape.version)
                var link: [String: Any] = [
                    "superseded": !newestTypeNames.contains(shape.typeName),
                    "ownerType": shape.typeName, "ownerEntity": shape.name, "name": item.name, "target": target, "joinTable": joinTable,
                    "linkName": linkName, "sourceType": identifier.swiftType, "targetType": targetSwiftType,
                    "ownerKey": swiftStringLiteral(identifier.column), "targetKey": swiftStringLiteral(column),
                    // The typed link helpers: `linkTags(_:_:)`, `unlinkTags(_:_:)`, reading the owner's key.
                    "helperSuffix": Naming.typeName(item.swiftName.trimmingCharacters(in: ["`"])), "sourceID": Naming.swiftIdentifier(identifier.swiftName),
                    "localSource": identifier.kind == .local,
                    // An ordered relationship's links have a position: `setTags(_:_:)` and `tagsIDs(_:)` too.
                    "ordered": ordered, "idsName": Naming.swiftIdentifier(item.swiftName.trimmingCharacters(in: ["`"]) + "IDs"),
                ]
                if let targetRecord {
                    link["targetRecord"] = targetRecord
                    toManyAssociations.append([
                        "associationNames": item.associationNames,
                        "swiftName": Naming.swiftIdentifier(item.swiftName), "linksName": Naming.swiftIdentifier(item.associationNames[1]),
                        "name": item.name, "target": target, "targetRecord": targetRecord, "linkName": linkName, "joinTable": joinTable,
                        "keyLiteral": swiftStringLiteral(item.name), "linksKeyLiteral": swiftStringLiteral(item.name + "Links"), "ownerKey": swiftStringLiteral(identifier.column),
                        "ordered": ordered,
                    ])
                }
                links.append(link)
                continue
            case .toOne(let target, let table, let column):
                if let targetRecord = recordType(ofEntity: target, table: table, at: shape.version) {
                    toOneAssociations.append([
                        "associationNames": item.associationNames,
                        "swiftName": Naming.swiftIdentifier(item.swiftName), "name": item.name, "target": target, "targetRecord": targetRecord,
                        "keyLiteral": swiftStringLiteral(item.name), "column": swiftStringLiteral(item.column), "targetKey": swiftStringLiteral(column),
                    ])
                }
                doc = "`\(item.name)`: to-one `\(target)`\(item.nullable ? ", nullable" : ""): the `\(column)` of a `\(table)` row (foreign key column `\(item.column)`)."
            case .composite(let composite):
                let columns = composite.leaves(optional: item.nullable).map { "`\($0.column)`" }
                doc = "`\(item.name)`: composite `\(composite.subtype)`\(item.nullable ? ", nullable (nil: every column NULL)" : ""), columns \(columns.joined(separator: ", "))."
                var entry = property(
                    swiftName: Naming.swiftIdentifier(item.swiftName), column: item.column, baseType: item.swiftType, optional: item.nullable,
                    defaultSwift: item.defaultSwift ?? (item.nullable ? "nil" : nil), doc: doc)
                entry["compositeShape"] = composite
                entry["currentName"] = item.currentName
                properties.append(entry)
                continue
            case .value: break
            }
            if identifier.kind == .property(item.name) { doc += " The identifier." }
            var entry = property(
                swiftName: Naming.swiftIdentifier(item.swiftName), column: item.column, baseType: item.swiftType, optional: item.nullable,
                json: item.storedAsJSON, defaultSwift: item.defaultSwift ?? (item.nullable ? "nil" : nil), doc: doc)
            entry["currentName"] = item.currentName
            properties.append(entry)
        }
        if case .property(let key) = identifier.kind {
            properties.insert(
                property(
                    swiftName: Naming.swiftIdentifier(identifier.swiftName), column: identifier.column, baseType: identifier.swiftType, optional: false,
                    defaultSwift: nil, doc: "`\(key)`: the identifier."),
                at: 0)
        }
        // The initializer's order never changes between releases (see `parameterRanks`): the identifier
        // ranks first among the first version's parameters with (a local id) or without a default.
        let ordered = properties.enumerated().sorted { a, b in
            func rank(_ entry: (offset: Int, element: [String: Any])) -> [Int] {
                if let name = entry.element["currentName"] as? String, let rank = ranks[name] { return rank }
                return [0, entry.element["defaultSwift"] == nil ? 0 : 1, -1]  // the identifier
            }
            return (rank(a) + [a.offset]).lexicographicallyPrecedes(rank(b) + [b.offset])
        }.map(\.element)
        var rendered = ordered
        if !rendered.isEmpty { rendered[rendered.count - 1]["last"] = true }
        // The MigrationRecord conformance reads and writes the columns by position, in declaration order
        // (a composite's columns one after the other).
        var position = 0
        var hasComposites = false
        var columnLiterals: [String] = []
        for index in rendered.indices {
            let swiftName = rendered[index]["swiftName"] as! String
            let column = rendered[index]["column"] as! String
            let optional = (rendered[index]["swiftType"] as! String).hasSuffix("?")
            let baseType = rendered[index]["baseType"] as! String
            // Each property's Swift for the templates, a composite's as one statement per column: the column
            // reference, GRDB's `init(row:)` and `encode(to:)` (records with composites), and the migration
            // conformance by position.
            let literal = swiftStringLiteral(column)
            if let composite = rendered[index]["compositeShape"] as? CompositeShape {
                hasComposites = true
                let code = CompositeCode(composite: composite, optional: optional, swiftName: swiftName, start: position)
                columnLiterals += code.leaves.map { swiftStringLiteral($0.column) }
                rendered[index]["columnReference"] = "\(composite.swiftType).Columns(prefix: \(literal))"
                // The templates write these statements 8 spaces in (`self.x = …` in an initializer).
                rendered[index]["rowDecode"] = code.namedDecode(indent: "        ")
                rendered[index]["containerEncode"] = code.namedEncode()
                rendered[index]["migrationDecode"] = code.positionalDecode(indent: "        ")
                rendered[index]["migrationEncode"] = code.positionalEncode()
                rendered[index]["isComposite"] = true
                position += code.leaves.count
            } else {
                let json = rendered[index]["json"] as? Bool == true
                columnLiterals.append(literal)
                rendered[index]["columnReference"] = "GRDB.Column(\(literal))"
                if json {
                    let statement = "self.\(swiftName) = try ".count
                    rendered[index]["rowDecode"] = "try " + SwiftLayout.fittingCall(
                        "row.decodeJSON\(optional ? "IfPresent" : "")",
                        ["\(baseType).self", "forColumn: \(literal)", "using: Self.databaseJSONDecoder(for: \(literal))"],
                        indent: "        ", prefix: statement)
                    rendered[index]["containerEncode"] = [
                        "try " + SwiftLayout.fittingCall(
                            "container.encodeJSON", ["self.\(swiftName)", "forColumn: \(literal)", "using: Self.databaseJSONEncoder(for: \(literal))"],
                            indent: "        ", prefix: "try ".count)
                    ]
                } else {
                    rendered[index]["rowDecode"] = "try row.decode(\(baseType)\(optional ? "?" : "").self, forColumn: \(literal))"
                    // `self.`: a property named `container` is not the parameter.
                    rendered[index]["containerEncode"] = ["container[\(literal)] = self.\(swiftName)"]
                }
                // MigrationRecord: `row.decodeIfPresent(String.self, at: 3)`, `try values.encodeJSON(tags, at: 4)`.
                let decode = (json ? "decodeJSON" : "decode") + (optional ? "IfPresent" : "")
                rendered[index]["migrationDecode"] = "try row.\(decode)(\(baseType).self, at: \(position))"
                rendered[index]["migrationEncode"] = ["\(json ? "try values.encodeJSON" : "values.encode")(self.\(swiftName), at: \(position))"]
                position += 1
            }
        }
        // An association is a static member: one named like a member GRDB's records already have (`filter`,
        // `order`, `all`…), or like another association, would break calls to it, so it is left out.
        var taken = Naming.recordStaticMembers
        toOneAssociations = toOneAssociations.filter { taken.insert(($0["associationNames"] as! [String])[0]).inserted }
        toManyAssociations = toManyAssociations.filter { association in
            let names = association["associationNames"] as! [String]
            guard names.allSatisfy({ !taken.contains($0) }) else { return false }
            taken.formUnion(names)
            return true
        }
        return [
            "entityName": shape.entityName, "name": shape.name, "renamed": shape.name != shape.entityName, "version": shape.version.string,
            "typeName": shape.typeName, "tableName": shape.tableName, "properties": rendered,
            "migrationColumns": SwiftLayout.arrayLiteral(
                columnLiterals, indent: "    ", prefix: "\(model.config.accessLevel.rawValue) static let migrationColumns: [Swift.String] = ".count),
            "persistence": identifier.kind == .local ? "GRDB.MutablePersistableRecord" : "GRDB.PersistableRecord",
            "superseded": !newestTypeNames.contains(shape.typeName),
            "localIdentifier": identifier.kind == .local, "firstColumn": rendered.first?["swiftName"] ?? "id", "hasComposites": hasComposites,
            "firstComposite": rendered.first { $0["isComposite"] != nil }?["swiftName"] ?? "",
            "links": links, "toManyNotes": toManyNotes,
            "toOneAssociations": toOneAssociations, "toManyAssociations": toManyAssociations,
            "hasAssociations": !toOneAssociations.isEmpty || !toManyAssociations.isEmpty,
            "kinds": shape.kinds.isEmpty ? false : [
                "kindList": shape.kinds.map(swiftStringLiteral).joined(separator: ", "),
                "kindNames": shape.kinds.map { "`\($0)`" }.joined(separator: ", "),
                "abstract": shape.abstract,
            ] as Any,
        ]
    }

    /// The record type of entity `target` (its current name) whose table is `table` at `version` (the shape in
    /// effect then); else of the entity whose own table it is (not a subentity, which shares its root's).
    func recordType(ofEntity target: String, table: String, at version: SchemaVersion) -> String? {
        for index in entitiesByTable[sqlNameKey(table)] ?? [] where model.entities[index].name == target {
            let entity = model.entities[index]
            if let removed = entity.removedAtVersion, removed <= version { continue }
            if let shape = entity.shapes.last(where: { $0.version <= version }), sqlNameKey(shape.tableName) == sqlNameKey(table) { return shape.typeName }
        }
        for index in entitiesByTable[sqlNameKey(table)] ?? [] where model.entities[index].parent == nil {
            let entity = model.entities[index]
            if let removed = entity.removedAtVersion, removed <= version { continue }
            if let shape = entity.shapes.last(where: { $0.version <= version }), sqlNameKey(shape.tableName) == sqlNameKey(table) { return shape.typeName }
        }
        return nil
    }

    private func property(swiftName: String, column: String, baseType: String, optional: Bool, json: Bool = false, defaultSwift: String?, doc: String) -> [String: Any] {
        var result: [String: Any] = [
            "swiftName": swiftName, "column": column, "swiftType": baseType + (optional ? "?" : ""), "doc": swiftCommentText(doc),
            "columnDiffers": swiftName.trimmingCharacters(in: ["`"]) != column,
            "baseType": baseType, "json": json,
        ]
        if let defaultSwift { result["defaultSwift"] = defaultSwift }
        return result
    }

    // MARK: Subtypes

    func subtype(_ subtype: SubtypeDescription) -> [String: Any] {
        let base: [String: Any] = ["name": subtype.name, "typeName": subtype.swiftTypeName]
        switch subtype.kind {
        case .enumeration(let cases):
            /// `version`: the version the cases are at (nil: the newest).
            func items(_ cases: [String], at version: SchemaVersion?) -> [[String: Any]] {
                cases.map { item -> [String: Any] in
                    let swiftName = Naming.swiftIdentifier(subtype.swiftCaseName(item, at: version))
                    return ["swiftName": swiftName, "raw": item, "rawDiffers": swiftName.trimmingCharacters(in: ["`"]) != item]
                }
            }
            // The newest cases, then each older case set of an enum with a history (`AircraftCategory_1_0`).
            let older = (model.enumTypes.olderTypes[subtype.name] ?? []).map { type -> [String: Any] in
                [
                    "name": subtype.name, "typeName": type.typeName, "cases": items(type.cases, at: type.versions.first),
                    "versions": type.versions.map(\.string).joined(separator: ", "), "plural": type.versions.count > 1 ? "s" : "",
                ]
            }
            return ["enumeration": [base.merging(["cases": items(cases, at: nil)]) { a, _ in a }] + older]
        case .optionSet(let options):
            let items = options.enumerated().map { index, option -> [String: Any] in
                ["swiftName": Naming.swiftIdentifier(Naming.propertyName(option)), "bit": index]
            }
            return ["optionSet": base.merging(["options": items]) { a, _ in a }]
        case .structure:
            // The newest members (plain name), then each older member set of a struct with a history
            // (`Point_1_0`), each with the nested structs' types of its version.
            let newest = model.versions.last ?? SchemaVersion("0")
            var structures = [structure(subtype, typeName: subtype.swiftTypeName, at: newest, versions: nil)]
            for type in model.structTypes.olderTypes[subtype.name] ?? [] {
                structures.append(structure(subtype, typeName: type.typeName, at: type.version, versions: type.versions))
            }
            return ["structure": structures]
        }
    }

    /// One generated struct: its members at `version`; typed column references where some record stores
    /// the struct as a composite.
    private func structure(_ subtype: SubtypeDescription, typeName: String, at version: SchemaVersion, versions: [SchemaVersion]?) -> [String: Any] {
        let properties = subtype.members(at: version) ?? []
        var items = properties.map { property -> [String: Any] in
            let swiftName = Naming.swiftIdentifier(property.swiftMemberName)
            return [
                "swiftName": swiftName, "key": property.name, "keyDiffers": swiftName.trimmingCharacters(in: ["`"]) != property.name,
                "swiftType": swiftType(of: property.type, at: version) + (property.nullable ? "?" : ""),
            ]
        }
        if !items.isEmpty { items[items.count - 1]["last"] = true }
        var structure: [String: Any] = ["name": subtype.name, "typeName": typeName, "properties": items]
        if let versions {
            structure["versions"] = versions.map(\.string).joined(separator: ", ")
            structure["plural"] = versions.count > 1 ? "s" : ""
        }
        if compositeSubtypes.contains(subtype.name) {
            // Typed column references: a member that is a struct is a nested composite.
            structure["compositeColumns"] = properties.map { property -> [String: Any] in
                var nested: String?
                if case .subtype(let name) = property.type, case .structure? = model.subtypes.first(where: { $0.name == name })?.kind {
                    nested = model.structTypes.typeName(of: name, at: version)
                }
                return [
                    "swiftName": Naming.swiftIdentifier(property.swiftMemberName), "suffix": swiftStringLiteral("_" + property.name),
                    "columnType": nested.map { "\($0).Columns" } ?? "GRDB.Column", "nested": nested != nil,
                ]
            }
            structure["isComposite"] = true
        }
        return structure
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

    // MARK: Custom stages

    func migrations() -> [String: Any] {
        let protocolName = "\(model.config.app.moduleName)Migrations"
        var requirements: [[String: Any]] = []
        var steps: [[String: Any]] = []
        var hooks: [[String: Any]] = []
        for step in model.customSteps {
            for table in step.tables {
                requirements.append([
                    "from": step.from.string, "to": step.to.string, "table": table.table, "reasons": swiftCommentText(table.reasons.joined(separator: "; ")),
                    "oldType": table.oldType, "newType": table.newType,
                ])
            }
            var context: [String: Any] = [
                "from": step.from.string, "to": step.to.string, "label": step.label,
                "tables": step.tables.map { ["table": $0.table, "oldType": $0.oldType, "newType": $0.newType] },
                "hasTables": !step.tables.isEmpty,
            ]
            if let hook = step.hookName {
                context["hook"] = hook
                hooks.append(["from": step.from.string, "to": step.to.string, "name": hook, "notes": step.hookNotes.map(swiftCommentText), "hasNotes": !step.hookNotes.isEmpty])
            }
            steps.append(context)
        }
        var context: [String: Any] = [
            "module": model.config.app.moduleName, "protocolName": protocolName, "registryName": registryName,
            "requirements": requirements, "steps": steps, "hooks": hooks,
        ]
        if let provider = model.config.migrationsProvider { context["provider"] = provider }
        return context
    }

    // MARK: Migration tests

    /// The generated migration test suite: seeds per version (built with that version's record types),
    /// the app's expectations as protocol requirements, names for messages, and Lucid's ignore ranges.
    func migrationTests(provider: String) -> [String: Any] {
        let module = model.config.app.moduleName
        let fixtures = FixtureRows(model: model)
        // One seeding function per distinct record type (its rows and links), and the range of versions
        // each seeds: a long history changes few entities per version, so this grows with the changes.
        var functions: [[String: Any]] = []
        var functionNames: [String: String] = [:]  // rendered body → function name
        var seeders: [[String: Any]] = []
        var open: [String: Int] = [:]  // function name → its range's index in `seeders`
        var previous: SchemaVersion?
        // By record type and seed plan (the unique indexes at and after a version): each is rendered once.
        var bodies: [String: (record: [String: Any], key: String)] = [:]
        for version in model.versions {
            var used: [String] = []
            let plans = fixtures.seedPlans(at: version)
            let limits = plans.compactMapValues(\.rowLimit)
            let blocks = fixtures.seedBlocks(at: version)
            for shape in fixtures.shapes(at: version) where !shape.abstract {
                let plan = plans[shape.entityName] ?? SeedPlan()
                var cacheKey = limits.isEmpty && plan.isEmpty
                    ? shape.typeName : "\(shape.typeName)|\(plan)|\(limits.sorted { $0.key < $1.key })"
                if !blocks.own.isEmpty { cacheKey += "|\(blocks.own.sorted { $0.key < $1.key })|\(blocks.referenced.sorted { $0.key < $1.key })" }
                let rendered = bodies[cacheKey] ?? {
                    let record = seedRecord(shape, plan: plan, limits: limits, fixtures: fixtures, blocks: blocks)
                    return (record, Self.seedBodyKey(record))
                }()
                bodies[cacheKey] = rendered
                let (record, body) = rendered
                let name: String
                if let existing = functionNames[body] {
                    name = existing
                } else {
                    var candidate = "seed\(shape.typeName)"
                    var suffix = 2
                    while functionNames.values.contains(candidate) {
                        candidate = "seed\(shape.typeName)_\(suffix)"
                        suffix += 1
                    }
                    name = candidate
                    functionNames[body] = name
                    functions.append(["function": name, "record": record])
                }
                used.append(name)
            }
            for (name, index) in open where !used.contains(name) {
                seeders[index]["through"] = previous!.string
                open[name] = nil
            }
            for name in used where open[name] == nil {
                open[name] = seeders.count
                seeders.append(["function": name, "from": version.string])
            }
            previous = version
        }
        for (_, index) in open { seeders[index]["through"] = previous!.string }
        var naming: [[String: Any]] = []
        var recordChecks: [[String: Any]] = []
        for entity in model.entities {
            guard let newest = entity.newest else { continue }
            let alias = entity.typeName
            var properties: [(String, String)] = [(newest.identifier.column, newest.identifier.swiftName)]
            // Entity inheritance: a subentity's rows are checked in its root's table (named there, below), and
            // its record decodes the rows of its kinds.
            if entity.parent != nil {
                recordChecks.append(["typeName": newest.typeName, "entity": swiftStringLiteral(alias), "kinds": "\(newest.typeName).kinds"])
                let own = Set(newest.properties.map(\.currentName)).subtracting(model.entities.first { $0.name == entity.parent }?.newest?.properties.map(\.currentName) ?? [])
                for property in newest.properties where own.contains(property.currentName) {
                    guard case .toMany(_, _, _, let joinTable, _, _, let ordered) = property.kind else { continue }
                    let position = ordered ? ", \"\(LinkTable.positionColumn)\": \"position\"" : ""
                    naming.append([
                        "table": swiftStringLiteral(joinTable), "entity": swiftStringLiteral("\(alias).\(property.swiftName)"),
                        "properties": "[\"\(LinkTable.sourceColumn)\": \"sourceID\", \"\(LinkTable.targetColumn)\": \"targetID\"\(position)]",
                    ])
                    recordChecks.append(["typeName": "\(newest.typeName).\(property.linkTypeName)", "entity": swiftStringLiteral("\(alias).\(property.swiftName)")])
                }
                continue
            }
            var hierarchyProperties: [PropertyShape] = []
            if !newest.kinds.isEmpty {
                var seen = Set(newest.properties.map(\.column))
                for member in model.entities where member.parent != nil && member.newest.map({ sqlNameKey($0.tableName) == sqlNameKey(newest.tableName) }) == true {
                    for property in member.newest!.properties where !property.isToMany && seen.insert(property.column).inserted { hierarchyProperties.append(property) }
                }
            }
            for property in newest.properties + hierarchyProperties {
                if case .toMany(_, _, _, let joinTable, _, _, let ordered) = property.kind {
                    let position = ordered ? ", \"\(LinkTable.positionColumn)\": \"position\"" : ""
                    naming.append([
                        "table": swiftStringLiteral(joinTable), "entity": swiftStringLiteral("\(alias).\(property.swiftName)"),
                        "properties": "[\"\(LinkTable.sourceColumn)\": \"sourceID\", \"\(LinkTable.targetColumn)\": \"targetID\"\(position)]",
                    ])
                    recordChecks.append(["typeName": "\(newest.typeName).\(property.linkTypeName)", "entity": swiftStringLiteral("\(alias).\(property.swiftName)")])
                } else if case .composite(let composite) = property.kind {
                    // Each element's column by its Swift path, for messages: `colorScheme.primary`.
                    for leaf in composite.leaves(optional: property.nullable) {
                        properties.append((leaf.column, ([property.swiftName] + leaf.swiftPath).joined(separator: ".")))
                    }
                } else {
                    properties.append((property.column, property.swiftName))
                }
            }
            naming.append([
                "table": swiftStringLiteral(newest.tableName), "entity": swiftStringLiteral(alias),
                "properties": Self.namingLiteral(properties.map { "\(swiftStringLiteral($0.0)): \(swiftStringLiteral($0.1))" }),
            ])
            recordChecks.append(["typeName": newest.typeName, "entity": swiftStringLiteral(alias)])
        }
        let exclusions: [[String: Any]] = model.checkExclusionTargets.map { target in
            [
                "table": swiftStringLiteral(target.table), "column": target.column.map(swiftStringLiteral) ?? "nil",
                "from": target.from.map { "LucidRuntime.SchemaVersion(\"\($0.string)\")" } ?? "nil", "before": target.before.string, "why": swiftCommentText(target.reason),
            ]
        }
        let transforms = model.customSteps.flatMap { step in
            step.tables.map { table -> [String: Any] in
                ["from": step.from.string, "to": step.to.string, "table": swiftStringLiteral(table.table), "tableName": table.table, "oldType": table.oldType, "newType": table.newType]
            }
        }
        let hooks = model.customSteps.compactMap { step -> [String: Any]? in
            step.hookName.map {
                [
                    "from": step.from.string, "to": step.to.string, "name": $0, "label": swiftStringLiteral($0),
                    "typesAtFrom": fixtures.shapes(at: step.from).map { "`\($0.typeName)`" }.joined(separator: ", "),
                    "typesAtTo": fixtures.shapes(at: step.to).map { "`\($0.typeName)`" }.joined(separator: ", "),
                ]
            }
        }
        return Self.escapingMemberTypeNames([
            "module": module, "registryName": registryName, "protocolName": "\(module)MigrationExpectations", "provider": provider,
            "suiteName": "\(module)MigrationTests", "seedsName": "\(module)MigrationSeeds", "current": model.currentVersion.string,
            // `arguments: [...])` in an attribute 8 spaces in; `releasedVersions: [Swift.String] = [...]` 4 in.
            "versions": SwiftLayout.arrayLiteral(
                model.versions.map { swiftStringLiteral($0.string) }, indent: "        ", prefix: "arguments: ".count, suffix: 1),
            "seedFunctions": functions, "seeders": seeders,
            // Released versions must each have a committed fixture store: those before the current one, listed
            // here, and the current one once `lucidgen release` marked its snapshot, which the tests read (the
            // mark changes nothing generated). A brand-new project has none, and needs none.
            "released": SwiftLayout.arrayLiteral(
                model.versions.filter { $0 < model.currentVersion }.map { swiftStringLiteral($0.string) }, indent: "    ",
                prefix: "static let releasedVersions: [Swift.String] = ".count),
            "naming": naming, "recordChecks": recordChecks, "exclusions": exclusions, "transforms": transforms, "hooks": hooks,
            "subtypes": model.subtypes.flatMap { subtype in
                // An enum with a history: each version's type seeds its own cases.
                seedableSubtypes(subtype) + (model.enumTypes.olderTypes[subtype.name] ?? []).map { ["typeName": $0.typeName, "caseIterable": true] as [String: Any] }
            },
        ])
    }

    /// An `EntityNaming`'s `properties:` dictionary (`"column": "swiftName"` entries), 16 spaces in.
    private static func namingLiteral(_ entries: [String]) -> String {
        SwiftLayout.arrayLiteral(entries, indent: "                ", prefix: "properties: ".count, suffix: 2)
    }

    /// The tests name the app's types after its module (`App.Tag_1_0`): there `Type` and `Protocol` would
    /// mean the metatype, so those names get backticks (``App.`Type` ``) in every value the tests render.
    static func escapingMemberTypeNames(_ context: [String: Any]) -> [String: Any] {
        func escaped(_ value: Any) -> Any {
            if let dictionary = value as? [String: Any] { return escapingMemberTypeNames(dictionary) }
            if let array = value as? [[String: Any]] { return array.map(escapingMemberTypeNames) }
            return value
        }
        var result: [String: Any] = [:]
        for (key, value) in context {
            if ["typeName", "oldType", "newType"].contains(key), let name = value as? String {
                result[key] = Naming.memberTypeName(name)
            } else {
                result[key] = escaped(value)
            }
        }
        return result
    }

    /// How the generated tests seed one record type: its initialiser's arguments (edge values, references
    /// to other seeded rows) and the links of its to-many relationships.
    /// `plan` keeps the table's unique indexes unique (``SeedPlan``); `limits` are the row counts of the
    /// tables seeded with fewer rows than asked (references to them point at those rows).
    private func seedRecord(
        _ shape: EntityShape, plan: SeedPlan, limits: [String: Int], fixtures: FixtureRows, blocks: (own: [String: Int], referenced: [String: Int]) = ([:], [:])
    ) -> [String: Any] {
        func rowCount(_ entity: String) -> String { limits[entity].map { "Swift.min(rows, \($0))" } ?? "rows" }
        // Entity inheritance: an entity of a hierarchy seeds its own block of rows (``FixtureRows/seedBlocks(at:)``).
        func offset(_ block: Int?) -> String { block.map { $0 > 0 ? " + \($0) * rows" : "" } ?? "" }
        let block = blocks.own[shape.entityName] ?? 0
        let rowRange = block > 0 ? "(\(block) * rows + 1)...(\(block) * rows + \(rowCount(shape.entityName)))" : "1...\(rowCount(shape.entityName))"
        let parameters = (self.shape(shape)["properties"] as? [[String: Any]] ?? []).map { $0["swiftName"] as! String }
        var expressions: [String: String] = [:]
        expressions[Naming.swiftIdentifier(shape.identifier.swiftName)] = "LucidTesting.Seed.identifier(row: row)"
        var links: [[String: Any]] = []
        for (index, property) in shape.properties.enumerated() {
            let swiftName = Naming.swiftIdentifier(property.swiftName)
            switch property.kind {
            case .composite:
                // The struct's `Seedable` conformance seeds it member by member (`FixtureRows` writes the same
                // values column by column).
                // Distinct (`DistinctSeedable`) when a unique index names one of its elements.
                let method = plan.rules[property.currentName] == .distinct ? "seedDistinct" : "seed"
                expressions[swiftName] = ".\(method)(row: row, salt: \(FixtureRows.salt(ofPropertyAt: index)))"
            case .value where property.isKind:
                expressions[swiftName] = swiftStringLiteral(shape.name)
            case .value:
                guard expressions[swiftName] == nil else { continue }
                let salt = FixtureRows.salt(ofPropertyAt: index)
                switch plan.rules[property.currentName] {
                case nil: expressions[swiftName] = ".seed(row: row, salt: \(salt))"
                case .distinct?: expressions[swiftName] = ".seedDistinct(row: row, salt: \(salt))"
                case .product(let divisor, let count, let nullBeyond)?:
                    expressions[swiftName] = property.nullable
                        ? "LucidTesting.Seed.product(row: row, divisor: \(divisor), count: \(count), total: \(nullBeyond ?? Int.max))"
                        : "LucidTesting.Seed.product(row: row, divisor: \(divisor), count: \(count))"
                }
            case .toOne(let entity, _, _):
                let target = offset(blocks.referenced[entity])
                // An argument 16 spaces in, its trailing closure's body 20.
                let function = property.nullable ? "optionalReference" : "reference"
                expressions[swiftName] = """
                    LucidTesting.Seed.\(function)(row: row, rows: \(rowCount(entity))) {
                                        LucidTesting.Seed.identifier(row: $0\(target))
                                    }
                    """
            case .toMany(let entity, _, _, _, _, _, let ordered):
                links.append([
                    "linkType": "\(Naming.memberTypeName(shape.typeName)).\(property.linkTypeName)", "maxLinks": fixtures.maxLinks(property, of: shape),
                    "rowCount": rowCount(shape.entityName), "targetRows": rowCount(entity), "rowRange": rowRange, "targetOffset": offset(blocks.referenced[entity]), "ordered": ordered,
                ])
            }
        }
        var arguments = parameters.map { ["label": Naming.argumentLabel($0), "value": expressions[$0] ?? ".seed(row: row, salt: 0)"] as [String: Any] }
        if !arguments.isEmpty { arguments[arguments.count - 1]["last"] = true }
        return [
            "typeName": shape.typeName, "arguments": arguments, "links": links, "superseded": !newestTypeNames.contains(shape.typeName),
            "rowCount": rowCount(shape.entityName), "rowRange": rowRange,
        ]
    }

    /// What a seeding function's body says, as one string: two versions share a function only when
    /// their bodies are equal.
    private static func seedBodyKey(_ record: [String: Any]) -> String {
        let arguments = (record["arguments"] as! [[String: Any]]).map { "\($0["label"]!)=\($0["value"]!)" }
        let links = (record["links"] as! [[String: Any]]).map { "\($0["linkType"]!)/\($0["maxLinks"]!)/\($0["rowCount"]!)/\($0["targetRows"]!)/\($0["targetOffset"]!)/\($0["ordered"]!)" }
        return "\(record["typeName"]!)\(record["rowRange"]!)(\(arguments.joined(separator: ",")))\(links.joined(separator: ","))"
    }

    /// A generated subtype's `Seedable` conformance: enums by their cases, option sets by their bits,
    /// structs member by member.
    private func seedableSubtypes(_ subtype: SubtypeDescription) -> [[String: Any]] {
        let typeName = subtype.swiftTypeName
        switch subtype.kind {
        case .enumeration:
            return [["typeName": typeName, "caseIterable": true]]
        case .optionSet(let options):
            return [["typeName": typeName, "optionSet": "(1 << \(min(options.count, 62)))"]]
        case .structure:
            // Each version's type (`Point_1_0`) with its members then, in order: member `i` gets `salt + i + 1`.
            let newest = model.versions.last ?? SchemaVersion("0")
            let types = [(typeName, newest)] + (model.structTypes.olderTypes[subtype.name] ?? []).map { ($0.typeName, $0.version) }
            return types.map { typeName, version in
                var members = (subtype.members(at: version) ?? []).enumerated().map { index, property -> [String: Any] in
                    // In a distinct seed, each member that can differ per row does (a nested struct too).
                    let distinct: Bool
                    switch property.type {
                    case .scalar(let scalar): distinct = SeedPlan.leafCanBeDistinct(scalar.rawValue)
                    case .subtype(let name), .composite(let name):
                        distinct = { if case .structure? = model.subtypes.first(where: { $0.name == name })?.kind { true } else { false } }()
                    case .array, .relationship: distinct = false
                    }
                    return [
                        "label": Naming.argumentLabel(Naming.swiftIdentifier(property.swiftMemberName)), "salt": index + 1,
                        "distinctMethod": distinct ? "seedDistinct" : "seed",
                    ]
                }
                if !members.isEmpty { members[members.count - 1]["last"] = true }
                var context: [String: Any] = ["typeName": typeName, "members": members, "structure": true]
                if compositeSubtypes.contains(subtype.name) { context["distinct"] = true }
                return context
            }
        }
    }

    // MARK: Schema registry

    /// Each distinct table definition becomes one constant, shared by every version that has it: the
    /// registry stays small for long histories, and no single expression is large enough to strain the
    /// Swift type checker (one literal per version made a 500-entity × 10-version registry run the
    /// compiler out of memory).
    func schema() -> [String: Any] {
        var tableProperties: [SchemaTable: String] = [:]
        var tables: [[String: Any]] = []
        var usedBy: [String: [String]] = [:]
        var definitionsPerName: [String: Int] = [:]
        var versions = model.schemas.map { schema -> [String: Any] in
            let properties = schema.tables.map { table -> String in
                if let existing = tableProperties[table] {
                    usedBy[existing, default: []].append(schema.version.string)
                    return existing
                }
                let count = definitionsPerName[table.name, default: 0] + 1
                definitionsPerName[table.name] = count
                let property = "table_\(table.name)_\(count)"
                tableProperties[table] = property
                usedBy[property] = [schema.version.string]
                var context = self.table(table)
                context["property"] = property
                tables.append(context)
                return property
            }
            return [
                "version": schema.version.string, "property": "version\(schema.version.identifierSuffix)", "checksum": schema.checksum,
                "tableProperties": properties, "tableNames": schema.tables.map(\.name),
            ]
        }
        // Every version after the first says only what changed since the one before: the tables it
        // replaces or adds, and the names it removes (a long history costs lines for its changes only).
        // A doc comment line in the registry's body has 8 characters before its text (`    /// `).
        let commentWidth = SwiftLayout.lineLimit - 8
        for index in versions.indices {
            let properties = versions[index]["tableProperties"] as! [String]
            let summary = "Schema version \(versions[index]["version"]!) (checksum `\(versions[index]["checksum"]!)`)"
            if index == 0 {
                versions[index]["full"] = true
                versions[index]["summaryLines"] = SwiftLayout.commentLines(summary + ".", width: commentWidth)
                continue
            }
            let before = Set(versions[index - 1]["tableProperties"] as! [String])
            let names = Set(versions[index]["tableNames"] as! [String])
            let changed = properties.filter { !before.contains($0) }
            let removed = (versions[index - 1]["tableNames"] as! [String]).filter { !names.contains($0) }
            versions[index]["previous"] = versions[index - 1]["property"]
            versions[index]["previousVersion"] = versions[index - 1]["version"]
            // `replacing: [...],` and `removing: [...])`, 8 spaces in.
            versions[index]["replacing"] = SwiftLayout.arrayLiteral(changed, indent: "        ", prefix: "replacing: ".count, suffix: 1)
            versions[index]["removing"] = SwiftLayout.arrayLiteral(removed.map(swiftStringLiteral), indent: "        ", prefix: "removing: ".count, suffix: 1)
            versions[index]["hasRemovals"] = !removed.isEmpty
            let said = changed.map { "`\($0)`" } + removed.map { "`\($0)` removed" }
            let changes = said.isEmpty ? "no table changed" : said.joined(separator: ", ")
            versions[index]["summaryLines"] = SwiftLayout.commentLines(
                "\(summary): \(changes) since \(versions[index - 1]["version"]!).", width: commentWidth)
        }
        // The newest version's statements, for readers; older versions' are one `lucidgen plan` away.
        if let last = model.schemas.last, !versions.isEmpty {
            // A statement holds the SQL literals of defaults: one comment line each, whatever they hold.
            // One clause per line where a statement is too long for one (``SQLLayout``).
            versions[versions.count - 1]["ddl"] = last.ddl.flatMap { SQLLayout.lines($0, width: commentWidth) }.map(swiftCommentText)
            versions[versions.count - 1]["hasDDL"] = true
        }
        let order = Dictionary(uniqueKeysWithValues: model.schemas.enumerated().map { ($1.version.string, $0) })
        for index in tables.indices {
            let property = tables[index]["property"] as! String
            tables[index]["usedBy"] = Self.versionRanges(usedBy[property]!, order: order)
        }
        let stages = model.customSteps.map { step -> [String: Any] in
            ["from": step.from.string, "to": step.to.string, "label": step.label, "tables": step.tables.map { swiftStringLiteral($0.table) }.joined(separator: ", ")]
        }
        // Each version's path to the newest, planned here once with the registry's stages (as the runtime
        // plans them when the app passes its stages).
        let explicit = model.customSteps.map { ExplicitStage(from: $0.from, to: $0.to, label: $0.label, transformedTables: $0.tables.map(\.table)) }
        // Each route an array literal, 8 spaces in, followed by a comma.
        let routes = ((try? MigrationPlanner(versions: model.schemas, stages: explicit))?.routes() ?? []).map { route in
            SwiftLayout.arrayLiteral(route.map { "LucidSchema.SchemaVersion(\(swiftStringLiteral($0.string)))" }, indent: "        ", suffix: 1)
        }
        return [
            "module": model.config.app.moduleName, "registryName": registryName, "versions": versions, "tables": tables,
            "stages": stages, "hasStages": !stages.isEmpty, "routes": routes,
            "newestVersion": model.schemas.last?.version.string ?? "", "newestChecksum": model.schemas.last?.checksum ?? "",
        ]
    }

    /// "version 1.0", "versions 1.0 to 2.3", "versions 1.0 to 1.4, 2.0": runs of consecutive versions.
    static func versionRanges(_ versions: [String], order: [String: Int]) -> String {
        var runs: [(String, String)] = []
        var last = -2
        for version in versions {
            let position = order[version] ?? -2
            if position == last + 1, !runs.isEmpty { runs[runs.count - 1].1 = version } else { runs.append((version, version)) }
            last = position
        }
        let text = runs.map { $0.0 == $0.1 ? $0.0 : "\($0.0) to \($0.1)" }.joined(separator: ", ")
        return (versions.count == 1 ? "version " : "versions ") + text
    }

    /// One table constant: its name and its JSON in a raw multi-line string literal
    /// (`SchemaTable.Deferred(name:json:)`), one column per line. Data rather than `SchemaColumn(…)` calls:
    /// a long history's thousands of them cost seconds of every build of the app, a string literal
    /// nothing; deferred, so that listing every version decodes only the tables a migration reads.
    private func table(_ table: SchemaTable) -> [String: Any] {
        let literal = swiftMultilineRawStringLiteral(table.json(indent: ""), indent: "            ")
        return ["name": table.name, "nameLiteral": swiftStringLiteral(table.name), "json": literal]
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
