import Foundation
import LucidGenCore
@_spi(Generated) import LucidSchema

/// `lucidgen check`'s lint on explored histories: every removal and rename the history made is reported
/// at its version, and nothing destructive or renamed is reported that the history did not do.
extension Explorer {
    struct ExpectedFinding: Hashable, CustomStringConvertible {
        var code: String
        var version: SchemaVersion
        var entity: String
        var property: String?

        var description: String { "\(code) \(entity)\(property.map { ".\($0)" } ?? "") at \(version)" }
    }

    /// The DS101, DS102, BC101, BC102, BC103 (a scalar type changed, a JSON struct made composite), BC105 and
    /// MF102 (made required), MF101 (required added without a default), BC106 (a case of `status` renamed),
    /// MF106 and MF107 (one removed with and without fallback) findings the workspace's edits imply, each as
    /// many times as lint must report it. Case changes are reported on every column holding `status` before
    /// and after, once per case changed; a struct's member changes on every composite of it that has rows,
    /// once per element (DS102 removed, BC102 renamed, BC105 and MF102 made required where its column is
    /// NOT NULL, MF101 added as NOT NULL without a default).
    static func expectedFindings(_ workspace: Workspace) -> [ExpectedFinding: Int] {
        var expected: [ExpectedFinding: Int] = [:]
        func version(_ text: String) -> SchemaVersion? { try? SchemaVersion(parsing: text) }
        for entity in workspace.entities {
            if let removed = entity.removedAt.flatMap(version) {
                expected[ExpectedFinding(code: "DS101", version: removed, entity: entity.name), default: 0] += 1
            }
            for item in entity.history where item.previousName != nil {
                if let at = version(item.version) {
                    expected[ExpectedFinding(code: "BC101", version: at, entity: entity.name), default: 0] += 1
                }
            }
            for property in entity.properties {
                if let removed = property.removedAt, removed != entity.removedAt, let at = version(removed) {
                    expected[ExpectedFinding(code: "DS102", version: at, entity: entity.name, property: property.name), default: 0] += 1
                }
                guard property.previousName != nil else { continue }
                // The release whose edits renamed it (renamed_at_version may be left for the generator to infer).
                for (release, edits) in workspace.applied {
                    for case .renameProperty(let entityKey, let propertyKey, _, _) in edits
                    where entityKey == entity.key && propertyKey == property.key {
                        if let at = version(release) {
                            expected[
                                ExpectedFinding(code: "BC102", version: at, entity: entity.name, property: property.name), default: 0] += 1
                        }
                    }
                }
            }
        }
        for (release, edits) in workspace.applied {
            guard let at = version(release) else { continue }
            for edit in edits {
                switch edit {
                case .changeType(let entityKey, let propertyKey, .scalar), .makeComposite(let entityKey, let propertyKey):
                    if let entity = workspace.entity(entityKey), let property = entity.property(propertyKey) {
                        expected[ExpectedFinding(code: "BC103", version: at, entity: entity.name, property: property.name), default: 0] += 1
                    }
                default: break
                }
            }
            let codes = workspace.caseChanges(at: release).map { $0.byApp == true ? "MF107" : $0.removed == true ? "MF106" : "BC106" }
            for holder in workspace.caseHolders[release] ?? [] {
                guard let entity = workspace.entity(holder.entity), let property = entity.property(holder.property) else { continue }
                for code in codes {
                    expected[ExpectedFinding(code: code, version: at, entity: entity.name, property: property.name), default: 0] += 1
                }
            }
            // The previous version's entities and structs: properties made required, required ones added to tables with rows, elements.
            let order = workspace.entitiesAt.keys.compactMap { key in version(key).map { (key, $0) } }.sorted { $0.1 < $1.1 }
            guard let previous = order.last(where: { $0.1 < at })?.0, let before = workspace.entitiesAt[previous],
                let now = workspace.entitiesAt[release]
            else { continue }
            let structsBefore = workspace.structsAt[previous] ?? [:]
            let structsNow = workspace.structsAt[release] ?? [:]
            func add(_ code: String, _ entityKey: Int, _ propertyKey: Int) {
                guard let entity = workspace.entity(entityKey), let property = entity.property(propertyKey) else { return }
                expected[ExpectedFinding(code: code, version: at, entity: entity.name, property: property.name), default: 0] += 1
            }
            for edit in edits {
                switch edit {
                case .setNullable(let entityKey, let propertyKey, false, _):
                    add("BC105", entityKey, propertyKey)
                    add("MF102", entityKey, propertyKey)
                case .addProperty(let entityKey, let spec) where before.contains(where: { $0.key == entityKey }) && !spec.nullable:
                    switch spec.kind {
                    case .toMany: break
                    case .composite(let name):
                        if Workspace.leaves(of: name, in: structsNow, optional: false).contains(where: { $0.notNull && !$0.hasDefault }) {
                            add("MF101", entityKey, spec.key)
                        }
                    default:
                        if spec.defaultJSON == nil { add("MF101", entityKey, spec.key) }
                    }
                default: break
                }
            }
            for entity in now where entity.removedAt == nil {
                guard let old = before.first(where: { $0.key == entity.key && $0.removedAt == nil }) else { continue }
                for property in entity.properties where property.removedAt == nil {
                    guard case .composite(let name) = property.kind, let was = old.property(property.key), was.removedAt == nil,
                        was.kind == property.kind
                    else { continue }
                    let oldLeaves = Workspace.leaves(of: name, in: structsBefore, optional: was.nullable)
                    let newLeaves = Workspace.leaves(of: name, in: structsNow, optional: property.nullable)
                    for leaf in oldLeaves where !newLeaves.contains(where: { $0.identity == leaf.identity }) {
                        add("DS102", entity.key, property.key)
                    }
                    for leaf in newLeaves {
                        guard let oldLeaf = oldLeaves.first(where: { $0.identity == leaf.identity }) else {
                            if leaf.notNull && !leaf.hasDefault { add("MF101", entity.key, property.key) }
                            continue
                        }
                        if oldLeaf.path != leaf.path { add("BC102", entity.key, property.key) }
                        if leaf.notNull && !oldLeaf.notNull {
                            add("BC105", entity.key, property.key)
                            add("MF102", entity.key, property.key)
                        }
                    }
                }
            }
        }
        return expected
    }

    /// Lints the newest release as `lucidgen check` does and compares with what the history did.
    func checkLint(configPath: String, workspace: Workspace) -> [String] {
        let checked: (input: LoadedInput, result: GeneratorPipeline.Result)
        do {
            checked = try GeneratorPipeline(configPath: configPath).check()
        } catch {
            return ["lint: the check pipeline failed:\n" + error.diagnostics.map { "    \($0)" }.joined(separator: "\n")]
        }
        var settings = checked.result.model.config.lint
        settings.additiveOnly = true
        let findings = Linter(model: checked.result.model, descriptions: checked.input.entities, settings: settings).run().findings
        let tracked: Set<String> = ["DS101", "DS102", "BC101", "BC102", "BC103", "BC105", "BC106", "MF101", "MF102", "MF106", "MF107"]
        var found: [ExpectedFinding: Int] = [:]
        for finding in findings where tracked.contains(finding.code.id) {
            let entityLevel = finding.code.id == "DS101" || finding.code.id == "BC101"
            found[
                ExpectedFinding(
                    code: finding.code.id, version: finding.to, entity: finding.entity, property: entityLevel ? nil : finding.property),
                default: 0] += 1
        }
        let expected = Self.expectedFindings(workspace)
        var failures: [String] = []
        func counted(_ finding: ExpectedFinding, _ count: Int) -> String { count == 1 ? finding.description : "\(finding) (×\(count))" }
        // Exact counts: a finding reported fewer times than the history implies is missing, more times is phantom.
        let missing = expected.compactMap { finding, count in
            count > found[finding, default: 0] ? counted(finding, count - found[finding, default: 0]) : nil
        }.sorted()
        let phantom = found.compactMap { finding, count in
            count > expected[finding, default: 0] ? counted(finding, count - expected[finding, default: 0]) : nil
        }.sorted()
        if !missing.isEmpty {
            failures.append("lint: the history made these changes but check did not report them: \(missing.joined(separator: "; "))")
        }
        if !phantom.isEmpty { failures.append("lint: check reported changes the history did not make: \(phantom.joined(separator: "; "))") }
        // Under the additive rule, a step is reported exactly when AdditiveRule finds a change in it.
        let schemas = checked.result.model.schemas
        for index in schemas.indices.dropFirst() {
            let step = checked.result.model.customSteps.first { $0.from == schemas[index - 1].version && $0.to == schemas[index].version }
            let changes = AdditiveRule.changes(from: schemas[index - 1], to: schemas[index], appCode: step?.label)
            let reported = findings.filter { $0.code.family == .additiveOnly && $0.to == schemas[index].version }
            if changes.count != reported.count {
                failures.append(
                    "lint: \(schemas[index].version) has \(changes.count) non-additive changes but check reported \(reported.count) AO findings"
                )
            }
        }
        return failures
    }
}
