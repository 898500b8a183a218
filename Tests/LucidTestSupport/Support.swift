import Foundation
import GRDB
import LucidGenCore
import Testing

/// The repository's root folder.
package let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The folder holding the built products (the `lucidgen` binary among them).
package let productsDirectory: URL = {
    var candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
    if let first = CommandLine.arguments.first { candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent()) }
    candidates.append(repositoryRoot.appendingPathComponent(".build/debug"))
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("lucidgen").path) } ?? candidates.last!
}()

package var lucidgenBinary: String { productsDirectory.appendingPathComponent("lucidgen").path }

/// A throw-away project folder with a config and descriptions.
package struct TestProject {
    package let root: URL

    package init(files: [String: String] = [:], config: String? = TestProject.defaultConfig) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        if let config { try write(".lucid.yaml", config) }
        for (path, contents) in files { try write(path, contents) }
    }

    package static let defaultConfig = """
        input_path: .entities
        targets:
          app:
            module_name: App
            output_path: Sources/App/Generated
        """

    /// A `.lucid.yaml` whose app target is `App` (`Sources/App/Generated`), with `current_version: current` when
    /// given, `settings` (top-level lines) before the targets, and with `tests` the generated migration tests'
    /// target `AppTests` (`Tests/AppTests/Generated`, expectations from `AppExpectations`).
    package static func config(current: String? = nil, settings: [String] = [], tests: Bool = false) -> String {
        var lines = ["input_path: .entities"]
        if let current { lines.append("current_version: \"\(current)\"") }
        lines += settings
        lines += ["targets:", "  app:", "    module_name: App", "    output_path: Sources/App/Generated"]
        if tests {
            lines += [
                "  app_tests:", "    module_name: AppTests", "    output_path: Tests/AppTests/Generated",
                "    expectations_provider: AppExpectations",
            ]
        }
        return lines.joined(separator: "\n")
    }

    package func write(_ relative: String, _ contents: String) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
    }

    package func read(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    package func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent(relative).path) }

    package var configPath: String { root.appendingPathComponent(".lucid.yaml").path }

    /// Runs the pipeline in-process.
    package func generate(check: Bool = false) throws(GenerationFailed) -> GeneratorPipeline.Result {
        try GeneratorPipeline(configPath: configPath).run(check: check)
    }

    /// Runs the pipeline and expects it to fail; returns the errors.
    package func errors() throws -> [Diagnostic] {
        do {
            _ = try generate()
        } catch {
            return error.errors
        }
        Issue.record("generation succeeded but errors were expected")
        return []
    }

    /// Every file below the root, relative, sorted (build folders excluded).
    package func allFiles() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path.hasPrefix(".build") { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(path)
            }
        }
        return files.sorted()
    }

    package func remove() { try? FileManager.default.removeItem(at: root) }
}

/// A one-version entity description.
package func entityJSON(
    _ name: String, version: String = "1.0", properties: String = #"{ "name": "title", "property_type": "string" }"#, extra: String = ""
) -> String {
    """
    {
        "name": "\(name)",\(extra)
        "version_history": [{ "version": "\(version)" }],
        "properties": [
            \(properties)
        ]
    }
    """
}

/// Result of running a process.
package struct ProcessResult {
    package var status: Int32
    package var output: String
    package var error: String
}

@discardableResult
package func run(_ executable: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil) throws
    -> ProcessResult
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
    // Files rather than pipes: a chatty process (a compiler) cannot block on a full pipe.
    let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)")
    let errorURL = FileManager.default.temporaryDirectory.appendingPathComponent("err-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: outputURL)
        try? FileManager.default.removeItem(at: errorURL)
    }
    let outputHandle = try FileHandle(forWritingTo: outputURL)
    let errorHandle = try FileHandle(forWritingTo: errorURL)
    process.standardOutput = outputHandle
    process.standardError = errorHandle
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try outputHandle.close()
    try errorHandle.close()
    return ProcessResult(
        status: process.terminationStatus, output: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
        error: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "")
}

/// Finds the `swift` driver.
package var swiftExecutable: String {
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
        let candidate = "\(folder)/swift"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return "/usr/bin/swift"
}

/// A folder of the team's shared real-world files (`../shared/realworld`, read in place, never committed):
/// `LUCIDGEN_REALWORLD`, else `../shared/realworld` beside the repository, else the team machine's
/// `/work/shared/realworld`; `subfolder` of the first that holds `probe` (a path inside `subfolder`), or nil,
/// said on standard output in `who`'s name, when none does.
package func realWorldFolder(_ subfolder: String, holding probe: String, for who: String) -> URL? {
    let candidates = [
        ProcessInfo.processInfo.environment["LUCIDGEN_REALWORLD"].map { URL(fileURLWithPath: $0) },
        repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/realworld"),
        URL(fileURLWithPath: "/work/shared/realworld"),
    ].compactMap { $0 }.map { $0.appendingPathComponent(subfolder) }
    let found = candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent(probe).path) }
    if found == nil {
        print(
            "\(who): the shared real-world files are absent (looked for \(probe) in \(candidates.map(\.path).joined(separator: ", "))): their tests check nothing"
        )
    }
    return found
}

/// Replaces the `item` rows of scripts/crash-soak-project's store at `path` with `rows` generated ones (every
/// third note null), after setting its journal mode: the base store the crash and process tests migrate.
package func fillCrashSoakItems(_ path: String, rows: Int, journal: String) throws {
    let database = try DatabaseQueue(path: path)
    try database.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = \(journal)")
        try db.inTransaction {
            try db.execute(sql: "DELETE FROM item")
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                    INSERT INTO item (id, name, note, score, title) SELECT i, 'name ' || i, CASE WHEN i % 3 = 0 THEN NULL ELSE 'note ' || i END, i * 7, 'title ' || i FROM n
                    """)
            return .commit
        }
    }
    try database.close()
}

extension TestProject {
    /// A temporary copy of a folder.
    package static func copy(of folder: URL) throws -> TestProject {
        let project = try TestProject(config: nil)
        for file in TestProject(existing: folder).allFiles() {
            let target = project.root.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: folder.appendingPathComponent(file), to: target)
        }
        return project
    }

    /// An existing folder, for reading.
    package init(existing folder: URL) {
        self.root = folder
    }
}
