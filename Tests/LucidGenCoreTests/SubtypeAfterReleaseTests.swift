import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// An enum or struct described after a release belongs to the versions that use it, never to released ones
/// too: adding one, unused or used from a later version on, leaves the released snapshots as
/// they are; using one at a released version is an error located at the property and at the subtype.
@Suite struct SubtypeAfterReleaseTests {
    static func item(mood: String? = nil, frame: String? = nil) -> String {
        let extra = [mood, frame].compactMap { $0 }.map { ",\n    " + $0 }.joined()
        return """
            { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "1.1" }],
              "properties": [
                { "name": "title", "property_type": "string" }\(extra)
              ] }
            """
    }

    static let config = TestProject.config(current: "1.0")

    static let mood = #"{ "name": "mood", "cases": ["happy", "sad"] }"#
    static let frame =
        #"{ "name": "frame", "properties": [{ "name": "width", "property_type": "double" }, { "name": "mood", "property_type": "mood", "nullable": true }] }"#

    /// 1.0 released (its snapshot frozen), 1.1 current.
    func releasedProject() throws -> TestProject {
        let project = try TestProject(
            files: [".entities/item.json": Self.item().replacingOccurrences(of: #", { "version": "1.1" }"#, with: "")], config: Self.config)
        _ = try project.generate()
        try project.write(".lucid.yaml", Self.config.replacingOccurrences(of: "\"1.0\"", with: "\"1.1\""))
        try project.write(".entities/item.json", Self.item())
        _ = try project.generate()
        return project
    }

    @Test func anUnusedEnumAddedAfterAReleaseLeavesTheReleasedSnapshotAlone() throws {
        let project = try releasedProject()
        defer { project.remove() }
        let released = try project.read(".entities/.schema/1.0.json")
        try project.write(".entities/Subtypes/mood.json", Self.mood)
        let result = try project.generate()
        #expect(result.diagnostics.filter { $0.severity == .error }.isEmpty)
        #expect(try project.read(".entities/.schema/1.0.json") == released)
        #expect(project.exists("Sources/App/Generated/Subtypes/Mood.swift"))
    }

    @Test func aStructAndItsEnumUsedFromTheNextVersionOnAreThatVersionsOnly() throws {
        let project = try releasedProject()
        defer { project.remove() }
        let released = try project.read(".entities/.schema/1.0.json")
        try project.write(".entities/Subtypes/mood.json", Self.mood)
        try project.write(".entities/Subtypes/frame.json", Self.frame)
        try project.write(
            ".entities/item.json",
            Self.item(frame: #"{ "name": "frame", "property_type": "frame", "nullable": true, "added_at_version": "1.1" }"#))
        _ = try project.generate()
        #expect(try project.read(".entities/.schema/1.0.json") == released)
        let current = try project.read(".entities/.schema/1.1.json")
        #expect(current.contains(#""name" : "frame""#) && current.contains(#""name" : "mood""#), "\(current)")
    }

    @Test func aSubtypeUsedAtAReleasedVersionIsLocatedAtThePropertyAndTheSubtype() throws {
        let project = try releasedProject()
        defer { project.remove() }
        try project.write(".entities/Subtypes/mood.json", Self.mood)
        try project.write(".entities/item.json", Self.item(mood: #"{ "name": "mood", "property_type": "mood", "nullable": true }"#))
        let errors = try project.errors()
        #expect(
            errors.contains { $0.location?.file.hasSuffix("item.json") == true && $0.message.contains("property 'mood' was added") },
            "\(errors)")
        let subtype = errors.first { $0.location?.file.hasSuffix("Subtypes/mood.json") == true }
        #expect(
            subtype?.message.contains("enum 'mood' is not in the released snapshot, but a property uses it at this version") == true,
            "\(errors)")
        #expect(!errors.contains { $0.message.contains("the derived shape differs") }, "\(errors)")
    }

    /// A subtype's own `added_at_version`: used from that version on it generates; used earlier it is an error at
    /// the property that names the subtype and where its version is written.
    @Test func aSubtypesAddedAtVersionIsChecked() throws {
        let project = try releasedProject()
        defer { project.remove() }
        try project.write(".entities/Subtypes/mood.json", #"{ "name": "mood", "added_at_version": "1.1", "cases": ["happy", "sad"] }"#)
        try project.write(
            ".entities/item.json",
            Self.item(mood: #"{ "name": "mood", "property_type": "mood", "nullable": true, "added_at_version": "1.1" }"#))
        let result = try project.generate()
        #expect(!result.diagnostics.contains { $0.message.contains("unknown key") }, "\(result.diagnostics)")

        try project.write(
            ".entities/item.json",
            Self.item(mood: #"{ "name": "moods", "property_type": "[mood]", "nullable": true, "added_at_version": "1.1" }"#))
        #expect(try project.generate().diagnostics.allSatisfy { $0.severity != .error }, "an array of it from 1.1 on")

        try project.write(".lucid.yaml", Self.config.replacingOccurrences(of: "\"1.0\"", with: "\"1.2\""))
        try project.write(".entities/Subtypes/mood.json", #"{ "name": "mood", "added_at_version": "1.2", "cases": ["happy", "sad"] }"#)
        try project.write(
            ".entities/item.json",
            Self.item(mood: #"{ "name": "mood", "property_type": "mood", "nullable": true, "added_at_version": "1.1" }"#)
                .replacingOccurrences(of: #"{ "version": "1.1" }]"#, with: #"{ "version": "1.1" }, { "version": "1.2" }]"#))
        let errors = try project.errors().map(\.description)
        #expect(
            errors.contains {
                $0.contains(".entities/item.json:4:")
                    && $0.contains(
                        "property 'mood' of 'item' uses subtype 'mood' at 1.1, but 'mood' is added at 1.2 (its added_at_version in ")
                    && $0.contains(".entities/Subtypes/mood.json:1)")
            }, "\(errors)")
    }
}
