import ArgumentParser
import Foundation
import LucidGenCore

/// `lucidgen import swiftdata`: a SwiftData app's VersionedSchema history as descriptions.
struct ImportSwiftData: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swiftdata",
        abstract: "Write the descriptions of a SwiftData app's whole history (its VersionedSchemas), one file per entity.",
        discussion: """
            Reads the Swift files under each path with swift-syntax (through lucidgen-swiftdata, a separate \
            executable of this package: `swift build -c release --product lucidgen-swiftdata`; it is found in \
            $LUCIDGEN_SWIFTDATA, beside lucidgen (a debug lucidgen takes the release one of its build folder \
            first) or on the PATH) and resolves them as SwiftData does: the SchemaMigrationPlan's \
            schemas, in its order, are the history (without a plan, every VersionedSchema by its \
            versionIdentifier; with several plans, --plan names the app's); each schema's versionIdentifier \
            (Schema.Version(a, b, c) with literals) is its lucidgen version; each schema's models resolve as \
            Swift resolves them (the schema's own nested classes and extensions first, then typealiases, then the \
            top level).

            A @Model class is an entity named after its class (a description in snake_case, its swift_name the \
            class's). Stored properties become properties: Int, Int64/32/16, Double, Float, Bool, String, Date, \
            Data, UUID, URL and Decimal as themselves; an optional is nullable; a literal initial value is the \
            default; an enum with raw values its raw value; collections of values, Codable structs and other \
            Codable types data (SwiftData stores them encoded), each noted. @Attribute(.unique) and #Unique \
            are unique indexes, #Index indexes, originalName: a rename, .externalStorage and .transformable(by:) \
            noted; @Transient, computed and static properties are not stored. A property whose type is a model \
            (or a collection of one) is a relationship: to-one a foreign key, to-many a link table, with \
            @Relationship's deleteRule and inverse (inferred when it is the only pair, as SwiftData does).

            Each MigrationStage.custom becomes a stage in the config (stages), whose notes name where \
            willMigrate's and didMigrate's code is (File.swift:line): `lucidgen generate` then asks for the \
            stage's code, and the generated requirement's comment says what to port. .lightweight stages are \
            inferred, as lucidgen infers every step.

            Everything guessed or left out is printed as a note at File.swift:line; every refusal of the whole \
            history (a versionIdentifier or macro argument that is not a literal, a model a schema lists that the \
            sources do not declare, a name that cannot name a description) is printed at once, located, and \
            nothing is written. The same sources give the same files. The store of a SwiftData app is a Core Data \
            store: the app converts it with LucidCoreData and the .coredata/origin.json written here, as a Core Data app does (the guide "Coming from SwiftData").
            """)

    @Argument(help: ArgumentHelp("The app's Swift sources: folders (searched recursively) or files.", valueName: "path"))
    var paths: [String]

    @Option(help: ArgumentHelp("The SchemaMigrationPlan to read, when the sources have several.", valueName: "name"))
    var plan: String?

    @OptionGroup var writing: ImportWriting

    func run() throws {
        let sources = try Self.readSources(paths)
        let history: SwiftDataHistory.Output
        let result: CoreDataImporter.Output
        do {
            history = try SwiftDataHistory.resolve(sources, plan: plan)
            result = try history.imported()
        } catch {
            try ImportWriter.refuse(error.errors, notes: error.notes, location: displayPath)
        }
        let order = history.package.versions.map { "\($0.model.name) → \($0.version.string)" }
        var writer = writing.writer
        writer.stagesSource = "the app's SwiftData MigrationStage.custom stages (lucidgen import swiftdata)"
        writer.stagesShortSource = "the SwiftData custom stages"
        try writer.write(
            result, stages: history.stages, otherNotes: [], title: paths.joined(separator: " "),
            order: (history.package.orderBasis, order), versions: history.package.versions.count, noteLocation: { displayPath($0) })
    }

    /// Runs `lucidgen-swiftdata` on `paths` and decodes what it prints.
    static func readSources(_ paths: [String]) throws -> SwiftDataSources {
        guard let reader = readerExecutable() else {
            printError(
                "error: lucidgen-swiftdata, which reads Swift sources for import swiftdata, is not beside lucidgen, in $LUCIDGEN_SWIFTDATA (an executable file) or on the PATH: build it with `swift build -c release --product lucidgen-swiftdata` in lucidgen's package\n"
            )
            throw ExitCodes.inputErrors
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: reader)
        process.arguments = paths
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            printError("import: nothing was written (\(reader) stopped with status \(process.terminationStatus))\n")
            throw ExitCodes.inputErrors
        }
        do {
            return try JSONDecoder().decode(SwiftDataSources.self, from: data)
        } catch {
            printError("error: \(reader) printed what this lucidgen cannot read (\(error)): build both from the same checkout\n")
            throw ExitCodes.inputErrors
        }
    }

    static func readerExecutable() -> String? {
        let manager = FileManager.default
        if let given = ProcessInfo.processInfo.environment["LUCIDGEN_SWIFTDATA"], !given.isEmpty {
            return manager.isExecutableFile(atPath: given) ? given : nil
        }
        if let own = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() {
            // A debug lucidgen takes the release reader of the same build folder first: swift-syntax's parser
            // is about 30 times faster optimized (a 119,000-line app: 0.6 s against 17.6 s).
            var candidates = [own.appendingPathComponent("lucidgen-swiftdata").path]
            if own.lastPathComponent == "debug" {
                candidates.insert(own.deletingLastPathComponent().appendingPathComponent("release/lucidgen-swiftdata").path, at: 0)
            }
            if let found = candidates.first(where: manager.isExecutableFile(atPath:)) { return found }
        }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = (String(folder) as NSString).appendingPathComponent("lucidgen-swiftdata")
            if manager.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
