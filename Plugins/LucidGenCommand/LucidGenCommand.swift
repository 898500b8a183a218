import Foundation
import PackagePlugin

/// `swift package lucidgen <command> [options]`: runs `lucidgen` in the package's folder, with
/// permission to write into it (generated files, snapshots, fixture stores).
///
///     swift package lucidgen generate            # freeze released versions, write generated files
///     swift package lucidgen check               # the CI gate (lucidgen check)
///     swift package lucidgen fixtures --schema-version 1.0
///     swift package lucidgen plan --database store.sqlite
///
/// The plugin declares no tool dependency: it asks SwiftPM to build the `lucidgen` product (for the
/// package's own destination, in the regular build) and runs that. A declared tool is built for the host
/// into the same files (`lucidgen-tool` and its modules) that SwiftPM's separate plugin-tools build makes
/// for the LucidGenPlugin build plugin, but recorded in the other build database: each of the two builds
/// then found the other's output changed, so every `swift package lucidgen` re-ran every C compile, module
/// wrap and the link of the tool twice (5-10 s), and the new tool's modification time defeated
/// `lucidgen generate`'s stamp, so a run with nothing changed still ran the whole pipeline.
/// The product built here shares no output with the plugin-tools build: a call with nothing changed
/// builds nothing and `generate` stops at its stamp.
@main
struct LucidGenCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var arguments = arguments
        if arguments.isEmpty { arguments = ["--help"] }
        let process = Process()
        process.executableURL = try buildTool()
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            Diagnostics.error("lucidgen \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
            throw CommandError(status: process.terminationStatus)
        }
    }

    /// Builds (or finds up to date) the `lucidgen` executable, showing the build's progress as a declared
    /// tool's build would, and returns its path. `-c release` on the command line builds it in release.
    func buildTool() throws -> URL {
        let result = try packageManager.build(.product("lucidgen"), parameters: .init(configuration: .inherit, logging: .concise, echoLogs: true))
        guard result.succeeded else {
            Diagnostics.error("building lucidgen failed")
            throw CommandError(status: 1)
        }
        // SwiftPM lists the product once per destination it has in its plan: the host's `lucidgen-tool`
        // (made by the plugin-tools build when a target uses LucidGenPlugin) and `lucidgen`, the one this
        // build made.
        let executables = result.builtArtifacts.filter { $0.kind == .executable }
        guard let tool = executables.first(where: { $0.url.deletingPathExtension().lastPathComponent == "lucidgen" }) ?? executables.first else {
            Diagnostics.error("building lucidgen produced no executable")
            throw CommandError(status: 1)
        }
        return tool.url
    }
}

struct CommandError: Error, CustomStringConvertible {
    var status: Int32
    var description: String { "lucidgen exited with status \(status)" }
}
