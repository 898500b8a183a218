import Foundation
import LucidGenCore
import LucidSchema

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

    /// The DS101, DS102, BC101, BC102, BC103 (a scalar type changed, a JSON struct made composite), BC106
    /// (a case of `status` renamed), MF106 and MF107 (one removed with and without fallback) findings the
    /// workspace's edits imply. Case changes are reported on every column holding `status` before and after.
    static func expectedFindings(_ workspace: Workspace) -> Set<ExpectedFinding> {
        var expected = Set<ExpectedFinding>()
        func version(_ text: String) -> SchemaVersion? { try? SchemaVersion(parsing: text) }
        for entity in workspace.entities {
            if let removed = entity.removedAt.flatMap(version) {
                expected.insert(ExpectedFinding(code: "DS101", version: removed, entity: entity.name))
            }
            for item in entity.history where item.previousName != nil {
                if let at = version(item.version) { expected.insert(ExpectedFinding(code: "BC101", version: at, entity: entity.name)) }
            }
            for property in entity.properties {
                if let removed = property.removedAt, removed != entity.removedAt, let at = version(removed) {
                    expected.insert(ExpectedFinding(code: "DS102", version: at, entity: entity.name, property: property.name))
                }
                guard property.previousName != nil else { continue }
                // The release whose edits renamed it (renamed_at_version may be left for the generator to infer).
                for (release, edits) in workspace.applied {
                    for case .renameProperty(let entityKey, let propertyKey, _, _) in edits where entityKey == entity.key && propertyKey == property.key {
                        if let at = version(release) {
                            expected.insert(ExpectedFinding(code: "BC102", version: at, entity: entity.name, property: property.name))
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
                        expected.insert(ExpectedFinding(code: "BC103", version: at, entity: entity.name, property: property.name))
                    }
                default: break
                }
            }
            let codes = Set(workspace.caseChanges(at: release).map { $0.byApp == true ? "MF107" : $0.removed == true ? "MF106" : "BC106" })
            for holder in workspace.caseHolders[release] ?? [] {
                guard let entity = workspace.entity(holder.entity), let property = entity.property(holder.property) else { continue }
                for code in codes { expected.insert(ExpectedFinding(code: code, version: at, entity: entity.name, property: property.name)) }
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
        let tracked: Set<String> = ["DS101", "DS102", "BC101", "BC102", "BC103", "BC106", "MF106", "MF107"]
        let found = Set(findings.filter { tracked.contains($0.code.id) }.map {
            ExpectedFinding(code: $0.code.id, version: $0.to, entity: $0.entity, property: $0.code.id.hasSuffix("101") ? nil : $0.property)
        })
        let expected = Self.expectedFindings(workspace)
        var failures: [String] = []
        let missing = expected.subtracting(found).map(\.description).sorted()
        let phantom = found.subtracting(expected).map(\.description).sorted()
        if !missing.isEmpty { failures.append("lint: the history made these changes but check did not report them: \(missing.joined(separator: "; "))") }
        if !phantom.isEmpty { failures.append("lint: check reported changes the history did not make: \(phantom.joined(separator: "; "))") }
        // Under the additive rule, a step is reported exactly when AdditiveRule finds a change in it.
        let schemas = checked.result.model.schemas
        for index in schemas.indices.dropFirst() {
            let step = checked.result.model.customSteps.first { $0.from == schemas[index - 1].version && $0.to == schemas[index].version }
            let changes = AdditiveRule.changes(from: schemas[index - 1], to: schemas[index], appCode: step?.label)
            let reported = findings.filter { $0.code.family == .additiveOnly && $0.to == schemas[index].version }
            if changes.count != reported.count {
                failures.append("lint: \(schemas[index].version) has \(changes.count) non-additive changes but check reported \(reported.count) AO findings")
            }
        }
        return failures
    }
}
