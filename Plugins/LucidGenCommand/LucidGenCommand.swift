import Foundation
import PackagePlugin

/// `swift package lucidgen <command> [options]`: runs `lucidgen` in the package's folder, with
/// permission to write into it (generated files, snapshots, fixture stores). This is the development path:
/// the tool is built from source in the consumer's configuration. `lucidgen-plugins/` has the same command
/// running a prebuilt release binary (`swift package lucidgen-prebuilt …`).
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
///
/// Asking for a build at all still costs a plan, and planning runs the plugin-tools build, which relinks
/// the build plugin's tool whenever `swift build` relinked it last (the same two databases). So when the
/// tool this plugin built last is still there, unchanged, and no file of any package it is built from
/// (sources, headers, resources, manifests) nor the compiler changed since, it is run without asking.
/// (The plugin cannot see the build configuration: after a debug build, `swift package -c release
/// lucidgen ...` runs that debug tool until something it is built from changes; its output is the same.)
@main
struct LucidGenCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try RunTool.run(try tool(context: context), arguments: arguments, context: context)
    }

    /// The tool built last, when nothing it is built from changed since; otherwise a build's.
    func tool(context: PluginContext) throws -> URL {
        let record = context.pluginWorkDirectoryURL.appending(path: "lucidgen-tool.state")
        let sources = ToolSources.state(context: context)
        if let sources, let text = try? String(contentsOf: record, encoding: .utf8) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.count == 3, lines[0] == sources, FileState.of(lines[1]) == lines[2] {
                return URL(fileURLWithPath: lines[1])
            }
        }
        try? FileManager.default.removeItem(at: record)
        let tool = try buildTool()
        if let sources, let state = FileState.of(tool.path) {
            try? FileManager.default.createDirectory(at: context.pluginWorkDirectoryURL, withIntermediateDirectories: true)
            try? "\(sources)\n\(tool.path)\n\(state)".write(to: record, atomically: true, encoding: .utf8)
        }
        return tool
    }

    /// Builds (or finds up to date) the `lucidgen` executable, showing the build's progress as a declared
    /// tool's build would, and returns its path. `-c release` on the command line builds it in release.
    func buildTool() throws -> URL {
        let result = try packageManager.build(
            .product("lucidgen"), parameters: .init(configuration: .inherit, logging: .concise, echoLogs: true))
        guard result.succeeded else {
            Diagnostics.error("building lucidgen failed")
            throw CommandError(status: 1)
        }
        // SwiftPM lists the product once per destination it has in its plan: the host's `lucidgen-tool`
        // (made by the plugin-tools build when a target uses LucidGenPlugin) and `lucidgen`, the one this
        // build made.
        let executables = result.builtArtifacts.filter { $0.kind == .executable }
        guard let tool = executables.first(where: { $0.url.deletingPathExtension().lastPathComponent == "lucidgen" }) ?? executables.first
        else {
            Diagnostics.error("building lucidgen produced no executable")
            throw CommandError(status: 1)
        }
        return tool.url
    }
}

/// What the `lucidgen` product is built from, as one hash: the size and modification time of every file
/// in the folder of every target in its closure, of every manifest of every package the consumer depends
/// on, and of the Swift compiler.
enum ToolSources {
    static func state(context: PluginContext) -> String? {
        var packages: [Package] = []
        var seen: Set<String> = []
        func visit(_ package: Package) {
            guard seen.insert(package.id).inserted else { return }
            packages.append(package)
            for dependency in package.dependencies { visit(dependency.package) }
        }
        visit(context.package)
        guard let product = packages.lazy.compactMap({ $0.products.first { $0.name == "lucidgen" } }).first else { return nil }
        var folders: [String] = []
        var targets: Set<String> = []
        for target in product.targets + product.targets.flatMap(\.recursiveTargetDependencies) where targets.insert(target.id).inserted {
            folders.append(target.directoryURL.path)
        }
        var hash = FNV1a()
        for folder in folders.sorted() {
            guard let files = FileManager.default.enumerator(atPath: folder) else { return nil }
            var names: [String] = []
            for case let name as String in files { names.append(name) }
            for name in names.sorted() {
                let path = folder + "/" + name
                hash.add("\(path) \(FileState.of(path) ?? "-")")
            }
        }
        for package in packages where package.id != context.package.id {
            let folder = package.directoryURL.path
            let manifests = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
                .filter { $0.hasPrefix("Package") && $0.hasSuffix(".swift") }.sorted()
            for name in manifests { hash.add("\(folder)/\(name) \(FileState.of(folder + "/" + name) ?? "-")") }
        }
        guard let compiler = try? context.tool(named: "swiftc").url.resolvingSymlinksInPath().path else { return nil }
        hash.add("\(compiler) \(FileState.of(compiler) ?? "-")")
        return String(hash.value, radix: 16)
    }
}

enum FileState {
    /// "size seconds.nanoseconds" of a file's last modification, or nil when it cannot be read.
    static func of(_ path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? NSNumber, let date = attributes[.modificationDate] as? Date
        else { return nil }
        return "\(size) \(date.timeIntervalSince1970)"
    }
}

struct FNV1a {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ text: String) {
        for byte in text.utf8 { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
        value = (value ^ 0x0a) &* 0x100_0000_01b3
    }
}
