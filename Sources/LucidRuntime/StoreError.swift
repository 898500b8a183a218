import Foundation
import LucidSchema

/// Why a store could not be opened or migrated. The store file is never changed when one of these is
/// thrown, except where the case says a migration step committed before it.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// The file is not an SQLite database.
    case notADatabase(path: String)
    /// SQLite reports the file damaged (truncated, corrupt).
    case corrupt(path: String, message: String)
    /// The file could not be opened or written (permissions, read-only media).
    case cannotWrite(path: String, message: String)
    /// The disk (or the store's size limit) is full; the step in progress was rolled back.
    case diskFull(path: String)
    /// Another connection held the store longer than the busy timeout.
    case locked(path: String, timeout: TimeInterval)
    /// The store was written by a newer version of the app.
    case storeIsNewer(storeVersion: SchemaVersion, newestKnown: SchemaVersion)
    /// The store records a version this app does not know.
    case unknownVersion(SchemaVersion, known: [SchemaVersion])
    /// The store's recorded checksum is not the one this app has for that version: its schema was
    /// made by a different definition of the version.
    case checksumMismatch(version: SchemaVersion, stored: String, expected: String)
    /// The database has tables but no lucidgen bookkeeping, and its tables match no known version.
    case unrecognizedSchema(path: String, differences: [String])
    /// No path from the store's version to the target.
    case planning(PlanningError)
    /// The generated registry and this runtime disagree on a version's DDL checksum (regenerate).
    case registryMismatch(version: SchemaVersion, generated: String, runtime: String)
    /// A step needs an app stage that was not provided.
    case missingStage(String)
    /// A step failed and was rolled back; the store stays at `version`.
    case stepFailed(step: String, version: SchemaVersion, message: String)
    /// After a step, the store's tables differ from the version's schema; the step was rolled back.
    case schemaMismatch(version: SchemaVersion, differences: [String])
    /// A step left rows whose foreign keys point nowhere (the first ones found, located); the step was
    /// rolled back.
    case foreignKeyViolation(step: String, violations: [ForeignKeyViolation])
    /// A step would lose data (e.g. a to-many relationship with several links becoming to-one); rolled back.
    case dataWouldBeLost(step: String, message: String)

    public var description: String {
        switch self {
        case .notADatabase(let path): "\(path) is not an SQLite database"
        case .corrupt(let path, let message): "\(path) is damaged: \(message)"
        case .cannotWrite(let path, let message): "cannot write \(path): \(message)"
        case .diskFull(let path): "the disk is full while migrating \(path); the step was rolled back"
        case .locked(let path, let timeout): "\(path) stayed locked by another connection for \(timeout) s"
        case .storeIsNewer(let store, let newest):
            "the store is at version \(store), newer than this app's newest version \(newest); open it read-only or with a newer app"
        case .unknownVersion(let version, let known):
            "the store is at version \(version), which this app does not know (known: \(known.map(\.string).joined(separator: ", ")))"
        case .checksumMismatch(let version, let stored, let expected):
            "the store's schema checksum for version \(version) is \(stored.prefix(12))…, but this app's version \(version) has \(expected.prefix(12))…"
        case .unrecognizedSchema(let path, let differences):
            "\(path) has tables but no lucidgen version record, and matches no known version: \(differences.prefix(5).joined(separator: "; "))"
        case .planning(let error): error.description
        case .registryMismatch(let version, let generated, let runtime):
            "the generated schema registry says version \(version) has checksum \(generated.prefix(12))…, but this runtime computes \(runtime.prefix(12))…; run `lucidgen generate` with the lucidgen version the app links"
        case .missingStage(let label): "the migration needs the app's stage '\(label)', which was not provided"
        case .stepFailed(let step, let version, let message): "migration step \(step) failed and was rolled back (the store stays at \(version)): \(message)"
        case .schemaMismatch(let version, let differences):
            "after migrating, the store's schema differs from version \(version) (rolled back):\n" + differences.map { "  - \($0)" }.joined(separator: "\n")
        case .foreignKeyViolation(let step, let violations):
            "step \(step) left row(s) whose foreign key points at no row (rolled back): \(violations.prefix(5).map(\.description).joined(separator: "; "))\(violations.count > 5 ? "; and more" : "")"
        case .dataWouldBeLost(let step, let message): "step \(step) would lose data (rolled back): \(message)"
        }
    }
}
