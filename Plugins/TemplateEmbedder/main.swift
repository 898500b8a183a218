// Writes a Swift file that holds every template of a folder as a string constant, so that an installed
// `lucidgen` binary needs no resource bundle beside it (SwiftPM's Bundle.module traps on Linux when the
// build folder is gone). Usage: template-embedder <templates folder> <output.swift>
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: template-embedder <templates folder> <output.swift>\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[1])
let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mustache") }.sorted()
var output = "// Generated at build time from Templates/ by the EmbedTemplates plugin. Do not edit.\n\n"
output += "enum BundledTemplates {\n    /// Template name (file name without `.mustache`) → template text.\n    static let all: [String: String] = [\n"
for name in names {
    let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    // A raw string delimiter longer than any run of # in the text keeps the contents verbatim.
    var hashes = "#"
    while text.contains("\"" + hashes) || text.contains(hashes + "\"") { hashes += "#" }
    output += "        \"\(name.dropLast(".mustache".count))\": \(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes),\n"
}
output += "    ]\n}\n"
try output.write(to: URL(fileURLWithPath: arguments[2]), atomically: true, encoding: .utf8)
