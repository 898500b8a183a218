// swift-tools-version:6.1
//
// lucidgen-plugins: lucidgen's SwiftPM plugins running a prebuilt release `lucidgen` (an artifact bundle), as
// SwiftLint and SwiftGen ship theirs. The plugins of the lucidgen package build the generator from source in
// the consumer's configuration (debug, as a rule: several times slower on a long history, and a consumer's
// first build compiles Yams, Mustache and ArgumentParser); these run a binary built once, in release.
//
//   LucidGenPrebuiltPlugin   the build plugin: what LucidGenPlugin does, with the prebuilt tool
//   LucidGenPrebuiltCommand  `swift package lucidgen-prebuilt generate|check|fixtures|plan|migrate|status`
//
// Both refuse a binary whose `lucidgen --version` is not the version of the lucidgen package the consumer
// compiles against (its LucidRuntime): generated code calls the runtime's generated-code API, which changes
// between releases.
//
// The bundle is made by `scripts/make-artifact-bundle` (at the lucidgen repository's root) and is not
// committed: run it before using this package from a checkout. A release publishes this folder as the root of
// its own repository (a package's manifest must be at its repository's root), tagged with lucidgen's version,
// the bundle's zip attached to the release and the target below in its url form:
//
//   .binaryTarget(
//       name: "LucidGenBinary",
//       url: "https://github.com/<owner>/lucidgen/releases/download/<version>/lucidgen.artifactbundle.zip",
//       checksum: "<what the script prints: swift package compute-checksum lucidgen.artifactbundle.zip>"),
//
// The folder is named as that repository is, so that a consumer names the package `lucidgen-plugins` in
// `.plugin(name:package:)` whether it depends on it by path or by url (a package's identity is the last part of
// its path or url). Names differ from the lucidgen package's (its product, target and command names would clash in a
// consumer's graph, which always holds both: the app imports LucidRuntime from lucidgen).
import PackageDescription

let package = Package(
    name: "lucidgen-plugins",
    products: [
        .plugin(name: "LucidGenPrebuiltPlugin", targets: ["LucidGenPrebuiltPlugin"]),
        .plugin(name: "LucidGenPrebuiltCommand", targets: ["LucidGenPrebuiltCommand"]),
    ],
    targets: [
        // The artifact `lucidgen` in it is the plugins' tool: `context.tool(named: "lucidgen")`.
        .binaryTarget(name: "LucidGenBinary", path: "lucidgen.artifactbundle"),
        .plugin(name: "LucidGenPrebuiltPlugin", capability: .buildTool(), dependencies: ["LucidGenBinary"]),
        .plugin(
            name: "LucidGenPrebuiltCommand",
            capability: .command(
                intent: .custom(
                    verb: "lucidgen-prebuilt",
                    description: "Run the prebuilt lucidgen (generate, check, fixtures, plan, migrate, status) on this package"),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "lucidgen writes generated code, frozen schema snapshots and fixture stores into the package")
                ]),
            dependencies: ["LucidGenBinary"]),
    ],
    swiftLanguageModes: [.v6]
)
