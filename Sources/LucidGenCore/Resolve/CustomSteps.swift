import Foundation
@_spi(Generated) import LucidSchema

extension Resolver {
    /// The steps SQL alone cannot make, as the same planner the runtime uses says: each needs a row
    /// transform from the app (a requirement of the generated migrations protocol) or runs a stage the
    /// config declares.
    static func customSteps(
        _ versioned: VersionedEntities, _ schemas: [Schema], entities: [ResolvedEntity], requirements: GeneratedRequirements,
        _ diagnostics: inout DiagnosticCollector
    ) -> [CustomStep] {
        let inference = StepInference(versions: schemas)
        // Each step is inferred on its own (a long history has one per version): on every core.
        let steps = Parallel.map(count: max(schemas.count - 1, 0)) { inference.operations(from: $0, to: $0 + 1) }
        var customSteps: [CustomStep] = []
        for index in schemas.indices.dropFirst() {
            switch steps[index - 1] {
            case .failure(let reason):
                customSteps.append(
                    rowTransforms(for: reason, entities: entities, config: versioned.config, requirements: requirements, &diagnostics))
            case .success(let operations):
                for case .rebuildTable(let rebuild) in operations where !rebuild.collapsedJoinTables.isEmpty {
                    diagnostics.warning(
                        "\(schemas[index - 1].version) → \(schemas[index].version): \(rebuild.table.name) turns a to-many relationship into a to-one; the migration fails (and changes nothing) if a row has several links"
                    )
                }
            }
        }
        addingHookStages(to: &customSteps, versioned, schemas, inference: inference, &diagnostics)
        customSteps.sort { ($0.from, $0.to) < ($1.from, $1.to) }
        return customSteps
    }

    /// The row transform each table of a step that cannot be inferred needs, each told to the user: as a
    /// warning while the generated protocol does not require it yet, then as a note (shown with --verbose),
    /// since from then on the app's build fails until the app implements it.
    private static func rowTransforms(
        for reason: NotInferable, entities: [ResolvedEntity], config: Config, requirements: GeneratedRequirements,
        _ diagnostics: inout DiagnosticCollector
    ) -> CustomStep {
        var tables: [CustomStep.Table] = []
        for table in reason.tables {
            func shape(at version: SchemaVersion, table name: String?) -> EntityShape? {
                // A hierarchy's table is its root's (its subentities share it).
                entities.lazy.filter { $0.parent == nil }.compactMap { entity in entity.shapes.last { $0.version <= version } }
                    .first { name == nil || $0.tableName == name }
            }
            guard let newShape = shape(at: reason.to, table: table),
                let entity = entities.first(where: { $0.name == newShape.entityName }),
                let oldShape = entity.shapes.last(where: { $0.version <= reason.from })
            else {
                diagnostics.error("\(reason.from) → \(reason.to): table \(table) needs the app's code but is no entity's table")
                continue
            }
            let reasons = reason.reasons.filter { $0.hasPrefix(table + ".") }
            tables.append(CustomStep.Table(table: table, oldType: oldShape.typeName, newType: newShape.typeName, reasons: reasons))
            let provider =
                config.migrationsProvider.map { "in \($0) (migrations_provider)" }
                ?? "in the type you pass to \(config.app.moduleName)Schema.stages(using:) (or name it as migrations_provider)"
            let message =
                "\(reason.from) → \(reason.to) cannot be inferred (\(reasons.joined(separator: "; "))): implement `func migrate(_ old: \(oldShape.typeName)) throws -> \(newShape.typeName)?` \(provider)"
            if requirements.contains(migratingFrom: oldShape.typeName, to: newShape.typeName) {
                diagnostics.note(message)
            } else {
                diagnostics.warning(message)
            }
        }
        return CustomStep(from: reason.from, to: reason.to, tables: tables)
    }

    /// Each stage of the config's `stages` on the step it names: on a step that needs the app's code, or one
    /// of its own (with the row transforms of the steps it spans).
    private static func addingHookStages(
        to customSteps: inout [CustomStep], _ versioned: VersionedEntities, _ schemas: [Schema], inference: StepInference,
        _ diagnostics: inout DiagnosticCollector
    ) {
        for stage in versioned.config.hookStages {
            guard let from = schemas.firstIndex(where: { $0.version == stage.from }),
                let to = schemas.firstIndex(where: { $0.version == stage.to }), from < to
            else {
                diagnostics.error(
                    "stage '\(stage.name)' must go from one version of the histories to a later one (versions: \(versioned.versions.map(\.string).joined(separator: ", ")))",
                    at: stage.location)
                continue
            }
            let existing = customSteps.firstIndex { $0.from == stage.from && $0.to == stage.to }
            if let existing {
                customSteps[existing].hookName = stage.name
                customSteps[existing].hookNotes = stage.notes
            } else {
                var step = CustomStep(from: stage.from, to: stage.to, tables: [], hookName: stage.name, hookNotes: stage.notes)
                if case .failure(let reason) = inference.operations(from: from, to: to) {
                    // A stage spanning versions also carries the row transforms its range needs.
                    step.tables = customSteps.filter { $0.from >= stage.from && $0.to <= stage.to }.flatMap(\.tables).filter {
                        reason.tables.contains($0.table)
                    }
                }
                customSteps.append(step)
            }
        }
    }
}

/// The row transforms the migrations protocol lucidgen generated last time requires (`func migrate(_ old:
/// Old) throws -> New?`, one a line), read from the app's generated folder. A requirement there is one the
/// app's build already enforces: until the app implements it, the conformance does not compile.
package struct GeneratedRequirements: Sendable {
    /// Each requirement as declared, e.g. `func migrate(_ old: Track_1_0) throws -> Track_2_0?`.
    var declarations: Set<String>
    /// Every requirement is one the build enforces: the build plugin renders the protocol into the very
    /// build that compiles the app (`generate --module-output`, or `build_plugin: true`, where `generate`
    /// writes no Swift and the plugin's build does).
    var enforcedByTheBuild = false

    init(declarations: Set<String> = [], enforcedByTheBuild: Bool = false) {
        self.declarations = declarations
        self.enforcedByTheBuild = enforcedByTheBuild
    }

    /// What the build plugin's builds enforce: everything they render.
    static let renderedIntoTheBuild = GeneratedRequirements(enforcedByTheBuild: true)

    /// The migrations file of the app's generated folder; none (first run, the file removed) requires
    /// nothing. With `build_plugin: true` the plugin's build renders and enforces every requirement.
    static func read(config: Config) -> GeneratedRequirements {
        if config.buildPlugin { return .renderedIntoTheBuild }
        let path = (absolutePath(config.app.outputPath) as NSString).appendingPathComponent("\(config.app.moduleName)Migrations.swift")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return GeneratedRequirements() }
        return GeneratedRequirements(text: text)
    }

    init(text: String) {
        declarations = Set(
            text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("func migrate(_ old: ") })
    }

    func contains(migratingFrom old: String, to new: String) -> Bool {
        enforcedByTheBuild || declarations.contains("func migrate(_ old: \(old)) throws -> \(new)?")
    }
}
