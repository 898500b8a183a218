import ArgumentParser
import LucidRuntime
import LucidSchema
import LucidTesting
import Mustache
import Yams

/// Does nothing that takes time: parses its arguments and prints one line, touching each dependency
/// so that the linker keeps them (a tool of lucidgen's size, linked the same way).
struct FloorTool: ParsableCommand {
    @Argument var words: [String] = []
    func run() throws {
        let yaml = try Yams.dump(object: ["floor": words.joined(separator: " ")])
        let template = try MustacheTemplate(string: "{{.}}")
        print(
            "floor-tool:", template.render(yaml).count, String(describing: LucidRuntime.SchemaVersion.self).count,
            String(describing: LucidStore.self).count)
    }
}
FloorTool.main()
