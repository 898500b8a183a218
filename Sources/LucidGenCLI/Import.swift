import ArgumentParser
import Foundation
import LucidGenCore
import LucidGenStore
@_spi(Generated) import LucidSchema

/// `lucidgen import`: descriptions from another tool's model history.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Write descriptions from another tool's model history.",
        subcommands: [ImportCoreData.self, ImportSwiftData.self])
}

/// `lucidgen import coredata`: an `.xcdatamodeld` history as descriptions.
struct ImportCoreData: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coredata",
        abstract: "Write the descriptions of a Core Data model's whole history (.xcdatamodeld), one file per entity.",
        discussion: """
            Every model version of the package becomes a version of the descriptions, oldest first, and \
            current_version (in the config, written when it does not exist) becomes the newest. The order comes \
            from the numbers after the names' common stem, whatever the package is called ("Model 2" before \
            "Model 10"; the stem alone is the first; names that are versions, "0.6.7" before "0.6.10"); with \
            two naming schemes, the scheme of .xccurrentversion is the newer; .xccurrentversion must name the \
            last one. When the names do not order so, or .xccurrentversion names another version, nothing is \
            written and the error prints the whole proposed --version-map to check: a YAML mapping of model \
            version names to lucidgen versions, oldest first, which may leave out versions the app never \
            shipped:

              "Wikipedia": "1.0"
              "Wikipedia 2": "2.0"

            Without a map, versions are the names' numbers (Model 3 is 3.0; zmessaging2.105.0 is 2.105.0; \
            an older naming scheme whose numbers pass the newer's counts 0.1, 0.2 … below it). The order used \
            is printed. Every refusal of the whole history is printed at once, located, with the notes.

            Entities become descriptions named in snake_case (swift_name keeps the model's class name), \
            identified by an int that SQLite assigns (AUTOINCREMENT, as Core Data's Z_PK); attributes become \
            properties (Integer 16/32/64 int, Double double, Float float, Decimal decimal, String string, \
            Boolean bool, Date date, Binary data, UUID uuid, URI url, Transformable data), optional becomes \
            nullable, defaults stay; to-one relationships become foreign keys (the inverse's deletion rule is \
            the ON DELETE action), to-many and many-to-many link tables (ordered ones keep their order), an \
            inverse pair is described once; fetch indexes, compound indexes and uniqueness constraints become \
            indexes. A renaming identifier (elementID) that names the previous version's entity or property \
            makes a rename. What has no place in SQLite or is guessed (transient, derived and Transformable \
            attributes, fetched properties, configurations, fetch requests, userInfo, deletion rules a foreign \
            key cannot say) is printed as a note at <version>.xcdatamodel/contents:line, never dropped silently.

            With --momd (the compiled model, Model.momd from the app's build), each version's entity hashes are \
            kept in .coredata/origin.json: a store's metadata names its model by them, which tells apart \
            versions whose stored layouts are the same.

            Mapping models (.xcmappingmodel) beside the package, and any given with --mapping-model, become \
            stages in the config (stages, with the mapping's entity mappings as the stage's notes): \
            `lucidgen generate` then asks for the stage's code, and the generated requirement's comment lists \
            what each entity mapping did (its type, migration policy class, filter, the property mappings \
            written by hand). A mapping model whose versions the import does not have is reported, not guessed.

            Run it again after the app adds model versions: the same package gives the same files, so \
            released versions stay as their snapshots froze them. Existing descriptions are replaced only \
            with --force.
            """)

    @Argument(help: ArgumentHelp("The model package.", valueName: "Model.xcdatamodeld"))
    var package: String

    @OptionGroup var writing: ImportWriting

    @Option(
        name: .customLong("version-map"),
        help: ArgumentHelp("A YAML mapping of model version names to lucidgen versions, oldest first.", valueName: "file"))
    var versionMap: String?

    @Option(
        help: ArgumentHelp(
            "The compiled model (Model.momd from the app's build): its version hashes tell model versions with the same stored layout apart when a store converts.",
            valueName: "path"))
    var momd: String?

    @Option(
        name: .customLong("mapping-model"),
        help: ArgumentHelp("A mapping model (.xcmappingmodel) that is not beside the package; repeat for several.", valueName: "path"))
    var mappingModels: [String] = []

    func run() throws {
        let result: CoreDataImporter.Output
        let modelPackage: CoreDataModelPackage
        let mappings: CoreDataMappingStages
        do {
            modelPackage = try CoreDataModelPackage.read(package, versionMap: versionMap)
            var hashes: [String: [String: Data]] = [:]
            if let momd {
                hashes = try CoreDataImporter.versionHashes(momd: momd)
                let unknown = modelPackage.versions.map(\.model.name).filter { hashes[$0] == nil }
                if !unknown.isEmpty { print("note: \(momd) has no version hashes for \(unknown.joined(separator: ", "))") }
            }
            result = try CoreDataImporter.run(modelPackage, versionHashes: hashes)
        } catch let error as CoreDataImportError {
            try refuse([error])
        } catch let refusals as CoreDataImportRefusals {
            try refuse(refusals.errors, notes: refusals.notes)
        }
        do {
            let found = CoreDataMappingModel.besides(package)
            let paths = found + mappingModels.filter { given in !found.contains { samePath($0, given) } }
            mappings = CoreDataMappingStages(try paths.map(CoreDataMappingModel.read), package: modelPackage)
        } catch let error as CoreDataImportError {
            printError("\(displayPath(error.location)): error: \(error.message)\n") // the mapping model's own path
            printError("import: nothing was written\n")
            throw ExitCodes.inputErrors
        }
        let order =
            modelPackage.versions.map { "\($0.model.name) → \($0.version.string)" }
            + modelPackage.skipped.map { "\($0): left out (not in the version map)" }
        try writing.writer.write(
            result, stages: mappings.stages, otherNotes: mappings.notes, title: (package as NSString).lastPathComponent,
            order: (modelPackage.orderBasis, order), versions: modelPackage.versions.count, noteLocation: { displayPath(inPackage($0)) })
    }

    /// A location the importer gives relative to the package, as a path from here.
    private func inPackage(_ location: String) -> String {
        location.hasPrefix("/") || location.hasPrefix(package) || location.hasPrefix(versionMap ?? "\u{0}")
            ? location : (package as NSString).appendingPathComponent(location)
    }

    /// Prints every refusal, located, and stops with nothing written.
    private func refuse(_ errors: [CoreDataImportError], notes: [CoreDataImporter.Note] = []) throws -> Never {
        try ImportWriter.refuse(errors, notes: notes, location: { displayPath(inPackage($0)) })
    }

    private func samePath(_ a: String, _ b: String) -> Bool {
        URL(fileURLWithPath: a).standardizedFileURL.path == URL(fileURLWithPath: b).standardizedFileURL.path
    }
}
