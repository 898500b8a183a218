// swift-tools-version:6.1
//
// lucidgen: a code generator and runtime for safe SQLite schema migrations.
//
// Module map (who may import whom):
//
//   LucidSchema   versioned schema model, versions, DDL, checksums     (no dependencies)
//   LucidRuntime  what apps import: open and migrate stores, the app's migration code, what a store records;
//                 GRDB (+ its sqlite3 module) + swift-log  (LucidSchema). It re-exports nothing.
//   LucidFleet    what a server imports beside LucidRuntime: StoreFleet (many stores migrated on its own
//                 threads) and StoreCache (open stores shared by requests) (LucidRuntime)
//   LucidCoreData what an app coming from Core Data imports beside LucidRuntime: CoreDataOrigin, the
//                 conversion of a Core Data store and its report (LucidRuntime)
//   LucidTesting  what migration tests import: the checks, expected rows, fixtures (LucidRuntime)
//
// The public API is what an app names: the DocC Topics of LucidRuntime, LucidFleet, LucidCoreData and LucidTesting, and the few LucidSchema
// types their signatures use. What only lucidgen's own modules use is `package`; what only generated code
// calls is `@_spi(Generated)` (generated files write `@_spi(Generated) import`). APIStabilityTests checks the
// public API against .api-baseline; CHANGELOG.md says what changed.
//   LucidGenCore  the generator pipeline: Load → Resolve → Render → Write (LucidSchema, Yams, Mustache)
//   LucidGenStore the generator's work on stores, which needs SQLite: describe's reading, the check report,
//                 fixtures, release, the schema and sample-rows trials, the store files --stores names, the
//                 project's versions for plan, migrate and status, plan's and migrate's work on one store
//                 and on a fleet; each takes values and returns a report (LucidGenCore, LucidRuntime,
//                 LucidFleet, LucidCoreData, LucidTesting, GRDB). Not a product: only the CLI links it.
//   LucidGenCLI   the `lucidgen` commands: each parses its options, asks LucidGenStore (or the runtime) and
//                 prints (LucidGenCore, LucidGenStore, LucidRuntime, LucidFleet, LucidCoreData, LucidTesting,
//                 ArgumentParser)
//   lucidgen      the executable, a thin shell over LucidGenCLI
//   LucidSwiftDataReader, lucidgen-swiftdata
//                 a SwiftData app's sources read with swift-syntax into LucidGenCore's SwiftDataSources, printed
//                 as JSON for `lucidgen import swiftdata` (LucidGenCore, SwiftSyntax, SwiftParser)
//
//   FlightLog     the bundled example app's generated code, compiled by this package's own build
import Foundation
import PackageDescription

let package = Package(
    name: "lucidgen",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        // What an app imports.
        .library(name: "LucidRuntime", targets: ["LucidRuntime"]),
        // What a server with a store per tenant imports beside LucidRuntime.
        .library(name: "LucidFleet", targets: ["LucidFleet"]),
        // What an app whose users have Core Data stores imports beside LucidRuntime.
        .library(name: "LucidCoreData", targets: ["LucidCoreData"]),
        // What generated code imports beside LucidRuntime (the schema registry); apps need not name it.
        .library(name: "LucidSchema", targets: ["LucidSchema"]),
        // What migration tests import.
        .library(name: "LucidTesting", targets: ["LucidTesting"]),
        .executable(name: "lucidgen", targets: ["lucidgen"]),
        // Reads a SwiftData app's Swift sources for `lucidgen import swiftdata` (the only thing that links swift-syntax).
        .executable(name: "lucidgen-swiftdata", targets: ["lucidgen-swiftdata"]),
        // Runs the generator during `swift build` (nothing generated is committed).
        .plugin(name: "LucidGenPlugin", targets: ["LucidGenPlugin"]),
        // `swift package lucidgen generate|check|fixtures|plan|migrate|status`.
        .plugin(name: "LucidGenCommand", targets: ["LucidGenCommand"]),
    ],
    dependencies: [
        // Ranges for everything a product or a plugin reaches (SwiftPM takes one requirement per package for a
        // whole dependency graph, and the plugins depend on the `lucidgen` tool): an app already on another
        // GRDB 7 release, or another swift-log, Yams, ArgumentParser or Mustache of the same major, can add
        // lucidgen. The lower bounds are the releases lucidgen is built and tested with.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `lucidgen-swiftdata` only (neither `lucidgen`, the plugins nor a library links it), over the majors whose
        // parser API it uses, so an app whose macros pin swift-syntax 600 to 603 still resolves lucidgen.
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"604.0.0"),
        // Tests only: seeded generators for the history explorer (a range too: SwiftPM resolves a package's
        // test dependencies for its consumers as well).
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(name: "LucidSchema", dependencies: ["LucidSHA256"]),
        // SHA-256's rounds, in C: fast in a debug build too (schema checksums hash every version's DDL).
        .target(name: "LucidSHA256"),
        // One C function: sqlite3_db_config is variadic, which Swift cannot call.
        .target(name: "LucidSQLiteShims", dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]),
        .target(
            name: "LucidRuntime",
            dependencies: [
                "LucidSchema",
                "LucidSQLiteShims",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The sqlite3 C API that GRDB links: row transforms register raw SQL functions.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "LucidFleet",
            dependencies: [
                "LucidRuntime", "LucidSchema", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "LucidCoreData",
            dependencies: [
                "LucidRuntime", "LucidSchema", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "LucidTesting",
            dependencies: [
                "LucidRuntime", "LucidSchema", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "LucidGenCore",
            dependencies: [
                "LucidSchema",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
        .target(
            name: "LucidGenStore",
            dependencies: [
                "LucidGenCore",
                "LucidSchema",
                "LucidRuntime",
                "LucidTesting",
                "LucidCoreData",
                "LucidFleet",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The sqlite3 C API: the schema trial names the SQLite that tried it.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "LucidGenCLI",
            dependencies: [
                "LucidGenCore",
                "LucidGenStore",
                "LucidSchema",
                "LucidRuntime",
                "LucidFleet",
                "LucidCoreData",
                "LucidTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "lucidgen", dependencies: ["LucidGenCLI"]),
        // A SwiftData app's sources as the values `lucidgen import swiftdata` reads (LucidGenCore's SwiftDataSources),
        // parsed with swift-syntax; `lucidgen` runs it, so that neither it nor the build plugin compiles swift-syntax.
        .target(
            name: "LucidSwiftDataReader",
            dependencies: [
                "LucidGenCore", .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]),
        .executableTarget(name: "lucidgen-swiftdata", dependencies: ["LucidSwiftDataReader"]),

        .plugin(name: "LucidGenPlugin", capability: .buildTool(), dependencies: ["lucidgen"], path: "Plugins/LucidGenPlugin"),
        .plugin(
            name: "LucidGenCommand",
            capability: .command(
                intent: .custom(
                    verb: "lucidgen", description: "Run lucidgen (generate, check, fixtures, plan, migrate, status) on this package"),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "lucidgen writes generated code, frozen schema snapshots and fixture stores into the package")
                ]),
            path: "Plugins/LucidGenCommand"),

        // Turns Templates/*.mustache into Sources/LucidGenCore/Render/BundledTemplates.swift (committed).
        .executableTarget(name: "template-embedder"),

        // Runtime vs the sqlite3 CLI on a 1M-row store: `swift run -c release migration-benchmark`.
        .executableTarget(
            name: "migration-benchmark", dependencies: ["LucidRuntime", "LucidSchema", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/MigrationBenchmark", exclude: ["last-run.txt", "last-run-app-objects.txt"]),

        // The bundled example app (flight log): generated by `lucidgen generate` from .entities/ and .lucid.yaml.
        .target(name: "FlightLog", dependencies: ["LucidRuntime"], path: "Sources/FlightLog"),
        // The example app's launch: opens a store with the app's stages and data migrations.
        .executableTarget(
            name: "flightlog-demo", dependencies: ["FlightLog", "LucidRuntime", .product(name: "GRDB", package: "GRDB.swift")]),
        // An app opening scripts/crash-soak-project's store through the API (a stage with hooks and a row
        // transform, data migrations, either atomicity), stopping at named points: what the crash tests kill.
        .executableTarget(
            name: "crash-child",
            dependencies: [
                "LucidGenCore", "LucidRuntime", "LucidSchema", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        .testTarget(name: "LucidSchemaTests", dependencies: ["LucidSchema"]),
        // What the test targets share: throw-away projects, the process runner, the built products' folder.
        .target(
            name: "LucidTestSupport",
            dependencies: [
                "LucidGenCore", "LucidRuntime", "LucidSchema", "StoreTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/LucidTestSupport"
        ),
        // The generator (its tests run the `lucidgen` binary too).
        .testTarget(
            name: "LucidGenCoreTests",
            dependencies: [
                "LucidGenCore", "LucidRuntime", "LucidSchema", "LucidTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                "lucidgen",
            ],
            exclude: ["Golden", "CoreData"]
        ),
        // The `lucidgen` commands, in-process and as a process.
        .testTarget(
            name: "LucidGenCLITests",
            dependencies: [
                "LucidGenCLI", "LucidGenCore", "LucidGenStore", "LucidRuntime", "LucidSchema", "LucidTestSupport",
                "StoreTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                "lucidgen",
            ]
        ),
        // End-to-end runs: compiled consumer packages, the plugins, processes killed mid-migration, the tenant server.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "LucidGenCore", "LucidGenCLI", "LucidRuntime", "LucidFleet", "LucidCoreData", "LucidSchema", "LucidTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                "lucidgen", "flightlog-demo", "crash-child",
            ]
        ),
        // `import swiftdata`: sources read, histories imported, generated and migrated.
        .testTarget(
            name: "LucidSwiftDataTests",
            dependencies: [
                "LucidSwiftDataReader", "LucidGenCore", "LucidSchema", "LucidRuntime", "LucidCoreData", "LucidTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"), "lucidgen", "lucidgen-swiftdata",
            ]),
        .testTarget(
            name: "FlightLogTests",
            dependencies: ["FlightLog", "LucidRuntime", "LucidTesting", .product(name: "GRDB", package: "GRDB.swift")],
            exclude: ["Generated/Fixtures"]),
        // Random description histories played as a user plays them, every migration checked.
        .testTarget(
            name: "HistoryExplorerTests",
            dependencies: [
                "LucidGenCore", "LucidGenCLI", "LucidRuntime", "LucidSchema", "LucidTesting", "LucidTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The runtime alone: stores made from its own schemas or the example app's generated code.
        .testTarget(
            name: "LucidRuntimeTests",
            dependencies: [
                "LucidRuntime", "LucidSchema", "LucidTesting", "FlightLog", "Samples", "StoreTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "LucidFleetTests",
            dependencies: [
                "LucidFleet", "LucidRuntime", "LucidSchema", "FlightLog", "StoreTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // Core Data stores converted; the stores are written from models the generator's `import coredata` reads.
        .testTarget(
            name: "LucidCoreDataTests",
            dependencies: [
                "LucidCoreData", "LucidRuntime", "LucidSchema", "LucidGenCore", "LucidTestSupport", "StoreTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // The runtime migrating stores whose versions the generator resolves from descriptions written in the test.
        .testTarget(
            name: "DescribedStoreTests",
            dependencies: [
                "LucidRuntime", "LucidSchema", "LucidTesting", "LucidGenCore", "FlightLog", "Samples", "LucidTestSupport",
                "StoreTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // What the runtime's test targets share without the generator: throw-away folders and stores.
        .target(
            name: "StoreTestSupport", dependencies: ["LucidRuntime", "LucidSchema", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/StoreTestSupport"),
        // The typed row transform tests' records, generated from Tests/Samples/.entities (checked by GoldenTests).
        .target(name: "Samples", dependencies: ["LucidRuntime"], path: "Tests/Samples/Generated"),
        // Relationship graphs no insert order satisfies (self-references, a required cycle): their generated
        // records and generated migration tests, compiled and run (checked against the generator by GoldenTests).
        .target(name: "SeedGraphs", dependencies: ["LucidRuntime"], path: "Tests/SeedGraphs/App/Generated"),
        .testTarget(
            name: "SeedGraphsTests", dependencies: ["SeedGraphs", "LucidTesting"], path: "Tests/SeedGraphs/Tests",
            exclude: ["Generated/Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// Documentation only, and only when asked for (`LUCIDGEN_DOCS=1 swift package generate-documentation --target
// LucidRuntime`), so that an app's dependency graph never holds the DocC plugin, at any version.
if ProcessInfo.processInfo.environment["LUCIDGEN_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
