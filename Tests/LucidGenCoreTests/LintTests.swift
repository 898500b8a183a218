import Foundation
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// The lint stage of `lucidgen check`: each code triggered by the change it names (and only where the
/// history has it), located in the descriptions, with severities and acknowledgements from `.lucid.yaml`.
@Suite struct LintTests {
    static func config(_ extra: String = "", current: String = "2.0") -> String {
        TestProject.defaultConfig + "\ncurrent_version: \"\(current)\"\n" + extra
    }

    static func track(
        _ properties: String, history: String = #"{ "version": "1.0" }, { "version": "2.0" }"#, name: String = "track", extra: String = ""
    ) -> String {
        trackDescription(properties, history: history, name: name, extra: extra)
    }

    static let pilot = track(#"{ "name": "name", "property_type": "string" }"#, history: #"{ "version": "1.0" }"#, name: "pilot")

    /// Lints a project made of `files`; the findings' codes in order, and the result.
    func lint(_ files: [String: String], config: String = LintTests.config(), additiveOnly: Bool = false) throws -> Linter.Result {
        let project = try TestProject(files: files, config: config)
        defer { project.remove() }
        let (input, result) = try GeneratorPipeline(configPath: project.configPath).check()
        var settings = result.model.config.lint
        if additiveOnly { settings.additiveOnly = true }
        return Linter(model: result.model, descriptions: input.entities, settings: settings).run()
    }

    func codes(_ files: [String: String], additiveOnly: Bool = false) throws -> [String] {
        try lint(files, additiveOnly: additiveOnly).findings.map(\.code.id)
    }

    static let title = titleProperty

    @Test func additiveChangesHaveNoFindingsEvenUnderTheAdditiveRule() throws {
        let files = [
            ".entities/track.json": Self.track(
                Self.title + #", { "name": "bpm", "property_type": "int", "nullable": true, "added_at_version": "2.0" }"#
                    + #", { "name": "plays", "property_type": "int", "default_value": 0, "added_at_version": "2.0" }"#),
            ".entities/album.json": Self.track(Self.title, history: #"{ "version": "2.0" }"#, name: "album"),
        ]
        #expect(try codes(files) == [])
        #expect(try codes(files, additiveOnly: true) == [])
    }

    @Test func anEntityRemovedIsDestructive() throws {
        let files = [
            ".entities/track.json": Self.track(Self.title),
            ".entities/album.json": Self.track(
                Self.title, history: #"{ "version": "1.0" }"#, name: "album", extra: #" "removed_at_version": "2.0","#),
        ]
        let result = try lint(files)
        #expect(result.findings.map(\.code.id) == ["DS101"])
        let finding = try #require(result.findings.first)
        #expect(finding.severity == .error)
        #expect(finding.message == "entity album (table album) is removed at 2.0")
        #expect(finding.location?.file.hasSuffix(".entities/album.json") == true)
        #expect(
            finding.text.hasSuffix(
                "; instead, keep the entity until no release reads it (stop writing it first), or move its rows in a stage, then acknowledge the removal"
            ))
        #expect(try codes(files, additiveOnly: true) == ["DS101", "AO101"])
    }

    @Test func aPropertyRemovedIsDestructiveAndLocatedAtItsDescription() throws {
        let properties =
            Self.title + #",\#n            { "name": "bpm", "property_type": "int", "nullable": true, "removed_at_version": "2.0" }"#
        let result = try lint([".entities/track.json": Self.track(properties)])
        #expect(result.findings.map(\.code.id) == ["DS102"])
        #expect(result.findings.first?.message == "property track.bpm is removed at 2.0")
        #expect(result.findings.first?.location?.line == 7)
        #expect(result.findings.first?.location?.column == 13)
        #expect(result.findings.first?.property == "bpm")
    }

    @Test func renamesBreakOlderApps() throws {
        let entity = Self.track(Self.title, history: #"{ "version": "1.0" }, { "version": "2.0", "previous_name": "song" }"#)
        #expect(try codes([".entities/track.json": entity]) == ["BC101"])
        #expect(try codes([".entities/track.json": entity], additiveOnly: true) == ["BC101", "AO102"])
        let property = Self.track(#"{ "name": "name", "property_type": "string", "previous_name": "title", "renamed_at_version": "2.0" }"#)
        let result = try lint([".entities/track.json": property])
        #expect(result.findings.map(\.code.id) == ["BC102"])
        #expect(result.findings.first?.message == "property track.title is renamed to name at 2.0 (column title → name)")
        #expect(result.findings.first?.severity == .warning)
        #expect(try codes([".entities/track.json": property], additiveOnly: true) == ["BC102", "AO105"])
    }

    /// A rename that keeps the column (`persisted_name` holding the old name) changes nothing for older apps,
    /// which read and write the column: no BC102 advising exactly what was done.
    @Test func aRenameThatKeepsItsColumnIsNoFinding() throws {
        let property = Self.track(
            #"{ "name": "name", "property_type": "string", "previous_name": "title", "renamed_at_version": "2.0", "persisted_name": "title" }"#
        )
        #expect(try codes([".entities/track.json": property]) == [])
    }

    @Test func typeChangesByLossOrByTheAppsCode() throws {
        let lossy =
            #"{ "name": "score", "property_type": "int", "type_history": [{ "until_version": "2.0", "property_type": "double", "lossy_conversion": true }] }"#
        let result = try lint([".entities/track.json": Self.track(lossy)])
        #expect(result.findings.map(\.code.id) == ["BC103", "DS103"])
        #expect(result.findings.map(\.message) == Array(repeating: "property track.score changes type from double to int at 2.0", count: 2))
        let code = #"{ "name": "code", "property_type": "int", "type_history": [{ "until_version": "2.0", "property_type": "string" }] }"#
        #expect(try codes([".entities/track.json": Self.track(code)]) == ["BC103", "MF103"])
        #expect(try codes([".entities/track.json": Self.track(code)], additiveOnly: true) == ["BC103", "MF103", "AO110", "AO106"])
    }

    @Test func optionalBecomingRequiredFillsNulls() throws {
        let property =
            #"{ "name": "note", "property_type": "string", "default_value": "none", "type_history": [{ "until_version": "2.0", "nullable": true }] }"#
        let result = try lint([".entities/track.json": Self.track(property)])
        #expect(result.findings.map(\.code.id) == ["BC105", "MF102"])
        #expect(result.findings.last?.message == "property track.note becomes required at 2.0 (NULLs become 'none')")
    }

    @Test func aRequiredPropertyWithoutADefaultOverExistingRows() throws {
        let properties = Self.title + #", { "name": "isrc", "property_type": "string", "added_at_version": "2.0" }"#
        let found = try codes([".entities/track.json": Self.track(properties)])
        #expect(found == ["MF101"])
        // On an entity new at 2.0 there are no existing rows: nothing to say.
        let fresh = Self.track(
            properties.replacingOccurrences(of: #", "added_at_version": "2.0""#, with: ""), history: #"{ "version": "2.0" }"#, name: "album"
        )
        #expect(try codes([".entities/track.json": Self.track(Self.title), ".entities/album.json": fresh]) == [])
    }

    /// A composite has no default_value of its own: added as required, it is fine when each required
    /// element has one (existing rows take them), and a finding names the elements that have none.
    @Test func aRequiredCompositeAddedOverExistingRows() throws {
        func paint(redDefault: String) -> String {
            """
            { "name": "paint", "properties": [
                { "name": "red", "property_type": "int"\(redDefault) },
                { "name": "label", "property_type": "string", "nullable": true },
                { "name": "finish", "property_type": "finish", "nullable": true } ] }
            """
        }
        let finish = #"{ "name": "finish", "properties": [{ "name": "gloss", "property_type": "double" }] }"#
        let trim = Self.title + #", { "name": "trim", "property_type": "paint", "composite": true, "added_at_version": "2.0" }"#
        let defaulted = try lint([
            ".entities/track.json": Self.track(trim), ".entities/Subtypes/paint.json": paint(redDefault: #", "default_value": 0"#),
            ".entities/Subtypes/finish.json": finish,
        ])
        #expect(defaulted.findings.map(\.code.id) == [])
        let undefaulted = try lint([
            ".entities/track.json": Self.track(trim), ".entities/Subtypes/paint.json": paint(redDefault: ""),
            ".entities/Subtypes/finish.json": finish,
        ])
        #expect(undefaulted.findings.map(\.code.id) == ["MF101"])
        #expect(
            undefaulted.findings.first?.message
                == "required composite track.trim is added at 2.0 with required elements without a default_value (columns trim_red)")
    }

    /// Found by the history explorer: a composite renamed renames its columns (BC102), its storage stays one
    /// column per element, so it is no type change (BC103); a JSON struct made composite is one.
    @Test func aCompositeRenamedIsNoTypeChange() throws {
        let point =
            #"{ "name": "point", "properties": [{ "name": "x", "property_type": "double" }, { "name": "label", "property_type": "string", "nullable": true }] }"#
        let renamed = Self.title + #", { "name": "spot", "property_type": "point", "composite": true, "previous_name": "where" }"#
        let result = try lint([".entities/track.json": Self.track(renamed), ".entities/Subtypes/point.json": point])
        #expect(result.findings.map(\.code.id) == ["BC102"])
        #expect(result.findings.first?.message == "property track.where is renamed to spot at 2.0 (column where → spot)")
        let converted =
            Self.title
            + #", { "name": "spot", "property_type": "point", "composite": true, "type_history": [{ "until_version": "2.0", "property_type": "point" }] }"#
        let conversion = try lint([".entities/track.json": Self.track(converted), ".entities/Subtypes/point.json": point])
        #expect(conversion.findings.map(\.code.id) == ["BC103"])
        #expect(
            conversion.findings.first?.message
                == "property track.spot changes from point to composite point at 2.0 (column spot → spot_x, spot_label)")
    }

    @Test func relationshipsChangingAssociation() throws {
        let toMany =
            #"{ "name": "crew", "property_type": { "entity_name": "pilot", "association": "to_many" }, "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "pilot", "association": "to_one" }, "nullable": true }] }"#
        #expect(try codes([".entities/track.json": Self.track(toMany), ".entities/pilot.json": Self.pilot]) == ["BC104"])
        let toOne =
            #"{ "name": "crew", "property_type": { "entity_name": "pilot", "association": "to_one" }, "nullable": true, "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "pilot", "association": "to_many" } }] }"#
        let result = try lint([".entities/track.json": Self.track(toOne), ".entities/pilot.json": Self.pilot])
        #expect(result.findings.map(\.code.id) == ["BC104", "MF104"])
        #expect(
            result.findings.first?.message
                == "property track.crew changes from a to-many relationship to pilot to a to-one relationship to pilot at 2.0")
    }

    /// Ordering a to-many (or no longer) changes its link table: older releases insert links without a
    /// position (or read them unordered).
    @Test func aToManyBecomingOrderedChangesItsAssociation() throws {
        let ordered =
            #"{ "name": "crew", "property_type": { "entity_name": "pilot", "association": "to_many", "ordered": true }, "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "pilot", "association": "to_many" } }] }"#
        let result = try lint([".entities/track.json": Self.track(ordered), ".entities/pilot.json": Self.pilot])
        #expect(result.findings.map(\.code.id) == ["BC104"])
        #expect(
            result.findings.first?.message
                == "property track.crew changes from a to-many relationship to pilot to an ordered to-many relationship to pilot at 2.0")
        let unordered =
            #"{ "name": "crew", "property_type": { "entity_name": "pilot", "association": "to_many" }, "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "pilot", "association": "to_many", "ordered": true } }] }"#
        #expect(try codes([".entities/track.json": Self.track(unordered), ".entities/pilot.json": Self.pilot]) == ["BC104"])
    }

    @Test func severitiesAndAcknowledgementsComeFromTheConfig() throws {
        let properties =
            Self.title + #", { "name": "bpm", "property_type": "int", "nullable": true, "removed_at_version": "2.0" }"#
            + #", { "name": "name", "property_type": "string", "previous_name": "artist", "renamed_at_version": "2.0" }"#
        let files = [".entities/track.json": Self.track(properties)]
        let config = Self.config(
            """
            lint:
              severity:
                BC102: error
                ds102: off
            """)
        let result = try lint(files, config: config)
        #expect(result.findings.map { "\($0.code.id) \($0.severity)" } == ["BC102 error"])

        let acknowledged = Self.config(
            """
            lint:
              acknowledged:
                - { code: DS102, entity: track, property: bpm, version: "2.0", reason: "nobody ever set it" }
                - { code: DS101, entity: track, version: "2.0", reason: "stale" }
            """)
        let second = try lint(files, config: acknowledged)
        #expect(
            second.findings.map { "\($0.code.id) \($0.severity) \($0.acknowledgement ?? "-")" } == [
                "DS102 note nobody ever set it", "BC102 warning -",
            ])
        #expect(second.findings.first?.text == "[DS102] property track.bpm is removed at 2.0 (acknowledged: nobody ever set it)")
        #expect(second.diagnostics.map(\.message) == ["acknowledgement of DS101 for track at 2.0 matches no finding; remove it"])
        #expect(second.diagnostics.first?.location?.line == 10)
    }

    @Test func sinceSkipsTheStepsBeforeIt() throws {
        let properties =
            Self.title + #", { "name": "bpm", "property_type": "int", "nullable": true, "removed_at_version": "2.0" }"#
            + #", { "name": "key", "property_type": "string", "nullable": true, "removed_at_version": "3.0" }"#
        let files = [
            ".entities/track.json": Self.track(properties, history: #"{ "version": "1.0" }, { "version": "2.0" }, { "version": "3.0" }"#)
        ]
        #expect(try lint(files, config: Self.config(current: "3.0")).findings.map(\.to.string) == ["2.0", "3.0"])
        #expect(try lint(files, config: Self.config("lint:\n  since: \"2.0\"\n", current: "3.0")).findings.map(\.to.string) == ["3.0"])
    }

    @Test func badLintSettingsAreLocatedErrors() throws {
        let project = try TestProject(
            files: [".entities/track.json": Self.track(Self.title)],
            config: Self.config(
                "lint:\n  severity:\n    XX999: error\n    BC101: loud\n  acknowledged:\n    - { code: DS102, entity: track, version: \"2.0\" }\n"
            ))
        defer { project.remove() }
        let messages = try project.errors().map { "\($0.location?.line ?? 0): \($0.message)" }
        #expect(messages.contains { $0.hasPrefix("9: unknown lint code 'XX999' (codes: DS101, DS102, DS103, BC101") })
        #expect(messages.contains("10: the severity of BC101 must be one of off, note, warning, error"))
        #expect(messages.contains("12: an acknowledgement needs a 'reason': why the release proceeds with this finding"))
    }

    @Test func everyCodeIsDistinctAndDocumented() {
        let ids = LintCode.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids.count == 17 + AdditiveRule.Change.Kind.allCases.count + LintCode.sqliteDataCodes.count)
        for code in LintCode.all {
            #expect(!code.summary.isEmpty && !code.instead.isEmpty)
            #expect(LintCode.named(code.id.lowercased()) == code)
        }
    }

    @Test func aPropertyThatMovesUpOrDownItsHierarchyIsNoRemoval() throws {
        let files = [
            ".entities/vehicle.json": #"""
            { "name": "vehicle", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "name", "property_type": "string" },
                             { "name": "payload", "property_type": "double", "nullable": true, "removed_at_version": "2.0" },
                             { "name": "doors", "property_type": "int", "default_value": 0, "added_at_version": "2.0", "moved_from": "car" }] }
            """#,
            ".entities/car.json": #"""
            { "name": "car", "parent": "vehicle", "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "doors", "property_type": "int", "default_value": 0, "removed_at_version": "2.0" },
                             { "name": "payload", "property_type": "double", "nullable": true, "added_at_version": "2.0", "moved_from": "vehicle" }] }
            """#,
        ]
        #expect(try codes(files) == [])
    }

    @Test func anEntityWhoseParentChangesMovesToAnotherTable() throws {
        let files = [
            ".entities/meta_reward.json":
                #"{ "name": "meta_reward", "identifier": { "type": "int" }, "version_history": [{ "version": "2.0" }], "properties": [] }"#,
            ".entities/gear.json": #"""
            { "name": "gear", "identifier": { "type": "int" }, "parent": "meta_reward",
              "parent_history": [{ "until_version": "2.0", "parent": null }],
              "version_history": [{ "version": "1.0" }], "properties": [{ "name": "key", "property_type": "string" }] }
            """#,
        ]
        let findings = try lint(files).findings
        #expect(findings.map(\.code.id) == ["BC107"], "\(findings)")
        #expect(
            findings.first?.message.hasPrefix("entity gear moves from table gear to meta_reward at 2.0 (its parent: none → meta_reward)")
                == true, "\(findings)")
        #expect(
            findings.first?.location.map { "\($0)" }?.hasSuffix("gear.json:2:22") == true,
            "at the parent_history item: \(String(describing: findings.first?.location))")
    }
}
