import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// Issue 27, item 3: strict where a typo changes the schema. An unknown key close to a key valid at its
/// place is an error naming that key; a valid key beside a misspelled one is never "unknown"; Lucid-only
/// keys are no candidates; errors about a released version's edits, and the config's, name a line.
@Suite struct StrictKeysTests {
    /// `track.json:5:55: error: message (at $.path)`: the file's name only (projects live in temporary folders).
    static func shown(_ diagnostic: Diagnostic) -> String {
        var text = ""
        if let location = diagnostic.location {
            text += (location.file as NSString).lastPathComponent
            if location.line > 0 { text += ":\(location.line):\(location.column)" }
            text += ": "
        }
        text += "\(diagnostic.severity.rawValue): \(diagnostic.message)"
        if let path = diagnostic.path { text += " (at \(path))" }
        return text
    }

    /// A one-version entity `track` with the given properties, one per line from line 5.
    static func track(_ properties: [String], history: String = #"{ "version": "1.0" }"#) -> String {
        """
        {
            "name": "track",
            "version_history": [\(history)],
            "properties": [
                \(properties.joined(separator: ",\n        "))
            ]
        }
        """
    }

    /// Every diagnostic of a generation that must fail, shown; and that it wrote nothing.
    func failure(_ files: [String: String], config: String = TestProject.defaultConfig) throws -> [String] {
        let project = try TestProject(files: files, config: config)
        defer { project.remove() }
        let before = project.allFiles()
        do {
            _ = try project.generate()
        } catch {
            #expect(project.allFiles() == before, "a failed generation writes nothing (no snapshot either)")
            return error.diagnostics.map(Self.shown)
        }
        Issue.record("generation succeeded but errors were expected")
        return []
    }

    /// The warnings and notes of a generation that must succeed, shown.
    func success(_ files: [String: String], config: String = TestProject.defaultConfig) throws -> [String] {
        let project = try TestProject(files: files, config: config)
        defer { project.remove() }
        return try project.generate().diagnostics.filter { $0.location != nil }.map(Self.shown)
    }

    // MARK: Unknown keys

    @Test func aMisspelledNullableIsAnErrorNamingTheKeyMeant() throws {
        let property = #"{ "name": "title", "property_type": "string", "nulable": true }"#
        #expect(
            try failure([".entities/track.json": Self.track([property])]) == [
                "track.json:5:55: error: unknown key 'nulable' in property 'title'; did you mean 'nullable'? (at $.properties[0].nulable)"
            ])
    }

    @Test func theCLIExitsWithInputErrorsOnAMisspelledKey() throws {
        let property = #"{ "name": "title", "property_type": "string", "defualt_value": "untitled" }"#
        let project = try TestProject(files: [".entities/track.json": Self.track([property])])
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(result.status == 1)
        #expect(
            result.error.contains(
                ".entities/track.json:5:55: error: unknown key 'defualt_value' in property 'title'; did you mean 'default_value'?"),
            "\(result.error)")
        #expect(!project.exists(".entities/.schema/1.0.json"), "no snapshot is written with the column the typo made required")
    }

    /// camelCase spells the same keys (descriptions are written both ways); a typo of a camelCase key is suggested in camelCase, and a
    /// key in another convention (SCREAMING_SNAKE_CASE, kebab-case) is an error naming the key meant.
    @Test func caseConventions() throws {
        let camel = #"{ "name": "title", "propertyType": "string", "defaultValue": "untitled", "nullable": true }"#
        #expect(try success([".entities/track.json": Self.track([camel])]) == [])

        let camelTypo = #"{ "name": "title", "propertyType": "string", "defaultVlaue": "untitled" }"#
        #expect(
            try failure([".entities/track.json": Self.track([camelTypo])]) == [
                "track.json:5:54: error: unknown key 'defaultVlaue' in property 'title'; did you mean 'defaultValue'? (at $.properties[0].defaultVlaue)"
            ])

        let otherConventions = #"{ "name": "title", "PROPERTY_TYPE": "string", "default-value": "untitled" }"#
        #expect(
            try failure([".entities/track.json": Self.track([otherConventions])]) == [
                "track.json:5:9: error: property 'title' has no 'property_type' (at $.properties[0])",
                "track.json:5:28: error: unknown key 'PROPERTY_TYPE' in property 'title'; did you mean 'property_type'? (at $.properties[0].PROPERTY_TYPE)",
                "track.json:5:55: error: unknown key 'default-value' in property 'title'; did you mean 'default_value'? (at $.properties[0].default-value)",
            ])
    }

    /// The property is not decoded without its type, but `default_value` is not what is wrong.
    @Test func aValidKeyBesideAMisspelledOneIsNotUnknown() throws {
        let property = #"{ "name": "title", "proprety_type": "string", "default_value": "untitled" }"#
        #expect(
            try failure([".entities/track.json": Self.track([property])]) == [
                "track.json:5:9: error: property 'title' has no 'property_type' (at $.properties[0])",
                "track.json:5:28: error: unknown key 'proprety_type' in property 'title'; did you mean 'property_type'? (at $.properties[0].proprety_type)",
            ])
        // Likewise beside a misspelled relationship key.
        let relationship = #"{ "name": "album", "property_type": { "entity_name": "album", "asociation": "to_one", "id_only": true } }"#
        let shown = try failure([".entities/track.json": Self.track([relationship])])
        #expect(
            shown == [
                "track.json:5:45: error: missing required key 'association' (at $.properties[0].property_type)",
                "track.json:5:71: error: unknown key 'asociation' in a relationship; did you mean 'association'? (at $.properties[0].property_type.asociation)",
                "track.json:5:95: note: ignored key 'id_only': only meaningful to Lucid's JSON payloads (at $.properties[0].property_type.id_only)",
            ], "\(shown)")
        // An unused struct member is not read further: its other keys are not unknown either.
        let frame =
            #"{ "name": "frame", "properties": [{ "name": "width", "property_type": "int" }, { "name": "depth", "unused": true, "property_type": "int", "nullable": true }] }"#
        let unused = try success([
            ".entities/track.json": Self.track([#"{ "name": "frame", "property_type": "frame", "nullable": true }"#]),
            ".entities/Subtypes/frame.json": frame,
        ])
        #expect(unused == [], "\(unused)")
    }

    /// Lucid-only keys are noted and never suggested: `use_for_equalty` is no typo of a key lucidgen uses.
    @Test func lucidOnlyKeysAreNoCandidates() throws {
        let property = #"{ "name": "title", "property_type": "string", "use_for_equality": false, "use_for_equalty": false, "key": "t" }"#
        #expect(
            try success([".entities/track.json": Self.track([property])]) == [
                "track.json:5:55: note: ignored key 'use_for_equality': generated records compare every stored property (at $.properties[0].use_for_equality)",
                "track.json:5:82: warning: unknown key 'use_for_equalty' is ignored (at $.properties[0].use_for_equalty)",
                "track.json:5:108: note: ignored key 'key': only meaningful to Lucid's JSON payloads (at $.properties[0].key)",
            ])
    }

    @Test func aKeyFarFromEveryKnownKeyStaysAWarning() throws {
        let property = #"{ "name": "title", "property_type": "string", "colour": "red" }"#
        #expect(
            try success([".entities/track.json": Self.track([property])]) == [
                "track.json:5:55: warning: unknown key 'colour' is ignored (at $.properties[0].colour)"
            ])
    }

    /// A key valid elsewhere is no candidate where it means nothing: `lossy_conversion` in a struct member's
    /// type_history; and a legacy spelling beside its key is a warning, not silently dropped.
    @Test func candidatesAreTheKeysOfThePlace() throws {
        let files = [
            ".entities/track.json": Self.track([
                #"{ "name": "title", "property_type": "string", "nullable": true, "optional": false }"#,
                #"{ "name": "frame", "property_type": "frame", "nullable": true }"#,
            ]),
            ".entities/Subtypes/frame.json": #"""
            {
                "name": "frame",
                "properties": [
                    { "name": "width", "property_type": "int", "type_history": [{ "until_version": "1.0", "lossy_conversion": true }] }
                ]
            }
            """#,
        ]
        let shown = try success(files)
        #expect(
            shown == [
                "track.json:5:73: warning: key 'optional' is ignored: 'nullable' is given (the same key's legacy spelling) (at $.properties[0].optional)",
                "frame.json:4:95: warning: unknown key 'lossy_conversion' is ignored (at $.properties[0].type_history[0].lossy_conversion)",
            ], "\(shown)")
    }

    /// Every kind of object whose unknown keys are reported suggests the keys valid there.
    @Test func everyPlaceSuggests() throws {
        let track = """
            {
                "name": "track",
                "identifier": { "type": "property", "property_nme": "code" },
                "version_history": [{ "version": "1.0" }, { "verison": "2.0" }],
                "indexes": [{ "properties": ["title"], "uniqe": true }],
                "properties": [
                    { "name": "code", "property_type": "string" },
                    { "name": "title", "property_type": "string", "type_history": [{ "until_verison": "2.0", "nullable": true }] },
                    { "name": "kind", "property_type": "kind" }
                ],
                "persits": true
            }
            """
        let kind = """
            {
                "name": "kind",
                "cases": ["single", { "name": "album", "previous_nam": "lp", "renamed_at_version": "2.0" }]
            }
            """
        let shown = try failure(
            [".entities/track.json": track, ".entities/Subtypes/kind.json": kind],
            config: TestProject.defaultConfig + "\ncurent_version: \"2.0\"\n")
        #expect(
            shown == [
                ".lucid.yaml:6:1: error: unknown key 'curent_version' in the config; did you mean 'current_version'? (at $.curent_version)"
            ], "config errors come first, alone")
        let descriptions = try failure([".entities/track.json": track, ".entities/Subtypes/kind.json": kind])
        #expect(
            descriptions == [
                "track.json:4:47: error: missing required key 'version' (at $.version_history[1])",
                "track.json:4:49: error: unknown key 'verison' in a version_history item; did you mean 'version'? (at $.version_history[1].verison)",
                "track.json:3:19: error: missing required key 'property_name' (at $.identifier)",
                "track.json:3:41: error: unknown key 'property_nme' in 'identifier'; did you mean 'property_name'? (at $.identifier.property_nme)",
                "track.json:8:72: error: missing required key 'until_version' (at $.properties[1].type_history[0])",
                "track.json:8:74: error: unknown key 'until_verison' in a type_history item; did you mean 'until_version'? (at $.properties[1].type_history[0].until_verison)",
                "track.json:5:44: error: unknown key 'uniqe' in an index; did you mean 'unique'? (at $.indexes[0].uniqe)",
                "track.json:11:5: error: unknown key 'persits' in entity 'track'; did you mean 'persist'? (at $.persits)",
                "kind.json:3:25: error: renamed_at_version needs previous_name (the case's name before the rename) (at $.cases[1].renamed_at_version)",
                "kind.json:3:44: error: unknown key 'previous_nam' in case 'album'; did you mean 'previous_name'? (at $.cases[1].previous_nam)",
            ], "\(descriptions)")
    }

    // MARK: Errors name a line

    /// One enum case renamed: BC106 and, under the additive rule, AO112 at the same place, the case's item
    /// that says the rename (as MF106 and MF107 for a removal).
    @Test func anEnumCaseRenameIsLocatedAtOnePlaceByEveryCode() throws {
        let aircraft = """
            {
                "name": "aircraft",
                "identifier": { "type": "string" },
                "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
                "properties": [
                    { "name": "category", "property_type": "category", "default_value": ".airplane" }
                ]
            }
            """
        let category = """
            {
                "name": "category",
                "cases": [
                    "airplane",
                    { "name": "balloon", "previous_name": "lighter_than_air", "renamed_at_version": "2.0" }
                ]
            }
            """
        let project = try TestProject(
            files: [".entities/aircraft.json": aircraft, ".entities/Subtypes/category.json": category], config: Self.released)
        defer { project.remove() }
        let (input, result) = try GeneratorPipeline(configPath: project.configPath).check()
        var settings = result.model.config.lint
        settings.additiveOnly = true
        let findings = Linter(model: result.model, descriptions: input.entities, settings: settings).run().findings
        let shown = findings.map {
            "\($0.code.id) \($0.location.map { "\(($0.file as NSString).lastPathComponent):\($0.line):\($0.column)" } ?? "nowhere")"
        }
        #expect(shown == ["BC106 category.json:5:9", "AO112 category.json:5:9"], "\(shown)")
    }

    @Test func appTestsWithoutAnExpectationsProviderNamesItsLine() throws {
        let config = TestProject.defaultConfig + "\n  app_tests:\n    module_name: AppTests\n    output_path: Tests/AppTests/Generated\n"
        #expect(
            try failure([".entities/track.json": Self.track([#"{ "name": "title", "property_type": "string" }"#])], config: config) == [
                #".lucid.yaml:6:3: error: targets.app_tests needs 'expectations_provider': the test target's type that gives the generated migration tests the app's store options and expectations (see "Generated migration tests" in LucidTesting's documentation) (at $.targets.app_tests)"#
            ])
    }

    @Test func aMissingInputFolderNamesTheConfigLine() throws {
        let shown = try failure([:])
        #expect(shown.count == 1)
        #expect(shown.first?.hasPrefix(".lucid.yaml:1:13: error: input_path '") == true, "\(shown)")
    }

    static let released = TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n"

    /// A released version's edit is located at the property that makes it, not at the file's first line.
    @Test func aReleasedVersionsEditIsLocatedAtTheProperty() throws {
        let history = #"{ "version": "1.0" }, { "version": "2.0" }"#
        let title = #"{ "name": "title", "property_type": "string" }"#
        let project = try TestProject(files: [".entities/track.json": Self.track([title], history: history)], config: Self.released)
        defer { project.remove() }
        _ = try project.generate()
        // A hand-written type_history that contradicts the frozen 1.0.
        try project.write(
            ".entities/track.json",
            Self.track(
                [#"{ "name": "title", "property_type": "int", "type_history": [{ "until_version": "2.0", "property_type": "date" }] }"#],
                history: history))
        let errors = try project.errors()
        let error = try #require(errors.first { $0.message.contains("property 'title' changed type from string to date") })
        #expect(error.location?.line == 5)
        #expect(error.location?.column == 9)
    }

    /// A deleted description: the error is located in the released snapshot, at the entity.
    @Test func aDeletedDescriptionIsLocatedInTheSnapshot() throws {
        let history = #"{ "version": "1.0" }, { "version": "2.0" }"#
        let title = #"{ "name": "title", "property_type": "string" }"#
        let album = """
            {
                "name": "album",
                "version_history": [{ "version": "1.0" }],
                "properties": [\(title)]
            }
            """
        let project = try TestProject(
            files: [".entities/track.json": Self.track([title], history: history), ".entities/album.json": album], config: Self.released)
        defer { project.remove() }
        _ = try project.generate()
        try FileManager.default.removeItem(at: project.root.appendingPathComponent(".entities/album.json"))
        let error = try #require(try project.errors().first)
        #expect(error.message.hasPrefix("released version 1.0 was changed"))
        #expect(error.message.contains("entity 'album' is in the released snapshot but the descriptions no longer produce it"))
        #expect(error.location?.file.hasSuffix(".entities/.schema/1.0.json") == true)
        #expect(error.location?.line == 6, "the line of the entity's name in the snapshot")
    }
}
