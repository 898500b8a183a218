import Foundation
import LucidTestSupport
import Testing

/// lucidgen's manifest names swift-syntax (for `lucidgen-swiftdata` alone), and SwiftPM resolves every
/// dependency of a package for its consumers: an app whose macros pin swift-syntax at another version than
/// lucidgen's newest (600.0.1, as macro packages built for Swift 6.0 do) still resolves, at its own pin.
@Suite struct SwiftSyntaxPinConsumerTests {
    @Test func aConsumerThatPinsAnOlderSwiftSyntaxResolves() throws {
        let package = FileManager.default.temporaryDirectory.appendingPathComponent("swift-syntax-pin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: package.appendingPathComponent("Sources/App"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: package) }
        try """
        // swift-tools-version:6.1
        import PackageDescription
        let package = Package(
            name: "App",
            dependencies: [
                .package(path: "\(repositoryRoot.path)"),
                .package(url: "https://github.com/swiftlang/swift-syntax", exact: "600.0.1"),
            ],
            targets: [
                .target(
                    name: "App",
                    dependencies: [
                        .product(name: "LucidRuntime", package: "\(repositoryRoot.lastPathComponent)"),
                        .product(name: "SwiftSyntax", package: "swift-syntax"),
                    ])
            ]
        )
        """.write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "import LucidRuntime\n".write(to: package.appendingPathComponent("Sources/App/App.swift"), atomically: true, encoding: .utf8)
        let resolve = try run(swiftExecutable, ["package", "resolve"], in: package)
        #expect(resolve.status == 0, "\(resolve.output)\(resolve.error)")
        let resolved = try String(contentsOf: package.appendingPathComponent("Package.resolved"), encoding: .utf8)
        let entry = resolved.components(separatedBy: "\"identity\"").first { $0.contains("\"swift-syntax\"") } ?? ""
        #expect(entry.contains("\"version\" : \"600.0.1\""), "\(resolved)")
    }
}
