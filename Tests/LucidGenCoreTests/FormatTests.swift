import Foundation
import LucidTestSupport
import Testing

/// The hand-written Swift is as the toolchain's `swift format` writes it with the repository's
/// `.swift-format` (`scripts/format` formats it; generated code is left as the generator writes it).
@Suite struct FormatTests {
    @Test func theHandWrittenSwiftIsFormatted() throws {
        let files = try run("/bin/bash", ["scripts/format", "--list"], in: repositoryRoot)
        try #require(files.status == 0, "scripts/format --list failed: \(files.error)")
        let listed = files.output.split(separator: "\n")
        // The list is what the lint reads: every source folder, none of the generated ones.
        #expect(listed.contains("Sources/LucidRuntime/Store/LucidStore.swift"))
        #expect(listed.contains("Tests/LucidGenCoreTests/FormatTests.swift"))
        #expect(!listed.contains { $0.contains("/Generated/") || $0.contains("/Golden/") || $0.hasSuffix("BundledTemplates.swift") })
        let lint = try run("/bin/bash", ["scripts/format", "--lint"], in: repositoryRoot)
        #expect(lint.status == 0, "run scripts/format (it formats in place); what differs:\n\((lint.output + lint.error).prefix(4000))")
    }
}
