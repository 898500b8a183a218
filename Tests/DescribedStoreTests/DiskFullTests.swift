import Foundation
import GRDB
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// A full disk during a step, on a real full file system: a small tmpfs. In
/// rollback-journal mode SQLite leaves the failed step's `-journal` hot beside the file; the runtime
/// rolls it back before it says "the step was rolled back".
@Suite(.serialized) struct DiskFullTests {
    /// A tmpfs of `bytes` mounted on a new temporary folder (needs root and a kernel that allows it:
    /// CI runs the tests as root). Unmount it when done.
    struct SmallFileSystem {
        let folder: TemporaryFolder

        init?(bytes: Int) {
            guard let folder = try? TemporaryFolder() else { return nil }
            guard Self.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", folder.url.path]) else {
                folder.remove()
                return nil
            }
            self.folder = folder
        }

        func unmount() {
            _ = Self.run("/usr/bin/umount", [folder.url.path])
            folder.remove()
        }

        static func run(_ executable: String, _ arguments: [String]) -> Bool {
            guard FileManager.default.isExecutableFile(atPath: executable) else { return false }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }

        /// Whether this machine lets the tests mount one (probed once).
        static let available: Bool = {
            guard let probe = SmallFileSystem(bytes: 1 << 20) else { return false }
            probe.unmount()
            return true
        }()
    }

    /// The version, the row count and a digest of the rows of the store file at `path`, and its
    /// `integrity_check`: read from a copy of the main file alone (outside the small file system), as
    /// a backup tool or a user copying the file would see it.
    func mainFileAlone(_ path: String) throws -> [String] {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let copy = folder.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let database = try DatabaseQueue(path: copy)
        defer { try? database.close() }
        return try database.read { db in
            [
                try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; "),
                try String.fetchOne(db, sql: "SELECT version FROM lucid_store") ?? "?",
                "\(try Int.fetchOne(db, sql: "SELECT count(*) FROM person") ?? -1)",
                try String.fetchOne(
                    db,
                    sql:
                        "SELECT group_concat(id || first_name || last_name, ',') FROM (SELECT * FROM person WHERE id % 997 = 0 ORDER BY id)"
                ) ?? "",
            ]
        }
    }

    /// A store at 1.0 copied onto a file system with room for it and half of it again: the 2.0 rebuild's
    /// copy of the table does not fit. Unmount `small` and remove `folder` when done.
    func storeOnASmallDisk() throws -> (
        versions: [Schema], path: String, size: Int, original: Data, small: SmallFileSystem, folder: TemporaryFolder
    ) {
        let versions = try LockDeadlineTests().versions()
        let (source, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        let size = try #require(StoreMigrator.fileSize(atPath: source))
        let small = try #require(SmallFileSystem(bytes: size + size / 2))
        let path = small.folder.path("store.sqlite")
        try FileManager.default.copyItem(atPath: source, toPath: path)
        return (versions, path, size, try #require(fileBytes(path)), small, folder)
    }

    @Test(.enabled(if: SmallFileSystem.available, "mounting a small tmpfs needs root and a kernel that allows it"))
    func onTheAppsWriterTooAStepThatFillsTheDiskIsRolledBackBeforeItSaysSo() throws {
        let (versions, path, _, original, small, folder) = try storeOnASmallDisk()
        defer { small.unmount(); folder.remove() }

        // The app's own queue, in rollback-journal mode, with a small page cache.
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = 20") }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let error = #expect(throws: StoreError.self) { try LucidMigrator(versions: versions).migrate(queue) }
        guard case .diskFull(_, journalLeft: false)? = error else {
            Issue.record("expected .diskFull, rolled back, got \(String(describing: error))")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"), "no hot journal left while the app's queue is open")
        #expect(fileBytes(path) == original, "the file is byte-identical to what it was")
        #expect(try queue.read { try String.fetchOne($0, sql: "SELECT version FROM lucid_store") } == "1.0")
        try queue.close()
    }

    static let rows = """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
        INSERT INTO person (id, first_name, last_name) SELECT i, printf('first %060d', i), printf('last %060d', i % 500) FROM n
        """

    @Test(.enabled(if: SmallFileSystem.available, "mounting a small tmpfs needs root and a kernel that allows it"))
    func aStepThatFillsTheDiskIsRolledBackBeforeItSaysSo() throws {
        let (versions, path, size, original, small, folder) = try storeOnASmallDisk()
        defer { small.unmount(); folder.remove() }
        let before = try mainFileAlone(path)
        #expect(before.first == "ok")

        var options = StoreOptions()
        // A small page cache: the rebuild spills into the file (which grows) long before it commits, so
        // the file is changed in place when the disk fills, as with a table larger than the cache.
        options.configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = 20") }
        let error = #expect(throws: StoreError.self) {
            try LucidStore.open(atPath: path, versions: versions, options: options).database.close()
        }
        guard case .diskFull? = error else {
            Issue.record("expected .diskFull, got \(String(describing: error))")
            return
        }
        #expect(error?.problem.hasSuffix("the step was rolled back") == true, "\(error?.problem ?? "")")
        // Without the read after the failure, a 5 KB hot `-journal` stayed here and the file had grown
        // by the part of the copy that fit (its original pages still readable: the journal held the
        // changed page 1 and schema pages).
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"), "no hot journal left beside the store")
        #expect(fileBytes(path) == original, "the file is byte-identical to what it was: the step was rolled back")
        #expect(try mainFileAlone(path) == before, "the main file alone is the store as it was: intact, same version, same rows")

        // With room again (a larger file system), the same migration goes through.
        let roomy = try #require(SmallFileSystem(bytes: 4 * size))
        defer { roomy.unmount() }
        let moved = roomy.folder.path("store.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: moved)
        try LucidStore.open(atPath: moved, versions: versions, options: options).database.close()
        let after = try mainFileAlone(moved)
        #expect(after[0] == "ok" && after[1] == "2.0")
        #expect(Array(after.dropFirst(2)) == Array(before.dropFirst(2)), "every row kept")
    }

    /// Issue 35: in WAL mode, with almost no room left (the `-wal` and `-shm` themselves may not fit), a
    /// refused step says the disk is full (not that the folder is not writable), leaves no `-wal` or `-shm`
    /// that was not there, and the file byte-identical; with room again the same migration goes through.
    @Test(
        .enabled(if: SmallFileSystem.available, "mounting a small tmpfs needs root and a kernel that allows it"),
        arguments: [4096, 20 * 1024, 200 * 1024])
    func inWALModeAFullDiskSaysSoAndLeavesNoCompanionBehind(_ room: Int) throws {
        let versions = try LockDeadlineTests().versions()
        let (source, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        defer { folder.remove() }
        let wal = try DatabaseQueue(path: source)
        try wal.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
        try wal.close()
        let size = try #require(StoreMigrator.fileSize(atPath: source))
        let small = try #require(SmallFileSystem(bytes: size + room))
        defer { small.unmount() }
        let path = small.folder.path("store.sqlite")
        try FileManager.default.copyItem(atPath: source, toPath: path)
        let original = try #require(fileBytes(path))
        let before = try FileManager.default.contentsOfDirectory(atPath: small.folder.url.path).sorted()

        let error = #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, versions: versions).database.close() }
        guard case .diskFull? = error else {
            Issue.record("expected .diskFull with \(room) bytes free, got \(String(describing: error))")
            return
        }
        let after = try FileManager.default.contentsOfDirectory(atPath: small.folder.url.path).sorted()
        #expect(
            after == before,
            "no -wal or -shm left behind: \(after.map { "\($0) \(StoreMigrator.fileSize(atPath: small.folder.path($0)) ?? -1)" })")
        #expect(fileBytes(path) == original, "byte-identical")

        let roomy = try #require(SmallFileSystem(bytes: 4 * size))
        defer { roomy.unmount() }
        let moved = roomy.folder.path("store.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: moved)
        try LucidStore.open(atPath: moved, versions: versions).database.close()
        #expect(try mainFileAlone(moved)[0...1] == ["ok", "2.0"])
    }
}
