// Writes a Swift file that holds every template of a folder as a string constant, so that an installed
// `lucidgen` binary needs no resource bundle beside it (SwiftPM's Bundle.module traps on Linux when the
// build folder is gone). The output is committed (Sources/LucidGenCore/Render/BundledTemplates.swift)
// rather than made by a build-tool plugin: SwiftPM does not run a dependency's build-tool plugin when
// that dependency is compiled for a consumer's plugin tool (swiftlang/swift-package-manager#7936), which
// is how the LucidGenPlugin builds lucidgen. A test fails when it is out of date.
// Usage: swift run template-embedder Templates Sources/LucidGenCore/Render/BundledTemplates.swift
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: template-embedder <templates folder> <output.swift>\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[1])
let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mustache") }.sorted()
var output =
    "// Generated from Templates/ by `swift run template-embedder Templates Sources/LucidGenCore/Render/BundledTemplates.swift`.\n// Do not edit; TemplateEmbeddingTests fail when it is out of date.\n\n"
output +=
    "enum BundledTemplates {\n    /// Template name (file name without `.mustache`) → template text.\n    static let all: [String: String] = [\n"
for name in names {
    let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    // A raw string delimiter longer than any run of # in the text keeps the contents verbatim.
    var hashes = "#"
    while text.contains("\"" + hashes) || text.contains(hashes + "\"") { hashes += "#" }
    output += "        \"\(name.dropLast(".mustache".count))\": \(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes),\n"
}
output += "    ]\n}\n"
try output.write(to: URL(fileURLWithPath: arguments[2]), atomically: true, encoding: .utf8)
