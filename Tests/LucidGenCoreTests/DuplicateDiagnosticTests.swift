import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// A finding is reported once, though the description it is about is checked at every version that has it
/// (`default_value does not fit …` was once printed once per version).
@Suite struct DuplicateDiagnosticTests {
    @Test func aWrongDefaultIsOneErrorAcrossVersions() throws {
        let item =
            #"{ "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "1.2" }], "properties": [{ "name": "count", "property_type": "int", "default_value": "many" }] }"#
        let project = try TestProject(files: [".entities/item.json": item])
        defer { project.remove() }
        let errors = try project.errors().filter { $0.message.hasPrefix("default_value does not fit") }
        #expect(errors.count == 1, "\(errors)")
    }

    @Test func theCollectorKeepsDistinctFindingsAndDropsRepeats() {
        var collector = DiagnosticCollector()
        collector.error("a", at: SourceLocation(file: "x.json", line: 1, column: 1))
        collector.error("a", at: SourceLocation(file: "x.json", line: 1, column: 1))
        collector.error("a", at: SourceLocation(file: "x.json", line: 2, column: 1))
        collector.warning("a", at: SourceLocation(file: "x.json", line: 1, column: 1))
        collector.append(contentsOf: [Diagnostic(.error, "a", at: SourceLocation(file: "x.json", line: 1, column: 1))])
        #expect(collector.diagnostics.map { "\($0.severity) \($0.location?.line ?? 0)" } == ["error 1", "error 2", "warning 1"])
    }
}
