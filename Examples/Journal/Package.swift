// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Journal",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "Journal", targets: ["Journal"])
    ],
    dependencies: [
        .package(name: "lucidgen", path: "../..")
    ],
    targets: [
        // The generated records and schema registry: made by the lucidgen build plugin during `swift build`.
        .target(
            name: "Journal", dependencies: [.product(name: "LucidRuntime", package: "lucidgen")],
            plugins: [.plugin(name: "LucidGenPlugin", package: "lucidgen")]),
        // The generated migration tests (build plugin) and the fixture stores `swift package lucidgen fixtures` writes.
        .testTarget(
            name: "JournalTests", dependencies: ["Journal", .product(name: "LucidTesting", package: "lucidgen")], exclude: ["Fixtures"],
            plugins: [.plugin(name: "LucidGenPlugin", package: "lucidgen")]),
    ],
    swiftLanguageModes: [.v6]
)
