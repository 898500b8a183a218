// One file, two copies: Plugins/LucidGenPlugin/GenerateCommand.swift (the plugin whose tool is built from
// source) and lucidgen-plugins/Plugins/LucidGenPrebuiltPlugin/GenerateCommand.swift (the plugin whose tool is
// the prebuilt binary). A plugin target cannot share code with another package; PluginCopiesTests checks
// that the copies are the same bytes.
import Foundation
import PackagePlugin

/// The build command both build plugins give SwiftPM: the target gets everything generated for it (records,
/// schema registry and migration stages for `targets.app`; the migration tests for `targets.app_tests`) in
/// one file, `<Target>.lucid.swift`, in the plugin's work directory. Nothing generated is committed.
///
/// It reads `.lucid.yaml` at the package's root, the descriptions and the released snapshots, and writes
/// nothing into the package: when a release must be frozen, the build fails asking for
/// `swift package lucidgen generate` (the command plugin, which may write).
enum GenerateCommand {
    static func make(context: PluginContext, target: Target, tool: URL) throws -> Command {
        let package = context.package.directoryURL
        let config = package.appending(path: ".lucid.yaml")
        guard FileManager.default.fileExists(atPath: config.path) else {
            throw PluginError(
                "the lucidgen build plugin needs a .lucid.yaml at the package's root (\(package.path)); `lucidgen init --plugin` makes one")
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "\(target.name).lucid.swift")
        return .buildCommand(
            displayName: "lucidgen: generating \(target.name)",
            executable: tool,
            arguments: ["generate", "--config", config.path, "--module", target.name, "--module-output", output.path],
            inputFiles: [config] + descriptionFiles(config: config, package: package),
            outputFiles: [output])
    }

    /// Every file under the descriptions' folder (`input_path`, default `.entities`, snapshots included),
    /// so that editing any of them regenerates. Only the one `input_path:` line is read from the config:
    /// the output's name never depends on it.
    static func descriptionFiles(config: URL, package: URL) -> [URL] {
        var folder = ".entities"
        if let text = try? String(contentsOf: config, encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("input_path:") {
                let value =
                    line.dropFirst("input_path:".count).split(separator: "#").first?
                    .trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")) ?? ""
                if !value.isEmpty { folder = value }
            }
        }
        let root = folder.hasPrefix("/") ? URL(fileURLWithPath: folder) : package.appending(path: folder)
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }
}

struct PluginError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
