import Foundation
import LucidSchema
import Testing

@testable import LucidGenCore

/// The subtype writer against the loader: what ``DescriptionWriter`` writes for an enum, an option set and a
/// struct (histories, Swift names, fallbacks, keyword names) is what the generator reads back, key for key.
@Suite struct SubtypeDocumentTests {
    func loaded(_ document: SubtypeDocument) throws -> (SubtypeDescription, [Diagnostic]) {
        let text = DescriptionWriter.json(document)
        let root = try JSONParser.parse(Array(text.utf8), file: "Subtypes/\(document.name).json")
        var diagnostics = DiagnosticCollector()
        let subtype = try #require(DescriptionLoader.decodeSubtype(root, &diagnostics))
        return (subtype, diagnostics.diagnostics)
    }

    @Test func anEnumsCaseHistoryIsReadAsWritten() throws {
        var document = SubtypeDocument(
            name: "status",
            kind: .cases([
                .init(name: "active"),
                .init(name: "paused", addedAtVersion: "2.0"),
                .init(name: "done", previousName: "finished", renamedAtVersion: "2.0"),
                .init(name: "dropped", removedAtVersion: "3.0", fallback: .some("active")),
                .init(name: "lost", removedAtVersion: "3.0", fallback: .some(nil)),
                .init(name: "kept_by_app", removedAtVersion: "3.0"),
                .init(name: "default", swiftName: "fallbackCase"),
            ]))
        document.swiftName = "TaskStatus"
        document.addedAtVersion = "1.1"
        let text = DescriptionWriter.json(document)
        #expect(
            text.hasPrefix(
                #"{ "name": "status", "swift_name": "TaskStatus", "added_at_version": "1.1", "cases": ["# + "\n    \"active\",\n"))
        let (subtype, diagnostics) = try loaded(document)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty)
        #expect(subtype.swiftName == "TaskStatus")
        #expect(subtype.addedAtVersion == SchemaVersion("1.1"))
        let history = subtype.caseHistory
        #expect(history.map(\.name) == ["active", "paused", "done", "dropped", "lost", "kept_by_app", "default"])
        #expect(history[1].addedAtVersion == SchemaVersion("2.0"))
        #expect(history[2].previousName == "finished" && history[2].renamedAtVersion == SchemaVersion("2.0"))
        #expect(history[3].removedAtVersion == SchemaVersion("3.0") && history[3].fallback == .some("active"))
        #expect(history[4].fallback == .some(nil))
        #expect(history[5].removedAtVersion == SchemaVersion("3.0") && history[5].fallback == nil)
        #expect(history[6].swiftName == "fallbackCase")
        guard case .enumeration(let cases) = subtype.kind else { Issue.record("not an enum: \(subtype.kind)"); return }
        #expect(cases == ["active", "default", "done", "paused"])
    }

    @Test func anOptionSetIsReadAsWritten() throws {
        let (subtype, diagnostics) = try loaded(SubtypeDocument(name: "permissions", kind: .options(["read", "write", "self"])))
        #expect(diagnostics.isEmpty)
        guard case .optionSet(let options) = subtype.kind else { Issue.record("not an option set: \(subtype.kind)"); return }
        #expect(options == ["read", "write", "self"])
    }

    @Test func aStructsMembersAndTheirHistoriesAreReadAsWritten() throws {
        var origin = SubtypeDocument.Member(name: "origin", type: "point")
        origin.swiftName = "anchor"
        var depth = SubtypeDocument.Member(name: "depth", type: "double", defaultValue: .number("1.5"))
        depth.addedAtVersion = "2.0"
        depth.typeHistory = [.init(untilVersion: "3.0", nullable: true, defaultValue: .null)]
        var tag = SubtypeDocument.Member(name: "tag", type: "string", nullable: true, defaultValue: .string("it's \"x\"\n"))
        tag.previousName = "label"
        tag.renamedAtVersion = "2.0"
        var gone = SubtypeDocument.Member(name: "gone", type: "[int]", nullable: true)
        gone.removedAtVersion = "3.0"
        let (subtype, diagnostics) = try loaded(SubtypeDocument(name: "frame", kind: .members([origin, depth, tag, gone])))
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty)
        guard case .structure(let members) = subtype.kind else { Issue.record("not a struct: \(subtype.kind)"); return }
        #expect(members.map(\.name) == ["origin", "depth", "tag", "gone"])
        #expect(members[0].type == .subtype("point") && members[0].swiftName == "anchor" && !members[0].nullable)
        #expect(members[1].defaultValue == .number("1.5") && members[1].addedAtVersion == SchemaVersion("2.0"))
        let change = try #require(members[1].typeHistory.first)
        #expect(members[1].typeHistory.count == 1 && change.untilVersion == SchemaVersion("3.0"))
        // `"default_value": null` in a type_history item: no default before that version.
        #expect(change.nullable == true && change.defaultValue == .some(nil))
        #expect(members[2].defaultValue == .string("it's \"x\"\n") && members[2].nullable)
        #expect(members[2].previousName == "label" && members[2].renamedAtVersion == SchemaVersion("2.0"))
        #expect(members[3].type == .array(.scalar(.int)) && members[3].removedAtVersion == SchemaVersion("3.0"))
    }
}
