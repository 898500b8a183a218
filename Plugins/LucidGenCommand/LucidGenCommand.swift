import Foundation
import PackagePlugin

/// `swift package lucidgen <command> [options]`: runs `lucidgen` in the package's folder, with
/// permission to write into it (generated files, snapshots, fixture stores).
///
///     swift package lucidgen generate            # freeze released versions, write generated files
///     swift package lucidgen check               # the CI gate (lucidgen check)
///     swift package lucidgen fixtures --schema-version 1.0
///     swift package lucidgen plan --database store.sqlite
@main
struct LucidGenCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var arguments = arguments
        if arguments.isEmpty { arguments = ["--help"] }
        let process = Process()
        process.executableURL = try context.tool(named: "lucidgen").url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            Diagnostics.error("lucidgen \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
            throw CommandError(status: process.terminationStatus)
        }
    }
}

struct CommandError: Error, CustomStringConvertible {
    var status: Int32
    var description: String { "lucidgen exited with status \(status)" }
}
