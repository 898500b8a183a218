import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// A real consumer package: `lucidgen init`, descriptions with several versions, renames, removals and
/// Lucid's own samples, `lucidgen generate`, then `swift build` and `swift test` there.
///
/// The consumer lives at a fixed place under `.build/` with a fixed scratch folder, so that repeated
/// runs rebuild only what changed (a first run compiles GRDB once, about a minute on 2 cores).
@Suite(.serialized) struct EndToEndTests {
    @Test func consumerPackageBuildsAndPassesItsTests() throws {
        let base = repositoryRoot.appendingPathComponent(".build/e2e")
        let consumer = base.appendingPathComponent("Consumer")
        try? FileManager.default.removeItem(at: consumer)
        try FileManager.default.createDirectory(at: consumer, withIntermediateDirectories: true)

        let initResult = try run(lucidgenBinary, ["init", "--package-path", repositoryRoot.path, "--module", "Consumer"], in: consumer)
        #expect(initResult.status == 0, "\(initResult.error)")

        // A multi-version history (the library golden input) and Lucid's samples next to the example entity.
        let library = repositoryRoot.appendingPathComponent("Tests/LucidGenCoreTests/Golden/library/input/.entities")
        let lucid = repositoryRoot.appendingPathComponent("Tests/LucidGenCoreTests/Golden/lucid-sample/input/Entities")
        for (source, target) in [(library, ".entities/library"), (lucid, ".entities/lucid")] {
            try FileManager.default.copyItem(at: source, to: consumer.appendingPathComponent(target))
        }
        // Swift and SQL keywords as entity and property names (as in the compiled Samples): the records and the
        // generated migration tests must compile and run on them.
        let hostile = repositoryRoot.appendingPathComponent("Tests/Samples/.entities")
        try FileManager.default.createDirectory(at: consumer.appendingPathComponent(".entities/hostile"), withIntermediateDirectories: true)
        // (`order` links to `class`, an entity whose rows `lucidgen fixtures` writes first: it inserts entities in
        // name order with foreign keys on, so a link to a later-named entity fails there; see the report.)
        for name in ["order.json", "select.json", "class.json", "protocol.json"] {
            try FileManager.default.copyItem(
                at: hostile.appendingPathComponent(name), to: consumer.appendingPathComponent(".entities/hostile/\(name)"))
        }
        // `init` froze the example's 1.0 while it was the current version; these entities exist at 1.0 too, so
        // start the history afresh (adopting a described history, as a Lucid project does).
        try FileManager.default.removeItem(at: consumer.appendingPathComponent(".entities/.schema"))
        let config = try String(contentsOf: consumer.appendingPathComponent(".lucid.yaml"), encoding: .utf8)
        try config.replacingOccurrences(of: "current_version: \"1.0\"", with: "current_version: \"3.0\"")
            .write(to: consumer.appendingPathComponent(".lucid.yaml"), atomically: true, encoding: .utf8)

        let generate = try run(lucidgenBinary, ["generate"], in: consumer)
        #expect(generate.status == 0, "\(generate.error)")
        #expect(generate.output.contains("11 entities, versions 1.0, 1.1, 2.0, 3.0"))
        let again = try run(lucidgenBinary, ["generate", "--check"], in: consumer)
        #expect(again.status == 0, "re-running generate must find nothing to change: \(again.output)")

        // A previous_name removed from a released history is refused by generate (the frozen snapshots
        // remember the rename), before any test could run on the wrong lineage.
        let bookFile = consumer.appendingPathComponent(".entities/library/book.json")
        let book = try String(contentsOf: bookFile, encoding: .utf8)
        try book.replacingOccurrences(of: ", \"previous_name\": \"blurb\", \"renamed_at_version\": \"2.0\"", with: "")
            .write(to: bookFile, atomically: true, encoding: .utf8)
        let lostRename = try run(lucidgenBinary, ["generate"], in: consumer)
        #expect(lostRename.status == 1)
        #expect(lostRename.error.contains("released version 1.0 was changed"), "\(lostRename.error)")
        #expect(lostRename.error.contains("property 'blurb' is missing"), "\(lostRename.error)")
        try book.write(to: bookFile, atomically: true, encoding: .utf8)

        // A fixture store for each release, as each release would have written it.
        for version in ["1.0", "1.1", "2.0", "3.0"] {
            // (3.0 is the current version here, final: what `lucidgen release` writes, without its lint gate.)
            let fixture = try run(lucidgenBinary, ["fixtures", "--schema-version", version, "--unreleased"], in: consumer)
            #expect(fixture.status == 0, "\(fixture.error)")
        }
        let fixtures = try FileManager.default.contentsOfDirectory(
            atPath: consumer.appendingPathComponent("Tests/ConsumerTests/Generated/Fixtures").path
        ).sorted()
        #expect(
            fixtures.filter { $0.hasSuffix(".sqlite") } == [
                "Consumer_1_0.sqlite", "Consumer_1_1.sqlite", "Consumer_2_0.sqlite", "Consumer_3_0.sqlite",
            ])
        #expect(fixtures.filter { $0.hasSuffix(".sha256") }.count == 4)

        let scratch = base.appendingPathComponent("scratch").path
        let build = try run(swiftExecutable, ["build", "--scratch-path", scratch], in: consumer)
        #expect(build.status == 0, "swift build failed:\n\(build.output)\n\(build.error)")
        let warnings = (build.output + build.error).split(separator: "\n").filter { $0.contains("warning:") && $0.contains("/Consumer/") }
        #expect(warnings.isEmpty, "generated code must compile without warnings: \(warnings)")

        let test = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: consumer)
        #expect(test.status == 0, "swift test failed:\n\(test.output)\n\(test.error)")
        let testWarnings = (test.output + test.error).split(separator: "\n").filter { $0.contains("warning:") && $0.contains("/Consumer/") }
        #expect(testWarnings.isEmpty, "generated tests must compile without warnings: \(testWarnings)")
        // The generated migration tests ran: one case per historical version and per committed fixture.
        #expect(
            test.output.contains(
                "\"a store seeded at each version migrates to 3.0 with every value as expected\" with 4 test cases passed"),
            "\(test.output.suffix(3000))")
        #expect(
            test.output.contains("\"each committed fixture store migrates to 3.0 with every value as expected\" with 4 test cases passed"),
            "\(test.output.suffix(3000))")

        // A change SQL cannot make (shelf.label: string → int at a new version 4.0): without the app's code
        // the consumer does not build, and the compiler names the function to write.
        try """
        { "name": "shelf", "identifier": { "type": "property", "property_name": "code" },
          "version_history": [{ "version": "2.0" }, { "version": "4.0" }],
          "properties": [
            { "name": "code", "property_type": "string" },
            { "name": "label", "property_type": "int", "default_value": 0,
              "type_history": [{ "until_version": "4.0", "property_type": "string", "default_value": "" }] } ] }
        """.write(to: consumer.appendingPathComponent(".entities/library/shelf.json"), atomically: true, encoding: .utf8)
        let configText = try String(contentsOf: consumer.appendingPathComponent(".lucid.yaml"), encoding: .utf8)
        // `init` declared ConsumerStages as the migrations_provider: the new step is a build error out of the box.
        #expect(configText.contains("migrations_provider: ConsumerStages"))
        try configText.replacingOccurrences(of: "current_version: \"3.0\"", with: "current_version: \"4.0\"")
            .write(to: consumer.appendingPathComponent(".lucid.yaml"), atomically: true, encoding: .utf8)
        let regenerate = try run(lucidgenBinary, ["generate"], in: consumer)
        #expect(regenerate.status == 0, "\(regenerate.error)")
        #expect(
            regenerate.error.contains(
                "3.0 → 4.0 cannot be inferred (shelf.label: string → int cannot convert every value exactly: not every text is a valid int): implement `func migrate(_ old: Shelf_2_0) throws -> Shelf_4_0?` in ConsumerStages (migrations_provider)"
            ))
        let broken = try run(swiftExecutable, ["build", "--scratch-path", scratch], in: consumer)
        #expect(broken.status != 0)
        let compiler = broken.output + broken.error
        #expect(compiler.contains("type 'ConsumerStages' does not conform to protocol 'ConsumerMigrations'"), "\(compiler.suffix(2000))")
        #expect(compiler.contains("func migrate(_ old: Shelf_2_0) throws -> Shelf_4_0?"), "the error names the function to write")

        // With the stage written, a store at 3.0 migrates with the app's code.
        try """
        import GRDB
        import LucidRuntime

        public struct ConsumerStages: Sendable {
            public init() {}

            public func migrate(_ old: Shelf_2_0) throws -> Shelf_4_0? {
                guard let label = Int(old.label) else { return nil }
                return Shelf_4_0(code: old.code, label: label)
            }
        }
        """.write(to: consumer.appendingPathComponent("Sources/Consumer/ConsumerStages.swift"), atomically: true, encoding: .utf8)
        // Written, the function is no longer asked for when generate runs (a note, with --verbose). (A run the
        // stamp skips repeats its stored warnings until an input changes.)
        let quiet = try run(lucidgenBinary, ["generate", "--force"], in: consumer)
        #expect(quiet.status == 0 && !quiet.error.contains("cannot be inferred"), "\(quiet.error)")
        #expect(try run(lucidgenBinary, ["generate", "--force", "--verbose"], in: consumer).error.contains("3.0 → 4.0 cannot be inferred"))
        try """
        import Foundation
        import GRDB
        import LucidRuntime
        import LucidTesting
        import Testing
        @testable import Consumer

        @Test func shelvesMigrateThroughTheAppsStage() throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("shelves-\\(UUID().uuidString).sqlite").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let old = try LucidStore.create(atPath: path, registry: ConsumerSchema.self, version: SchemaVersion("3.0"))
            try old.write { db in
                try Shelf_2_0(code: "A", label: "12").insert(db)
                try Shelf_2_0(code: "B", label: "top").insert(db)
            }
            try old.close()
            var options = StoreOptions()
            options.stages = ConsumerSchema.stages(using: ConsumerStages())
            let database = try LucidStore.open(atPath: path, registry: ConsumerSchema.self, options: options).database
            let shelves = try database.read { db in try Shelf.fetchAll(db) }
            #expect(shelves == [Shelf(code: "A", label: 12)])
        }
        """.write(to: consumer.appendingPathComponent("Tests/ConsumerTests/ShelfStageTests.swift"), atomically: true, encoding: .utf8)
        // The generated tests require an expectation for the new stage: without it the test target does not build.
        let noExpectation = try run(swiftExecutable, ["build", "--build-tests", "--scratch-path", scratch], in: consumer)
        #expect(noExpectation.status != 0)
        #expect(
            (noExpectation.output + noExpectation.error).contains(
                "expectedRow(migrating old: Consumer.Shelf_2_0) throws -> Consumer.Shelf_4_0?"),
            "\((noExpectation.output + noExpectation.error).suffix(2000))")
        try """
        import GRDB
        import LucidRuntime
        import LucidTesting
        @testable import Consumer

        struct ConsumerExpectations {
            func storeOptions() -> StoreOptions {
                var options = StoreOptions()
                options.stages = ConsumerSchema.stages(using: ConsumerStages())
                return options
            }

            /// Labels that are whole numbers become numbers; shelves with any other label are dropped.
            func expectedRow(migrating old: Shelf_2_0) throws -> Shelf_4_0? {
                Int(old.label).map { Shelf_4_0(code: old.code, label: $0) }
            }
        }
        """.write(to: consumer.appendingPathComponent("Tests/ConsumerTests/ConsumerExpectations.swift"), atomically: true, encoding: .utf8)

        let fixed = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: consumer)
        #expect(fixed.status == 0, "swift test with the stage written failed:\n\(fixed.output.suffix(3000))\n\(fixed.error.suffix(2000))")
        #expect(fixed.output.contains("shelvesMigrateThroughTheAppsStage"))
        #expect(
            fixed.output.contains(
                "\"a store seeded at each version migrates to 4.0 with every value as expected\" with 5 test cases passed"),
            "\(fixed.output.suffix(3000))")

        // A stage that loses a value: the generated tests fail and say from which version or fixture,
        // which entity, row and property, what was expected and what was found.
        try String(contentsOf: consumer.appendingPathComponent("Sources/Consumer/ConsumerStages.swift"), encoding: .utf8)
            .replacingOccurrences(
                of: "return Shelf_4_0(code: old.code, label: label)",
                with: "return Shelf_4_0(code: old.code, label: label == 42 ? 0 : label)"
            )
            .write(to: consumer.appendingPathComponent("Sources/Consumer/ConsumerStages.swift"), atomically: true, encoding: .utf8)
        let red = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: consumer)
        #expect(red.status != 0)
        let seededMessage = #"from 3.0 (seeded rows): Shelf (table shelf), row code="id-9", property label: expected 42, found 0"#
        #expect(red.output.contains(seededMessage), "\(red.output.suffix(4000))")
        #expect(
            red.output.contains("from fixture Consumer_3_0.sqlite (version 3.0): Shelf (table shelf), row code="),
            "\(red.output.suffix(4000))")
    }
}
