// One file, two copies: Plugins/LucidGenCommand/RunTool.swift (the command plugin whose tool is built from
// source) and lucidgen-plugins/Plugins/LucidGenPrebuiltCommand/RunTool.swift (the one whose tool is the
// prebuilt binary). A plugin target cannot share code with another package; PluginCopiesTests checks that
// the copies are the same bytes.
import Foundation
import PackagePlugin

enum RunTool {
    /// Runs `lucidgen <arguments>` (`--help` when there are none) in the package's folder, where it finds
    /// `.lucid.yaml`; its output goes straight to the terminal. A failure is reported with the command line.
    static func run(_ tool: URL, arguments: [String], context: PluginContext) throws {
        let arguments = arguments.isEmpty ? ["--help"] : arguments
        let process = Process()
        process.executableURL = tool
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
