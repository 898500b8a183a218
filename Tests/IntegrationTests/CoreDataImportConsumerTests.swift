import Foundation
import LucidTestSupport
import Testing

/// The proof of `lucidgen import coredata` as an app would use it: each history imported, generated, built
/// as a package with its generated migration tests, fixture stores written at every version (the oldest
/// and the newest included), and `swift test` migrating each fixture to the newest version with every value
/// checked. One package holds every history (one build of GRDB): the committed synthetic Shop history always,
/// Wikipedia-iOS (8 versions, through a version map) and DuckDuckGo's HTTPSUpgrade when the shared folder has
/// them, and Brave (27 versions, its 27 fixtures), Artsy Folio (19) and OpenEmu (9) when `../shared/realworld`
/// has them (about 25 s more CPU for Brave). GRDB's build is cached under .build/e2e-coredata (about a minute cold); the generated modules
/// are rebuilt each run.
@Suite struct CoreDataImportConsumerTests {
    struct History {
        var module: String
        var package: URL
        var versionMap: String?
    }

    @Test func importedHistoriesBuildAndTheirOldestFixturesMigrateToTheNewest() throws {
        var histories = [History(module: "Shop", package: CoreDataModels.shop)]
        if let wikipedia = CoreDataModels.wikipedia {
            histories.append(History(module: "Wiki", package: wikipedia, versionMap: CoreDataModels.wikipediaMap))
        }
        if let https = CoreDataModels.httpsUpgrade { histories.append(History(module: "HTTPSUpgrade", package: https)) }
        if let brave = CoreDataModels.history("brave-ios", "Model.xcdatamodeld") {
            histories.append(History(module: "Brave", package: brave))
        }
        // Artsy Folio's two naming schemes order with no map; OpenEmu's first version is named like no
        // number, so it takes the map the importer proposes (the order its SOURCE.md gives).
        if let artsy = CoreDataModels.history("artsy-energy", "ArtsyPartner.xcdatamodeld") {
            histories.append(History(module: "Artsy", package: artsy))
        }
        if let openEmu = CoreDataModels.history("openemu", "OEDatabase.xcdatamodeld") {
            let names = ["OEDatabase": "0.1"].merging(
                ["0.2", "0.3", "0.4", "0.5", "1.0", "1.1", "1.2", "1.3"].map { ("OEDatabase \($0)", $0) }
            ) { $1 }
            let map =
                names.sorted { $0.value.compare($1.value, options: .numeric) == .orderedAscending }.map { "\"\($0.key)\": \"\($0.value)\"" }
                .joined(separator: "\n") + "\n"
            histories.append(History(module: "OpenEmu", package: openEmu, versionMap: map))
        }

        let base = repositoryRoot.appendingPathComponent(".build/e2e-coredata")
        let package = base.appendingPathComponent("Histories")
        for item in ["Sources", "Tests"] { try? FileManager.default.removeItem(at: package.appendingPathComponent(item)) }
        for history in histories { try? FileManager.default.removeItem(at: package.appendingPathComponent("\(history.module)-entities")) }
        var files: [String: String] = ["Package.swift": Self.manifest(histories.map(\.module))]
        for history in histories {
            let module = history.module
            files["\(module).lucid.yaml"] = """
                input_path: \(module)-entities
                current_version: "1.0"
                targets:
                  app:
                    module_name: \(module)
                    output_path: Sources/\(module)/Generated
                  app_tests:
                    module_name: \(module)Tests
                    output_path: Tests/\(module)Tests/Generated
                    expectations_provider: \(module)Expectations

                """
            files["Tests/\(module)Tests/\(module)Expectations.swift"] = """
                import LucidRuntime

                /// No stage and no data migration: the store options are the defaults.
                struct \(module)Expectations {
                    func storeOptions() -> StoreOptions { StoreOptions() }
                }

                """
            files["Sources/\(module)/\(module).swift"] = "// The generated code is in Generated/.\n"
            if let map = history.versionMap { files["\(module)-versions.yaml"] = map }
        }
        try CompositeConsumerTests.write(files, in: package)

        func lucidgen(_ arguments: [String]) throws -> String {
            let result = try run(lucidgenBinary, arguments, in: package)
            #expect(result.status == 0, "lucidgen \(arguments):\n\(result.output)\(result.error)")
            #expect(!result.error.contains("warning:"), "lucidgen \(arguments):\n\(result.error)")
            return result.output
        }
        for history in histories {
            let config = "\(history.module).lucid.yaml"
            var arguments = ["import", "coredata", history.package.path, "--config", config]
            if history.versionMap != nil { arguments += ["--version-map", "\(history.module)-versions.yaml"] }
            let imported = try lucidgen(arguments)
            let versions = imported.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  "), let arrow = line.range(of: " → ") else { return nil }
                return String(line[arrow.upperBound...])
            }
            #expect(versions.count >= 3, "\(imported)")
            _ = try lucidgen(["generate", "--config", config])
            // A fixture at every released version (the generated tests ask for each) and at the newest.
            for version in versions.dropLast() { _ = try lucidgen(["fixtures", "--config", config, "--schema-version", version]) }
            _ = try lucidgen(["fixtures", "--config", config, "--schema-version", versions.last!, "--unreleased"])
            let fixtures = try FileManager.default.contentsOfDirectory(
                atPath: package.appendingPathComponent("Tests/\(history.module)Tests/Generated/Fixtures").path)
            #expect(fixtures.filter { $0.hasSuffix(".sqlite") }.count == versions.count, "\(fixtures)")
        }

        let scratch = base.appendingPathComponent("scratch").path
        let result = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: package)
        let output = result.output + result.error
        #expect(result.status == 0, "swift test:\n\(output.suffix(8000))")
        let warnings = output.split(separator: "\n").filter { $0.contains("warning:") && $0.contains("/Histories/") }
        #expect(warnings.isEmpty, "the generated code compiles without warnings: \(warnings.prefix(10))")
        for history in histories {
            // The generated suite migrates every fixture (the oldest included) to the newest version.
            #expect(
                output.contains("Suite \"\(history.module) migrations (generated)\" passed"), "\(history.module):\n\(output.suffix(8000))")
        }
    }

    static func manifest(_ modules: [String]) -> String {
        let targets = modules.map { module in
            """
                    .target(name: "\(module)", dependencies: [.product(name: "LucidRuntime", package: "lucidgen")]),
                    .testTarget(
                        name: "\(module)Tests",
                        dependencies: ["\(module)", .product(name: "LucidTesting", package: "lucidgen")],
                        exclude: ["Generated/Fixtures"]
                    ),
            """
        }.joined(separator: "\n")
        return """
            // swift-tools-version:6.1
            import PackageDescription

            let package = Package(
                name: "Histories",
                dependencies: [.package(name: "lucidgen", path: "\(repositoryRoot.path)")],
                targets: [
            \(targets)
                ],
                swiftLanguageModes: [.v6]
            )

            """
    }
}
