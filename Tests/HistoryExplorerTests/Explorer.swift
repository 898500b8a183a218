import Foundation
import GRDB
import Logging
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting

@testable import LucidGenCLI

/// Plays a ``History`` the way a user works, in process, and checks every migration it implies:
///
/// 1. release by release: edit the descriptions, set `current_version`, run the generator (snapshots of
///    released versions freeze as they would; `.schema/` is never edited by hand), run it again (nothing
///    may change), and write that release's fixture with `lucidgen fixtures`;
/// 2. at the newest release: for every version, a store seeded with edge values, and every fixture, is
///    migrated by the runtime with the app's stages (the explorer writes the row transforms that lossy type
///    changes need, and their expectations) and checked by LucidTesting's oracle: every value, the schema
///    against a fresh newest store, `foreign_key_check`, `integrity_check`;
/// 3. the steps a migration records are the path `lucidgen plan` computes for the same file;
/// 4. `lucidgen check`'s lint reports every removal, rename, type change, new requirement, enum case change
///    and struct member change (per composite element) the history made, as many times as it made it, and no other;
/// 5. the registry converts exactly the values the history changed without a type change: the members of
///    JSON structs made composite, the renamed and removed cases of `status`, the JSON structs whose members
///    change (the app's code); and every composite's elements at every version follow its struct's members then.
struct Explorer {
    let history: History
    /// Rows per entity in seeded stores and fixtures.
    var seededRows = Seed.rows
    var fixtureRows = 5
    /// Draws the app objects planted on the stores migrated from older versions (``AppObjectOracle``).
    var objectSeed: UInt64 = 0
    /// `LUCIDGEN_EXPLORE_OBJECTS=0` leaves the app's objects out (to time the explorer without them).
    static let plantsObjects = ProcessInfo.processInfo.environment["LUCIDGEN_EXPLORE_OBJECTS"] != "0"

    struct Outcome {
        var failures: [String] = []
        var releases = 0
        var stores = 0
        /// Per store migrated with the app's objects: what became of them.
        var objectResults: [AppObjectOracle.Result: Int] = [:]
    }

    func run() -> Outcome {
        var outcome = Outcome()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-explore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        do {
            try play(in: root, &outcome)
        } catch {
            outcome.failures.append("the explorer itself failed: \(error)")
        }
        return outcome
    }

    static func config(currentVersion: String) -> String {
        """
        input_path: .entities
        current_version: \(json(currentVersion))
        targets:
          app:
            module_name: Explored
            output_path: Sources/Explored/Generated
          app_tests:
            module_name: ExploredTests
            output_path: Tests/ExploredTests/Generated
            expectations_provider: ExploredExpectations

        """
    }

    private func write(_ files: [String: String], under root: URL) throws {
        for (path, contents) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }
    }

    private func play(in root: URL, _ outcome: inout Outcome) throws {
        guard let (model, workspace) = try playReleases(in: root, &outcome) else { return }
        try check(model, workspace: workspace, configPath: root.appendingPathComponent(".lucid.yaml").path, root: root, &outcome)
    }

    /// Release by release: edit, generate (twice), write the release's fixture. Returns the newest model,
    /// or nil when a release failed (the failure is in `outcome`).
    /// `afterGenerate` runs after each release's `generate`, with the release (the compiled batch writes the
    /// app code that release's records allowed, which every later release must still compile).
    func playReleases(in root: URL, _ outcome: inout Outcome, afterGenerate: ((History.Release) throws -> Void)? = nil) throws -> (
        ResolvedModel, Workspace
    )? {
        let configPath = root.appendingPathComponent(".lucid.yaml").path
        var workspace = Workspace()
        var model: ResolvedModel?
        for release in history.releases {
            workspace.apply(release)
            var files = ["/.lucid.yaml": Self.config(currentVersion: release.configSpelling)]
            for (path, contents) in workspace.descriptionFiles() { files[".entities/" + path] = contents }
            try write(files, under: root)
            let label = "release \(release.version)"
            do {
                let result = try GeneratorPipeline(configPath: configPath).run(check: false)
                model = result.model
            } catch {
                outcome.failures.append("\(label): generate failed:\n" + error.diagnostics.map { "    \($0)" }.joined(separator: "\n"))
                return nil
            }
            do {
                let again = try GeneratorPipeline(configPath: configPath).run(check: true)
                if !again.report.isUpToDate {
                    outcome.failures.append(
                        "\(label): a second generate would change \(again.report.created + again.report.updated + again.report.removed)")
                }
            } catch {
                outcome.failures.append(
                    "\(label): a second generate fails:\n" + error.diagnostics.map { "    \($0)" }.joined(separator: "\n"))
                return nil
            }
            outcome.releases += 1
            try afterGenerate?(release)
            do {
                // The release's fixture, written as the release is made (the version is final here).
                let fixtures = try Fixtures.parse(["--config", configPath, "--rows", "\(fixtureRows)", "--unreleased"])
                try fixtures.run()
            } catch {
                outcome.failures.append("\(label): lucidgen fixtures failed: \(error)")
            }
        }
        return model.map { ($0, workspace) }
    }

    // MARK: Checking the newest release

    private func check(_ model: ResolvedModel, workspace: Workspace, configPath: String, root: URL, _ outcome: inout Outcome) throws {
        let (stages, expectations, problems) = appCode(for: model, workspace: workspace)
        outcome.failures += problems
        outcome.failures += checkLint(configPath: configPath, workspace: workspace)
        outcome.failures += checkColumnLineage(model, workspace: workspace)
        var options = StoreOptions()
        options.stages = stages
        let registryStages = model.customSteps.map {
            ExplicitStage(from: $0.from, to: $0.to, label: $0.label, transformedTables: $0.tables.map(\.table))
        }
        let exclusions = model.checkExclusionTargets.map {
            CheckExclusion(table: $0.table, column: $0.column, from: $0.from, before: $0.before)
        }
        let harness = MigrationTestHarness(
            versions: model.schemas, stages: registryStages, options: options, expectations: expectations, exclusions: exclusions)

        let rows = FixtureRows(model: model)
        for schema in model.schemas {
            outcome.stores += 1
            let failures = harness.checkSeeded(from: schema.version, rows: seededRows) { db, count in
                for statement in rows.insertStatements(at: schema.version, rows: count) { try db.execute(sql: statement) }
            }
            outcome.failures += failures.map(\.description)
        }
        // The same stores shared with the app: its objects survive every step, or the step refuses.
        let objects = AppObjectOracle(
            history: history, workspace: workspace, model: model, seed: objectSeed, options: options, registryStages: registryStages,
            rows: rows)
        for (index, schema) in model.schemas.enumerated().dropLast() where Self.plantsObjects {
            outcome.stores += 1
            let (failures, result) = objects.check(from: schema, index: index)
            outcome.failures += failures
            outcome.objectResults[result, default: 0] += 1
        }
        let folder = model.config.appTests.map { ($0.outputPath as NSString).appendingPathComponent("Fixtures") } ?? ""
        for fixture in try FixtureFiles.list(in: folder) {
            outcome.stores += 1
            outcome.failures += harness.checkFixture(at: fixture).map(\.description)
            outcome.failures += checkPath(
                of: fixture, configPath: configPath, options: options, registryStages: registryStages, versions: model.schemas)
        }
    }

    /// The steps a migration records are the ones `lucidgen plan` shows for the same file.
    private func checkPath(
        of fixture: String, configPath: String, options: StoreOptions, registryStages: [ExplicitStage], versions: [Schema]
    ) -> [String] {
        let name = (fixture as NSString).lastPathComponent
        let copy = (NSTemporaryDirectory() as NSString).appendingPathComponent("explore-path-\(UUID().uuidString).sqlite")
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: copy + suffix) } }
        do {
            try FileManager.default.copyItem(atPath: fixture, toPath: copy)
            let resolved = try StoreCommandOptions.parse(["--config", configPath]).resolve()
            let (planVersions, planStages) = (resolved.versions, resolved.stages)
            let planned = try LucidStore.inspect(atPath: copy, versions: planVersions, stages: planStages).steps.map {
                "\($0.from) → \($0.to)"
            }
            let logged = try DatabaseQueue(path: copy).read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM lucid_migration_log") ?? 0
            }
            var migrationOptions = options
            migrationOptions.declaredStages += registryStages
            migrationOptions.logger = Logger(label: "lucidgen.explorer") { _ in SwiftLogNoOpLogHandler() }
            let database = try LucidStore.open(atPath: copy, versions: versions, options: migrationOptions).database
            let taken = try database.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT from_version, to_version FROM lucid_migration_log ORDER BY rowid LIMIT -1 OFFSET ?",
                    arguments: [logged]
                )
                .map { "\($0["from_version"] as String) → \($0["to_version"] as String)" }
            }
            try database.close()
            if planned.map(normalized) != taken.map(normalized) {
                return ["from fixture \(name): lucidgen plan shows \(planned) but the migration took \(taken)"]
            }
        } catch {
            return ["from fixture \(name): the path check failed: \(error)"]
        }
        return []
    }

    private func normalized(_ step: String) -> String {
        step.split(separator: " ").map { part in (try? SchemaVersion(parsing: String(part))).map(\.description) ?? String(part) }.joined(
            separator: " ")
    }

    // MARK: What the registry says about values

    /// The registry's account of values that change without a type change, against the history: the columns
    /// of a JSON struct made composite each extract their member (`extractedFrom`, `jsonPath`), and every
    /// column holding `status` records exactly the renamed and removed cases of its version (`caseChanges`).
    /// The harness computes the expected values from these, so together they check the values against the history.
    func checkColumnLineage(_ model: ResolvedModel, workspace: Workspace) -> [String] {
        var expected: Set<String> = []
        var failures: [String] = []
        for release in history.releases {
            guard let parsed = try? SchemaVersion(parsing: release.version),
                let version = model.schemas.first(where: { $0.version == parsed })?.version
            else { continue }
            func column(of entityKey: Int, _ propertyKey: Int) -> (table: String, column: String)? {
                guard let entity = workspace.entity(entityKey), let property = entity.property(propertyKey),
                    let shape = model.entities.first(where: { $0.name == entity.name })?.shapes.last(where: { $0.version <= version }),
                    let column = shape.properties.first(where: { $0.currentName == property.name })?.column
                else { return nil }
                return (shape.tableName, column)
            }
            let previous = history.releases.firstIndex { $0.version == release.version }.flatMap {
                $0 > 0 ? history.releases[$0 - 1].version : nil
            }
            let structsNow = workspace.structsAt[release.version] ?? [:]
            let structsBefore = previous.flatMap { workspace.structsAt[$0] } ?? [:]
            for case .makeComposite(let entityKey, let propertyKey) in workspace.applied[release.version] ?? [] {
                guard let (table, base) = column(of: entityKey, propertyKey),
                    case .composite(let name)? = workspace.entity(entityKey)?.property(propertyKey)?.kind
                else {
                    failures.append("explorer: cannot find the column of #\(entityKey).#\(propertyKey) made composite at \(version)")
                    continue
                }
                // Each element reads its member by the names the JSON was written with (a member new at this version reads nothing).
                let before = Workspace.leaves(of: name, in: structsBefore, optional: false)
                for leaf in Workspace.leaves(of: name, in: structsNow, optional: false) {
                    guard let old = before.first(where: { $0.identity == leaf.identity }) else { continue }
                    expected.insert(
                        "\(version) \(table).\(base)_\(leaf.path.joined(separator: "_")) = json_extract(\(base), '$.\(old.path.joined(separator: "."))')"
                    )
                }
            }
            for change in workspace.typeChanges[release.version] ?? [] {
                guard case .structMembers = change.conversion else { continue }
                guard let (table, name) = column(of: change.entity, change.property) else {
                    failures.append("explorer: cannot find the JSON struct column of #\(change.entity).#\(change.property) at \(version)")
                    continue
                }
                expected.insert("\(version) \(table).\(name) JSON struct members change")
            }
            failures += checkElements(model, workspace: workspace, release: release.version, previous: previous, version: version)
            let changes = workspace.caseChanges(at: release.version)
            if !changes.isEmpty {
                for holder in workspace.caseHolders[release.version] ?? [] {
                    guard let (table, name) = column(of: holder.entity, holder.property) else {
                        failures.append("explorer: cannot find the status column of #\(holder.entity).#\(holder.property) at \(version)")
                        continue
                    }
                    expected.insert("\(version) \(table).\(name) cases \(changes)")
                }
            }
        }
        var recorded: Set<String> = []
        for schema in model.schemas {
            for table in schema.tables {
                for column in table.columns {
                    if let source = column.extractedFrom {
                        recorded.insert(
                            "\(schema.version) \(table.name).\(column.name) = json_extract(\(source), '\(column.jsonPath ?? "")')")
                    }
                    if let changes = column.caseChanges {
                        recorded.insert("\(schema.version) \(table.name).\(column.name) cases \(changes)")
                    }
                    if column.jsonStructChange != nil {
                        recorded.insert("\(schema.version) \(table.name).\(column.name) JSON struct members change")
                    }
                }
            }
        }
        let missing = expected.subtracting(recorded).sorted()
        let phantom = recorded.subtracting(expected).sorted()
        if !missing.isEmpty {
            failures.append(
                "registry: the history converts these values but the registry does not say so: \(missing.joined(separator: "; "))")
        }
        if !phantom.isEmpty {
            failures.append("registry: the registry converts values the history did not change: \(phantom.joined(separator: "; "))")
        }
        return failures
    }

    /// The elements of every composite at a version against the struct's members then: each column (by the
    /// members' names then), NOT NULL, required when its optional composite is present, with a default; and
    /// `renamedFrom` exactly where the element's column was named otherwise at the previous version.
    func checkElements(_ model: ResolvedModel, workspace: Workspace, release: String, previous: String?, version: SchemaVersion) -> [String]
    {
        guard let entities = workspace.entitiesAt[release], let structs = workspace.structsAt[release],
            let schema = model.schemas.first(where: { $0.version == version })
        else { return [] }
        let previousVersion = previous.flatMap { try? SchemaVersion(parsing: $0) }
        var failures: [String] = []
        for entity in entities where entity.removedAt == nil {
            guard let final = workspace.entity(entity.key), let resolved = model.entities.first(where: { $0.name == final.name }),
                let shape = resolved.shapes.last(where: { $0.version <= version })
            else { continue }
            for property in entity.properties where property.removedAt == nil {
                guard case .composite(let name) = property.kind, let finalName = final.property(property.key)?.name else { continue }
                guard let propertyShape = shape.properties.first(where: { $0.currentName == finalName }),
                    case .composite(let composite) = propertyShape.kind
                else {
                    failures.append(
                        "registry: composite #\(entity.key).#\(property.key) (\(final.name).\(finalName)) has no composite shape at \(version)"
                    )
                    continue
                }
                let table = schema.table(named: shape.tableName)
                // The element's column at the previous version, where the property was a composite of the same struct then.
                var oldColumns: [[Int]: String] = [:]
                if let previous, let previousVersion,
                    let old = workspace.entitiesAt[previous]?.first(where: { $0.key == entity.key && $0.removedAt == nil })?.property(
                        property.key),
                    old.removedAt == nil, old.kind == property.kind,
                    let oldShape = resolved.shapes.last(where: { $0.version <= previousVersion })?.properties.first(where: {
                        $0.currentName == finalName
                    })
                {
                    for leaf in Workspace.leaves(of: name, in: workspace.structsAt[previous] ?? [:], optional: false) {
                        oldColumns[leaf.identity] = oldShape.column + "_" + leaf.path.joined(separator: "_")
                    }
                }
                let expected = Workspace.leaves(of: name, in: structs, optional: property.nullable).map { leaf -> String in
                    let column = propertyShape.column + "_" + leaf.path.joined(separator: "_")
                    let renamed = oldColumns[leaf.identity].flatMap { $0 != column ? $0 : nil }
                    return
                        "\(column)\(leaf.notNull ? " NOT NULL" : "")\(leaf.requiredWhenPresent ? " required when present" : "")\(leaf.hasDefault ? " with default" : "")\(renamed.map { " renamed from \($0)" } ?? "")"
                }
                let recorded = composite.leaves(optional: propertyShape.nullable).map { leaf -> String in
                    let renamed = table?.column(named: leaf.column)?.renamedFrom
                    return
                        "\(leaf.column)\(leaf.notNull ? " NOT NULL" : "")\(leaf.requiredWhenPresent ? " required when present" : "")\(leaf.defaultSQL != nil ? " with default" : "")\(renamed.map { " renamed from \($0)" } ?? "")"
                }
                if expected != recorded {
                    failures.append(
                        "registry: composite \(shape.tableName).\(propertyShape.column) at \(version) has elements \(recorded), but the struct's members then give \(expected)"
                    )
                }
            }
        }
        return failures
    }

    // MARK: The app's code

    /// Row transforms for the steps the generator says need the app's code, with their expectations; and
    /// disagreements between the generator and the explorer on which changes need code.
    func appCode(for model: ResolvedModel, workspace: Workspace) -> ([MigrationStage], MigrationExpectations, [String]) {
        var stages: [MigrationStage] = []
        var expectations = MigrationExpectations()
        var problems: [String] = []
        // What the explorer changed through code, per step (by the step's target version) and table.
        var expected: [SchemaVersion: [String: [(column: String, change: Workspace.CodeChange)]]] = [:]
        for (version, changes) in workspace.typeChanges {
            guard let parsed = try? SchemaVersion(parsing: version) else { continue }
            for change in changes {
                guard let entity = workspace.entity(change.entity), let property = entity.property(change.property),
                    let resolved = model.entities.first(where: { $0.name == entity.name }),
                    let shape = resolved.shapes.last(where: { $0.version <= parsed }),
                    let column = shape.properties.first(where: { $0.currentName == property.name })?.column
                else {
                    problems.append("explorer: cannot find the column of \(change) at \(version)")
                    continue
                }
                expected[parsed, default: [:]][shape.tableName, default: []].append((column, change))
            }
        }
        struct Covered: Hashable {
            var version: SchemaVersion
            var table: String
        }
        // By version value, not spelling (`9.1` and `9.1.0` are one version).
        var covered: Set<Covered> = []
        for step in model.customSteps where !step.tables.isEmpty {
            var transforms: [RowTransform] = []
            for table in step.tables {
                guard let changes = expected[step.to]?[table.table] else {
                    problems.append(
                        "\(step.from) → \(step.to): the generator asks for the app's code for table \(table.table) (\(table.reasons.joined(separator: "; "))), but the history changes nothing there that needs code"
                    )
                    continue
                }
                covered.insert(Covered(version: step.to, table: table.table))
                let convert: @Sendable (Row) -> [String: DatabaseValue]? = { row in
                    var values: [String: DatabaseValue] = [:]
                    for (column, value) in row { values[column] = value }
                    for (column, change) in changes { values[column] = Conversions.convert(values[column] ?? .null, change.conversion) }
                    return values
                }
                transforms.append(RowTransform(table: table.table, transform: convert))
                expectations.transforms.append(TransformExpectation(from: step.from, to: step.to, table: table.table, expect: convert))
            }
            stages.append(MigrationStage(from: step.from, to: step.to, label: step.label, transforms: transforms))
        }
        for (version, tables) in expected {
            for (table, changes) in tables where !covered.contains(Covered(version: version, table: table)) {
                problems.append(
                    "\(version): \(changes.map { "\(table).\($0.column) \($0.change.conversion)" }.joined(separator: ", ")) loses values for some inputs, but the generator inferred it instead of asking for the app's code"
                )
            }
        }
        return (stages, expectations, problems)
    }
}

/// The explorer's own conversions for the type changes that need the app's code (what its "app" does).
enum Conversions {
    static func convert(_ value: DatabaseValue, _ conversion: Workspace.CodeChange.Conversion) -> DatabaseValue {
        if value.isNull { return .null }
        switch conversion {
        case .type(let old, let new): return convert(value, from: old, to: new)
        case .cases(let mapping):
            guard case .string(let text) = value.storage, let mapped = mapping[text] else { return value }
            return mapped.map(\.databaseValue) ?? .null
        case .structMembers(let root, let diffs):
            guard let text = String.fromDatabaseValue(value),
                let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
                let data = try? JSONSerialization.data(withJSONObject: StructDiff.convert(object, root, diffs), options: [.sortedKeys])
            else { return value }
            return String(decoding: data, as: UTF8.self).databaseValue
        }
    }

    static func convert(_ value: DatabaseValue, from old: PropertyKind, to new: PropertyKind) -> DatabaseValue {
        guard case .scalar(let from) = old, case .scalar(let to) = new else { return value }
        let integer: Int64? = Int64.fromDatabaseValue(value)
        let double: Double? = Double.fromDatabaseValue(value)
        let text: String? = String.fromDatabaseValue(value)
        switch (from, to) {
        case ("string", "int"): return (text.flatMap { Int64($0) } ?? 0).databaseValue
        case ("double", "string"): return "\(double ?? 0)".databaseValue
        case ("int", "double"): return Double(integer ?? 0).databaseValue
        case ("double", "int"): return (Int64(exactly: (double ?? 0).rounded(.towardZero)) ?? 0).databaseValue
        case ("int", "bool"): return ((integer ?? 0) != 0 ? 1 : 0).databaseValue
        case ("int", "string"): return String(integer ?? 0).databaseValue
        case ("bool", "int"): return (integer ?? 0).databaseValue
        default: return value
        }
    }
}
