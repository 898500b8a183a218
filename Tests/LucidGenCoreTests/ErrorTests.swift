import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// One test per class of bad input: each must produce a located error and write nothing.
@Suite struct ErrorTests {
    /// Generates, expects failure, checks that nothing was written, and returns the errors.
    func failures(_ files: [String: String], config: String? = TestProject.defaultConfig, setup: (TestProject) throws -> Void = { _ in })
        throws -> [Diagnostic]
    {
        let project = try TestProject(files: files, config: config)
        defer { project.remove() }
        try setup(project)
        let before = project.allFiles()
        let errors = try project.errors()
        #expect(project.allFiles() == before, "a failed generation must write nothing")
        return errors
    }

    func expectError(
        _ errors: [Diagnostic], file: String, line: Int, column: Int, containing text: String, path: String? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let match = errors.first { $0.message.contains(text) }
        #expect(match != nil, "no error containing '\(text)' in \(errors.map(\.description))", sourceLocation: sourceLocation)
        guard let match else { return }
        #expect(match.location?.file.hasSuffix(file) == true, "file: \(String(describing: match.location))", sourceLocation: sourceLocation)
        #expect(match.location?.line == line, "line: \(match)", sourceLocation: sourceLocation)
        #expect(match.location?.column == column, "column: \(match)", sourceLocation: sourceLocation)
        if let path { #expect(match.path == path, "path: \(match)", sourceLocation: sourceLocation) }
        #expect(match.description.contains(":\(line):\(column): error: "), sourceLocation: sourceLocation)
    }

    @Test func malformedJSON() throws {
        let errors = try failures([".entities/a.json": "{\n  \"name\": \"a\",\n  \"properties\": [,]\n}"])
        expectError(errors, file: ".entities/a.json", line: 3, column: 18, containing: "malformed JSON: unexpected character ','")
    }

    @Test func trailingCommaAndCommentsAreNotJSON() throws {
        let trailing = try failures([".entities/a.json": "{ \"name\": \"a\", }"])
        expectError(trailing, file: ".entities/a.json", line: 1, column: 16, containing: "trailing comma")
        let comment = try failures([".entities/a.json": "// hi\n{}"])
        expectError(comment, file: ".entities/a.json", line: 1, column: 1, containing: "comments are not allowed")
    }

    @Test func malformedYAML() throws {
        let errors = try failures([".entities/a.json": entityJSON("a")], config: "input_path: .entities\ntargets: [app\n")
        #expect(errors.first?.message.contains("invalid YAML") == true)
        #expect(errors.first?.location?.file.hasSuffix(".lucid.yaml") == true)
        #expect((errors.first?.location?.line ?? 0) >= 2)
    }

    @Test func duplicateKeyInJSON() throws {
        let errors = try failures([".entities/a.json": "{\n  \"name\": \"a\",\n  \"name\": \"b\"\n}"])
        expectError(errors, file: ".entities/a.json", line: 3, column: 3, containing: "duplicate key 'name' (first at line 2, column 3)")
    }

    @Test func snakeAndCamelSpellingsOfOneKeyAreDuplicates() throws {
        let json = """
            {
              "name": "a",
              "version_history": [{ "version": "1.0" }],
              "versionHistory": [{ "version": "1.0" }],
              "properties": []
            }
            """
        let errors = try failures([".entities/a.json": json])
        expectError(errors, file: ".entities/a.json", line: 4, column: 3, containing: "key 'versionHistory' repeats 'version_history'")
    }

    @Test func duplicateKeyInYAML() throws {
        let errors = try failures([".entities/a.json": entityJSON("a")], config: "input_path: .entities\ninput_path: other\n")
        #expect(errors.first?.message.contains("duplicate key 'input_path'") == true)
        #expect(errors.first?.location?.file.hasSuffix(".lucid.yaml") == true)
    }

    @Test func unknownPropertyType() throws {
        let errors = try failures([".entities/a.json": entityJSON("a", properties: #"{ "name": "x", "property_type": "strng" }"#)])
        expectError(
            errors, file: ".entities/a.json", line: 5, column: 41, containing: "unknown property type 'strng'",
            path: "$.properties[0].property_type")
    }

    @Test func duplicateEntityNames() throws {
        let errors = try failures([".entities/a.json": entityJSON("movie"), ".entities/b.json": entityJSON("Movie")])
        expectError(errors, file: ".entities/b.json", line: 1, column: 1, containing: "entity name 'Movie' is already used by")
    }

    @Test func duplicatePropertyNames() throws {
        let properties = #"{ "name": "x", "property_type": "string" },"# + "\n" + #"        { "name": "x", "property_type": "int" }"#
        let errors = try failures([".entities/a.json": entityJSON("a", properties: properties)])
        expectError(errors, file: ".entities/a.json", line: 6, column: 9, containing: "property name 'x' is already used by")
    }

    @Test func relationshipToUnknownEntity() throws {
        let property = #"{ "name": "owner", "property_type": { "entity_name": "person", "association": "to_one" } }"#
        let errors = try failures([".entities/a.json": entityJSON("a", properties: property)])
        expectError(
            errors, file: ".entities/a.json", line: 5, column: 45, containing: "refers to unknown entity 'person'",
            path: "$.properties[0].property_type")
    }

    @Test func versionsOutOfOrder() throws {
        let json = """
            {
              "name": "a",
              "version_history": [{ "version": "1.10" }, { "version": "1.9" }],
              "properties": []
            }
            """
        let errors = try failures([".entities/a.json": json])
        expectError(errors, file: ".entities/a.json", line: 3, column: 46, containing: "out of order: 1.9 comes after 1.10")
    }

    @Test func malformedVersion() throws {
        let json = #"{ "name": "a", "version_history": [{ "version": "1.0-beta" }], "properties": [] }"#
        let errors = try failures([".entities/a.json": json])
        expectError(errors, file: ".entities/a.json", line: 1, column: 49, containing: "'1.0-beta' is not a version")
    }

    @Test(arguments: [
        #"x\"; DROP TABLE a; --"#, "drop table", "1abc", "sqlite_master", "naïve", "lucid_versions",
    ])
    func unsafeNamesAreRejected(_ name: String) throws {
        let property = #"{ "name": "\#(name)", "property_type": "string" }"#
        let errors = try failures([".entities/a.json": entityJSON("a", properties: property)])
        expectError(errors, file: ".entities/a.json", line: 5, column: 19, containing: "invalid name", path: "$.properties[0].name")
    }

    /// A column named `rowid` hides SQLite's rowid, which lucidgen copies rows by (a rebuild's rowid ranges would
    /// read the column: its NULLs and repeats would lose rows): refused as a property's column, a
    /// `persisted_name`, an old one, in any case. `oid`, which lucidgen never uses, and a property named
    /// `rowid` stored under another column are accepted.
    @Test func aColumnNamedRowidIsRefused() throws {
        let cases = [
            #"{ "name": "rowid", "property_type": "int" }"#: "$.properties[0].name",
            #"{ "name": "ROWID", "property_type": "int" }"#: "$.properties[0].name",
            #"{ "name": "count", "property_type": "int", "persisted_name": "RowId" }"#: "$.properties[0].persisted_name",
            #"{ "name": "count", "property_type": "int", "type_history": [{ "until_version": "1.0", "persisted_name": "rowid" }] }"#:
                "$.properties[0].type_history[0].persisted_name",
        ]
        for (property, path) in cases {
            let errors = try failures([".entities/a.json": entityJSON("a", properties: property)])
            let error = errors.first { $0.message.hasPrefix("invalid column name:") }
            #expect(error?.path == path, "\(property): \(errors.map(\.description))")
            #expect(
                error?.message.contains(
                    "hides SQLite's rowid, which lucidgen's migrations copy rows by; keep the property's name and store it under another with \"persisted_name\""
                ) == true)
        }
        let accepted = [
            #"{ "name": "oid", "property_type": "string" }"#,
            #"{ "name": "rowid", "property_type": "int", "persisted_name": "row_number" }"#,
        ]
        for property in accepted {
            let project = try TestProject(files: [".entities/a.json": entityJSON("a", properties: property)])
            defer { project.remove() }
            #expect(throws: Never.self) { try project.generate() }
        }
    }

    @Test func unsafeEntityName() throws {
        let errors = try failures([".entities/a.json": entityJSON("a b")])
        expectError(errors, file: ".entities/a.json", line: 2, column: 13, containing: "invalid name: 'a b' may contain only")
    }

    @Test func unreadableFile() throws {
        let errors = try failures([:]) { project in
            try FileManager.default.createDirectory(at: project.root.appendingPathComponent(".entities"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: project.root.appendingPathComponent(".entities/broken.json").path, withDestinationPath: "/nonexistent/file.json")
        }
        #expect(errors.contains { $0.message == "cannot read this file" && $0.location?.file.hasSuffix(".entities/broken.json") == true })
    }

    @Test func invalidUTF8() throws {
        let errors = try failures([:]) { project in
            try FileManager.default.createDirectory(at: project.root.appendingPathComponent(".entities"), withIntermediateDirectories: true)
            try Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]).write(to: project.root.appendingPathComponent(".entities/bad.json"))
        }
        expectError(errors, file: ".entities/bad.json", line: 1, column: 4, containing: "invalid UTF-8")
    }

    @Test func missingConfig() throws {
        let errors = try failures([".entities/a.json": entityJSON("a")], config: nil)
        #expect(errors.first?.message.contains("no config file here") == true)
    }

    @Test func missingInputFolder() throws {
        let errors = try failures([:])
        #expect(errors.first?.message.contains("input_path '") == true)
        #expect(errors.first?.path == "$.input_path")
    }

    @Test func defaultOfTheWrongType() throws {
        let property = #"{ "name": "count", "property_type": "int", "default_value": "many" }"#
        let errors = try failures([".entities/a.json": entityJSON("a", properties: property)])
        expectError(
            errors, file: ".entities/a.json", line: 5, column: 9, containing: "default_value does not fit property 'count' of type int",
            path: "$.properties[0].default_value")
    }

    @Test func unknownSubtypeCaseAsDefault() throws {
        let property = #"{ "name": "kind", "property_type": "kind", "default_value": ".large" }"#
        let errors = try failures([
            ".entities/a.json": entityJSON("a", properties: property),
            ".entities/Subtypes/kind.json": #"{ "name": "kind", "cases": ["small", "medium"] }"#,
        ])
        #expect(errors.contains { $0.message.contains("'.large' is not a case of 'kind' (medium, small)") })
    }

    @Test func versionNewerThanCurrentVersion() throws {
        let config = TestProject.defaultConfig + "\ncurrent_version: \"1.0\"\n"
        let json = #"{ "name": "a", "version_history": [{ "version": "1.0" }, { "version": "2.0" }], "properties": [] }"#
        let errors = try failures([".entities/a.json": json], config: config)
        #expect(errors.contains { $0.message.contains("version 2.0 of 'a' is newer than current_version 1.0") })
    }

    @Test func propertyAddedAtAVersionTheHistoryLacks() throws {
        let property = #"{ "name": "x", "property_type": "int", "default_value": 0, "added_at_version": "1.5" }"#
        let errors = try failures([".entities/a.json": entityJSON("a", properties: property)])
        expectError(
            errors, file: ".entities/a.json", line: 5, column: 9,
            containing: "added_at_version 1.5 of property 'x' is not in the version_history of 'a' (1.0)")
    }

    @Test func entityLevelPreviousNameIsRejectedWithAHint() throws {
        let errors = try failures([".entities/a.json": entityJSON("a", extra: #" "previous_name": "b","#)])
        #expect(errors.contains { $0.message.contains("move it into the version_history item") })
    }

    @Test func entityAndSubtypeWithTheSameSwiftName() throws {
        let errors = try failures([
            ".entities/genre.json": entityJSON("genre"), ".entities/Subtypes/genre.json": #"{ "name": "genre", "cases": ["a"] }"#,
        ])
        #expect(errors.contains { $0.message.hasPrefix("Swift type name 'Genre' (from subtype 'genre') is already used by") })
    }

    /// A type named like a module that generated code qualifies types with hides the module; any other
    /// name (`Date`, `Schema`, `Column`) is fine, generated code qualifies outside types.
    @Test(arguments: ["foundation", "GRDB", "lucidRuntime", "swift", "testing", "app"])
    func typeNamesLikeAModuleAreRejected(_ name: String) throws {
        let errors = try failures([".entities/a.json": entityJSON(name)])
        #expect(
            errors.contains {
                $0.message.contains("named like ") && $0.message.contains("\"swift_name\"")
                    && $0.location?.file.hasSuffix(".entities/a.json") == true
            })
    }

    // MARK: Names that would not compile

    @Test func propertiesThatClashWithRecordMembersOrEachOther() throws {
        let properties = """
            { "name": "self", "property_type": "string" },
              { "name": "hash_value", "property_type": "int" },
              { "name": "tail_number", "property_type": "string" },
              { "name": "tailNumber", "property_type": "string" },
              { "name": "count", "persisted_name": "n", "property_type": "int" },
              { "name": "count_", "property_type": "int" }
            """
        let errors = try failures([".entities/a.json": entityJSON("a", properties: properties)])
        expectError(
            errors, file: ".entities/a.json", line: 5, column: 9,
            containing:
                "property 'self' of 'a' would be the Swift property `self`, which clashes with every Swift value's own `self` (the memberwise init's parameter would hide it); give it a \"swift_name\" (its column keeps its name)",
            path: "$.properties[0]")
        expectError(
            errors, file: ".entities/a.json", line: 6, column: 3,
            containing:
                "property 'hash_value' of 'a' would be the Swift property `hashValue`, which clashes with `hashValue`, which every record and struct has as a Hashable value; give it a \"swift_name\" (its column keeps its name)"
        )
        expectError(
            errors, file: ".entities/a.json", line: 8, column: 3,
            containing:
                "property 'tailNumber' of 'a' would be the Swift property `tailNumber`, as would property 'tail_number'; give one of them a \"swift_name\" (a column keeps its name)",
            path: "$.properties[3]")
        expectError(
            errors, file: ".entities/a.json", line: 10, column: 3,
            containing:
                "property 'count_' of 'a' would be the Swift property `count`, as would property 'count'; give one of them a \"swift_name\""
        )
    }

    @Test func propertyClashesAtOlderVersionsAreFound() throws {
        let json = """
            { "name": "a", "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [
                { "name": "tail", "property_type": "string", "previous_name": "tail_number", "renamed_at_version": "2.0" },
                { "name": "tailNumber", "property_type": "string" }
              ] }
            """
        let errors = try failures([".entities/a.json": json])
        expectError(
            errors, file: ".entities/a.json", line: 4, column: 5,
            containing:
                "property 'tailNumber' of 'a' at version 1.0 would be the Swift property `tailNumber`, as would property 'tail_number'")
    }

    @Test func entityNamesSwiftDoesNotAccept() throws {
        let errors = try failures([".entities/self.json": entityJSON("self"), ".entities/any.json": entityJSON("any")])
        expectError(
            errors, file: ".entities/self.json", line: 1, column: 1,
            containing:
                "entity 'self' would be the Swift type 'Self', a keyword Swift does not accept as a type name; give the entity a \"swift_name\" (its table keeps its name)",
            path: "$.name")
        expectError(errors, file: ".entities/any.json", line: 1, column: 1, containing: "entity 'any' would be the Swift type 'Any'")
    }

    @Test func typeNamesTakenTwice() throws {
        let camel = try failures([".entities/log_entry.json": entityJSON("log_entry"), ".entities/logEntry.json": entityJSON("logEntry")])
        #expect(
            camel.contains {
                $0.message.hasPrefix("Swift type name 'LogEntry' (from entity 'logEntry') is already used by")
                    && $0.location?.file.hasSuffix("log_entry.json") == true
                    || $0.message.hasPrefix("Swift type name 'LogEntry' (from entity 'log_entry') is already used by")
            })

        // `song` was named `track` at 1.0, so its 1.0 record is `Track_1_0`, as is the 1.0 record of a later `track`.
        let renamed = """
            { "name": "song", "persisted_name": "songs", "version_history": [{ "version": "1.0" }, { "version": "2.0", "previous_name": "track" }],
              "properties": [{ "name": "title", "property_type": "string" }] }
            """
        let record = try failures([".entities/song.json": renamed, ".entities/track.json": entityJSON("track")])
        expectError(
            record, file: ".entities/track.json", line: 1, column: 1,
            containing:
                "the record of entity 'track' at version 1.0 would be the Swift type 'Track_1_0', as would the record of entity 'song' at version 1.0; give one of them a \"swift_name\"",
            path: "$.name")

        let registry = try failures([".entities/app_schema.json": entityJSON("app_schema")])
        expectError(
            registry, file: ".entities/app_schema.json", line: 1, column: 1,
            containing:
                "entity 'app_schema' would be the Swift type 'AppSchema', as would the generated schema registry; give one of them a \"swift_name\""
        )

        let nested = try failures([
            ".entities/a.json": entityJSON(
                "a",
                properties:
                    #"{ "name": "layout", "property_type": "columns" }, { "name": "from", "property_type": { "entity_name": "a", "association": "to_many" } }"#
            ),
            ".entities/Subtypes/columns.json": #"{ "name": "columns", "cases": ["one", "two"] }"#,
            ".entities/Subtypes/from_link.json": #"{ "name": "from_link", "cases": ["x"] }"#,
        ])
        expectError(
            nested, file: "Subtypes/columns.json", line: 1, column: 1,
            containing:
                "subtype 'columns' would be the Swift type 'Columns', which is a type every record declares (a nested type of that name hides it inside records); give it a \"swift_name\""
        )
        expectError(
            nested, file: "Subtypes/from_link.json", line: 1, column: 1,
            containing:
                "subtype 'from_link' would be the Swift type 'FromLink', which is the link type of 'a.from' (a nested type of that name hides it inside records); give it a \"swift_name\""
        )
    }
}
