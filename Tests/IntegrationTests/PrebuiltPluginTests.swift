import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// The prebuilt plugins (for apps that will not build lucidgen from source): `scripts/make-artifact-bundle` and the lucidgen-plugins package
/// (`lucidgen-plugins/`), whose plugins run the bundle's `lucidgen` and refuse one of another version than
/// the consumer's LucidRuntime. Nothing here builds in release: the bundles hold a stub or a wrapper of the
/// debug `lucidgen` (the script's `--executable`), and the consumer is never compiled (its plugins run and
/// refuse, or run the command plugin), so no test waits for GRDB or the generator to build.
@Suite(.serialized) struct PrebuiltPluginTests {
    static let base = repositoryRoot.appendingPathComponent(".build/e2e-prebuilt")
    static let script = repositoryRoot.appendingPathComponent("scripts/make-artifact-bundle").path

    /// An executable script at `base/name` running `body`.
    func executable(_ name: String, _ body: String) throws -> URL {
        try FileManager.default.createDirectory(at: Self.base, withIntermediateDirectories: true)
        let url = Self.base.appendingPathComponent(name)
        try "#!/bin/sh\n\(body)\n".write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url
    }

    func makeBundle(_ executable: URL, into output: URL, _ extra: [String] = []) throws -> ProcessResult {
        try run("/bin/bash", [Self.script, "--executable", executable.path, "--output", output.path] + extra)
    }

    struct Info: Decodable, Equatable {
        struct Artifact: Decodable, Equatable {
            var version: String
            var type: String
            var variants: [Variant]
        }
        struct Variant: Decodable, Equatable {
            var path: String
            var supportedTriples: [String]
        }
        var schemaVersion: String
        var artifacts: [String: Artifact]
    }

    func info(_ output: URL) throws -> Info {
        try JSONDecoder().decode(Info.self, from: Data(contentsOf: output.appendingPathComponent("lucidgen.artifactbundle/info.json")))
    }

    @Test func theScriptWritesABundleOfTheExecutablesVersionForTheHostTripleAndZipsIt() throws {
        let stub = try executable("stub-current", "echo \(LucidGenVersion.current)")
        let output = Self.base.appendingPathComponent("script-output")
        try? FileManager.default.removeItem(at: output)
        let made = try makeBundle(stub, into: output)
        #expect(made.status == 0, "\(made.output)\n\(made.error)")

        let targetInfo = try run(swiftExecutable, ["-print-target-info"])
        let target =
            try #require(try JSONSerialization.jsonObject(with: Data(targetInfo.output.utf8)) as? [String: Any])["target"] as? [String: Any]
        let host = try #require(target?["unversionedTriple"] as? String)
        let variant = "lucidgen-\(LucidGenVersion.current)-\(host)/bin/lucidgen"
        #expect(
            try info(output)
                == Info(
                    schemaVersion: "1.0",
                    artifacts: [
                        "lucidgen": .init(
                            version: LucidGenVersion.current, type: "executable", variants: [.init(path: variant, supportedTriples: [host])]
                        )
                    ]))
        let binary = output.appendingPathComponent("lucidgen.artifactbundle/\(variant)").path
        #expect(FileManager.default.isExecutableFile(atPath: binary))
        #expect(try run(binary, ["--version"]).output == "\(LucidGenVersion.current)\n")

        // The zip holds the bundle folder, and the printed checksum is SwiftPM's for it.
        let zip = output.appendingPathComponent("lucidgen.artifactbundle.zip")
        let listing = try run("/usr/bin/env", ["unzip", "-Z1", zip.path])
        #expect(
            listing.output.split(separator: "\n").sorted() == [
                "lucidgen.artifactbundle/", "lucidgen.artifactbundle/info.json",
                "lucidgen.artifactbundle/lucidgen-\(LucidGenVersion.current)-\(host)/",
                "lucidgen.artifactbundle/lucidgen-\(LucidGenVersion.current)-\(host)/bin/", "lucidgen.artifactbundle/\(variant)",
            ])
        let checksum = try run(swiftExecutable, ["package", "compute-checksum", zip.path], in: repositoryRoot).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(checksum.count == 64)
        #expect(made.output.contains("checksum: \(checksum)\n"))
        #expect(
            made.output.contains(
                ".binaryTarget(name: \"LucidGenBinary\", url: \"https://…/\(LucidGenVersion.current)/lucidgen.artifactbundle.zip\", checksum: \"\(checksum)\")"
            ))
    }

    @Test func runsForOtherTriplesAddVariantsAndAnotherVersionReplacesTheBundle() throws {
        let output = Self.base.appendingPathComponent("script-variants")
        try? FileManager.default.removeItem(at: output)
        let current = try executable("stub-current", "echo \(LucidGenVersion.current)")
        #expect(try makeBundle(current, into: output, ["--triple", "x86_64-unknown-linux-gnu", "--no-zip"]).status == 0)
        #expect(try makeBundle(current, into: output, ["--triple", "aarch64-unknown-linux-gnu", "--no-zip"]).status == 0)
        let v = LucidGenVersion.current
        #expect(
            try info(output).artifacts["lucidgen"]?.variants == [
                .init(path: "lucidgen-\(v)-aarch64-unknown-linux-gnu/bin/lucidgen", supportedTriples: ["aarch64-unknown-linux-gnu"]),
                .init(path: "lucidgen-\(v)-x86_64-unknown-linux-gnu/bin/lucidgen", supportedTriples: ["x86_64-unknown-linux-gnu"]),
            ])
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("lucidgen.artifactbundle.zip").path))

        let other = try executable("stub-other", "echo 9.9.9")
        #expect(try makeBundle(other, into: output, ["--triple", "x86_64-unknown-linux-gnu", "--no-zip"]).status == 0)
        #expect(
            try info(output).artifacts["lucidgen"]
                == .init(
                    version: "9.9.9", type: "executable",
                    variants: [
                        .init(path: "lucidgen-9.9.9-x86_64-unknown-linux-gnu/bin/lucidgen", supportedTriples: ["x86_64-unknown-linux-gnu"])
                    ]))
        let folders = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("lucidgen.artifactbundle").path)
            .sorted()
        #expect(folders == ["info.json", "lucidgen-9.9.9-x86_64-unknown-linux-gnu"])
    }

    @Test func thePluginPackageRunsTheBundlesBinaryFromBothPlugins() throws {
        let dump = try run(swiftExecutable, ["package", "dump-package"], in: repositoryRoot.appendingPathComponent("lucidgen-plugins"))
        #expect(dump.status == 0, "\(dump.error)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any])
        #expect(manifest["name"] as? String == "lucidgen-plugins")
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        let summary = targets.map { target in
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { ($0["byName"] as? [Any])?.first as? String }
            return "\(target["name"] ?? "") \(target["type"] ?? "") \(target["path"] as? String ?? "-") \(dependencies)"
        }
        #expect(
            summary == [
                "LucidGenBinary binary lucidgen.artifactbundle []",
                "LucidGenPrebuiltPlugin plugin - [\"LucidGenBinary\"]",
                "LucidGenPrebuiltCommand plugin - [\"LucidGenBinary\"]",
            ])
        // The repository's .gitignore keeps the script's output out of commits.
        let ignored = try String(contentsOf: repositoryRoot.appendingPathComponent(".gitignore"), encoding: .utf8).split(separator: "\n")
        #expect(
            ignored.contains("lucidgen-plugins/lucidgen.artifactbundle/")
                && ignored.contains("lucidgen-plugins/lucidgen.artifactbundle.zip"))
    }

    /// A plugin target can share no file with another; the copies must not drift.
    @Test func theSharedPluginFilesAreTheSameInEveryCopy() throws {
        let copies = [
            ["Plugins/LucidGenPlugin/GenerateCommand.swift", "lucidgen-plugins/Plugins/LucidGenPrebuiltPlugin/GenerateCommand.swift"],
            ["Plugins/LucidGenCommand/RunTool.swift", "lucidgen-plugins/Plugins/LucidGenPrebuiltCommand/RunTool.swift"],
            [
                "lucidgen-plugins/Plugins/LucidGenPrebuiltPlugin/PrebuiltTool.swift",
                "lucidgen-plugins/Plugins/LucidGenPrebuiltCommand/PrebuiltTool.swift",
            ],
        ]
        for pair in copies {
            let contents = try pair.map { try Data(contentsOf: repositoryRoot.appendingPathComponent($0)) }
            #expect(!contents[0].isEmpty)
            #expect(contents[0] == contents[1], "\(pair[0]) and \(pair[1]) differ: copy one over the other")
            #expect(String(decoding: contents[0], as: UTF8.self).contains(pair[1]), "\(pair[0]) names its copy")
        }
    }

    /// What the plugins read to know the runtime's version (PrebuiltTool.versionFile): one line, a literal.
    @Test func theVersionFileDeclaresTheCurrentVersionOnOneLine() throws {
        let text = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Sources/LucidGenCore/LucidGenVersion.swift"), encoding: .utf8)
        let lines = text.split(separator: "\n").filter { $0.contains("static let current = \"") }
        #expect(lines == ["    package static let current = \"\(LucidGenVersion.current)\""])
    }

    /// A package made by `lucidgen init --plugin` moved to the prebuilt plugins, the lucidgen-plugins copy and its
    /// bundle under `.build/e2e-prebuilt`.
    func consumer(bundling tool: URL) throws -> (package: URL, scratch: String) {
        let plugins = Self.base.appendingPathComponent("lucidgen-plugins")
        try? FileManager.default.removeItem(at: plugins)
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("lucidgen-plugins"), to: plugins)
        try? FileManager.default.removeItem(at: plugins.appendingPathComponent("lucidgen.artifactbundle"))
        try? FileManager.default.removeItem(at: plugins.appendingPathComponent(".build"))
        let made = try makeBundle(tool, into: plugins, ["--no-zip"])
        #expect(made.status == 0, "\(made.error)")

        let package = Self.base.appendingPathComponent("Consumer")
        try? FileManager.default.removeItem(at: package)
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let initResult = try run(
            lucidgenBinary, ["init", "--plugin", "--package-path", repositoryRoot.path, "--module", "Consumer"], in: package)
        #expect(initResult.status == 0, "\(initResult.error)")
        let manifestURL = package.appendingPathComponent("Package.swift")
        let lucidgen = ".package(name: \"lucidgen\", path: \(String(reflecting: repositoryRoot.path))),"
        let manifest = try String(contentsOf: manifestURL, encoding: .utf8)
        #expect(manifest.contains(lucidgen))
        try manifest
            .replacingOccurrences(of: lucidgen, with: lucidgen + "\n        .package(path: \(String(reflecting: plugins.path))),")
            .replacingOccurrences(
                of: ".plugin(name: \"LucidGenPlugin\", package: \"lucidgen\")",
                with: ".plugin(name: \"LucidGenPrebuiltPlugin\", package: \"lucidgen-plugins\")"
            )
            .write(to: manifestURL, atomically: true, encoding: .utf8)
        return (package, Self.base.appendingPathComponent("scratch").path)
    }

    @Test func aBinaryOfAnotherVersionIsRefusedByBothPlugins() throws {
        let (package, scratch) = try consumer(bundling: try executable("stub-other", "echo 9.9.9"))
        let refusal = "the prebuilt lucidgen is version 9.9.9 ("
        let runtime =
            "but this package compiles against LucidRuntime \(LucidGenVersion.current) (the lucidgen package at \(repositoryRoot.path)); "
        let remedy =
            "`.package(url: …lucidgen-plugins, exact: \"\(LucidGenVersion.current)\")` beside `.package(url: …lucidgen, exact: \"\(LucidGenVersion.current)\")`"

        let build = try run(swiftExecutable, ["build", "--scratch-path", scratch], in: package)
        let buildText = build.output + build.error
        #expect(build.status != 0)
        #expect(buildText.contains(refusal) && buildText.contains(runtime) && buildText.contains(remedy), "\(buildText.suffix(3000))")
        // Refused while planning: nothing of the package or its dependencies was compiled.
        #expect(!buildText.contains("Compiling GRDB") && !buildText.contains("Compiling Consumer"), "\(buildText.suffix(3000))")

        let command = try run(
            swiftExecutable,
            ["package", "--scratch-path", scratch, "--allow-writing-to-package-directory", "lucidgen-prebuilt", "generate"], in: package)
        let commandText = command.output + command.error
        #expect(command.status != 0)
        #expect(commandText.contains(refusal) && commandText.contains(runtime), "\(commandText.suffix(3000))")
    }

    @Test func aBinaryOfTheRuntimesVersionRunsThroughTheCommandPlugin() throws {
        // The bundle's `lucidgen` hands over to this build's debug lucidgen (whose version is the runtime's).
        let wrapper = try executable("wrap-lucidgen", "exec \(String(reflecting: lucidgenBinary)) \"$@\"")
        let (package, scratch) = try consumer(bundling: wrapper)
        let output = Self.base.appendingPathComponent("Consumer.lucid.swift")
        try? FileManager.default.removeItem(at: output)
        // What the build plugin runs, through the command plugin: the module's generated file.
        let generate = try run(
            swiftExecutable,
            [
                "package", "--scratch-path", scratch, "--allow-writing-to-package-directory", "lucidgen-prebuilt", "generate", "--module",
                "Consumer", "--module-output", output.path,
            ],
            in: package)
        #expect(generate.status == 0, "\(generate.output)\n\(generate.error.suffix(3000))")
        let generated = try String(contentsOf: output, encoding: .utf8)
        #expect(
            generated.hasPrefix("// Generated by lucidgen \(LucidGenVersion.current) (build plugin) for module Consumer. Do not edit.\n"))
        #expect(generated.contains("struct Note"), "\(generated.prefix(2000))")
    }
}
