import Foundation
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting

/// `lucidgen release`'s work once `check` passed: the current version's fixture, then its snapshot marked
/// released, the release's one commit point. ``begin(model:)`` takes the project's release lock and
/// checks that the release can be made; ``Release/markReleased()`` commits it.
package enum ProjectRelease {
    /// Why a release is refused before anything is written.
    package enum Refusal: Error, CustomStringConvertible {
        /// Another `release` of the project holds the snapshot's lock.
        case locked(SchemaVersion, snapshot: String)
        case releasedAlready(SchemaVersion, snapshot: String)
        case notWritable(SchemaVersion, folder: String)

        package var description: String {
            switch self {
            case .locked(let version, let snapshot):
                "another `lucidgen release` is releasing \(version) of this project now (it holds \(displayPath(snapshot))); let it finish, then run `lucidgen check`"
            case .releasedAlready(let version, let snapshot):
                "\(version) is released already: \(displayPath(snapshot)) is marked released. To release the next version, set current_version to it first"
            case .notWritable(let version, let folder):
                "cannot release \(version): \(displayPath(folder)) is not writable (nothing was written); make it writable and run `lucidgen release` again"
            }
        }
    }

    /// A release under way: its lock held until ``end()``.
    package struct Release {
        package let model: ResolvedModel
        package var version: SchemaVersion { model.currentVersion }
        /// The version's snapshot, which ``markReleased()`` marks.
        package let snapshotPath: String
        /// The version's committed fixture, which the release writes.
        package let fixture: String
        /// Whether a fixture is there already (never marked released: an interrupted release, or
        /// `lucidgen fixtures --unreleased`), which the release replaces.
        package let replacesFixture: Bool
        let lock: FileLock

        /// Marks the snapshot released (written by renaming a complete file over it) and returns its path.
        package func markReleased() throws -> String {
            try SchemaSnapshot.markReleased(version: version, in: model.config.schemaPath)
        }

        package func end() {
            lock.release()
        }
    }

    /// Takes the release lock of `model`'s current version and checks that it can be released: not
    /// released already, every folder it writes in writable.
    package static func begin(model: ResolvedModel) throws(Refusal) -> Release {
        let version = model.currentVersion
        let schemaFolder = model.config.schemaPath
        let snapshotPath = (schemaFolder as NSString).appendingPathComponent(SchemaSnapshot.fileName(for: version))
        let fixture = (FixtureStore.defaultFolder(model) as NSString).appendingPathComponent(
            FixtureFiles.fileName(module: model.config.app.moduleName, version: version))
        // The snapshot's mark is the release's one commit point, written last; a lock on the snapshot file
        // keeps a second `release` of the project out meanwhile (the kernel drops it if this process dies).
        let lock = FileLock(path: snapshotPath)
        guard lock.acquired else { throw .locked(version, snapshot: snapshotPath) }
        guard !SchemaSnapshot.isMarkedReleased(version: version, in: schemaFolder) else {
            lock.release()
            throw .releasedAlready(version, snapshot: snapshotPath)
        }
        // Every folder the release writes in must be writable before the first file is written.
        for folder in [schemaFolder, (fixture as NSString).deletingLastPathComponent] where FileManager.default.fileExists(atPath: folder) {
            guard canCreateFiles(in: folder) else {
                lock.release()
                throw .notWritable(version, folder: folder)
            }
        }
        return Release(
            model: model, snapshotPath: snapshotPath, fixture: fixture, replacesFixture: FileManager.default.fileExists(atPath: fixture),
            lock: lock)
    }

    /// Whether a file can be created in `folder`, proven by creating (and removing) one: permissions, ACLs,
    /// immutable folders and read-only mounts all say so alike.
    package static func canCreateFiles(in folder: String) -> Bool {
        let probe = (folder as NSString).appendingPathComponent(".lucidgen-release-probe-\(getpid())")
        guard FileManager.default.createFile(atPath: probe, contents: Data()) else { return false }
        try? FileManager.default.removeItem(atPath: probe)
        return true
    }

    /// The version after `version`: its last component plus one (`1.0` → `1.1`, `2.1.3` → `2.1.4`).
    package static func nextVersion(after version: SchemaVersion) -> String {
        var parts = version.string.split(separator: ".").map(String.init)
        if let last = parts.last, let number = Int(last) { parts[parts.count - 1] = String(number + 1) }
        return parts.joined(separator: ".")
    }
}

/// An exclusive advisory lock (`flock`) on an existing file, taken without waiting; the kernel releases it
/// when the process ends, so a killed command never leaves it held.
package final class FileLock {
    private let descriptor: Int32
    /// Whether this process holds the lock (false: another holds it; also true when the file does not exist,
    /// which the caller's next step reports).
    package let acquired: Bool

    package init(path: String) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        acquired = descriptor < 0 || flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    package func release() {
        if descriptor >= 0 { close(descriptor) }
    }
}
