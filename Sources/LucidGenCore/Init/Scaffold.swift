import Foundation
import LucidSchema

/// `lucidgen init`: sets up a consumer package.
package struct Scaffold {
    /// Where the consumer's Package.swift gets lucidgen from.
    package enum Dependency: Equatable {
        case path(String)
        case url(String, from: String)

        var packageLine: String {
            switch self {
            case .path(let path): ".package(name: \"lucidgen\", path: \(swiftStringLiteral(path)))"
            case .url(let url, let version): ".package(url: \(swiftStringLiteral(url)), from: \(swiftStringLiteral(version)))"
            }
        }
    }

    package static let publicURL = "https://github.com/lucidgen/lucidgen.git"
    package static let releaseVersion = LucidGenVersion.current

    /// The checkout this binary was built from when it still exists (so `init` works offline right after
    /// building lucidgen), else the published package.
    package static func defaultDependency() -> Dependency {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let manifest = root.appendingPathComponent("Package.swift").path
        if let text = try? String(contentsOfFile: manifest, encoding: .utf8), text.contains("name: \"lucidgen\"") {
            return .path(root.path)
        }
        return .url(publicURL, from: releaseVersion)
    }

    package var folder: String
    package var moduleName: String
    package var dependency: Dependency
    /// The SwiftPM build plugin generates the code during `swift build` (`lucidgen init --plugin`):
    /// nothing generated is committed, only descriptions, snapshots and fixture stores.
    package var plugin: Bool

    package init(folder: String, moduleName: String?, dependency: Dependency, plugin: Bool = false) throws(GenerationFailed) {
        self.folder = folder
        self.dependency = dependency
        self.plugin = plugin
        let name = moduleName ?? Self.moduleName(fromFolder: (folder as NSString).lastPathComponent)
        guard Naming.isSwiftTypeName(name) else {
            throw GenerationFailed("'\(name)' is not a valid Swift module name; pass --module NAME")
        }
        self.moduleName = name
    }

    static func moduleName(fromFolder folder: String) -> String {
        let parts = folder.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        let name = parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return name.first?.isLetter == true ? name : "App"
    }

    /// Creates the files; returns lines to print.
    package func run() throws(GenerationFailed) -> [String] {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: folder, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw GenerationFailed("'\(displayPath(folder))' is a file, not a folder")
        }
        let existing = (try? fileManager.contentsOfDirectory(atPath: folder))?.filter { !$0.hasPrefix(".") } ?? []
        let hasPackage = fileManager.fileExists(atPath: path("Package.swift"))
        if !hasPackage && !existing.isEmpty {
            throw GenerationFailed(
                "'\(displayPath(folder))' is neither empty nor a Swift package (it has \(existing.sorted().prefix(3).joined(separator: ", "))); run `lucidgen init` in an empty folder or in a package"
            )
        }
        if fileManager.fileExists(atPath: path(Config.defaultFileName)) {
            throw GenerationFailed("'\(displayPath(path(Config.defaultFileName)))' already exists; lucidgen is already set up here")
        }
        var files: [(String, String)] = [
            (Config.defaultFileName, config),
            (".entities/note.json", Self.exampleEntity),
        ]
        if !hasPackage {
            files.append(("Package.swift", manifest))
            files.append(("Tests/\(moduleName)Tests/\(moduleName)Tests.swift", exampleTest))
        }
        files.append(("Tests/\(moduleName)Tests/\(moduleName)Expectations.swift", expectations))
        // The migrations_provider: the generated protocol's requirements are build errors in this type.
        let stagesFile = "Sources/\(moduleName)/\(stagesType).swift"
        let declaresStages = declaresType(stagesType, under: "Sources/\(moduleName)")
        if !declaresStages { files.append((stagesFile, stages)) }
        var lines: [String] = []
        var notOwned: [String] = []
        if declaresStages {
            notOwned.append(
                "  \(stagesType) is declared in Sources/\(moduleName) already: keep it `public struct \(stagesType): Sendable` with `public init()` (migrations_provider in .lucid.yaml)"
            )
        }
        for (relative, contents) in files {
            let target = path(relative)
            if fileManager.fileExists(atPath: target) {
                if relative == stagesFile {
                    notOwned.append(
                        "  \(relative) exists; declare the migrations_provider there: public struct \(stagesType): Sendable { public init() {} }"
                    )
                }
                continue
            }
            do {
                try fileManager.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(contents.utf8).write(to: URL(fileURLWithPath: target), options: .atomic)
            } catch {
                throw GenerationFailed("cannot write '\(displayPath(target))': \(error.localizedDescription)")
            }
            lines.append("created  \(displayPath(target))")
        }
        let result = try GeneratorPipeline(configPath: path(Config.defaultFileName)).run(check: false)
        for file in result.report.created { lines.append("created  \(displayPath(file))") }
        if !notOwned.isEmpty {
            lines.append("")
            lines.append("Not written (the file is yours):")
            lines.append(contentsOf: notOwned)
        }
        if hasPackage {
            lines.append("")
            lines.append("Add to your Package.swift:")
            lines.append("  dependencies: [\(dependency.packageLine)]")
            lines.append("  \(appTargetLine)")
            lines.append("  \(testTargetLine)")
        } else if plugin {
            lines.append("")
            lines.append("Next: edit .entities/, then `swift build` and `swift test` (the build plugin generates the code);")
            lines.append(
                "when a version is final, `swift package --allow-writing-to-package-directory lucidgen release` checks it, writes its fixture store and says what to commit and bump."
            )
        } else {
            lines.append("")
            lines.append("Next: edit .entities/, run `lucidgen generate`, then `swift build` and `swift test`;")
            lines.append(
                "when a version is final, `lucidgen release` checks it, writes its fixture store and says what to commit and bump.")
        }
        return lines
    }

    private func path(_ relative: String) -> String { (folder as NSString).appendingPathComponent(relative) }

    /// The app's type that implements the steps SQL alone cannot make (`migrations_provider`).
    var stagesType: String { "\(moduleName)Stages" }

    /// Whether a Swift file below `relative` declares a type named `name`.
    private func declaresType(_ name: String, under relative: String) -> Bool {
        guard let files = FileManager.default.subpaths(atPath: path(relative)) else { return false }
        let pattern = try? NSRegularExpression(pattern: "\\b(struct|class|enum|actor|typealias)\\s+\(name)\\b")
        return files.contains { file in
            guard file.hasSuffix(".swift"), !file.hasPrefix("Generated/"),
                let text = try? String(contentsOfFile: (path(relative) as NSString).appendingPathComponent(file), encoding: .utf8)
            else { return false }
            return pattern?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
    }

    var appTargetLine: String {
        let plugins = plugin ? ", plugins: [.plugin(name: \"LucidGenPlugin\", package: \"lucidgen\")]" : ""
        return ".target(name: \"\(moduleName)\", dependencies: [.product(name: \"LucidRuntime\", package: \"lucidgen\")]\(plugins)),"
    }

    var testTargetLine: String {
        let plugins = plugin ? ", plugins: [.plugin(name: \"LucidGenPlugin\", package: \"lucidgen\")]" : ""
        let fixtures = plugin ? "Fixtures" : "Generated/Fixtures"
        return
            ".testTarget(name: \"\(moduleName)Tests\", dependencies: [\"\(moduleName)\", .product(name: \"LucidTesting\", package: \"lucidgen\")], exclude: [\"\(fixtures)\"]\(plugins)),"
    }

    var config: String {
        if plugin { return pluginConfig }
        return """
            # lucidgen configuration. Reference: "Configuration" in LucidRuntime's documentation.
            input_path: .entities
            current_version: "1.0"
            # The app's type for migration code: a step SQL alone cannot make is a `swift build` error until written there.
            migrations_provider: \(stagesType)
            targets:
              app:
                module_name: \(moduleName)
                output_path: Sources/\(moduleName)/Generated
              # The generated migration tests; `lucidgen fixtures` writes fixture stores beside them.
              app_tests:
                module_name: \(moduleName)Tests
                output_path: Tests/\(moduleName)Tests/Generated
                expectations_provider: \(moduleName)Expectations

            """
    }

    var pluginConfig: String {
        """
        # lucidgen configuration. Reference: "Configuration" and "Commands" (its SwiftPM plugins) in LucidRuntime's documentation.
        # The LucidGenPlugin build plugin generates the code during `swift build`; nothing generated is committed.
        build_plugin: true
        input_path: .entities
        current_version: "1.0"
        # The app's type for migration code: a step SQL alone cannot make is a `swift build` error until written there.
        migrations_provider: \(stagesType)
        targets:
          app:
            module_name: \(moduleName)
            output_path: Sources/\(moduleName)
          # The generated migration tests' module; `swift package lucidgen fixtures` writes fixture stores to
          # <output_path>/Fixtures, which the tests migrate.
          app_tests:
            module_name: \(moduleName)Tests
            output_path: Tests/\(moduleName)Tests
            expectations_provider: \(moduleName)Expectations

        """
    }

    var manifest: String {
        if plugin {
            return """
                // swift-tools-version:6.1
                import PackageDescription

                let package = Package(
                    name: "\(moduleName)",
                    platforms: [.macOS(.v13), .iOS(.v16)],
                    products: [
                        .library(name: "\(moduleName)", targets: ["\(moduleName)"]),
                    ],
                    dependencies: [
                        \(dependency.packageLine),
                    ],
                    targets: [
                        // The generated records and schema registry: made by the lucidgen build plugin during `swift build`.
                        \(appTargetLine)
                        // The generated migration tests (build plugin) and the fixture stores `swift package lucidgen fixtures` writes.
                        \(testTargetLine)
                    ],
                    swiftLanguageModes: [.v6]
                )

                """
        }
        return """
            // swift-tools-version:6.1
            import PackageDescription

            let package = Package(
                name: "\(moduleName)",
                platforms: [.macOS(.v13), .iOS(.v16)],
                products: [
                    .library(name: "\(moduleName)", targets: ["\(moduleName)"]),
                ],
                dependencies: [
                    \(dependency.packageLine),
                ],
                targets: [
                    // The generated records and schema registry (`lucidgen generate` writes Sources/\(moduleName)/Generated).
                    .target(name: "\(moduleName)", dependencies: [.product(name: "LucidRuntime", package: "lucidgen")]),
                    // The generated migration tests (Generated/) and the fixture stores `lucidgen fixtures` writes.
                    .testTarget(
                        name: "\(moduleName)Tests",
                        dependencies: ["\(moduleName)", .product(name: "LucidTesting", package: "lucidgen")],
                        exclude: ["Generated/Fixtures"]
                    ),
                ],
                swiftLanguageModes: [.v6]
            )

            """
    }

    var exampleTest: String {
        """
        import Foundation
        import GRDB
        import LucidRuntime
        import Testing
        @testable import \(moduleName)

        // An example test of the app's own code, written for the example entity `note` (.entities/note.json):
        // when you replace that entity with yours, replace this test too (or delete this file). The generated
        // migration tests (Generated/) follow the descriptions by themselves.
        @Test func notesRoundTripThroughTheNewestSchema() throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(moduleName)-\\(UUID().uuidString).sqlite").path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
            let database = try LucidStore.open(atPath: path, registry: \(moduleName)Schema.self).database
            defer { try? database.close() }
            try database.write { db in
                var note = Note(title: "Hello", body: "First note")
                try note.insert(db)
                #expect(note.id != nil)
                let fetched = try Note.fetchOne(db, key: note.id)
                #expect(fetched?.title == "Hello")
                #expect(fetched?.isPinned == false)
            }
        }

        """
    }

    var expectations: String {
        """
        import LucidRuntime
        import LucidTesting
        @testable import \(moduleName)

        /// What the generated migration tests (Generated/\(moduleName)MigrationTests.swift) need from the app: the
        /// options it opens its store with and, for each step that runs the app's own migration code, what
        /// that code does to the data. `lucidgen generate` adds a requirement for each such step; the tests
        /// do not build until it is written here. The tests seed edge values, which never hold what your
        /// stages react to: put such rows in .entities/.samples/<version>.json ("Generated migration
        /// tests" in LucidTesting's documentation), and a stage that mishandles them fails the tests.
        struct \(moduleName)Expectations {
            /// The options the app opens its store with (its stages and data migrations): the app's own, so
            /// that the generated tests run the app's stages and data migrations as the app does.
            func storeOptions() -> LucidRuntime.StoreOptions {
                \(stagesType).storeOptions()
            }
        }

        """
    }

    var stages: String {
        """
        import GRDB
        import LucidRuntime

        /// \(moduleName)'s own migration code (`migrations_provider` in .lucid.yaml). When a step of the history
        /// cannot be made by SQL alone (e.g. a lossy type change), `lucidgen generate` adds a requirement to the
        /// generated `\(moduleName)Migrations` protocol, and `swift build` fails here until it is written.
        public struct \(stagesType): Swift.Sendable {
            public init() {}

            /// The options the app opens its store with: `LucidStore.open(atPath:registry:options:)`. The
            /// generated tests use them too (`\(moduleName)Expectations.storeOptions()`): declare data
            /// migrations here (`options.dataMigrations = [DataMigration(version:label:run:)]`) and the
            /// tests run them.
            public static func storeOptions() -> LucidRuntime.StoreOptions {
                var options = LucidRuntime.StoreOptions()
                options.stages = \(moduleName)Schema.stages(using: \(stagesType)())
                return options
            }
        }

        """
    }

    static let exampleEntity = """
        {
            "name": "note",
            "version_history": [
                { "version": "1.0" }
            ],
            "properties": [
                { "name": "title", "property_type": "string" },
                { "name": "body", "property_type": "string" },
                { "name": "is_pinned", "property_type": "bool", "default_value": false },
                { "name": "created_at", "property_type": "date", "nullable": true }
            ]
        }

        """
}
