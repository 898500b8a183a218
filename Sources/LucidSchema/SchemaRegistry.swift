import Foundation

/// The list of schema versions of an app, oldest first, as `lucidgen generate` emits it.
///
/// The runtime reads a registry to create stores at the newest version, recognise the version of
/// an existing store by its recorded version and checksum, and plan migrations between versions.
///
/// ```swift
/// // Generated:
/// public enum FlightLogSchema: SchemaRegistry {
///     public static let versions: [Schema] = [version1_0, version1_1, version2_0]
/// }
/// ```
public protocol SchemaRegistry: Sendable {
    /// Every schema version, oldest first.
    static var versions: [Schema] { get }

    /// The checksum the generator computed for each version, in the same order as ``versions``.
    /// The runtime checks that each equals ``Schema/checksum`` (a mismatch means the generated code
    /// and the runtime disagree on DDL, e.g. after upgrading one without regenerating).
    static var checksums: [String] { get }

    /// The steps that need the app's code (declared stages and changes SQL cannot make). The runtime
    /// routes through them and refuses to run one whose code the app did not provide, instead of
    /// inferring a path around it.
    static var stages: [ExplicitStage] { get }

    /// The newest version, without building any schema: what opening an up-to-date store compares
    /// with the store's record (every app launch), so that ``versions`` is only built when there is work.
    static var newestVersion: SchemaVersion { get }

    /// The newest version's checksum, as the generator computed it (see ``newestVersion``).
    static var newestChecksum: String { get }

    /// Each version's path to the newest as the planner takes it (``MigrationPlanner/routes()``), the
    /// versions it passes through, computed by the generator for ``versions`` and ``stages``: a migration
    /// infers only its own steps. Empty for registries generated before routes existed (the runtime then
    /// plans, to the same path).
    ///
    /// ```swift
    /// // Generated:
    /// public static let versionRoutes: [[SchemaVersion]] = [
    ///     [SchemaVersion("1.0"), SchemaVersion("2.0")],
    /// ]
    /// ```
    static var versionRoutes: [[SchemaVersion]] { get }

    /// The routes as text, as registries generated before ``versionRoutes`` wrote them: read only when the
    /// registry has no ``versionRoutes``.
    static var routes: [[String]] { get }
}

extension SchemaRegistry {
    public static var stages: [ExplicitStage] { [] }

    public static var routes: [[String]] { [] }

    /// Registries generated before ``versionRoutes`` existed: their ``routes`` (a route holding text that is
    /// no version is left out, and the runtime plans that start's path).
    public static var versionRoutes: [[SchemaVersion]] {
        routes.compactMap { route in
            let versions = route.compactMap { try? SchemaVersion(parsing: $0) }
            return versions.count == route.count ? versions : nil
        }
    }

    /// Registries generated before ``newestVersion`` existed: read from ``versions`` (builds them).
    public static var newestVersion: SchemaVersion { current.version }

    /// Registries generated before ``newestChecksum`` existed: the last of ``checksums``.
    public static var newestChecksum: String { checksums.last ?? "" }

    /// The newest schema version.
    package static var current: Schema {
        guard let last = versions.last else { preconditionFailure("a schema registry lists at least one version") }
        return last
    }

    /// The schema of a given version, if the registry knows it.
    package static func schema(for version: SchemaVersion) -> Schema? {
        versions.first { $0.version == version }
    }
}

/// An app's schema history as one value: every version (oldest first) and the steps that need the
/// app's code. What the runtime opens, inspects and migrates stores with.
///
/// ```swift
/// let history = SchemaHistory(registry: FlightLogSchema.self)
/// let status = try LucidStore.inspect(atPath: path, history: history)
/// ```
package struct SchemaHistory: Sendable {
    /// Every schema version, oldest first.
    package var versions: [Schema]
    /// The steps that need the app's code: the planner routes through them and never around them.
    package var stages: [ExplicitStage]

    /// Each version's checksum as the generator computed it (a registry's `checksums`, parallel to
    /// `versions`), or nil: then a checksum is computed where it is needed. Computing one builds the
    /// version's whole DDL and hashes it (a few milliseconds for an app of 60 tables), which a migration
    /// would otherwise do for the store's version and for each version it writes.
    package var checksums: [String]?

    /// The generated registry's type as `String(reflecting:)` spells it, module first
    /// (`FlightLog.FlightLogSchema`), or nil for a history made from versions: what the runtime's messages
    /// name when they tell the app which generated code to call, in which module.
    package var registry: String?

    /// Each version's path to the newest as the generator computed it for these versions and stages
    /// (a registry's `routes`), by its first version; empty when not known (the runtime then plans).
    package var routes: [SchemaVersion: [SchemaVersion]] = [:]

    /// The steps planned along `routes`, kept for the next open or inspection with this history (its copies
    /// share it): `lucidgen migrate` inspects a store, then opens it, and at a thousand versions a route's steps
    /// take a second to infer. Nil (the default, and a generated registry's): each plans on its own.
    package var plannedRoutes: PlannedRoutes?

    /// Steps planned along a history's routes, by their first version (``plannedRoutes``).
    package final class PlannedRoutes: @unchecked Sendable {
        private let lock = NSLock()
        private var steps: [SchemaVersion: [MigrationStep]] = [:]

        package init() {}

        package func steps(from version: SchemaVersion) -> [MigrationStep]? {
            lock.lock()
            defer { lock.unlock() }
            return steps[version]
        }

        package func keep(_ planned: [MigrationStep], from version: SchemaVersion) {
            lock.lock()
            defer { lock.unlock() }
            steps[version] = planned
        }
    }

    package init(versions: [Schema], stages: [ExplicitStage] = [], checksums: [String]? = nil, registry: String? = nil) {
        self.versions = versions
        self.stages = stages
        self.checksums = checksums.flatMap { $0.count == versions.count ? $0 : nil }
        self.registry = registry
    }

    /// The history a generated registry lists, with its generated checksums and its type's name.
    package init<Registry: SchemaRegistry>(registry: Registry.Type) {
        self.init(
            versions: registry.versions, stages: registry.stages, checksums: registry.checksums, registry: String(reflecting: registry))
        for route in registry.versionRoutes {
            if let start = route.first { routes[start] = route }
        }
    }

    /// The checksum of `schema` (one of `versions`): the generated one when the history has them, else
    /// computed.
    package func checksum(of schema: Schema) -> String {
        if let checksums, let index = versions.firstIndex(where: { $0.version == schema.version }) { return checksums[index] }
        return schema.checksum
    }

    /// The newest version's schema (nil for an empty history).
    package var newest: Schema? { versions.last }
}
