import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// `lucidgen import coredata` with the app's mapping models (`.xcmappingmodel`): each becomes a declared stage
/// whose generated requirement lists the mapping's entity mappings; what cannot become one is reported.
@Suite struct CoreDataMappingModelTests {
    static let mapping = repositoryRoot.appendingPathComponent("Tests/LucidGenCoreTests/CoreData/Mappings/Shop2to3.xcmappingmodel")

    /// A project folder holding `Shop.xcdatamodeld` and, beside it, the mapping model when `besides`.
    static func project(besides: Bool) throws -> URL {
        let folder = try CoreDataImportTests.folder()
        let models = folder.appendingPathComponent("Model")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CoreDataImportTests.shop, to: models.appendingPathComponent("Shop.xcdatamodeld"))
        if besides { try FileManager.default.copyItem(at: mapping, to: models.appendingPathComponent("Shop2to3.xcmappingmodel")) }
        return folder
    }

    @Test func theMappingModelIsReadInTheAuthorsOrderWithWhatWasWrittenByHand() throws {
        let model = try CoreDataMappingModel.read(Self.mapping.path)
        #expect(model.name == "Shop2to3" && model.source == "Shop 2" && model.destination == "Shop 3")
        #expect(model.line == 64)
        #expect(model.entityMappings.map(\.name) == ["ClientToClient", "OrderToOrder", "ProductToProduct", "Coupon"])
        let client = model.entityMappings[0]
        #expect(client.source == "Client" && client.destination == "Client" && client.type == "Transform" && client.line == 28)
        #expect(client.policyClass == "ClientMailPolicy" && client.filter == nil)
        #expect(
            client.writtenAttributes == ["mail"] && client.writtenRelationships == [],
            "name and orders keep the expressions Xcode generates")
        #expect(model.entityMappings[2].filter == #"sku != """#)
        #expect(model.entityMappings[3].source == nil && model.entityMappings[3].type == "Add")
    }

    @Test func aMappingModelBesideThePackageBecomesAStageWhoseRequirementListsItsMappings() throws {
        let folder = try Self.project(besides: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try run(lucidgenBinary, ["import", "coredata", "Model/Shop.xcdatamodeld"], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(
            result.output.contains(
                "Model/Shop2to3.xcmappingmodel/xcmapping.xml:64: note: mapping model Shop2to3 (2.0 → 3.0) becomes stage `shop2to3` in .lucid.yaml"
            ), "\(result.output)")
        #expect(result.output.contains("write what ClientToClient, ProductToProduct did"), "\(result.output)")
        let config = try String(contentsOf: folder.appendingPathComponent(".lucid.yaml"), encoding: .utf8)
        #expect(
            config.contains(
                """
                stages:
                  - name: shop2to3
                    from: "2.0"
                    to: "3.0"
                    notes:
                      - "from mapping model Shop2to3 (Shop 2 → Shop 3):"
                      - "ClientToClient: Client → Client (Transform; policy ClientMailPolicy; attributes by hand: mail)"
                      - "OrderToOrder: Order → Order (Copy)"
                      - "ProductToProduct: Product → Product (Copy; filter sku != \\"\\")"
                      - "Coupon: (none) → Coupon (Add)"
                """), "\(config)")

        let generated = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let migrations = try String(contentsOf: folder.appendingPathComponent("Sources/App/Generated/AppMigrations.swift"), encoding: .utf8)
        #expect(
            migrations.contains(
                """
                    /// - from mapping model Shop2to3 (Shop 2 → Shop 3):
                    /// - ClientToClient: Client → Client (Transform; policy ClientMailPolicy; attributes by hand: mail)
                """), "\(migrations)")
        #expect(migrations.contains("func shop2to3WillMigrate(") && migrations.contains("func shop2to3DidMigrate("), "\(migrations)")

        // Again: the stage is declared already, nothing changes.
        let again = try run(lucidgenBinary, ["import", "coredata", "Model/Shop.xcdatamodeld"], in: folder)
        #expect(again.status == 0 && !again.output.contains("updated"), "\(again.output)\(again.error)")
        #expect(try String(contentsOf: folder.appendingPathComponent(".lucid.yaml"), encoding: .utf8) == config)
    }

    @Test func aConfigWithStagesIsToldWhatToAddAndAConfigWithoutGetsTheBlock() throws {
        let folder = try Self.project(besides: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent(".lucid.yaml")
        try "input_path: .entities\ncurrent_version: \"3.0\"\nstages:\n  - { name: mine, from: \"1.0\", to: \"2.0\" }\n".write(
            to: config, atomically: true, encoding: .utf8)
        let told = try run(
            lucidgenBinary, ["import", "coredata", "Model/Shop.xcdatamodeld", "--mapping-model", Self.mapping.path], in: folder)
        #expect(told.status == 0, "\(told.output)\(told.error)")
        #expect(
            told.error.contains(
                ".lucid.yaml: warning: the config has stages already; add these (from the mapping models) to them:\n  - name: shop2to3"),
            "\(told.error)")
        #expect(try String(contentsOf: config, encoding: .utf8).hasSuffix("to: \"2.0\" }\n"), "the user's config is left as it was")

        try "input_path: .entities\ncurrent_version: \"3.0\"\n".write(to: config, atomically: true, encoding: .utf8)
        let added = try run(
            lucidgenBinary, ["import", "coredata", "Model/Shop.xcdatamodeld", "--mapping-model", Self.mapping.path], in: folder)
        #expect(added.status == 0 && added.output.contains("updated  .lucid.yaml: stages shop2to3"), "\(added.output)\(added.error)")
        #expect(try String(contentsOf: config, encoding: .utf8).contains("stages:\n  - name: shop2to3\n"))
    }

    @Test func aMappingModelTheImportCannotPlaceIsReportedNotGuessed() throws {
        let folder = try Self.project(besides: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = try String(contentsOf: Self.mapping.appendingPathComponent("xcmapping.xml"), encoding: .utf8)
        for (name, edited) in [
            ("Gone", text.replacingOccurrences(of: "Shop 2.xcdatamodel", with: "Shop 9.xcdatamodel")),
            (
                "Backwards",
                text.replacingOccurrences(of: "Shop 2.xcdatamodel", with: "Shop 4.xcdatamodel")
                    .replacingOccurrences(of: "Shop 3.xcdatamodel", with: "Shop 2.xcdatamodel").replacingOccurrences(
                        of: "Shop 4.xcdatamodel", with: "Shop 3.xcdatamodel")
            ),
        ] {
            let package = folder.appendingPathComponent("Model/\(name).xcmappingmodel")
            try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
            try edited.write(to: package.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        }
        let result = try run(lucidgenBinary, ["import", "coredata", "Model/Shop.xcdatamodeld"], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(
            result.output.contains(
                "Model/Gone.xcmappingmodel/xcmapping.xml:64: note: mapping model Gone maps Shop 9 → Shop 3, but the import has no model version 'Shop 9'"
            ), "\(result.output)")
        #expect(
            result.output.contains(
                "Model/Backwards.xcmappingmodel/xcmapping.xml:64: note: mapping model Backwards maps Shop 3 (3.0) → Shop 2 (2.0), not to a newer version; no stage made"
            ), "\(result.output)")
        #expect(!(try String(contentsOf: folder.appendingPathComponent(".lucid.yaml"), encoding: .utf8)).contains("stages"))
    }

    /// A mapping model is a user's file: names that close a string or a comment, break a line or name an
    /// external entity stay text in the config and in the generated comment.
    @Test func aHostileMappingModelStaysData() throws {
        let folder = try Self.project(besides: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("Model/1 to-be\"evil.xcmappingmodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let secret = folder.appendingPathComponent("secret.txt")
        try "TOP-SECRET".write(to: secret, atomically: true, encoding: .utf8)
        try """
        <?xml version="1.0"?>
        <!DOCTYPE database [<!ENTITY leak SYSTEM "file://\(secret.path)">]>
        <database>
            <object type="XDDEVENTITYMAPPING" id="a">
                <attribute name="name" type="string">Evil&#10;} fatalError() /* "&leak;</attribute>
                <attribute name="sourcename" type="string">Client</attribute>
                <attribute name="destinationname" type="string">Client</attribute>
                <attribute name="sourcefilterpredicatestring" type="string">name == "x"&#13;\\#(boom)</attribute>
            </object>
            <object type="XDDEVMAPPINGMODEL" id="m">
                <attribute name="sourcemodelpath" type="string">Shop 2.xcdatamodel</attribute>
                <attribute name="destinationmodelpath" type="string">Shop 3.xcdatamodel</attribute>
                <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="a"></relationship>
            </object>
        </database>
        """.write(to: package.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        let result = try run(lucidgenBinary, ["import", "coredata", "Model/Shop.xcdatamodeld"], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let config = try String(contentsOf: folder.appendingPathComponent(".lucid.yaml"), encoding: .utf8)
        #expect(config.contains("  - name: mapping1ToBeEvil\n"), "a Swift identifier from the name: \(config)")
        #expect(!config.contains("TOP-SECRET"), "the external entity is never read")
        let generated = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let migrations = try String(contentsOf: folder.appendingPathComponent("Sources/App/Generated/AppMigrations.swift"), encoding: .utf8)
        let line = migrations.split(separator: "\n").first { $0.contains("fatalError") }.map(String.init) ?? ""
        #expect(line == ##"    /// - Evil } fatalError() /* ": Client → Client (filter name == "x" \#(boom))"##, "\(migrations)")
        #expect(!migrations.contains("TOP-SECRET"))
    }

    @Test func aFileThatIsNoMappingModelIsRefusedAtItsOwnPlaceAndNothingIsWritten() throws {
        let folder = try Self.project(besides: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("Model/Bad.xcmappingmodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>\n"
            .write(to: package.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        let result = try run(lucidgenBinary, ["import", "coredata", "Model/Shop.xcdatamodeld"], in: folder)
        #expect(result.status != 0)
        #expect(result.error.hasPrefix("Model/Bad.xcmappingmodel/xcmapping.xml:"), "\(result.error)")
        #expect(
            result.error.contains("xcmapping.xml:1: error: no XDDEVMAPPINGMODEL object: not an Xcode mapping model")
                && result.error.contains("import: nothing was written"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".lucid.yaml").path))
    }

    @Test func notesOfAStageMustBeLinesOfText() throws {
        let folder = try CoreDataImportTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try
            "input_path: .entities\ncurrent_version: \"1.0\"\nstages:\n  - name: s\n    from: \"1.0\"\n    to: \"2.0\"\n    notes: [\"one\\ntwo\", 3]\n"
            .write(to: folder.appendingPathComponent(".lucid.yaml"), atomically: true, encoding: .utf8)
        let result = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(result.status != 0)
        #expect(
            result.error.contains(".lucid.yaml:7:") && result.error.contains("'notes' may not contain control characters or line breaks"),
            "\(result.error)")
        #expect(result.error.contains("'notes' must list strings, found"), "\(result.error)")
    }
}
