import LucidSchema
@_spi(Generated) import LucidSchema

extension ViewModels {
    // MARK: Schema registry

    /// Each distinct table definition becomes one constant, shared by every version that has it: the
    /// registry stays small for long histories, and no single expression is large enough to strain the
    /// Swift type checker (one literal per version made a 500-entity × 10-version registry run the
    /// compiler out of memory).
    func schema() -> SchemaContext {
        var tableProperties: [SchemaTable: String] = [:]
        var tables: [(table: SchemaTable, property: String)] = []
        var usedBy: [String: [String]] = [:]
        var definitionsPerName: [String: Int] = [:]
        // Each version's table constants, in its table order.
        let properties = model.schemas.map { schema in
            schema.tables.map { table -> String in
                if let existing = tableProperties[table] {
                    usedBy[existing, default: []].append(schema.version.string)
                    return existing
                }
                let count = definitionsPerName[table.name, default: 0] + 1
                definitionsPerName[table.name] = count
                let property = "table_\(table.name)_\(count)"
                tableProperties[table] = property
                usedBy[property] = [schema.version.string]
                tables.append((table, property))
                return property
            }
        }
        // Every version after the first says only what changed since the one before: the tables it
        // replaces or adds, and the names it removes (a long history costs lines for its changes only).
        // A doc comment line in the registry's body has 8 characters before its text (`    /// `).
        let commentWidth = SwiftLayout.lineLimit - 8
        var versions = model.schemas.indices.map { index in
            let schema = model.schemas[index]
            let property = "version\(schema.version.identifierSuffix)"
            let checksum = model.checksum(at: index)
            let summary = "Schema version \(schema.version.string) (checksum `\(checksum)`)"
            var version = SchemaContext.Version(
                version: schema.version.string, property: property, checksum: checksum, tableProperties: properties[index],
                summaryLines: [], full: index == 0, hasRemovals: false, ddl: [], hasDDL: false)
            guard index > 0 else {
                version.summaryLines = SwiftLayout.commentLines(summary + ".", width: commentWidth)
                return version
            }
            let previous = model.schemas[index - 1]
            let before = Set(properties[index - 1])
            let names = Set(schema.tables.map(\.name))
            let changed = properties[index].filter { !before.contains($0) }
            let removed = previous.tables.map(\.name).filter { !names.contains($0) }
            version.previous = "version\(previous.version.identifierSuffix)"
            version.previousVersion = previous.version.string
            // `replacing: [...],` and `removing: [...])`, 8 spaces in.
            version.replacing = SwiftLayout.arrayLiteral(changed, indent: "        ", prefix: "replacing: ".count, suffix: 1)
            version.removing = SwiftLayout.arrayLiteral(
                removed.map(swiftStringLiteral), indent: "        ", prefix: "removing: ".count, suffix: 1)
            version.hasRemovals = !removed.isEmpty
            let said = changed.map { "`\($0)`" } + removed.map { "`\($0)` removed" }
            let changes = said.isEmpty ? "no table changed" : said.joined(separator: ", ")
            version.summaryLines = SwiftLayout.commentLines("\(summary): \(changes) since \(previous.version.string).", width: commentWidth)
            return version
        }
        // The newest version's statements, for readers; older versions' are one `lucidgen plan` away.
        if let last = model.schemas.last, !versions.isEmpty {
            // A statement holds the SQL literals of defaults: one comment line each, whatever they hold.
            // One clause per line where a statement is too long for one (``SQLLayout``).
            versions[versions.count - 1].ddl = last.ddl.flatMap { SQLLayout.lines($0, width: commentWidth) }.map(swiftCommentText)
            versions[versions.count - 1].hasDDL = true
        }
        let order = Dictionary(uniqueKeysWithValues: model.schemas.enumerated().map { ($1.version.string, $0) })
        let stages = model.customSteps.map { step in
            SchemaContext.Stage(
                from: step.from.string, to: step.to.string, label: step.label,
                tables: step.tables.map { swiftStringLiteral($0.table) }.joined(separator: ", "))
        }
        // Each version's path to the newest, planned once with the registry's stages (as the runtime plans them
        // when the app passes its stages); each route an array literal, 8 spaces in, followed by a comma.
        let routes = model.planRoutes().map { route in
            SwiftLayout.arrayLiteral(
                route.map { "LucidSchema.SchemaVersion(\(swiftStringLiteral($0.string)))" }, indent: "        ", suffix: 1)
        }
        return SchemaContext(
            module: model.config.app.moduleName, registryName: registryName, versions: versions,
            tables: tables.map {
                self.table($0.table, property: $0.property, usedBy: Self.versionRanges(usedBy[$0.property]!, order: order))
            },
            stages: stages, hasStages: !stages.isEmpty, routes: routes,
            newestVersion: model.schemas.last?.version.string ?? "",
            newestChecksum: model.schemas.isEmpty ? "" : model.checksum(at: model.schemas.count - 1))
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
    private func table(_ table: SchemaTable, property: String, usedBy: String) -> SchemaContext.Table {
        let literal = swiftMultilineRawStringLiteral(table.json(indent: ""), indent: "            ")
        return SchemaContext.Table(
            property: property, name: table.name, nameLiteral: swiftStringLiteral(table.name), json: literal, usedBy: usedBy)
    }

    // MARK: Custom stages

    func migrations() -> MigrationsContext {
        var requirements: [MigrationsContext.Requirement] = []
        var steps: [MigrationsContext.Step] = []
        var hooks: [MigrationsContext.Hook] = []
        for step in model.customSteps {
            for table in step.tables {
                requirements.append(
                    MigrationsContext.Requirement(
                        from: step.from.string, to: step.to.string, table: table.table,
                        reasons: swiftCommentText(table.reasons.joined(separator: "; ")),
                        oldType: table.oldType, newType: table.newType))
            }
            steps.append(
                MigrationsContext.Step(
                    from: step.from.string, to: step.to.string, label: step.label,
                    tables: step.tables.map { MigrationsContext.StepTable(table: $0.table, oldType: $0.oldType, newType: $0.newType) },
                    hasTables: !step.tables.isEmpty, hook: step.hookName))
            if let hook = step.hookName {
                hooks.append(
                    MigrationsContext.Hook(
                        from: step.from.string, to: step.to.string, name: hook, notes: step.hookNotes.map(swiftCommentText),
                        hasNotes: !step.hookNotes.isEmpty))
            }
        }
        return MigrationsContext(
            module: model.config.app.moduleName, protocolName: "\(model.config.app.moduleName)Migrations", registryName: registryName,
            requirements: requirements, steps: steps, hooks: hooks, provider: model.config.migrationsProvider)
    }
}
