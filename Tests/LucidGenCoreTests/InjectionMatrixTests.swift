import Foundation
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

@testable import LucidGenCore

/// Descriptions and `.lucid.yaml` are only ever data in the generated code, never code: every string
/// field that can reach generated Swift, with every payload that could end a comment or a literal,
/// interpolate, or hide a line break. Each either is refused with a located error, or generates code equal
/// to what a harmless value generates (comments and literal texts aside), with no raw line break or control
/// character in any comment, and the value embedded reads back byte for byte: from the Swift literal, and
/// from the schema's JSON through the reader the runtime uses.
@Suite struct InjectionMatrixTests {
    /// A string field of the descriptions or the config.
    enum Field: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case stringDefault, colorDefault, urlDefault, typeHistoryDefault, structMemberDefault
        case tokenizer, organizationName, sampleRow
        case enumCase, enumDefault, swiftName, propertyName, persistedName

        var testDescription: String { rawValue }

        /// A default value: accepted (NUL aside, which SQL text cannot hold) and read back from the literal
        /// and from the schema.
        var isDefault: Bool { [.stringDefault, .colorDefault, .urlDefault, .typeHistoryDefault, .structMemberDefault].contains(self) }
        /// A name: only identifiers are accepted, so every payload is refused.
        var isName: Bool { [.enumCase, .enumDefault, .swiftName, .propertyName, .persistedName].contains(self) }
    }

    static let pwned = InjectionPayloads.pwned
    static let trap = InjectionPayloads.trap

    static let payloads: [(name: String, text: String)] = [
        ("LF", "a\nb"), ("CR", "a\rb"), ("CRLF", "a\r\nb"), ("U+2028", "a\u{2028}b"), ("U+2029", "a\u{2029}b"), ("U+0085", "a\u{85}b"),
        ("interpolation", ##"a\#(b)"##), ("raw close", "a\"\"\"#b"), ("quote hash", "a\"#b"), ("comment close", "a*/b"),
        ("comment open", "a/*b"),
        ("backticks", "a`b``c"), ("quotes", "a\"b'c"), ("backslash", "a\\b\\"), ("NUL", "a\0b"), ("ESC", "a\u{1B}[2Jb"),
        ("10,000 characters", String(repeating: "abc\"#\\#(xy", count: 1000)), ("PWNED", pwned), ("trap", trap),
        ("bidi", "a\u{202E}b"), ("trailing space", "a "),
    ]

    /// Whether a payload holds a character a tokenizer or an organization name may not (a control character or a line break).
    static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" }
    }

    /// A JSON string literal.
    static func json(_ text: String) -> String { InjectionPayloads.json(text) }

    /// A YAML double-quoted scalar.
    static func yaml(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}":
                result += String(format: "\\u%04X", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// The value each field has when it holds no payload.
    static let harmless: [Field: String] = [
        .stringDefault: "plain", .colorDefault: "red", .urlDefault: "https://example.com/a", .typeHistoryDefault: "then",
        .structMemberDefault: "here", .tokenizer: "unicode61", .organizationName: "Acme", .sampleRow: "sample",
        .enumCase: "glad", .enumDefault: "calm", .swiftName: "heading", .propertyName: "extra", .persistedName: "extra_column",
    ]

    /// The project with `value` in `field` and harmless values everywhere else.
    static func files(_ field: Field, _ value: String) -> [String: String] {
        func pick(_ target: Field, _: String) -> String { field == target ? value : harmless[target]! }
        var config = TestProject.config(current: "2.0", tests: true) + "\n"
        if field == .organizationName { config += "organization_name: \(yaml(value))\n" }
        let note = """
            {
                "name": "note",
                "identifier": { "type": "int" },
                "search": { "properties": ["title"], "tokenizer": \(json(pick(.tokenizer, "unicode61"))) },
                "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
                "properties": [
                    { "name": "title", "property_type": "string", "swift_name": \(json(pick(.swiftName, "heading"))) },
                    { "name": "body", "property_type": "string", "default_value": \(json(pick(.stringDefault, "plain"))) },
                    { "name": "tint", "property_type": "color", "default_value": \(json(pick(.colorDefault, "red"))) },
                    { "name": "link", "property_type": "url", "default_value": \(json(pick(.urlDefault, "https://example.com/a"))) },
                    { "name": "mood", "property_type": "string", "default_value": "now",
                      "type_history": [{ "until_version": "2.0", "default_value": \(json(pick(.typeHistoryDefault, "then"))) }] },
                    { "name": "place", "property_type": "spot", "composite": true },
                    { "name": "feeling", "property_type": "feeling", "default_value": \(json(field == .enumDefault ? "." + value : ".calm")) },
                    { "name": \(json(pick(.propertyName, "extra"))), "property_type": "int", "nullable": true,
                      "persisted_name": \(json(pick(.persistedName, "extra_column"))) }
                ]
            }
            """
        return [
            ".lucid.yaml": config,
            ".entities/note.json": note,
            ".entities/Subtypes/spot.json":
                #"{ "name": "spot", "properties": [{ "name": "label", "property_type": "string", "default_value": \#(json(pick(.structMemberDefault, "here"))) }] }"#,
            ".entities/Subtypes/feeling.json": #"{ "name": "feeling", "cases": ["calm", \#(json(pick(.enumCase, "glad")))] }"#,
            ".entities/.samples/2.0.json": #"{ "note": [{ "id": 7, "title": "sampled", "body": \#(json(pick(.sampleRow, "sample"))) }] }"#,
        ]
    }

    /// The generated Swift files of a project, by path relative to its root.
    static func swiftFiles(_ project: TestProject) -> [String: String] {
        var result: [String: String] = [:]
        for path in project.allFiles() where path.hasSuffix(".swift") { result[path] = try? project.read(path) }
        return result
    }

    /// A generation's outcome: its errors, or its Swift files.
    static func generate(_ field: Field, _ value: String) throws -> (errors: [Diagnostic]?, files: [String: String]) {
        let project = try TestProject(files: files(field, value), config: nil)
        defer { project.remove() }
        do {
            _ = try project.generate()
        } catch {
            return (error.errors, [:])
        }
        return (nil, swiftFiles(project))
    }

    /// `'it''s'` → `it's`.
    static func unquoteSQL(_ literal: String) -> String? {
        guard literal.count >= 2, literal.hasPrefix("'"), literal.hasSuffix("'") else { return nil }
        return String(literal.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
    }

    /// The tables of a generated registry, read from its literals as the runtime reads them.
    static func schemaTables(_ scan: SwiftSourceScan) throws -> [SchemaTable] {
        try scan.literalValues.filter { $0.hasPrefix("{\"name\":") }.flatMap { json in
            try SchemaTable.tables(underKey: "t", inJSONObject: "{\"t\": [" + json + "]}") ?? []
        }
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test(arguments: Field.allCases)
    func everyPayloadIsRefusedOrStaysData(_ field: Field) throws {
        let baseline = try Self.generate(field, Self.harmless[field]!)
        #expect(baseline.errors == nil, "the harmless project must generate: \(baseline.errors ?? [])")
        let baselineScans = baseline.files.mapValues(SwiftSourceScan.init)
        for (name, payload) in Self.payloads {
            let outcome = try Self.generate(field, payload)
            if let errors = outcome.errors {
                #expect(!errors.isEmpty, "\(field) \(name): refused without an error")
                for error in errors {
                    #expect(
                        error.location.map { $0.line > 0 && $0.column > 0 } == true,
                        "\(field) \(name): an error without line and column: \(error)")
                    #expect(
                        error.description.wholeMatch(of: /[^:\n]+:\d+:\d+: error: [^\n]+/) != nil,
                        "\(field) \(name): \(error.description.debugDescription)")
                }
                if field.isDefault && field != .urlDefault {
                    #expect(payload.contains("\0"), "\(field) \(name): a default must be accepted and escaped, not refused: \(errors)")
                }
                if field == .tokenizer || field == .organizationName {
                    #expect(Self.hasControlCharacter(payload), "\(field) \(name): refused, but it holds no control character: \(errors)")
                }
                continue
            }
            #expect(!field.isName, "\(field) \(name): a name that is no identifier must be refused")
            #expect(
                !(field.isDefault && payload.contains("\0")), "\(field) \(name): a default with NUL must be refused (SQL text ends at NUL)")
            if field == .tokenizer || field == .organizationName {
                #expect(!Self.hasControlCharacter(payload), "\(field) \(name): a control character must be refused")
            }
            #expect(Set(outcome.files.keys) == Set(baseline.files.keys), "\(field) \(name): other files generated")
            var literalValues: [String] = []
            var tables: [SchemaTable] = []
            for (path, text) in outcome.files {
                let scan = SwiftSourceScan(text)
                #expect(scan.problems.isEmpty, "\(field) \(name): \(path) does not lex: \(scan.problems)")
                #expect(
                    scan.skeleton == baselineScans[path]?.skeleton, "\(field) \(name): the code of \(path) differs from a harmless value's")
                for comment in scan.comments {
                    let bad = comment.unicodeScalars.filter {
                        $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}"
                    }
                    #expect(
                        bad.isEmpty,
                        "\(field) \(name): a comment of \(path) holds \(bad.map { String($0.value, radix: 16) }): \(comment.prefix(200).debugDescription)"
                    )
                }
                literalValues += scan.literalValues
                if path.hasSuffix("AppSchema.swift") { tables += try Self.schemaTables(scan) }
            }
            let defaults = tables.flatMap(\.columns).compactMap { $0.defaultSQL.flatMap(Self.unquoteSQL) }
            switch field {
            case .stringDefault, .colorDefault, .urlDefault, .typeHistoryDefault, .structMemberDefault:
                #expect(
                    literalValues.contains { Self.bytes($0) == Self.bytes(payload) },
                    "\(field) \(name): no Swift literal reads back the value")
                #expect(
                    defaults.contains { Self.bytes($0) == Self.bytes(payload) },
                    "\(field) \(name): the schema's default does not read back the value")
            case .tokenizer:
                #expect(
                    tables.contains { $0.search?.tokenizer.map(Self.bytes) == Self.bytes(payload) },
                    "\(field) \(name): the schema's tokenizer does not read back the value")
            case .sampleRow:
                // Sample rows are read by the generated tests at run time: no generated file changes.
                #expect(outcome.files == baseline.files, "\(field) \(name): sample rows changed generated code")
            case .organizationName:
                // Every file's header says it as written (comment-escaped, not HTML-escaped).
                for (path, text) in outcome.files {
                    // (A long value's header comment is wrapped at spaces: read its lines back as one.)
                    let header = text.split(separator: "\n").drop { !$0.hasPrefix("// Copyright (c)") }.prefix { $0.hasPrefix("// ") }
                        .map { $0.dropFirst(3) }.joined(separator: " ")
                    let expected = "Copyright (c) \(swiftCommentText(payload))."
                    #expect(
                        header == expected
                            || header.split(separator: " ", omittingEmptySubsequences: true)
                                == expected.split(separator: " ", omittingEmptySubsequences: true),
                        "\(field) \(name): the header of \(path) misquotes the value: \(header.debugDescription) vs \(expected.debugDescription)"
                    )
                }
            case .enumCase, .enumDefault, .swiftName, .propertyName, .persistedName:
                break
            }
        }
    }
}
