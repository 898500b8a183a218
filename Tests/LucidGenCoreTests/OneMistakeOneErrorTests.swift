import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// Issue 37 item 7: one mistake in a description after a release is one error (or two where two things are
/// wrong), located, with its next step — it was 5 errors for one missing `added_at_version` and 11 for a rename
/// without `previous_name`, one per version that has the property.
@Suite struct OneMistakeOneErrorTests {
    static let config = """
        input_path: .entities
        current_version: "1.3"
        targets:
          app:
            module_name: App
            output_path: Sources/App/Generated
        """

    /// A project released at 1.0, then edited into `edited` (versions 1.0 to 1.3), generated: its errors.
    func errors(after edited: String) throws -> [String] {
        let project = try TestProject(
            files: [
                ".entities/item.json": """
                { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
                  "properties": [{ "name": "title", "property_type": "string" }] }
                """
            ], config: Self.config.replacingOccurrences(of: "1.3", with: "1.0"))
        defer { project.remove() }
        _ = try project.generate()
        try project.write(".lucid.yaml", Self.config)
        try project.write(
            ".entities/item.json",
            """
            { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "1.2" }, { "version": "1.3" }],
              "properties": [\(edited)] }
            """)
        return try project.errors().map(\.description)
    }

    @Test func aMissingAddedAtVersionIsOneError() throws {
        let errors = try errors(after: #"{ "name": "title", "property_type": "string" }, { "name": "count", "property_type": "int" }"#)
        #expect(errors.count == 1, "\(errors)")
        #expect(
            errors.first?.contains(#"property 'count' was added (if it was added in a later version, set its "added_at_version")"#) == true,
            "\(errors)")
    }

    @Test func aRenameWithoutPreviousNameIsTwoErrors() throws {
        let errors = try errors(after: #"{ "name": "name", "property_type": "string" }"#)
        #expect(errors.count == 2, "\(errors)")
        #expect(
            errors.contains { $0.contains("property 'name' was added") }
                && errors.contains {
                    $0.contains(
                        #"property 'title' is missing (if it was removed later, keep it and add "removed_at_version"; if it was renamed later, add "previous_name" and "renamed_at_version")"#
                    )
                }, "\(errors)")
    }

    @Test func aDefaultThatDoesNotFitIsOneError() throws {
        let errors = try errors(
            after:
                #"{ "name": "title", "property_type": "string" }, { "name": "count", "property_type": "int", "default_value": "abc", "added_at_version": "1.1" }"#
        )
        #expect(
            errors.count == 1
                && errors[0].hasSuffix(
                    ".entities/item.json:2:66: error: default_value does not fit property 'count' of type int (at $.properties[1].default_value)"
                ), "\(errors)")
    }
}
