import Foundation
import LucidCoreData
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// What `plan`, `migrate` and `status` ask of a project: its versions and stages, resolved exactly as
/// `generate` resolves them (the same model, so the CLI and the app plan the same path).
package enum ProjectVersions {
    /// What a project's store commands plan with.
    package struct Resolved {
        package var versions: [Schema]
        /// The steps that need the app's code, declared to the planner.
        package var stages: [ExplicitStage]
        /// The lint findings (with `lint`; empty without).
        package var findings: [String]
        /// Each version's checksum as `generate` computed it (read from its digest), parallel to `versions`;
        /// nil when the descriptions were resolved here (a checksum is then computed where it is needed).
        package var checksums: [String]?
        /// Each version's path to the newest as `generate` planned it (from its digest; empty otherwise, or when
        /// `--to` names an older version): the runtime then infers only the steps of the store's path.
        package var routes: [[SchemaVersion]] = []

        /// The history the runtime opens and plans with.
        package var history: SchemaHistory {
            var history = SchemaHistory(versions: versions, stages: stages, checksums: checksums)
            for route in routes {
                if let start = route.first { history.routes[start] = route }
            }
            return history
        }
    }

    /// The versions up to `to` (default: the newest), the steps that need the app's code (declared to the
    /// planner, which routes through them but cannot run them here), and with `lint` the lint findings of
    /// the steps up to `to` as `plan --format markdown` lists them (empty without).
    package static func resolve(config: String, to: String?, lint: Bool) throws -> Resolved {
        // Inputs unchanged since the last successful `generate`: what it resolved, read from its digest.
        if !lint, let digest = try? digest(config: config) {
            let target = try target(to, in: digest.versions)
            let stages = digest.stages.filter { $0.to <= target }
                .map { ExplicitStage(from: $0.from, to: $0.to, label: $0.label, transformedTables: $0.tables) }
            let kept = digest.versions.prefix { $0.version <= target }.count
            return Resolved(
                versions: Array(digest.versions.prefix(kept)), stages: stages, findings: [],
                checksums: Array(digest.checksums.prefix(kept)),
                routes: kept == digest.versions.count ? digest.routes : [])
        }
        let model: ResolvedModel
        let input: LoadedInput
        do {
            input = try GeneratorPipeline(configPath: absolutePath(config)).load()
            model = try Resolver.resolve(input)
        } catch {
            throw StoreWorkError.input(error.diagnostics)
        }
        let target = try target(to, in: model.schemas)
        let stages = model.customSteps.filter { $0.to <= target }
            .map { ExplicitStage(from: $0.from, to: $0.to, label: $0.label, transformedTables: $0.tables.map(\.table)) }
        let findings =
            !lint
            ? []
            : Linter(model: model, descriptions: input.entities).run().findings.filter { $0.to <= target }.map { finding in
                "\(finding.severity.rawValue): \(finding.text)" + (finding.location.map { " (\($0))" } ?? "")
            }
        return Resolved(versions: model.schemas.filter { $0.version <= target }, stages: stages, findings: findings, checksums: nil)
    }

    /// The version `--to` names (default: the newest of `versions`); a usage error when it is none of them.
    static func target(_ to: String?, in versions: [Schema]) throws -> SchemaVersion {
        guard let to else { return versions[versions.count - 1].version }
        guard let parsed = try? SchemaVersion(parsing: to), versions.contains(where: { $0.version == parsed }) else {
            throw StoreWorkError.usage("--to \(to) is not one of the versions \(versions.map(\.version.string).joined(separator: ", "))")
        }
        return parsed
    }

    /// The last successful `generate`'s digest of the project of `config`, when every input is still as it left them.
    static func digest(config: String) throws -> HistoryDigest? {
        var diagnostics = DiagnosticCollector()
        return HistoryDigest.read(config: try Config.load(from: absolutePath(config), diagnostics: &diagnostics))
    }

    /// What `lucidgen import coredata` wrote beside the descriptions (`<input_path>/.coredata/origin.json`):
    /// with it, a Core Data store is converted (`migrate`) or said to be converted (`plan`, `status`).
    package static func coreDataOrigin(config: String) throws -> CoreDataOrigin? {
        var diagnostics = DiagnosticCollector()
        guard let config = try? Config.load(from: absolutePath(config), diagnostics: &diagnostics) else { return nil }
        let path = (config.inputPath as NSString).appendingPathComponent(".coredata/origin.json")
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try CoreDataOrigin(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw StoreWorkError.usage("\(displayPath(path)): \(error)")
        }
    }
}
