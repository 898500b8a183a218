import Foundation
import GRDB
@_spi(Generated) import LucidSchema

// Before the first step: every stage on the path has the app's code.
extension StoreMigrator {
    /// Throws ``StoreError/missingStages(path:storeVersion:target:missing:registry:)`` when `steps` (the
    /// path from `storeVersion`) runs a stage whose code ``StoreOptions/stages`` lacks, or a provided
    /// stage lacks a row transform its step needs. Stages of ``StoreOptions/declaredStages`` are known to
    /// have no code here (`lucidgen migrate`): the path runs up to them and stops with
    /// ``StoreError/missingStage(_:)``.
    package func checkStagesProvided(_ steps: [MigrationStep], storeVersion: SchemaVersion) throws(StoreError) {
        let names = history.registry.map(GeneratedNames.init(reflecting:))
        var missing: [MissingStage] = []
        for step in steps {
            guard case .explicit(let label) = step.kind else { continue }
            if let provided = options.stages.first(where: { $0.from == step.from && $0.to == step.to }) {
                let transformed = Set(provided.transforms.map(\.table))
                let inference: Result<[MigrationOperation], NotInferable>
                do {
                    inference = try planner.inferredOperations(from: step.from, to: step.to, transformedTables: transformed)
                } catch {
                    throw .planning(error)
                }
                // The tables that fail are those the stage does not transform.
                if case .failure(let reason) = inference {
                    missing.append(
                        MissingStage(
                            from: step.from, to: step.to, label: label, stageProvided: true, tables: reason.tables, registry: names))
                }
            } else if !options.declaredStages.contains(where: { $0.from == step.from && $0.to == step.to }) {
                let tables = history.stages.first { $0.from == step.from && $0.to == step.to }?.transformedTables ?? []
                missing.append(
                    MissingStage(from: step.from, to: step.to, label: label, stageProvided: false, tables: tables, registry: names))
            }
        }
        guard !missing.isEmpty else { return }
        throw .missingStages(
            path: path, storeVersion: storeVersion, target: steps.last?.to ?? newest.version, missing: missing, registry: history.registry)
    }
}
