import Foundation
import LucidSwiftDataReader

// `lucidgen-swiftdata FOLDER…`: a SwiftData app's sources as JSON (LucidGenCore's SwiftDataSources) on
// standard output, for `lucidgen import swiftdata`, which runs it. It links swift-syntax so that `lucidgen`
// does not.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print(
        """
        USAGE: lucidgen-swiftdata <path> ...

        Reads the Swift files under each path (a file or a folder) with swift-syntax and prints what they declare \
        about SwiftData (VersionedSchema, @Model classes, typealiases, value types, SchemaMigrationPlan) as JSON. \
        `lucidgen import swiftdata` runs it; run that instead.
        """)
    exit(arguments.isEmpty ? 64 : 0)
}
do {
    let sources = try SwiftDataSourceReader.read(arguments)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    FileHandle.standardOutput.write(try encoder.encode(sources))
    FileHandle.standardOutput.write(Data("\n".utf8))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
