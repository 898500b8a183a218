// swift-tools-version:6.1
//
// The floor of `swift package <command plugin>` (Benchmarks/plugin/run.sh): a command plugin that does
// nothing but run its tool, an executable with lucidgen's dependency shape (lucidgen's library products,
// Yams, Mustache, ArgumentParser; GRDB and swift-log through LucidRuntime). What SwiftPM itself costs:
// evaluating the manifests, deciding that the tool needs no rebuild, compiling (or reusing) the plugin
// and running it. run.sh copies this folder under .build and points LUCIDGEN_PATH at the checkout.
import PackageDescription

let package = Package(
    name: "Floor",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "lucidgen", path: "LUCIDGEN_PATH"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", exact: "2.1.1"),
    ],
    targets: [
        .executableTarget(
            name: "floor-tool",
            dependencies: [
                .product(name: "LucidRuntime", package: "lucidgen"),
                .product(name: "LucidSchema", package: "lucidgen"),
                .product(name: "LucidTesting", package: "lucidgen"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .plugin(
            name: "FloorCommand",
            capability: .command(
                intent: .custom(verb: "floor", description: "Run floor-tool (the benchmark's floor)"),
                permissions: [.writeToPackageDirectory(reason: "the same permission as lucidgen's command plugin")]),
            dependencies: ["floor-tool"]),
    ],
    swiftLanguageModes: [.v6]
)
