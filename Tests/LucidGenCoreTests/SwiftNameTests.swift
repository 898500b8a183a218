import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// Swift names never collide: `swift_name` renames the Swift side of an entity, a subtype, a
/// property, an enum case or a struct member (never a table, column, stored value or JSON key), and every
/// name that would not compile is a located error that says which other name it meets and suggests
/// `swift_name`.
@Suite struct SwiftNameTests {
    /// Generates, expects failure, checks that nothing was written, and returns the errors.
    func failures(_ files: [String: String], config: String? = TestProject.defaultConfig) throws -> [Diagnostic] {
        let project = try TestProject(files: files, config: config)
        defer { project.remove() }
        let before = project.allFiles()
        let errors = try project.errors()
        #expect(project.allFiles() == before, "a failed generation must write nothing")
        return errors
    }

    func expectError(
        _ errors: [Diagnostic], file: String, line: Int, column: Int, _ message: String, path: String? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let match = errors.first { $0.message.contains(message) }
        #expect(match != nil, "no error containing '\(message)' in \(errors.map(\.description))", sourceLocation: sourceLocation)
        guard let match else { return }
        #expect(match.location?.file.hasSuffix(file) == true, "file: \(match)", sourceLocation: sourceLocation)
        #expect(match.description.contains(":\(line):\(column): error: "), "position: \(match)", sourceLocation: sourceLocation)
        if let path { #expect(match.path == path, "path: \(match)", sourceLocation: sourceLocation) }
    }

    // MARK: swift_name

    static let renamed: [String: String] = [
        ".entities/unit.json": """
        {
          "name": "unit",
          "swift_name": "Measure",
          "identifier": { "type": "property", "property_name": "code" },
          "version_history": [{ "version": "1.0" }],
          "properties": [
            { "name": "code", "property_type": "string", "swift_name": "symbol" },
            { "name": "tail_number", "property_type": "string", "swift_name": "registration" },
            { "name": "theme", "property_type": "theme", "default_value": ".dark_mode" },
            { "name": "origin", "property_type": "point", "composite": true },
            { "name": "path", "property_type": "point", "nullable": true }
          ]
        }
        """,
        ".entities/Subtypes/theme.json":
            #"{ "name": "theme", "swift_name": "Appearance", "cases": [{ "name": "dark_mode", "swift_name": "night" }, "darkMode"] }"#,
        ".entities/Subtypes/point.json": """
        { "name": "point", "swift_name": "Spot", "properties": [
          { "name": "x_pos", "property_type": "double", "swift_name": "horizontal" },
          { "name": "xPos", "property_type": "double" }
        ] }
        """,
    ]

    @Test func swiftNameRenamesTheSwiftSideOnly() throws {
        let project = try TestProject(files: Self.renamed)
        defer { project.remove() }
        _ = try project.generate()
        // File names stay derived from `name`; the types inside are the swift_names.
        let record = try project.read("Sources/App/Generated/Entities/Unit.swift")
        #expect(record.contains("public struct Measure_1_0:"))
        #expect(record.contains("public typealias Measure = Measure_1_0"))
        #expect(!record.contains("struct Unit") && !record.contains("typealias Unit"))
        #expect(record.contains("public var symbol: Swift.String\n"), "the identifier property's swift_name")
        #expect(record.contains("public var registration: Swift.String\n"))
        #expect(record.contains("public var theme: Appearance\n"))
        #expect(record.contains("theme: Appearance = .night"), "a default case by its Swift name")
        #expect(record.contains("public var origin: Spot\n") && record.contains("public var path: Spot?\n"))
        // Columns keep the descriptions' names.
        #expect(
            record.contains(#"case registration = "tail_number""#)
                || record.contains(#"self.registration = try row.decode(Swift.String.self, forColumn: "tail_number")"#))
        #expect(record.contains(#"container["origin_x_pos"] = self.origin.horizontal"#))
        #expect(record.contains(#"container["origin_xPos"] = self.origin.xPos"#))
        let subtype = try project.read("Sources/App/Generated/Subtypes/Theme.swift")
        #expect(layoutFree(subtype).contains("public enum Appearance: Swift.String, "))
        #expect(subtype.contains(#"case night = "dark_mode""#) && subtype.contains("case darkMode\n"))
        let point = try project.read("Sources/App/Generated/Subtypes/Point.swift")
        #expect(point.contains("public struct Spot: "))
        #expect(point.contains("public var horizontal: Swift.Double\n") && point.contains("public var xPos: Swift.Double\n"))
        #expect(point.contains(#"case horizontal = "x_pos""#), "the JSON key stays")
        #expect(point.contains(#"horizontal = GRDB.Column(prefix + "_x_pos")"#))
        // The schema knows nothing of Swift names.
        let snapshot = try project.read(".entities/.schema/1.0.json")
        for swiftName in ["Measure", "symbol", "registration", "Appearance", "night", "Spot", "horizontal"] {
            #expect(!snapshot.contains(swiftName), "\(swiftName) in the snapshot")
        }
        #expect(snapshot.contains(#""tail_number""#) && snapshot.contains(#""origin_x_pos""#) && snapshot.contains(#""name" : "unit""#))
    }

    @Test func changingASwiftNameOfAReleasedVersionChangesNoSchema() throws {
        var files = Self.renamed
        files[".entities/unit.json"] = files[".entities/unit.json"]!
            .replacingOccurrences(of: #""swift_name": "Measure","#, with: "")
            .replacingOccurrences(of: #", "swift_name": "registration""#, with: "")
        let project = try TestProject(files: files)
        defer { project.remove() }
        _ = try project.generate()
        let released = try project.read(".entities/.schema/1.0.json")
        #expect(try project.read("Sources/App/Generated/Entities/Unit.swift").contains("public var tailNumber: Swift.String\n"))
        // 2.0 is current, 1.0 released; now the Swift names change, in the 1.0 record too.
        try project.write(
            ".entities/unit.json",
            Self.renamed[".entities/unit.json"]!.replacingOccurrences(
                of: #"[{ "version": "1.0" }]"#, with: #"[{ "version": "1.0" }, { "version": "2.0" }]"#))
        _ = try project.generate()
        #expect(try project.read(".entities/.schema/1.0.json") == released, "a released snapshot is never rewritten")
        let record = try project.read("Sources/App/Generated/Entities/Unit.swift")
        #expect(record.contains("public struct Measure_1_0: ") && record.contains("public typealias Measure = Measure_2_0"))
        #expect(record.contains("public var registration: Swift.String\n") && !record.contains("tailNumber"))
    }

    @Test func aRenamedEntitysOlderRecordsKeepTheirOldName() throws {
        let json = """
            { "name": "unit", "swift_name": "Measure",
              "version_history": [{ "version": "1.0" }, { "version": "2.0", "previous_name": "gauge" }],
              "properties": [{ "name": "title", "property_type": "string" }] }
            """
        let project = try TestProject(files: [".entities/unit.json": json])
        defer { project.remove() }
        _ = try project.generate()
        let record = try project.read("Sources/App/Generated/Entities/Unit.swift")
        #expect(record.contains("public struct Gauge_1_0:") && record.contains("public struct Measure_2_0:"))
    }

    @Test func invalidSwiftNames() throws {
        let entity = """
            {
              "name": "a", "swift_name": "lower",
              "version_history": [{ "version": "1.0" }],
              "properties": [
                { "name": "b", "property_type": "string", "swift_name": "Upper" },
                { "name": "c", "property_type": "string", "swift_name": "2x" },
                { "name": "d", "property_type": "string", "swift_name": "" }
              ]
            }
            """
        let errors = try failures([
            ".entities/a.json": entity,
            ".entities/Subtypes/k.json":
                #"{ "name": "k", "swift_name": "Protocol", "cases": [{ "name": "x", "swift_name": "with-dash" }] }"#,
        ])
        expectError(
            errors, file: ".entities/a.json", line: 2, column: 30,
            "invalid swift_name: 'lower' names a type and must start with an uppercase ASCII letter", path: "$.swift_name")
        expectError(
            errors, file: ".entities/a.json", line: 5, column: 61,
            "invalid swift_name: 'Upper' names a member and must start with a lowercase ASCII letter or '_' (a member named like a type hides the type in generated code)",
            path: "$.properties[0].swift_name")
        expectError(
            errors, file: ".entities/a.json", line: 6, column: 61,
            "invalid swift_name: '2x' names a member and must start with a lowercase ASCII letter")
        expectError(errors, file: ".entities/a.json", line: 7, column: 61, "invalid swift_name: a swift_name may not be empty")
        expectError(
            errors, file: "Subtypes/k.json", line: 1, column: 30,
            "invalid swift_name: 'Protocol' is a Swift keyword, which a type may not be named")
        expectError(
            errors, file: "Subtypes/k.json", line: 1, column: 81,
            "invalid swift_name: 'with-dash' is not a Swift identifier lucidgen accepts: ASCII letters, digits and underscores, not starting with a digit"
        )
    }

    // MARK: Collisions inside subtypes

    @Test func enumCasesThatBecomeOneSwiftCase() throws {
        let theme = """
            { "name": "theme", "cases": [
              "dark_mode",
              "darkMode",
              "all_cases"
            ] }
            """
        let errors = try failures([".entities/a.json": entityJSON("a"), ".entities/Subtypes/theme.json": theme])
        expectError(
            errors, file: "Subtypes/theme.json", line: 3, column: 3,
            "case 'darkMode' of enum 'theme' would be the Swift case `darkMode`, as would case 'dark_mode'; give one of them a \"swift_name\" (stored values stay as they are)",
            path: "$.cases[1]")
        expectError(
            errors, file: "Subtypes/theme.json", line: 4, column: 3,
            "case 'all_cases' of enum 'theme' would be the Swift case `allCases`, which clashes with `allCases`, which every generated enum has (CaseIterable); give it a \"swift_name\" (its stored value stays 'all_cases')"
        )

        // With a swift_name each case has its own Swift name, and the stored values stay.
        let fixed = theme.replacingOccurrences(of: #""darkMode""#, with: #"{ "name": "darkMode", "swift_name": "darkModeLegacy" }"#)
            .replacingOccurrences(of: #""all_cases""#, with: #"{ "name": "all_cases", "swift_name": "everything" }"#)
        let project = try TestProject(files: [".entities/a.json": entityJSON("a"), ".entities/Subtypes/theme.json": fixed])
        defer { project.remove() }
        _ = try project.generate()
        let generated = try project.read("Sources/App/Generated/Subtypes/Theme.swift")
        #expect(
            generated.contains(#"case darkMode = "dark_mode""#) && generated.contains(#"case darkModeLegacy = "darkMode""#)
                && generated.contains(#"case everything = "all_cases""#))
    }

    @Test func enumCasesOfAnOlderVersionAreChecked() throws {
        // `darkMode` is removed at 2.0 and `dark_mode` added then: only 1.0's type would have both... it has not.
        // `night_mode` was `nightMode` before 2.0, when `night_Mode` existed too: 1.0's type has two `nightMode`.
        let theme = """
            { "name": "theme", "cases": [
              "light",
              { "name": "night_mode", "previous_name": "nightMode", "renamed_at_version": "2.0" },
              { "name": "night_Mode", "removed_at_version": "2.0", "fallback": "light" }
            ] }
            """
        let entity = """
            { "name": "a", "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "theme", "property_type": "theme" }] }
            """
        let errors = try failures([".entities/a.json": entity, ".entities/Subtypes/theme.json": theme])
        expectError(
            errors, file: "Subtypes/theme.json", line: 4, column: 3,
            "case 'night_Mode' of enum 'theme' at version 1.0 would be the Swift case `nightMode`, as would case 'nightMode'")
    }

    @Test func structMembersThatBecomeOneSwiftPropertyOrCannotBeOne() throws {
        let aircraft = """
            { "name": "airframe", "properties": [
              { "name": "tail_number", "property_type": "string" },
              { "name": "tailNumber", "property_type": "string" },
              { "name": "self", "property_type": "int" },
              { "name": "hash_value", "property_type": "int" }
            ] }
            """
        let entity = entityJSON("a", properties: #"{ "name": "frame", "property_type": "airframe", "composite": true }"#)
        let errors = try failures([".entities/a.json": entity, ".entities/Subtypes/airframe.json": aircraft])
        expectError(
            errors, file: "Subtypes/airframe.json", line: 3, column: 3,
            "member 'tailNumber' of 'airframe' would be the Swift property `tailNumber`, as would member 'tail_number'; give one of them a \"swift_name\" (JSON keys and columns keep their names)",
            path: "$.properties[1]")
        expectError(
            errors, file: "Subtypes/airframe.json", line: 4, column: 3,
            "member 'self' of 'airframe' would be the Swift property `self`, which clashes with every Swift value's own `self` (the memberwise init's parameter would hide it); give it a \"swift_name\" (its JSON key or column keeps its name)"
        )
        expectError(
            errors, file: "Subtypes/airframe.json", line: 5, column: 3,
            "member 'hash_value' of 'airframe' would be the Swift property `hashValue`, which clashes with `hashValue`, which every record and struct has as a Hashable value"
        )
    }

    @Test func optionsThatBecomeOneSwiftOption() throws {
        let errors = try failures([
            ".entities/a.json": entityJSON("a"),
            ".entities/Subtypes/flags.json": #"{ "name": "flags", "options": ["dark_mode", "darkMode", "raw_value"] }"#,
        ])
        expectError(
            errors, file: "Subtypes/flags.json", line: 1, column: 1,
            "option 'darkMode' of 'flags' would be the Swift option `darkMode`, as would option 'dark_mode'", path: "$.options[1]")
        expectError(
            errors, file: "Subtypes/flags.json", line: 1, column: 1,
            "option 'raw_value' of 'flags' would be the Swift option `rawValue`, which clashes with `rawValue`", path: "$.options[2]")
    }

    // MARK: Collisions in records

    @Test func theIdentifierPropertyTakesItsSwiftName() throws {
        let json = """
            { "name": "a", "identifier": { "type": "property", "property_name": "tail_number" },
              "version_history": [{ "version": "1.0" }],
              "properties": [
                { "name": "tail_number", "property_type": "string" },
                { "name": "tailNumber", "property_type": "string" },
                { "name": "code", "property_type": "string", "swift_name": "tailNumber" }
              ] }
            """
        let errors = try failures([".entities/a.json": json])
        expectError(
            errors, file: ".entities/a.json", line: 5, column: 5,
            "property 'tailNumber' of 'a' would be the Swift property `tailNumber`, as would property 'tail_number'; give one of them a \"swift_name\" (a column keeps its name)",
            path: "$.properties[1]")
        expectError(
            errors, file: ".entities/a.json", line: 6, column: 5,
            "property 'code' of 'a' would be the Swift property `tailNumber`, as would property 'tail_number'")
    }

    @Test func keywordsAreEscapedWhereSwiftAcceptsThem() throws {
        let project = try TestProject(files: [
            ".entities/a.json": entityJSON(
                "a",
                properties:
                    #"{ "name": "default", "property_type": "mode", "nullable": true, "default_value": ".none" }, { "name": "p", "property_type": "part", "composite": true }"#
            ),
            ".entities/Subtypes/mode.json": #"{ "name": "mode", "cases": ["none", "class", "self"] }"#,
            ".entities/Subtypes/part.json":
                #"{ "name": "part", "properties": [{ "name": "init", "property_type": "int" }, { "name": "let", "property_type": "int" }, { "name": "container", "property_type": "int" }] }"#,
        ])
        defer { project.remove() }
        _ = try project.generate()
        let record = try project.read("Sources/App/Generated/Entities/A.swift")
        #expect(record.contains("public var `default`: Mode?\n"))
        // `.none` in an optional is nil: the enum's own case is named with its type.
        #expect(record.contains("`default`: Mode? = Mode.none"))
        #expect(
            layoutFree(record).contains(
                "Part(init: row.decode(Swift.Int.self, at: 0), let: row.decode(Swift.Int.self, at: 1), container: "),
            "call labels need no backticks, `let` neither")
        let mode = try project.read("Sources/App/Generated/Subtypes/Mode.swift")
        #expect(mode.contains("case `class`\n") && mode.contains("case `self`\n") && mode.contains("case none\n"))
        let part = try project.read("Sources/App/Generated/Subtypes/Part.swift")
        #expect(part.contains("public var `init`: Swift.Int\n") && part.contains("self.`let` = `let`"))
    }

    // MARK: Type names

    /// Names of Foundation, Swift, GRDB and LucidRuntime types are the app's to take (generated code
    /// qualifies outside types); whether the result compiles is the consumer tests' to prove.
    @Test(arguments: [
        "unit", "date", "data", "URL", "notification", "operation", "expression", "predicate", "record", "column", "table", "migration",
        "schema",
    ])
    func typesNamedLikeOutsideTypesAreAccepted(_ name: String) throws {
        let project = try TestProject(files: [
            ".entities/\(name).json": entityJSON(
                name, properties: #"{ "name": "at", "property_type": "date" }, { "name": "kind", "property_type": "\#(name)_kind" }"#),
            ".entities/Subtypes/\(name)_kind.json": #"{ "name": "\#(name)_kind", "cases": ["a"] }"#,
        ])
        defer { project.remove() }
        _ = try project.generate()
        let typeName = name == "URL" ? "URL" : name.prefix(1).uppercased() + name.dropFirst()
        let record = try project.read("Sources/App/Generated/Entities/\(typeName).swift")
        #expect(record.contains("public typealias \(typeName) = \(typeName)_1_0"))
        #expect(record.contains("public var at: Foundation.Date\n"), "the outside Date, whatever the app names Date")
    }

    @Test func typesNamedLikeAModule() throws {
        let errors = try failures([
            ".entities/foundation.json": entityJSON("foundation"),
            ".entities/b.json": entityJSON("b", extra: #" "swift_name": "GRDB","#),
            ".entities/app.json": entityJSON("app"),
            ".entities/Subtypes/lucid_testing.json": #"{ "name": "lucidTesting", "cases": ["a"] }"#,
        ])
        expectError(
            errors, file: ".entities/foundation.json", line: 1, column: 1,
            "entity 'foundation' would be the Swift type 'Foundation', named like the module Foundation, which generated code qualifies its types with (`Foundation.…` would look inside the type); give the entity a \"swift_name\" (its table keeps its name), e.g. \"FoundationRecord\"",
            path: "$.name")
        expectError(
            errors, file: ".entities/b.json", line: 1, column: 1,
            "entity 'b' would be the Swift type 'GRDB', named like the module GRDB, which generated code qualifies its types with (`GRDB.…` would look inside the type); choose another \"swift_name\"",
            path: "$.swift_name")
        expectError(
            errors, file: ".entities/app.json", line: 1, column: 1,
            "entity 'app' would be the Swift type 'App', named like the app's module (targets.app.module_name), which the generated tests qualify the app's types with (`App.App` would look inside the type)"
        )
        expectError(
            errors, file: "Subtypes/lucid_testing.json", line: 1, column: 1,
            "subtype 'lucidTesting' would be the Swift type 'LucidTesting', named like the module LucidTesting")
    }

    /// `"property_type": "date"` is the scalar, so a subtype `date` could never be used, and its name made
    /// the record treat scalar date columns as its enum's.
    @Test func subtypesNamedLikeAScalarType() throws {
        let errors = try failures([
            ".entities/a.json": entityJSON("a"), ".entities/Subtypes/date.json": #"{ "name": "Date", "cases": ["today"] }"#,
        ])
        expectError(
            errors, file: "Subtypes/date.json", line: 1, column: 1,
            "subtype 'Date' is named like the scalar type 'date', which a property_type \"Date\" always means; rename the subtype",
            path: "$.name")
    }

    @Test func versionedTypeNamesCollide() throws {
        // A swift_name that is another entity's versioned record.
        let tag = """
            { "name": "tag", "version_history": [{ "version": "1.0" }, { "version": "2.0" }], "properties": [{ "name": "title", "property_type": "string" }] }
            """
        let taken = try failures([
            ".entities/tag.json": tag, ".entities/label.json": entityJSON("label", extra: #" "swift_name": "Tag_2_0","#),
        ])
        expectError(
            taken, file: ".entities/tag.json", line: 1, column: 1,
            "the record of entity 'tag' at version 2.0 would be the Swift type 'Tag_2_0', as would entity 'label'; give one of them a \"swift_name\""
        )

        // `mode` was named `theme` at 1.0 (its record `Theme_1_0`), as is the 1.0 type of the enum `theme`, whose cases changed at 2.0.
        let mode = """
            { "name": "mode", "persisted_name": "modes", "version_history": [{ "version": "1.0" }, { "version": "2.0", "previous_name": "theme" }],
              "properties": [{ "name": "theme", "property_type": "theme" }] }
            """
        let theme = #"{ "name": "theme", "cases": ["light", { "name": "dark", "added_at_version": "2.0" }] }"#
        let errors = try failures([".entities/mode.json": mode, ".entities/Subtypes/theme.json": theme])
        expectError(
            errors, file: "Subtypes/theme.json", line: 1, column: 1,
            "enum 'theme' at version 1.0 would be the Swift type 'Theme_1_0', as would the record of entity 'mode' at version 1.0; give one of them a \"swift_name\""
        )
        // The enum's swift_name names its versions' types too.
        let project = try TestProject(files: [
            ".entities/mode.json": mode,
            ".entities/Subtypes/theme.json": theme.replacingOccurrences(
                of: #""name": "theme","#, with: #""name": "theme", "swift_name": "Palette","#),
        ])
        defer { project.remove() }
        _ = try project.generate()
        let generated = try project.read("Sources/App/Generated/Subtypes/Theme.swift")
        #expect(generated.contains("public enum Palette:") && generated.contains("public enum Palette_1_0:"))
    }

    /// A relationship named like a static member every record has (`order`, `filter`) cannot be a GRDB
    /// association by that name: it is left out, with a located warning suggesting `swift_name`; with one,
    /// the association is there under the Swift name and the column keeps its name.
    @Test func aRelationshipNamedLikeAGRDBMemberIsWarnedAbout() throws {
        func cart(_ swiftName: String) -> String {
            """
            { "name": "cart", "version_history": [{ "version": "1.0" }],
              "properties": [
                { "name": "order", "property_type": { "entity_name": "item", "association": "to_one" }, "nullable": true\(swiftName) },
                { "name": "filter", "property_type": { "entity_name": "item", "association": "to_many" } },
                { "name": "items", "property_type": { "entity_name": "item", "association": "to_many" } }
              ] }
            """
        }
        let item =
            #"{ "name": "item", "version_history": [{ "version": "1.0" }], "properties": [{ "name": "title", "property_type": "string" }] }"#
        let project = try TestProject(files: [".entities/cart.json": cart(""), ".entities/item.json": item])
        defer { project.remove() }
        let warnings = try project.generate().diagnostics.filter { $0.severity == .warning }
            .map { $0.description.replacingOccurrences(of: project.root.path + "/", with: "") }
        #expect(
            warnings == [
                #".entities/cart.json:3:5: warning: relationship 'order' of 'cart' gets no GRDB association: every record has GRDB's static `order` already; give it a "swift_name" (e.g. "linkedOrder"; its column keeps its name) to have the association under that name (at $.properties[0])"#,
                #".entities/cart.json:4:5: warning: relationship 'filter' of 'cart' gets no GRDB association: every record has GRDB's static `filter` already; give it a "swift_name" (e.g. "linkedFilter"; its column keeps its name) to have the association under that name (at $.properties[1])"#,
            ])
        try cart(#", "swift_name": "linkedOrder""#).write(
            to: project.root.appendingPathComponent(".entities/cart.json"), atomically: true, encoding: .utf8)
        let renamed = try project.generate()
        #expect(renamed.diagnostics.filter { $0.severity == .warning }.count == 1)
        let record = try String(
            contentsOf: project.root.appendingPathComponent("Sources/App/Generated/Entities/Cart.swift"), encoding: .utf8)
        #expect(
            record.contains("public static let linkedOrder = Self.belongsTo(\n        Item_1_0.self,\n        key: \"order\""), "\(record)")
        #expect(record.contains("public static let linkedOrder = GRDB.Column(\"order\")"))
        #expect(record.contains("public static let items = Self.hasMany(\n        Item_1_0.self,\n        through: Self.itemsLinks"))
    }
}
