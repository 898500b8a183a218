import ArgumentParser
import Foundation
import LucidGenCore

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set up lucidgen in a package (or make a new package).",
        discussion: """
            In an empty folder: makes a consumer package that builds at once: Package.swift depending on \
            lucidgen, a library target for the generated code, a test target, .lucid.yaml, and .entities/ \
            with one example entity, and Sources/<Module>/<Module>Stages.swift, the migrations_provider (a step \
            that needs the app's code is a build error until written there); then runs `lucidgen generate`.
            In a folder that already has a Package.swift: adds .lucid.yaml, .entities/, the stages type and the \
            test expectations (never overwriting a file), and prints the lines to add to Package.swift.
            With --plugin the targets use the LucidGenPlugin build plugin instead: `swift build` generates the \
            code, and only descriptions, snapshots and fixture stores are committed.
            """
    )

    @Option(help: ArgumentHelp("The folder to set up.", valueName: "path"))
    var directory: String = "."

    @Option(help: ArgumentHelp("Make the lucidgen dependency point at this local checkout of lucidgen.", valueName: "path"))
    var packagePath: String?

    @Option(help: ArgumentHelp("The module name of the generated code (default: the folder's name).", valueName: "name"))
    var module: String?

    @Flag(
        help:
            "Generate the code during `swift build` with the LucidGenPlugin build plugin: nothing generated is committed (descriptions, snapshots and fixtures are); `swift package lucidgen generate` freezes releases."
    )
    var plugin = false

    func run() throws {
        let folder = absolutePath(directory)
        do {
            let scaffold = try Scaffold(
                folder: folder, moduleName: module,
                dependency: packagePath.map { .path(absolutePath($0)) } ?? Scaffold.defaultDependency(), plugin: plugin)
            let report = try scaffold.run()
            for line in report { print(line) }
        } catch {
            printDiagnostics(error.diagnostics, verbose: false)
            throw ExitCodes.inputErrors
        }
    }
}
