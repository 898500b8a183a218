import Foundation
import LucidTestSupport
import Testing

/// The DocC catalogs of the modules an app imports build without a warning: every symbol link,
/// article link and heading link resolves. What `swift package generate-documentation --target LucidRuntime`
/// (and `--target LucidTesting`) checks, run from the modules this test run was built with: the symbol
/// graphs with `swift-symbolgraph-extract` (public, no `@_spi`), then `docc convert` on the catalog (the
/// plugin would build the package again in its own folder).
@Suite(.serialized) struct DocumentationTests {
    static let work = repositoryRoot.appendingPathComponent(".build-api/docs")

    @Test(arguments: ["LucidRuntime", "LucidTesting", "LucidFleet", "LucidCoreData"])
    func theCatalogBuildsWithoutAWarning(_ module: String) throws {
        let warnings = try Self.warnings(catalog: repositoryRoot.appendingPathComponent("Sources/\(module)/\(module).docc"), module: module)
        #expect(warnings.isEmpty, "\(module).docc: \(warnings.joined(separator: "\n"))")
    }

    /// The check can fail: a catalog with a link to no symbol and one to no article warns twice.
    @Test func aBrokenLinkIsAWarning() throws {
        let catalog = Self.work.appendingPathComponent("Broken.docc")
        try? FileManager.default.removeItem(at: catalog)
        try FileManager.default.createDirectory(at: catalog, withIntermediateDirectories: true)
        let root = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Sources/LucidRuntime/LucidRuntime.docc/LucidRuntime.md"), encoding: .utf8)
        try (root + "\n### Broken\n\n- ``NoSuchSymbol``\n- <doc:NoSuchArticle>\n").write(
            to: catalog.appendingPathComponent("LucidRuntime.md"), atomically: true, encoding: .utf8)
        let warnings = try Self.warnings(catalog: catalog, module: "LucidRuntime")
        #expect(warnings.contains { $0.contains("NoSuchSymbol") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("NoSuchArticle") }, "\(warnings)")
    }

    static func warnings(catalog: URL, module: String) throws -> [String] {
        let tools = URL(fileURLWithPath: swiftExecutable).resolvingSymlinksInPath().deletingLastPathComponent()
        let graphs = work.appendingPathComponent("symbol-graphs-\(module)")
        try? FileManager.default.removeItem(at: graphs)
        try FileManager.default.createDirectory(at: graphs, withIntermediateDirectories: true)
        let info = try run(swiftExecutable, ["-print-target-info"])
        let target = (try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any])?["target"] as? [String: Any]
        let triple = target?["unversionedTriple"] as? String ?? "x86_64-unknown-linux-gnu"
        let extracted = try run(
            tools.appendingPathComponent("swift-symbolgraph-extract").path,
            [
                "-module-name", module, "-I", productsDirectory.appendingPathComponent("Modules").path,
                "-Xcc", "-fmodule-map-file=\(productsDirectory.appendingPathComponent("LucidSQLiteShims.build/module.modulemap").path)",
                "-Xcc", "-fmodule-map-file=\(productsDirectory.appendingPathComponent("LucidSHA256.build/module.modulemap").path)",
                "-Xcc",
                "-fmodule-map-file=\(repositoryRoot.appendingPathComponent(".build/checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap").path)",
                "-target", triple, "-minimum-access-level", "public", "-output-dir", graphs.path,
                "-module-cache-path", work.appendingPathComponent("module-cache").path,
            ])
        guard extracted.status == 0 else {
            throw APIStabilityTests.CheckError("swift-symbolgraph-extract \(module) failed: \(extracted.error.suffix(2000))")
        }
        let output = work.appendingPathComponent("\(module).doccarchive")
        try? FileManager.default.removeItem(at: output)
        let converted = try run(
            tools.appendingPathComponent("docc").path,
            [
                "convert", catalog.path, "--additional-symbol-graph-dir", graphs.path, "--output-path", output.path,
                "--fallback-display-name", module, "--fallback-bundle-identifier", module,
            ])
        guard converted.status == 0 else {
            throw APIStabilityTests.CheckError("docc convert \(module) failed: \(converted.error.suffix(2000))")
        }
        return (converted.output + converted.error).split(separator: "\n").map(String.init).filter { $0.contains("warning:") }
    }
}
