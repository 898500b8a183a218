import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// Core Data model histories as shipped apps have them: every refusal of a history at once, version names
/// that order whatever the package is called, and the real histories in `../shared/realworld/coredata`
/// (read in place, never committed).
@Suite struct CoreDataHistoryTests {
    /// The shared real-world files (``realWorldFolder(_:holding:for:)``); nil (and said) when absent.
    static let realWorld = CoreDataModels.realWorld

    static func history(_ folder: String, _ package: String) -> URL? { CoreDataModels.history(folder, package) }

    /// A package of model versions (name → the `<model>`'s body), and `.xccurrentversion` naming `current`.
    static func package(_ name: String, _ versions: [(String, String)], current: String? = nil) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-history-\(UUID().uuidString)")
        let package = folder.appendingPathComponent("\(name).xcdatamodeld")
        for (version, body) in versions {
            let url = package.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try "<?xml version=\"1.0\"?>\n<model>\n\(body)\n</model>\n".write(
                to: url.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        if let current {
            try """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(current).xcdatamodel</string></dict></plist>
            """.write(to: package.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        }
        return package
    }

    // MARK: All findings at once

    @Test func everyRefusalAndNoteOfTheHistoryIsReportedInOneRun() throws {
        let package = try Self.package(
            "Notes",
            [
                (
                    "Notes",
                    """
                    <entity name="Note">
                        <attribute name="first" optional="YES" attributeType="String"/>
                        <attribute name="draft" optional="YES" transient="YES" attributeType="String"/>
                    </entity>
                    """
                ),
                (
                    "Notes 2",
                    """
                    <entity name="Note">
                        <attribute name="second" optional="YES" attributeType="String" elementID="first"/>
                        <attribute name="titleText" optional="YES" attributeType="String"/>
                        <attribute name="title_text" optional="YES" attributeType="String"/>
                    </entity>
                    """
                ),
                (
                    "Notes 3",
                    """
                    <entity name="Note">
                        <attribute name="third" optional="YES" attributeType="String" elementID="second"/>
                    </entity>
                    """
                ),
            ])
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        do {
            _ = try CoreDataImporter.run(try CoreDataModelPackage.read(package.path))
            Issue.record("the history imported")
        } catch let refusals as CoreDataImportRefusals {
            #expect(refusals.errors.map(\.location) == ["Notes 2.xcdatamodel/contents:6", "Notes 3.xcdatamodel/contents:4"], "\(refusals)")
            #expect(refusals.errors[0].message.contains("Note.title_text and titleText both become the property title_text"), "\(refusals)")
            #expect(
                refusals.errors[1].message.contains("Note.third is renamed a second time (from second; first from first at 2.0)"),
                "\(refusals)")
            #expect(
                refusals.notes.map(\.location) == ["Notes.xcdatamodel/contents:5"] && refusals.notes[0].message.contains("transient"),
                "\(refusals)")
        }

        // The command prints them all, located, and writes nothing.
        let folder = package.deletingLastPathComponent()
        let result = try run(lucidgenBinary, ["import", "coredata", package.path], in: folder)
        #expect(result.status == 1, "\(result.output)\(result.error)")
        #expect(
            result.error.contains(
                "Notes 2.xcdatamodel/contents:6: error: Note.title_text and titleText both become the property title_text"),
            "\(result.error)")
        #expect(result.error.contains("Notes 3.xcdatamodel/contents:4: error: Note.third is renamed a second time"), "\(result.error)")
        #expect(result.error.contains("import: nothing was written (2 errors)"), "\(result.error)")
        #expect(result.output.contains("Notes.xcdatamodel/contents:5: note: Note.draft is transient"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".entities").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".lucid.yaml").path))
    }

    @Test func everyUnreadableModelVersionIsReportedInOneRun() throws {
        let package = try Self.package(
            "Notes", [("Notes", "<entity representedClassName=\"X\"/>"), ("Notes 2", "<entity name=\"Note\"/>"), ("Notes 3", "<entity/>")])
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        #expect {
            try CoreDataModelPackage.read(package.path)
        } throws: { error in
            (error as? CoreDataImportRefusals)?.errors.map(\.location) == [
                "Notes.xcdatamodel/contents:3", "Notes 3.xcdatamodel/contents:3",
            ]
        }
    }

    // MARK: Order from the names

    static func order(_ names: [String], current: String? = nil) throws -> [String] {
        try CoreDataModelPackage.nameOrder(
            names.shuffled(), current: current, path: "P.xcdatamodeld", currentPath: "P.xcdatamodeld/.xccurrentversion"
        ).0
            .map { "\($0.0) \($0.1.string)" }
    }

    static func doubt(_ names: [String], current: String? = nil) -> String {
        do {
            _ = try CoreDataModelPackage.nameOrder(
                names, current: current, path: "P.xcdatamodeld", currentPath: "P.xcdatamodeld/.xccurrentversion")
            return ""
        } catch {
            return (error as? CoreDataImportError)?.message ?? "\(error)"
        }
    }

    @Test func versionsNamedAfterTheModelNotThePackageOrderByTheirNumbers() throws {
        // WooCommerce.xcdatamodeld holds Model, Model 2 … Model 117.
        let names = ["Model"] + (2...117).map { "Model \($0)" }
        #expect(try Self.order(names, current: "Model 117") == ["Model 1.0"] + (2...117).map { "Model \($0) \($0).0" })
        #expect(try Self.order(["Model", "Model2", "Model10", "Model9"]) == ["Model 1.0", "Model2 2.0", "Model9 9.0", "Model10 10.0"])
    }

    @Test func namesThatAreVersionNumbersOrderAsVersions() throws {
        #expect(
            try Self.order(["0.5", "0.6", "0.6.7", "0.6.10", "0.7", "0.8.1", "0.9"], current: "0.9")
                == ["0.5 0.5", "0.6 0.6", "0.6.7 0.6.7", "0.6.10 0.6.10", "0.7 0.7", "0.8.1 0.8.1", "0.9 0.9"])
    }

    @Test func twoNamingSchemesOrderWithTheCurrentVersionsSchemeLast() throws {
        let folio = ["v1.4", "v1.5", "v2.0", "v2.5", "v2.5.1", "v2.6.0", "v2.7.0"].map { "ArtsyFolio \($0)" }
        let names = ["ArtsyPartner", "ArtsyPartner 2", "ArtsyPartner 3"] + folio
        // The older scheme's numbers pass the newer's, so it counts 0.1, 0.2 … below it.
        #expect(
            try Self.order(names, current: "ArtsyFolio v2.7.0")
                == [
                    "ArtsyPartner 0.1", "ArtsyPartner 2 0.2", "ArtsyPartner 3 0.3", "ArtsyFolio v1.4 1.4", "ArtsyFolio v1.5 1.5",
                    "ArtsyFolio v2.0 2.0",
                    "ArtsyFolio v2.5 2.5", "ArtsyFolio v2.5.1 2.5.1", "ArtsyFolio v2.6.0 2.6.0", "ArtsyFolio v2.7.0 2.7.0",
                ])
        // Without .xccurrentversion, which scheme is newer is not in the names: the whole map is proposed.
        let doubt = Self.doubt(names)
        #expect(doubt.contains("2 naming schemes ('ArtsyPartner', 'ArtsyFolio') and no .xccurrentversion"), "\(doubt)")
        #expect(doubt.contains("  \"ArtsyPartner 3\": \"0.3\"\n  \"ArtsyFolio v1.4\": \"1.4\"") && !doubt.contains("?\""), "\(doubt)")
    }

    @Test func anOrderThatIsNotCertainWritesTheWholeProposedMap() throws {
        // OpenEmu: OEDatabase (Xcode's first, 1 by its name), then 0.2 … 0.5, 1.0 … 1.3.
        let names = ["OEDatabase", "OEDatabase 0.2", "OEDatabase 0.5", "OEDatabase 1.0", "OEDatabase 1.3"]
        let doubt = Self.doubt(names, current: "OEDatabase 1.3")
        #expect(
            doubt.contains(
                "'OEDatabase' (the first version by Xcode's naming, 1 by its name) and 'OEDatabase 0.2' (0.2) do not order by their names"),
            "\(doubt)")
        #expect(
            doubt.hasSuffix(
                """
                :
                  "OEDatabase": "0.1"
                  "OEDatabase 0.2": "0.2"
                  "OEDatabase 0.5": "0.5"
                  "OEDatabase 1.0": "1.0"
                  "OEDatabase 1.3": "1.3"
                """), "\(doubt)")
        // Two names with one number.
        let same = Self.doubt(["Model", "Model 2", "Model2", "Model 3"], current: "Model 3")
        #expect(same.contains("'Model 2' and 'Model2' have the same number") && same.contains("  \"Model 3\": \"4.0\""), "\(same)")
        // A current version that does not order last.
        let current = Self.doubt(["Model", "Model 2", "Model 3"], current: "Model 2")
        #expect(
            current.contains("names 'Model 2' as the current model version, but 'Model 3' orders after it")
                && current.contains("  \"Model 3\": \"3.0\""), "\(current)")
    }

    @Test func aModelThatIsNotAVersionIsReportedNotGuessed() throws {
        let doubt = Self.doubt(["Model", "Model 2", "Model 3", "CloudKit"], current: "Model 3")
        #expect(
            doubt.contains(
                "'CloudKit' has no number and no other model version is named like it: is it another configuration's model rather than a version?"
            ), "\(doubt)")
        #expect(doubt.hasSuffix("  \"Model 3\": \"3.0\"\n  # \"CloudKit\": left out (not a version?)"), "\(doubt)")
    }

    @Test func theArtsyFolioHistoryOrdersAsItShipped() throws {
        guard let package = Self.history("artsy-energy", "ArtsyPartner.xcdatamodeld") else { return }
        let read = try CoreDataModelPackage.read(package.path)
        let expected =
            ["ArtsyPartner", "ArtsyPartner 2", "ArtsyPartner 3", "ArtsyPartner 4", "ArtsyPartner 5"]
            + ["v1.4", "v1.5", "v1.7", "v2.0", "v2.1", "v2.2", "v2.3", "v2.4", "v2.5", "v2.5.1", "v2.5.3", "v2.6.0", "v2.6.1", "v2.7.0"].map
        { "ArtsyFolio \($0)" }
        #expect(read.versions.map(\.model.name) == expected)
        #expect(read.orderBasis.contains("two naming schemes ('ArtsyPartner' then 'ArtsyFolio'"), "\(read.orderBasis)")
    }

    // MARK: A name that comes back

    /// Tab.isPrivate (a Boolean) removed at Tabs 3 and back at Tabs 4 as an integer; Draft removed at Tabs 2 and
    /// back at Tabs 4; Tab.title renamed heading at Tabs 2 (its renaming identifier).
    static func comingBack() throws -> URL {
        let draft = #"<entity name="Draft"><attribute name="text" optional="YES" attributeType="String"/></entity>"#
        return try package(
            "Tabs",
            [
                (
                    "Tabs",
                    """
                    <entity name="Tab">
                        <attribute name="title" optional="YES" attributeType="String"/>
                        <attribute name="isPrivate" optional="YES" attributeType="Boolean"/>
                    </entity>
                    \(draft)
                    """
                ),
                (
                    "Tabs 2",
                    """
                    <entity name="Tab">
                        <attribute name="heading" optional="YES" attributeType="String" elementID="title"/>
                        <attribute name="isPrivate" optional="YES" attributeType="Boolean"/>
                    </entity>
                    """
                ),
                (
                    "Tabs 3",
                    #"<entity name="Tab"><attribute name="heading" optional="YES" attributeType="String" elementID="title"/></entity>"#
                ),
                (
                    "Tabs 4",
                    """
                    <entity name="Tab">
                        <attribute name="heading" optional="YES" attributeType="String" elementID="title"/>
                        <attribute name="isPrivate" optional="YES" attributeType="Integer 32"/>
                    </entity>
                    <entity name="Draft">
                        <attribute name="text" optional="YES" attributeType="String"/>
                        <attribute name="words" optional="YES" attributeType="Integer 32"/>
                    </entity>
                    """
                ),
            ], current: "Tabs 4")
    }

    @Test func aNameThatComesBackIsANewPropertyOrEntityAndARenameStaysARename() throws {
        let package = try Self.comingBack()
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        let output = try CoreDataImporter.run(try CoreDataModelPackage.read(package.path))
        let files = Dictionary(uniqueKeysWithValues: output.files.map { ($0.name, $0.json) })
        #expect(files.keys.sorted() == ["draft", "draft_from_4_0", "tab"])
        let tab = try #require(files["tab"])
        #expect(
            tab.contains(#"{ "name": "is_private", "property_type": "bool", "nullable": true, "removed_at_version": "3.0" }"#), "\(tab)")
        #expect(
            tab.contains(
                #"{ "name": "is_private_from_4_0", "swift_name": "isPrivate", "persisted_name": "is_private", "takes_name_of": "is_private", "property_type": "int", "nullable": true, "added_at_version": "4.0" }"#
            ), "\(tab)")
        #expect(
            tab.contains(
                #""name": "heading", "property_type": "string", "nullable": true, "previous_name": "title", "renamed_at_version": "2.0""#),
            "\(tab)")
        #expect(try #require(files["draft"]).contains(#""name": "draft",\#n  "swift_name": "DraftBefore20","#))
        #expect(
            try #require(files["draft_from_4_0"]).contains(
                #""name": "draft_from_4_0",\#n  "persisted_name": "draft",\#n  "swift_name": "Draft",\#n  "takes_name_of": "draft","#))
        #expect(
            output.notes.contains {
                $0.location == "Tabs 4.xcdatamodel/contents:5"
                    && $0.message.hasPrefix(
                        "Tab.isPrivate comes back after Tabs 3 removed it, without a renaming identifier: a new property")
            })
        #expect(
            output.notes.contains {
                $0.location == "Tabs 4.xcdatamodel/contents:7"
                    && $0.message.hasPrefix("entity Draft comes back after Tabs 2 removed it, without a renaming identifier: a new entity")
            })

        // They generate; each version's records keep their own types; the planner drops the old and adds the new.
        var project = [".lucid.yaml": TestProject.defaultConfig + "\ncurrent_version: \"4.0\"\n"]
        for (name, json) in output.files { project[".entities/\(name).json"] = json }
        let generated = try TestProject(files: project, config: nil)
        defer { generated.remove() }
        let result = try generated.generate()
        let records = try generated.read("Sources/App/Generated/Entities/Tab.swift")
        let first = try #require(records.range(of: "public struct Tab_1_0")),
            newest = try #require(records.range(of: "public struct Tab_4_0:"))
        #expect(records[first.upperBound...].prefix(400).contains("public var isPrivate: Swift.Bool?"), "\(records)")
        #expect(records[newest.upperBound...].prefix(1500).contains("public var isPrivate: Swift.Int?"), "\(records)")
        let schemas = result.model.schemas
        let seed = [
            "INSERT INTO tab (id, title, is_private) VALUES (1, 'news', 1), (2, 'mail', 0)",
            "INSERT INTO draft (id, text) VALUES (1, 'hello')",
        ]
        #expect(
            try StoreCheck.migrate(schemas, from: "1.0", seed: seed, query: "SELECT id, heading, is_private FROM tab ORDER BY id") == [
                ["1", "news", "NULL"], ["2", "mail", "NULL"],
            ])
        #expect(try StoreCheck.migrate(schemas, from: "1.0", seed: seed, query: "SELECT count(*) FROM draft") == [["0"]])
    }

    @Test func reimportingWhenANameComesBackTouchesNoReleasedSnapshot() throws {
        let package = try Self.comingBack()
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        // The app ships Tabs … Tabs 3 first: imported and generated, 1.0 … 3.0 frozen.
        let newest = package.appendingPathComponent("Tabs 4.xcdatamodel")
        let aside = package.deletingLastPathComponent().appendingPathComponent("Tabs 4.xcdatamodel")
        try FileManager.default.moveItem(at: newest, to: aside)
        try FileManager.default.removeItem(at: package.appendingPathComponent(".xccurrentversion"))
        func imported() throws -> [String: String] {
            let output = try CoreDataImporter.run(try CoreDataModelPackage.read(package.path))
            var files = [".lucid.yaml": TestProject.defaultConfig + "\ncurrent_version: \"\(output.currentVersion.string)\"\n"]
            for (name, json) in output.files { files[".entities/\(name).json"] = json }
            return files
        }
        let project = try TestProject(files: try imported(), config: nil)
        defer { project.remove() }
        _ = try project.generate()
        let snapshots = try ["1.0", "2.0", "3.0"].map { try project.read(".entities/.schema/\($0).json") }
        // Tabs 4 brings isPrivate and Draft back: imported again over the same folder, generated.
        try FileManager.default.moveItem(at: aside, to: newest)
        for (path, contents) in try imported() { try project.write(path, contents) }
        let result = try project.generate()
        #expect(result.model.schemas.map(\.version.string) == ["1.0", "2.0", "3.0", "4.0"])
        #expect(try ["1.0", "2.0", "3.0"].map { try project.read(".entities/.schema/\($0).json") } == snapshots)
    }

    @Test func takesNameOfIsChecked() throws {
        func errors(_ properties: String) throws -> [String] {
            let entity =
                #"{ "name": "tab", "version_history": [{ "version": "1.0" }, { "version": "2.0" }, { "version": "3.0" }], "properties": [\#(properties)] }"#
            let project = try TestProject(
                files: [".entities/tab.json": entity, ".lucid.yaml": TestProject.defaultConfig + "\ncurrent_version: \"3.0\"\n"],
                config: nil)
            defer { project.remove() }
            return try project.errors().map(\.description)
        }
        let old =
            #"{ "name": "flag_before_2_0", "persisted_name": "flag", "swift_name": "flag", "property_type": "bool", "removed_at_version": "2.0" }"#
        #expect(
            try errors(old + #", { "name": "flag", "property_type": "int", "nullable": true, "added_at_version": "3.0" }"#)
                .contains {
                    $0.contains(
                        "property 'flag' takes the column of 'flag_before_2_0', removed at 2.0: if it is a new property (no values carried over), say \"takes_name_of\": \"flag_before_2_0\""
                    )
                })
        #expect(
            try errors(
                old
                    + #", { "name": "flag", "takes_name_of": "flags", "property_type": "int", "nullable": true, "added_at_version": "3.0" }"#
            )
            .contains { $0.contains("takes_name_of 'flags' names no other property of 'tab'") })
        let early = old.replacingOccurrences(of: #""removed_at_version": "2.0""#, with: #""removed_at_version": "3.0""#)
        #expect(
            try errors(
                early
                    + #", { "name": "flag", "takes_name_of": "flag_before_2_0", "property_type": "int", "nullable": true, "added_at_version": "2.0" }"#
            )
            .contains {
                $0.contains(
                    "property 'flag' takes_name_of 'flag_before_2_0', which must be removed (removed_at_version) at or before this one is added"
                )
            })
        #expect(
            try errors(
                old
                    + #", { "name": "flag", "takes_name_of": "flag_before_2_0", "previous_name": "flag_before_2_0", "property_type": "int", "nullable": true, "added_at_version": "3.0" }"#
            )
            .contains {
                $0.contains("has both previous_name (a rename: the values carry over) and takes_name_of (a new property: they do not)")
            })
        let entity =
            #"{ "name": "tab", "version_history": [{ "version": "1.0" }, { "version": "2.0" }, { "version": "3.0" }], "properties": [\#(old), { "name": "flag", "takes_name_of": "flag_before_2_0", "property_type": "int", "nullable": true, "added_at_version": "3.0" }] }"#
        let accepted = try TestProject(
            files: [".entities/tab.json": entity, ".lucid.yaml": TestProject.defaultConfig + "\ncurrent_version: \"3.0\"\n"], config: nil)
        defer { accepted.remove() }
        let columns = try accepted.generate().model.schemas.map { schema in
            schema.tables.first { $0.name == "tab" }!.columns.map { "\($0.name) \($0.type)" }
        }
        #expect(columns == [["id integer", "flag integer"], ["id integer"], ["id integer", "flag integer"]], "\(columns)")
    }

    @Test func aLinkTableNamedLikeAnEntitysTableTakesAnotherName() throws {
        // WooCommerce: Order.searchResults (to-many) beside the entity OrderSearchResults.
        let package = try Self.package(
            "Shop",
            [
                (
                    "Shop",
                    """
                    <entity name="Order">
                        <relationship name="searchResults" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="OrderSearchResults" inverseName="orders" inverseEntity="OrderSearchResults"/>
                    </entity>
                    <entity name="OrderSearchResults">
                        <attribute name="keyword" optional="YES" attributeType="String"/>
                        <relationship name="orders" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Order" inverseName="searchResults" inverseEntity="Order"/>
                    </entity>
                    """
                )
            ])
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        let output = try CoreDataImporter.run(try CoreDataModelPackage.read(package.path))
        let order = try #require(output.files.first { $0.name == "order" }?.json)
        #expect(
            order.contains(
                #"{ "name": "search_results", "persisted_name": "search_results_links", "property_type": { "entity_name": "order_search_results", "association": "to_many" } }"#
            ), "\(order)")
        #expect(output.origin.contains(#""link_table": "order_search_results_links""#))
        #expect(
            output.notes.contains {
                $0.message.contains(
                    "Order.searchResults's link table would be order_search_results, an entity's table: it is order_search_results_links")
            })
        var files = [".lucid.yaml": TestProject.defaultConfig + "\ncurrent_version: \"1.0\"\n"]
        for (name, json) in output.files { files[".entities/\(name).json"] = json }
        let project = try TestProject(files: files, config: nil)
        defer { project.remove() }
        #expect(
            try project.generate().model.schemas[0].tables.map(\.name).sorted() == [
                "order", "order_search_results", "order_search_results_links",
            ])
    }

    @Test func aSubentityThatComesBackIsConvertedWithTheKindItsRecordsRead() throws {
        let item = #"<entity name="Item"><attribute name="title" optional="YES" attributeType="String"/></entity>"#
        let draft = #"<entity name="Draft" parentEntity="Item"><attribute name="body" optional="YES" attributeType="String"/></entity>"#
        let package = try Self.package(
            "Notes", [("Notes", item + draft), ("Notes 2", item), ("Notes 3", item + draft)], current: "Notes 3")
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        let output = try CoreDataImporter.run(try CoreDataModelPackage.read(package.path))
        var files = [".lucid.yaml": TestProject.defaultConfig + "\ncurrent_version: \"3.0\"\n"]
        for (name, json) in output.files { files[".entities/\(name).json"] = json }
        let project = try TestProject(files: files, config: nil)
        defer { project.remove() }
        _ = try project.generate()
        // The kinds the generated records of the newest version read, and the kind a converted row gets.
        let generated = try FileManager.default.contentsOfDirectory(
            atPath: project.root.appendingPathComponent("Sources/App/Generated/Entities").path
        )
        .map { try project.read("Sources/App/Generated/Entities/\($0)") }
        let kinds = generated.flatMap { $0.split(separator: "\n").filter { $0.contains("static let kinds") } }.map { String($0) }
        let origin = try #require(JSONSerialization.jsonObject(with: Data(output.origin.utf8)) as? [String: Any])
        let newest = try #require((origin["versions"] as? [[String: Any]])?.last?["entities"] as? [[String: Any]])
        let kind = try #require(newest.first { $0["name"] as? String == "Draft" }?["kind"] as? String)
        #expect(kinds.contains { $0.contains("[\"\(kind)\"]") }, "a converted Draft row gets kind \(kind); the records read \(kinds)")
    }

    @Test func aToManyThatComesBackKeepsTheLinkTableNameNoEntityHas() throws {
        let results = """
            <entity name="OrderSearchResults">
                <attribute name="keyword" optional="YES" attributeType="String"/>
            </entity>
            """
        let order = #"<entity name="Order"><attribute name="number" optional="YES" attributeType="String"/>"#
        let link =
            #"<relationship name="searchResults" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="OrderSearchResults"/>"#
        let package = try Self.package(
            "Shop",
            [
                ("Shop", order + link + "</entity>" + results), ("Shop 2", order + "</entity>" + results),
                ("Shop 3", order + link + "</entity>" + results),
            ], current: "Shop 3")
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        let output = try CoreDataImporter.run(try CoreDataModelPackage.read(package.path))
        let json = try #require(output.files.first { $0.name == "order" }?.json)
        #expect(
            json.contains(
                #""name": "search_results_from_3_0", "swift_name": "searchResults", "persisted_name": "search_results_links", "takes_name_of": "search_results""#
            ), "\(json)")
        // A user's store at 3.0 converts its links into that table.
        #expect(output.origin.components(separatedBy: #""link_table": "order_search_results_links""#).count == 3, "\(output.origin)")
        var files = [".lucid.yaml": TestProject.defaultConfig + "\ncurrent_version: \"3.0\"\n"]
        for (name, json) in output.files { files[".entities/\(name).json"] = json }
        let project = try TestProject(files: files, config: nil)
        defer { project.remove() }
        #expect(
            try project.generate().model.schemas.map { $0.tables.map(\.name).sorted() } == [
                ["order", "order_search_results", "order_search_results_links"], ["order", "order_search_results"],
                ["order", "order_search_results", "order_search_results_links"],
            ])
    }

    // MARK: Real histories

    /// Imports a package (with a version map's YAML when given) in-process, generates it, and returns the
    /// importer's output and the generator's result.
    static func importAndGenerate(_ package: URL, map: String? = nil) throws -> (CoreDataImporter.Output, GeneratorPipeline.Result) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-real-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var mapPath: String?
        if let map {
            mapPath = folder.appendingPathComponent("map.yaml").path
            try map.write(toFile: mapPath!, atomically: true, encoding: .utf8)
        }
        let output = try CoreDataImporter.run(try CoreDataModelPackage.read(package.path, versionMap: mapPath))
        var files = [".lucid.yaml": TestProject.defaultConfig + "\ncurrent_version: \"\(output.currentVersion.string)\"\n"]
        for (name, json) in output.files { files[".entities/\(name).json"] = json }
        let project = try TestProject(files: files, config: nil)
        defer { project.remove() }
        return (output, try project.generate())
    }

    @Test func theArtsyFolioHistoryImportsAndGeneratesWithoutAMap() throws {
        guard let package = Self.history("artsy-energy", "ArtsyPartner.xcdatamodeld") else { return }
        let (output, result) = try Self.importAndGenerate(package)
        #expect(output.currentVersion.string == "2.7.0" && result.model.schemas.count == 19)
        // AlbumDelete and AlbumEdit come back in v2.7.0 after v2.6.1 removed them; Album.uploadRecord too.
        #expect(
            output.files.map(\.name).filter { $0.hasPrefix("album_") } == [
                "album_delete", "album_delete_from_2_7_0", "album_edit", "album_edit_from_2_7_0",
            ])
        let album = try #require(output.files.first { $0.name == "album" }?.json)
        #expect(
            album.contains(
                #""name": "upload_record_from_2_7_0", "swift_name": "uploadRecord", "persisted_name": "upload_record", "takes_name_of": "upload_record""#
            ), "\(album)")
        // A store of the oldest version migrates to the newest: the artworks and their artist links kept.
        let seed = [
            "INSERT INTO artist (id, name, slug) VALUES (1, 'Agnes Martin', 'agnes-martin')",
            "INSERT INTO artwork (id, artist, title, medium, slug, is_for_sale) VALUES (1, 1, 'Friendship', 'Gold leaf', 'friendship', 1), (2, NULL, 'Untitled', NULL, 'untitled', 0)",
        ]
        #expect(
            try StoreCheck.migrate(
                result.model.schemas, from: "0.1", seed: seed,
                query: "SELECT a.id, a.title, a.medium, a.slug, r.name FROM artwork a LEFT JOIN artist r ON r.id = a.artist ORDER BY a.id")
                == [["1", "Friendship", "Gold leaf", "friendship", "Agnes Martin"], ["2", "Untitled", "NULL", "untitled", "NULL"]])
    }

    @Test func theBraveHistoryImportsGeneratesAndAStoreMigratesWithTheNameThatComesBackANewColumn() throws {
        guard let package = Self.history("brave-ios", "Model.xcdatamodeld") else { return }
        let (output, result) = try Self.importAndGenerate(package)
        #expect(output.currentVersion.string == "27.0" && result.model.schemas.count == 27)
        let tab = try #require(output.files.first { $0.name == "tab_mo" }?.json)
        #expect(
            tab.contains(
                #"{ "name": "is_private", "property_type": "bool", "nullable": true, "added_at_version": "5.0", "removed_at_version": "8.0" }"#
            ), "\(tab)")
        #expect(
            tab.contains(
                #"{ "name": "is_private_from_9_0", "swift_name": "isPrivate", "persisted_name": "is_private", "takes_name_of": "is_private", "property_type": "bool", "nullable": true, "added_at_version": "9.0" }"#
            ), "\(tab)")
        // A store of the oldest version with TabMO (removed at 26.0) migrates to 25.0: its rows and values kept.
        let upTo25 = result.model.schemas.filter { $0.version <= (try! SchemaVersion(parsing: "25.0")) }
        #expect(
            try StoreCheck.migrate(
                upTo25, from: "1.0",
                seed: [#"INSERT INTO tab_mo (id, title, url, "order") VALUES (1, 'Brave', 'https://brave.com', 2), (2, 'News', NULL, 1)"#],
                query: #"SELECT id, title, url, "order", is_private FROM tab_mo ORDER BY id"#) == [
                    ["1", "Brave", "https://brave.com", "2", "NULL"], ["2", "News", "NULL", "1", "NULL"],
                ])
        // isPrivate's values of 5.0 are not carried into the new is_private (Core Data's migration through Model8 lost them too).
        #expect(
            try StoreCheck.migrate(
                upTo25, from: "5.0", seed: ["INSERT INTO tab_mo (id, title, is_private) VALUES (1, 'Brave', 1), (2, 'News', 0)"],
                query: "SELECT id, title, is_private FROM tab_mo ORDER BY id") == [["1", "Brave", "NULL"], ["2", "News", "NULL"]])
    }

    @Test func theOpenEmuHistoryImportsAndGeneratesWithTheMapItsErrorProposes() throws {
        guard let package = Self.history("openemu", "OEDatabase.xcdatamodeld") else { return }
        do {
            _ = try CoreDataModelPackage.read(package.path)
            Issue.record("OEDatabase and OEDatabase 1.0 were ordered without a map")
        } catch let error as CoreDataImportError {
            let map = try #require(error.message.components(separatedBy: ":\n").last)
            #expect(!map.contains("?") && map.hasPrefix("  \"OEDatabase\": \"0.1\"\n  \"OEDatabase 0.2\": \"0.2\""), "\(error.message)")
            // The order of its SOURCE.md: OEDatabase ("1.0 Beta"), 0.2 … 0.5, 1.0 … 1.3.
            let (output, result) = try Self.importAndGenerate(package, map: map)
            #expect(
                output.currentVersion.string == "1.3"
                    && result.model.schemas.map(\.version.string) == ["0.1", "0.2", "0.3", "0.4", "0.5", "1.0", "1.1", "1.2", "1.3"])
        }
    }

    @Test func theSharedCoreDataHistoriesImportAndGenerate() throws {
        guard let shared = CoreDataImportTests.sharedHistories else { return }
        let (https, _) = try Self.importAndGenerate(shared.appendingPathComponent("duckduckgo-ios/HTTPSUpgrade.xcdatamodeld"))
        #expect(https.currentVersion.string == "3.0")
        let (wikipedia, result) = try Self.importAndGenerate(
            shared.appendingPathComponent("wikipedia-ios/Wikipedia.xcdatamodeld"), map: CoreDataImportTests.wikipediaMap)
        #expect(wikipedia.currentVersion.string == "8.0" && result.model.schemas.count == 8)
    }

    // MARK: Hierarchy changes

    /// A garage's model history, made by hand as Xcode writes it: `Car.doors` moves up to `Vehicle`, and
    /// `Vehicle.payload` down to `Truck`, a subentity new in the second version.
    static func movingWithinAHierarchy() throws -> URL {
        try package(
            "Garage",
            [
                (
                    "Garage",
                    """
                    <entity name="Vehicle">
                        <attribute name="name" attributeType="String"/>
                        <attribute name="payload" optional="YES" attributeType="Double"/>
                    </entity>
                    <entity name="Car" parentEntity="Vehicle">
                        <attribute name="doors" attributeType="Integer 16"/>
                    </entity>
                    """
                ),
                (
                    "Garage 2",
                    """
                    <entity name="Vehicle">
                        <attribute name="name" attributeType="String"/>
                        <attribute name="doors" attributeType="Integer 16"/>
                    </entity>
                    <entity name="Car" parentEntity="Vehicle">
                        <attribute name="seats" optional="YES" attributeType="Integer 16"/>
                    </entity>
                    <entity name="Truck" parentEntity="Vehicle">
                        <attribute name="payload" optional="YES" attributeType="Double"/>
                    </entity>
                    """
                ),
            ], current: "Garage 2")
    }

    @Test func attributesThatMoveUpOrDownAHierarchyKeepTheirValues() throws {
        let package = try Self.movingWithinAHierarchy()
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        let (output, result) = try Self.importAndGenerate(package)
        let files = Dictionary(uniqueKeysWithValues: output.files.map { ($0.name, $0.json) })
        #expect(
            try #require(files["vehicle"]).contains(
                #"{ "name": "doors", "property_type": "int", "default_value": 0, "added_at_version": "2.0", "moved_from": "car" }"#),
            "\(files)")
        #expect(
            try #require(files["car"]).contains(#"{ "name": "doors", "property_type": "int", "removed_at_version": "2.0" }"#), "\(files)")
        #expect(
            try #require(files["truck"]).contains(
                #"{ "name": "payload", "property_type": "double", "nullable": true, "moved_from": "vehicle" }"#), "\(files)")
        #expect(
            output.notes.contains {
                $0.location == "Garage 2.xcdatamodel/contents:5"
                    && $0.message.contains("moves here from car and is required without a default: the rows that were not car's get 0")
            }, "\(output.notes)")
        // A store of the first version: the cars keep their doors, the other vehicles get 0; payloads stay.
        let seed = [
            "INSERT INTO vehicle (id, kind, name, payload, doors) VALUES (1, 'vehicle', 'cart', 0.5, NULL), (2, 'car', 'sedan', NULL, 4), (3, 'car', 'coupé', 1.5, 2)"
        ]
        #expect(
            try StoreCheck.migrate(
                result.model.schemas, from: "1.0", seed: seed, query: "SELECT id, kind, name, doors, payload FROM vehicle ORDER BY id")
                == [["1", "vehicle", "cart", "0", "0.5"], ["2", "car", "sedan", "4", "NULL"], ["3", "car", "coupé", "2", "1.5"]])
    }

    @Test func aParentGainedIsImportedAndAMergeOfTwoHierarchiesIsRefusedSayingCoreDataRefusesItToo() throws {
        // As the issue's history has it: Gear gains the parent MetaReward (new), and Reward joins Gear's hierarchy.
        let package = try Self.package(
            "Rewards",
            [
                (
                    "Rewards",
                    """
                    <entity name="Gear"><attribute name="key" optional="YES" attributeType="String"/></entity>
                    <entity name="Reward"><attribute name="value" optional="YES" attributeType="Double"/></entity>
                    """
                ),
                (
                    "Rewards 2",
                    """
                    <entity name="MetaReward"><attribute name="text" optional="YES" attributeType="String"/></entity>
                    <entity name="Gear" parentEntity="MetaReward"><attribute name="key" optional="YES" attributeType="String"/></entity>
                    <entity name="Reward"><attribute name="value" optional="YES" attributeType="Double"/></entity>
                    """
                ),
                (
                    "Rewards 3",
                    """
                    <entity name="MetaReward"><attribute name="text" optional="YES" attributeType="String"/></entity>
                    <entity name="Gear" parentEntity="MetaReward"><attribute name="key" optional="YES" attributeType="String"/></entity>
                    <entity name="Reward" parentEntity="MetaReward"><attribute name="value" optional="YES" attributeType="Double"/></entity>
                    """
                ),
            ], current: "Rewards 3")
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        do {
            _ = try CoreDataImporter.run(try CoreDataModelPackage.read(package.path))
            Issue.record("the merge of two hierarchies was imported")
        } catch let refusals as CoreDataImportRefusals {
            #expect(refusals.errors.map(\.location) == ["Rewards 3.xcdatamodel/contents:5"], "only the merge: \(refusals)")
            #expect(
                refusals.errors.last?.message.hasPrefix(
                    "entity Reward has parent MetaReward here and none in Rewards 2, which puts it in one hierarchy with Gear, though they have no common root in Rewards 2: that merges two hierarchies, which Core Data's lightweight migration refuses too"
                ) == true, "\(refusals)")
            #expect(
                refusals.notes.contains {
                    $0.location == "Rewards 2.xcdatamodel/contents:4"
                        && $0.message.contains(
                            "entity Gear has parent MetaReward here and none in Rewards: its rows move to the table of its new root at 2.0, ids kept (parent_history)"
                        )
                }, "\(refusals.notes)")
        }
    }

    /// The shipped app's case, by hand: Gear, linked from Player, gains the parent MetaReward (new) in the
    /// second version.
    static func gainingAParent() throws -> URL {
        let player = """
            <entity name="Player"><attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="gear" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Gear" inverseName="owner" inverseEntity="Gear"/></entity>
            """
        let gear = """
            <attribute name="key" optional="YES" attributeType="String"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Player" inverseName="gear" inverseEntity="Player"/></entity>
            """
        return try package(
            "Rewards",
            [
                ("Rewards", "<entity name=\"Gear\">" + gear + "\n" + player),
                (
                    "Rewards 2",
                    "<entity name=\"MetaReward\"><attribute name=\"text\" optional=\"YES\" attributeType=\"String\"/></entity>\n<entity name=\"Gear\" parentEntity=\"MetaReward\">"
                        + gear + "\n" + player
                ),
            ], current: "Rewards 2")
    }

    @Test func anEntityThatGainsAParentImportsWithParentHistoryAndAStoreMigratesWithItsValuesAndLinks() throws {
        let package = try Self.gainingAParent()
        defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
        let (output, result) = try Self.importAndGenerate(package)
        let gear = try #require(output.files.first { $0.name == "gear" }?.json)
        #expect(
            gear.contains(#""parent": "meta_reward""#) && gear.contains(#""parent_history": [{ "until_version": "2.0", "parent": null }]"#),
            "\(gear)")
        #expect(result.model.schemas.map { $0.tables.map(\.name).sorted() } == [["gear", "player"], ["meta_reward", "player"]])
        let seed = [
            "INSERT INTO player (id, name) VALUES (1, 'ann')",
            "INSERT INTO gear (id, key, owner) VALUES (4, 'sword', 1), (9, 'shield', NULL)",
        ]
        #expect(
            try StoreCheck.migrate(
                result.model.schemas, from: "1.0", seed: seed,
                query: "SELECT m.id, m.kind, m.key, m.text, p.name FROM meta_reward m LEFT JOIN player p ON p.id = m.owner ORDER BY m.id")
                == [["4", "gear", "sword", "NULL", "ann"], ["9", "gear", "shield", "NULL", "NULL"]])
    }

    /// A user's Core Data store at the first version: converted, then migrated across the parent change.
    @Test func aCoreDataStoreFromBeforeTheParentChangeConvertsAndMigrates() throws {
        let package = try Self.gainingAParent()
        let folder = package.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let imported = try run(lucidgenBinary, ["import", "coredata", package.path], in: folder)
        #expect(imported.status == 0, "\(imported.output)\(imported.error)")
        let generated = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let store = folder.appendingPathComponent("Rewards.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZGEAR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZOWNER INTEGER, ZKEY VARCHAR );
                    CREATE TABLE ZPLAYER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
                    CREATE INDEX ZGEAR_ZOWNER_INDEX ON ZGEAR (ZOWNER);
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
                    INSERT INTO Z_METADATA VALUES (1, '3E1F5D8C-0000-4000-8000-000000000002', X'62706C6973743030');
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Gear', 0, 9), (2, 'Player', 0, 1);
                    INSERT INTO ZPLAYER VALUES (1, 2, 1, 'ann');
                    INSERT INTO ZGEAR VALUES (4, 1, 1, 1, 'sword'), (9, 1, 1, NULL, 'shield');
                    """)
        }
        try queue.close()
        let migrate = try run(lucidgenBinary, ["migrate", "--database", "Rewards.sqlite"], in: folder)
        #expect(
            migrate.status == 0 && migrate.output.contains("converted from Core Data (model Rewards) at 1.0"),
            "\(migrate.output)\(migrate.error)")
        let converted = try DatabaseQueue(path: store)
        try converted.read { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") == "2.0")
            #expect(
                try Row.fetchAll(db, sql: "SELECT id, kind, key, owner FROM meta_reward ORDER BY id") == [
                    ["id": 4, "kind": "gear", "key": "sword", "owner": 1], ["id": 9, "kind": "gear", "key": "shield", "owner": nil],
                ])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name IN ('gear', 'ZGEAR')").isEmpty)
        }
        try converted.close()
    }
}
