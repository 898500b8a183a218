import Foundation
import PackagePlugin

/// Runs floor-tool with the plugin's arguments in the package's folder, as LucidGenCommand runs lucidgen.
@main
struct FloorCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let process = Process()
        process.executableURL = try context.tool(named: "floor-tool").url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw FloorError() }
    }
}

struct FloorError: Error {}
