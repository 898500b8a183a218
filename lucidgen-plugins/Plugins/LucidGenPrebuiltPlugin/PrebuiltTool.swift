// One file, two copies: lucidgen-plugins/Plugins/LucidGenPrebuiltPlugin/PrebuiltTool.swift and
// lucidgen-plugins/Plugins/LucidGenPrebuiltCommand/PrebuiltTool.swift (a plugin target cannot share code
// with another plugin target); PluginCopiesTests checks that the copies are the same bytes.
import Foundation
import PackagePlugin

/// The artifact bundle's `lucidgen`, once it is known to be the release of the lucidgen package whose
/// LucidRuntime the consumer compiles against: generated code calls the runtime's generated-code API
/// (`@_spi(Generated)`), which changes between releases, so a binary of another version makes code that
/// does not compile, or that records stores its runtime reads otherwise.
enum PrebuiltTool {
    /// Where the lucidgen package declares its version, one line that ``declaredVersion(in:)`` reads.
    static let versionFile = "Sources/LucidGenCore/LucidGenVersion.swift"

    static func checked(context: PluginContext) throws -> URL {
        let tool = try context.tool(named: "lucidgen").url
        let toolVersion = try version(of: tool)
        guard let runtime = runtimePackage(in: context.package) else {
            Diagnostics.warning(
                "no package in \(context.package.displayName)'s dependencies vends LucidRuntime, so the prebuilt lucidgen \(toolVersion) is not checked against a runtime: generated code needs `.package(url: …lucidgen, exact: \"\(toolVersion)\")` and the LucidRuntime product"
            )
            return tool
        }
        let file = runtime.directoryURL.appending(path: versionFile)
        guard let text = try? String(contentsOf: file, encoding: .utf8), let runtimeVersion = declaredVersion(in: text) else {
            throw PrebuiltToolError(
                "cannot read the version of the lucidgen package at \(runtime.directoryURL.path) (no `static let current = \"…\"` in \(versionFile)): the prebuilt lucidgen \(toolVersion) needs lucidgen \(toolVersion); use the same release of both"
            )
        }
        if let refusal = refusal(
            toolVersion: toolVersion, tool: tool.path, runtimeVersion: runtimeVersion, runtimePackage: runtime.directoryURL.path)
        {
            throw PrebuiltToolError(refusal)
        }
        return tool
    }

    /// Why a tool of `toolVersion` may not generate for a runtime of `runtimeVersion`; nil when they are one release.
    static func refusal(toolVersion: String, tool: String, runtimeVersion: String, runtimePackage: String) -> String? {
        if toolVersion == runtimeVersion { return nil }
        return """
            the prebuilt lucidgen is version \(toolVersion) (\(tool)), but this package compiles against LucidRuntime \
            \(runtimeVersion) (the lucidgen package at \(runtimePackage)); generated code must come from the lucidgen of \
            the runtime it calls. Depend on the same release of both: `.package(url: …lucidgen-plugins, exact: \
            "\(runtimeVersion)")` beside `.package(url: …lucidgen, exact: "\(runtimeVersion)")` (from a checkout: \
            `scripts/make-artifact-bundle` remakes the bundle), or use the lucidgen package's own plugins, which \
            build the tool from source (`.plugin(name: "LucidGenPlugin", package: "lucidgen")`, `swift package lucidgen`).
            """
    }

    /// What `lucidgen --version` prints, trimmed.
    static func version(of tool: URL) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = tool
        process.arguments = ["--version"]
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, !text.isEmpty else {
            throw PrebuiltToolError(
                "the prebuilt lucidgen (\(tool.path)) did not print its version (`lucidgen --version` exited with status \(process.terminationStatus)); remake the artifact bundle"
            )
        }
        return text
    }

    /// The package in the consumer's graph (itself included) that vends the LucidRuntime product.
    static func runtimePackage(in root: Package) -> Package? {
        var queue = [root]
        var seen: Set<Package.ID> = []
        while !queue.isEmpty {
            let package = queue.removeFirst()
            guard seen.insert(package.id).inserted else { continue }
            if package.products.contains(where: { $0.name == "LucidRuntime" }) { return package }
            queue += package.dependencies.map(\.package)
        }
        return nil
    }

    /// The string literal of the `static let current = "…"` line.
    static func declaredVersion(in source: String) -> String? {
        for line in source.split(separator: "\n") {
            guard let declaration = line.range(of: "static let current = \"") else { continue }
            let rest = line[declaration.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { return nil }
            return String(rest[..<end])
        }
        return nil
    }
}

struct PrebuiltToolError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
