import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// A misspelled entity or subtype name gets a "did you mean", as a misspelled key does.
@Suite struct NameSuggestionTests {
    static let aircraft =
        #"{ "name": "aircraft", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "tail", "property_type": "string" }] }"#

    @Test func aMisspelledRelationshipTargetIsSuggested() throws {
        let flight =
            #"{ "name": "flight", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "plane", "property_type": { "entity_name": "aircraf", "association": "to_one" } }] }"#
        let project = try TestProject(files: [".entities/aircraft.json": Self.aircraft, ".entities/flight.json": flight])
        defer { project.remove() }
        let messages = try project.errors().map(\.message)
        #expect(messages.contains("relationship 'plane' refers to unknown entity 'aircraf'; did you mean 'aircraft'?"), "\(messages)")
    }

    @Test func aMisspelledSubtypeOrScalarIsSuggested() throws {
        let item =
            #"{ "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "mood", "property_type": "mod" }, { "name": "label", "property_type": "strng" }] }"#
        let project = try TestProject(files: [
            ".entities/item.json": item, ".entities/Subtypes/mood.json": #"{ "name": "mood", "cases": ["happy", "sad"] }"#,
        ])
        defer { project.remove() }
        let messages = try project.errors().map(\.message)
        #expect(
            messages.contains { $0.hasPrefix("unknown property type 'mod': ") && $0.hasSuffix("; did you mean 'mood'?") }, "\(messages)")
        #expect(
            messages.contains { $0.hasPrefix("unknown property type 'strng': ") && $0.hasSuffix("; did you mean 'string'?") }, "\(messages)"
        )
    }
}
