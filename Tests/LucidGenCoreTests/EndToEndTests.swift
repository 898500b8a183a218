import Foundation
import LucidGenCore
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
        // `init` froze the example's 1.0 while it was the current version; these entities exist at 1.0 too, so
        // start the history afresh (adopting a described history, as a Lucid project does).
        try FileManager.default.removeItem(at: consumer.appendingPathComponent(".entities/.schema"))
        let config = try String(contentsOf: consumer.appendingPathComponent(".lucid.yaml"), encoding: .utf8)
        try config.replacingOccurrences(of: "current_version: \"1.0\"", with: "current_version: \"3.0\"")
            .write(to: consumer.appendingPathComponent(".lucid.yaml"), atomically: true, encoding: .utf8)

        let generate = try run(lucidgenBinary, ["generate"], in: consumer)
        #expect(generate.status == 0, "\(generate.error)")
        #expect(generate.output.contains("7 entities, versions 1.0, 1.1, 2.0, 3.0"))
        let again = try run(lucidgenBinary, ["generate", "--check"], in: consumer)
        #expect(again.status == 0, "re-running generate must find nothing to change: \(again.output)")

        let scratch = base.appendingPathComponent("scratch").path
        let build = try run(swiftExecutable, ["build", "--scratch-path", scratch], in: consumer)
        #expect(build.status == 0, "swift build failed:\n\(build.output)\n\(build.error)")
        let warnings = (build.output + build.error).split(separator: "\n").filter { $0.contains("warning:") && $0.contains("/Consumer/") }
        #expect(warnings.isEmpty, "generated code must compile without warnings: \(warnings)")

        let test = try run(swiftExecutable, ["test", "--scratch-path", scratch], in: consumer)
        #expect(test.status == 0, "swift test failed:\n\(test.output)\n\(test.error)")
    }
}
