import Foundation
import LucidTestSupport
import Testing

@testable import LucidGenCore

/// `BundledTemplates.swift` is committed (see Sources/template-embedder): it must hold exactly `Templates/`.
@Suite struct TemplateEmbeddingTests {
    @Test func theEmbeddedTemplatesAreTheTemplatesFolder() throws {
        let folder = repositoryRoot.appendingPathComponent("Templates")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mustache") }.sorted()
        let fix = "run `swift run template-embedder Templates Sources/LucidGenCore/Render/BundledTemplates.swift`"
        #expect(Renderer.templateNames == files.map { String($0.dropLast(".mustache".count)) }, "\(fix)")
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            #expect(
                Renderer.bundledTemplate(named: String(file.dropLast(".mustache".count))) == text,
                "\(file) differs from the embedded copy: \(fix)")
        }
    }
}
