import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import Testing

/// A child process whose stdout and stderr (merged) the test reads line by line as they come, to kill it
/// at an observed point: synchronisation by what the child says, never by a delay. Only this process is
/// ever signalled, by its id.
package final class ObservedProcess {
    package let process = Process()
    private let pipe = Pipe()
    private let input = Pipe()
    private var buffer = Data()
    /// Every line read so far.
    package private(set) var lines: [String] = []

    package init(_ executable: String, _ arguments: [String], in directory: URL? = nil, takesInput: Bool = false) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = takesInput ? input : FileHandle.nullDevice
        try process.run()
    }

    /// Reads until a line satisfies `matches` (returning it) or the output ends (nil: the process exited
    /// or closed its output first).
    package func waitForLine(_ matches: (String) -> Bool) -> String? {
        while true {
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                lines.append(line)
                if matches(line) { return line }
            }
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Writes to the process's standard input (with `takesInput`).
    package func send(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Closes its standard input.
    package func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// SIGKILL to this process only, then reaps it and reads what it had written.
    package func kill() {
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        _ = waitForLine { _ in false }
    }

    /// Reads everything and waits for a normal end.
    package func finish() -> Int32 {
        _ = waitForLine { _ in false }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// The store's files as they are on disk (main file, `-journal`, `-wal`), for before/after comparisons.
/// `-shm` is left out: SQLite rebuilds it on every open.
package func storeFiles(_ path: String) -> [String: Data] {
    var files: [String: Data] = [:]
    for suffix in ["", "-journal", "-wal"] {
        if let data = FileManager.default.contents(atPath: path + suffix) { files[suffix.isEmpty ? "main" : suffix] = data }
    }
    return files
}

/// Size of a companion file (0 if absent).
package func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}

/// Removes a store and its companions, then copies `source` (and its companions) in its place.
package func copyStore(_ source: String, to path: String) throws {
    for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    for suffix in ["", "-journal", "-wal"] where FileManager.default.fileExists(atPath: source + suffix) {
        try FileManager.default.copyItem(atPath: source + suffix, toPath: path + suffix)
    }
}

/// What a crash may never break, and every value the store holds.
package struct StoreSnapshot: Equatable, CustomStringConvertible {
    /// The version lucidgen's record says; "none" for a store without one.
    package var version: String
    /// SHA-256 over every value (SQL `quote()`, so types count) of every app table, in key order.
    package var checksum: String
    package var rows: Int

    package var description: String { "\(version) (\(rows) rows, \(checksum.prefix(12)))" }

    /// Opens the store read-only with GRDB (after a kill SQLite rolls back a hot journal on that first
    /// open) and checks `integrity_check` and `foreign_key_check`.
    package static func read(_ path: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> StoreSnapshot {
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        return try database.read { db in
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"], sourceLocation: sourceLocation)
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty, sourceLocation: sourceLocation)
            let version =
                try db.tableExists("lucid_store") ? try String.fetchOne(db, sql: "SELECT version FROM lucid_store") ?? "?" : "none"
            let tables = try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'lucid_%' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
            var text = ""
            var rows = 0
            for table in tables {
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY name", arguments: [table])
                let select = columns.map { "quote(\"\($0)\")" }.joined(separator: " || '|' || ")
                text += "\(table)(\(columns.joined(separator: ",")))\n"
                for line in try String.fetchAll(db, sql: "SELECT \(select) FROM \"\(table)\" ORDER BY 1") {
                    text += line + "\n"
                    rows += 1
                }
            }
            return StoreSnapshot(version: version, checksum: SHA256.hex(of: text), rows: rows)
        }
    }
}
