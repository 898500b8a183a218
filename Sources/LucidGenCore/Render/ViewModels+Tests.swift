import LucidSchema
@_spi(Generated) import LucidSchema

extension ViewModels {
    // MARK: Migration tests

    /// The expressions the generated tests find their files with (``Renderer`` works them out).
    struct TestFiles {
        var samplesFolder: String
        var fixturesFolder: String
        var currentSnapshot: String
    }

    /// The generated migration test suite: seeds per version (built with that version's record types),
    /// the app's expectations as protocol requirements, names for messages, and Lucid's ignore ranges.
    ///
    /// The tests name the app's types after its module (`App.Tag_1_0`): there `Type` and `Protocol` would
    /// mean the metatype, so every `typeName`, `oldType` and `newType` is a ``Naming/memberTypeName(_:)``.
    func migrationTests(provider: String, files: TestFiles) -> TestsContext {
        let module = model.config.app.moduleName
        let fixtures = FixtureRows(model: model)
        let (seedFunctions, seeders) = seeding(fixtures)
        var naming: [TestsContext.EntityNames] = []
        var recordChecks: [TestsContext.RecordCheck] = []
        /// A to-many relationship's link table: named for messages and checked as records.
        func link(_ property: PropertyShape, of newest: EntityShape, alias: String) {
            guard case .toMany(_, _, _, let joinTable, _, _, let ordered) = property.kind else { return }
            let position = ordered ? ", \"\(LinkTable.positionColumn)\": \"position\"" : ""
            let link = property.linkColumns ?? .lucid(joinTable)
            let entity = swiftStringLiteral("\(alias).\(property.swiftName)")
            naming.append(
                TestsContext.EntityNames(
                    table: swiftStringLiteral(joinTable), entity: entity,
                    properties:
                        "[\(swiftStringLiteral(link.source)): \"sourceID\", \(swiftStringLiteral(link.target)): \"targetID\"\(position)]"))
            recordChecks.append(
                TestsContext.RecordCheck(typeName: Naming.memberTypeName("\(newest.typeName).\(property.linkTypeName)"), entity: entity))
        }
        for entity in model.entities {
            guard let newest = entity.newest else { continue }
            let alias = entity.typeName
            // Entity inheritance: a subentity's rows are checked in its root's table (named there, below), and
            // its record decodes the rows of its kinds.
            if entity.parent != nil {
                recordChecks.append(
                    TestsContext.RecordCheck(
                        typeName: Naming.memberTypeName(newest.typeName), entity: swiftStringLiteral(alias),
                        kinds: "\(newest.typeName).kinds"))
                let own = Set(newest.properties.map(\.currentName)).subtracting(
                    model.entities.first { $0.name == entity.parent }?.newest?.properties.map(\.currentName) ?? [])
                for property in newest.properties where own.contains(property.currentName) { link(property, of: newest, alias: alias) }
                continue
            }
            var hierarchyProperties: [PropertyShape] = []
            if !newest.kinds.isEmpty {
                var seen = Set(newest.properties.map(\.column))
                for member in model.entities
                where member.parent != nil && member.newest.map({ sqlNameKey($0.tableName) == sqlNameKey(newest.tableName) }) == true {
                    for property in member.newest!.properties where !property.isToMany && seen.insert(property.column).inserted {
                        hierarchyProperties.append(property)
                    }
                }
            }
            var properties: [(String, String)] = [(newest.identifier.column, newest.identifier.swiftName)]
            for property in newest.properties + hierarchyProperties {
                if property.isToMany {
                    link(property, of: newest, alias: alias)
                } else if case .composite(let composite) = property.kind {
                    // Each element's column by its Swift path, for messages: `colorScheme.primary`.
                    for leaf in composite.leaves(optional: property.nullable) {
                        properties.append((leaf.column, ([property.swiftName] + leaf.swiftPath).joined(separator: ".")))
                    }
                } else {
                    properties.append((property.column, property.swiftName))
                }
            }
            naming.append(
                TestsContext.EntityNames(
                    table: swiftStringLiteral(newest.tableName), entity: swiftStringLiteral(alias),
                    // An `EntityNaming`'s `properties:` dictionary (`"column": "swiftName"` entries), 16 spaces in.
                    properties: SwiftLayout.arrayLiteral(
                        properties.map { "\(swiftStringLiteral($0.0)): \(swiftStringLiteral($0.1))" }, indent: "                ",
                        prefix: "properties: ".count, suffix: 2)))
            recordChecks.append(
                TestsContext.RecordCheck(typeName: Naming.memberTypeName(newest.typeName), entity: swiftStringLiteral(alias)))
        }
        let exclusions = model.checkExclusionTargets.map { target in
            TestsContext.Exclusion(
                table: swiftStringLiteral(target.table), column: target.column.map(swiftStringLiteral) ?? "nil",
                from: target.from.map { "LucidRuntime.SchemaVersion(\"\($0.string)\")" } ?? "nil", before: target.before.string,
                why: swiftCommentText(target.reason))
        }
        let transforms = model.customSteps.flatMap { step in
            step.tables.map { table in
                TestsContext.Transform(
                    from: step.from.string, to: step.to.string, table: swiftStringLiteral(table.table), tableName: table.table,
                    oldType: Naming.memberTypeName(table.oldType), newType: Naming.memberTypeName(table.newType))
            }
        }
        let hooks = model.customSteps.compactMap { step in
            step.hookName.map {
                TestsContext.Hook(
                    from: step.from.string, to: step.to.string, name: $0, label: swiftStringLiteral($0),
                    typesAtFrom: fixtures.shapes(at: step.from).map { "`\($0.typeName)`" }.joined(separator: ", "),
                    typesAtTo: fixtures.shapes(at: step.to).map { "`\($0.typeName)`" }.joined(separator: ", "))
            }
        }
        return TestsContext(
            module: module, registryName: registryName, protocolName: "\(module)MigrationExpectations", provider: provider,
            suiteName: "\(module)MigrationTests", seedsName: "\(module)MigrationSeeds", current: model.currentVersion.string,
            // `arguments: [...])` in an attribute 8 spaces in; `releasedVersions: [Swift.String] = [...]` 4 in.
            versions: SwiftLayout.arrayLiteral(
                model.versions.map { swiftStringLiteral($0.string) }, indent: "        ", prefix: "arguments: ".count, suffix: 1),
            // Released versions must each have a committed fixture store: those before the current one, listed
            // here, and the current one once `lucidgen release` marked its snapshot, which the tests read (the
            // mark changes nothing generated). A brand-new project has none, and needs none.
            released: SwiftLayout.arrayLiteral(
                model.versions.filter { $0 < model.currentVersion }.map { swiftStringLiteral($0.string) }, indent: "    ",
                prefix: "static let releasedVersions: [Swift.String] = ".count),
            seedFunctions: seedFunctions, seeders: seeders, naming: naming, recordChecks: recordChecks, exclusions: exclusions,
            transforms: transforms, hooks: hooks,
            subtypes: model.subtypes.flatMap { subtype in
                // An enum with a history: each version's type seeds its own cases.
                seedableSubtypes(subtype)
                    + (model.enumTypes.olderTypes[subtype.name] ?? []).map {
                        TestsContext.SeedableSubtype(caseIterable: Naming.memberTypeName($0.typeName))
                    }
            },
            samplesFolder: files.samplesFolder, fixturesFolder: files.fixturesFolder, currentSnapshot: files.currentSnapshot)
    }

    /// One seeding function per distinct record type (its rows and links), and the range of versions each
    /// seeds: a long history changes few entities per version, so this grows with the changes.
    private func seeding(_ fixtures: FixtureRows) -> (functions: [TestsContext.SeedFunction], seeders: [TestsContext.Seeder]) {
        var functions: [TestsContext.SeedFunction] = []
        var functionNames: [String: String] = [:] // rendered body → function name
        var seeders: [TestsContext.Seeder] = []
        var open: [String: Int] = [:] // function name → its range's index in `seeders`
        var previous: SchemaVersion?
        // By record type and seed plan (the unique indexes at and after a version): each is built once.
        var bodies: [String: (record: TestsContext.SeedRecord, key: String)] = [:]
        for version in model.versions {
            var used: [String] = []
            let plans = fixtures.seedPlans(at: version)
            let limits = plans.compactMapValues(\.rowLimit)
            let blocks = fixtures.seedBlocks(at: version)
            for shape in fixtures.shapes(at: version) where !shape.abstract {
                let plan = plans[shape.entityName] ?? SeedPlan()
                var cacheKey =
                    limits.isEmpty && plan.isEmpty
                    ? shape.typeName : "\(shape.typeName)|\(plan)|\(limits.sorted { $0.key < $1.key })"
                if !blocks.own.isEmpty {
                    cacheKey += "|\(blocks.own.sorted { $0.key < $1.key })|\(blocks.referenced.sorted { $0.key < $1.key })"
                }
                // A CHECK that refuses edge values changes the seeds (it may come at a later version than the type).
                let refusals = shape.properties.enumerated().map { index, property in
                    plan.rules[property.currentName] == nil
                        ? fixtures.refusedSeeds(property, of: shape, salt: FixtureRows.salt(ofPropertyAt: index), at: version) : nil
                }
                if refusals.contains(where: { $0 != nil }) {
                    cacheKey += "|refused:\(refusals.map { $0.map { "\($0.period):\($0.refused)" } ?? "-" })"
                }
                let built =
                    bodies[cacheKey]
                    ?? {
                        let record = seedRecord(shape, plan: plan, limits: limits, fixtures: fixtures, blocks: blocks, version: version)
                        return (record, record.bodyKey)
                    }()
                bodies[cacheKey] = built
                let (record, body) = built
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
                    functions.append(TestsContext.SeedFunction(function: name, record: record))
                }
                used.append(name)
            }
            for (name, index) in open where !used.contains(name) {
                seeders[index].through = previous!.string
                open[name] = nil
            }
            for name in used where open[name] == nil {
                open[name] = seeders.count
                seeders.append(TestsContext.Seeder(function: name, from: version.string, through: ""))
            }
            previous = version
        }
        for (_, index) in open { seeders[index].through = previous!.string }
        return (functions, seeders)
    }

    /// How the generated tests seed one record type: its initialiser's arguments (edge values, references
    /// to other seeded rows) and the links of its to-many relationships.
    /// `plan` keeps the table's unique indexes unique (``SeedPlan``); `limits` are the row counts of the
    /// tables seeded with fewer rows than asked (references to them point at those rows).
    private func seedRecord(
        _ shape: EntityShape, plan: SeedPlan, limits: [String: Int], fixtures: FixtureRows,
        blocks: (own: [String: Int], referenced: [String: Int]) = ([:], [:]),
        version: SchemaVersion
    ) -> TestsContext.SeedRecord {
        func rowCount(_ entity: String) -> String { limits[entity].map { "Swift.min(rows, \($0))" } ?? "rows" }
        // Entity inheritance: an entity of a hierarchy seeds its own block of rows (``FixtureRows/seedBlocks(at:)``).
        func offset(_ block: Int?) -> String { block.map { $0 > 0 ? " + \($0) * rows" : "" } ?? "" }
        let block = blocks.own[shape.entityName] ?? 0
        let rowRange =
            block > 0 ? "(\(block) * rows + 1)...(\(block) * rows + \(rowCount(shape.entityName)))" : "1...\(rowCount(shape.entityName))"
        var expressions: [String: String] = [:]
        expressions[Naming.swiftIdentifier(shape.identifier.swiftName)] = "LucidTesting.Seed.identifier(row: row)"
        var links: [TestsContext.SeedLink] = []
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
                case nil:
                    // The edge values the table's CHECKs refuse give way to the next row's (as `FixtureRows` writes them).
                    if let refusal = fixtures.refusedSeeds(property, of: shape, salt: salt, at: version) {
                        let refused = refusal.refused.map(String.init).joined(separator: ", ")
                        expressions[swiftName] =
                            ".seed(row: LucidTesting.Seed.passingRow(row, period: \(refusal.period), refused: [\(refused)]), salt: \(salt))"
                    } else {
                        expressions[swiftName] = ".seed(row: row, salt: \(salt))"
                    }
                case .distinct?: expressions[swiftName] = ".seedDistinct(row: row, salt: \(salt))"
                case .product(let divisor, let count, let nullBeyond)?:
                    expressions[swiftName] =
                        property.nullable
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
                links.append(
                    TestsContext.SeedLink(
                        linkType: "\(Naming.memberTypeName(shape.typeName)).\(property.linkTypeName)",
                        maxLinks: fixtures.maxLinks(property, of: shape),
                        rowCount: rowCount(shape.entityName), targetRows: rowCount(entity), rowRange: rowRange,
                        targetOffset: offset(blocks.referenced[entity]), ordered: ordered))
            }
        }
        let parameters = initializerParameters(of: shape)
        let arguments = parameters.enumerated().map { index, parameter in
            TestsContext.SeedArgument(
                label: Naming.argumentLabel(parameter), value: expressions[parameter] ?? ".seed(row: row, salt: 0)",
                last: index == parameters.count - 1)
        }
        return TestsContext.SeedRecord(
            typeName: Naming.memberTypeName(shape.typeName), arguments: arguments, links: links,
            superseded: !newestTypeNames.contains(shape.typeName),
            rowCount: rowCount(shape.entityName), rowRange: rowRange)
    }

    /// A generated subtype's `Seedable` conformance: enums by their cases, option sets by their bits,
    /// structs member by member.
    private func seedableSubtypes(_ subtype: SubtypeDescription) -> [TestsContext.SeedableSubtype] {
        let typeName = Naming.memberTypeName(subtype.swiftTypeName)
        switch subtype.kind {
        case .enumeration:
            return [TestsContext.SeedableSubtype(caseIterable: typeName)]
        case .optionSet(let options):
            return [
                TestsContext.SeedableSubtype(
                    typeName: typeName, caseIterable: false, optionSet: "(1 << \(min(options.count, 62)))", structure: false, members: [],
                    distinct: false)
            ]
        case .structure:
            // Each version's type (`Point_1_0`) with its members then, in order: member `i` gets `salt + i + 1`.
            let newest = model.versions.last ?? SchemaVersion("0")
            let types =
                [(typeName, newest)]
                + (model.structTypes.olderTypes[subtype.name] ?? []).map { (Naming.memberTypeName($0.typeName), $0.version) }
            return types.map { typeName, version in
                let properties = subtype.members(at: version) ?? []
                let members = properties.enumerated().map { index, property in
                    // In a distinct seed, each member that can differ per row does (a nested struct too).
                    let distinct: Bool
                    switch property.type {
                    case .scalar(let scalar): distinct = SeedPlan.leafCanBeDistinct(scalar.rawValue)
                    case .subtype(let name), .composite(let name):
                        distinct = {
                            if case .structure? = model.subtypes.first(where: { $0.name == name })?.kind { true } else { false }
                        }()
                    case .array, .relationship: distinct = false
                    }
                    return TestsContext.SeedMember(
                        label: Naming.argumentLabel(Naming.swiftIdentifier(property.swiftMemberName)), salt: index + 1,
                        distinctMethod: distinct ? "seedDistinct" : "seed", last: index == properties.count - 1)
                }
                return TestsContext.SeedableSubtype(
                    typeName: typeName, caseIterable: false, optionSet: nil, structure: true, members: members,
                    distinct: compositeSubtypes.contains(subtype.name))
            }
        }
    }
}

extension TestsContext.SeedableSubtype {
    /// An enum's conformance: its cases.
    init(caseIterable typeName: String) {
        self.init(typeName: typeName, caseIterable: true, optionSet: nil, structure: false, members: [], distinct: false)
    }
}

extension TestsContext.SeedRecord {
    /// What a seeding function's body says, as one string: two versions share a function only when their
    /// bodies are equal.
    var bodyKey: String {
        let arguments = self.arguments.map { "\($0.label)=\($0.value)" }
        let links = self.links.map { "\($0.linkType)/\($0.maxLinks)/\($0.rowCount)/\($0.targetRows)/\($0.targetOffset)/\($0.ordered)" }
        return "\(typeName)\(rowRange)(\(arguments.joined(separator: ",")))\(links.joined(separator: ","))"
    }
}
