import Foundation
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidTesting
import StoreTestSupport
import Testing

/// Listing fixture stores never passes by finding nothing: a folder that cannot be listed is an
/// error, and a missing one is a failing case once versions were released.
@Suite struct FixtureListingTests {
    @Test func aMissingFolderIsAnErrorThatNamesIt() throws {
        let folder = try TemporaryFolder()
        let missing = folder.url.appendingPathComponent("Fixtures").path
        #expect(throws: FixtureFiles.ListingError.self) { try FixtureFiles.list(in: missing) }
        do {
            _ = try FixtureFiles.list(in: missing)
        } catch {
            #expect(error.description.hasPrefix("there is no fixture folder at \(missing): "), "\(error)")
        }
    }

    @Test func aFileInPlaceOfTheFolderIsAnError() throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appendingPathComponent("Fixtures").path
        try Data().write(to: URL(fileURLWithPath: path))
        do {
            _ = try FixtureFiles.list(in: path)
            Issue.record("listing a file as a folder succeeded")
        } catch {
            #expect(error.description == "\(path) is not a folder: the committed fixture stores belong in a folder of that name")
        }
    }

    @Test func noFolderIsNoCaseOnlyWhileNothingIsReleased() throws {
        let folder = try TemporaryFolder()
        let missing = folder.url.appendingPathComponent("Fixtures").path
        #expect(FixtureFiles.cases(in: missing, releasedVersions: []).isEmpty)
        let cases = FixtureFiles.cases(in: missing, releasedVersions: ["1.0"])
        #expect(cases.count == 1)
        #expect(throws: FixtureFiles.ListingError.self) { try cases.first?.path }
        #expect(cases.first?.description == "the fixture folder")
    }

    @Test func eachFixtureIsACaseNamedByItsFile() throws {
        let folder = try TemporaryFolder()
        for name in ["App_2_0.sqlite", "App_1_0.sqlite", "App_1_0.sqlite.sha256", "notes.txt"] {
            try Data().write(to: folder.url.appendingPathComponent(name))
        }
        let cases = FixtureFiles.cases(in: folder.url.path, releasedVersions: ["1.0", "2.0"])
        #expect(cases.map(\.description) == ["App_1_0.sqlite", "App_2_0.sqlite"])
        #expect(
            try cases.map { try $0.path } == [
                folder.url.appendingPathComponent("App_1_0.sqlite").path, folder.url.appendingPathComponent("App_2_0.sqlite").path,
            ])
    }

    @Test func aReleasedVersionWithoutItsFixtureNamesTheFileToRestore() throws {
        let folder = try TemporaryFolder()
        try Data().write(to: folder.url.appendingPathComponent("App_1_0.sqlite"))
        #expect(FixtureFiles.missingFixture(module: "App", version: SchemaVersion("1.0"), in: folder.url.path) == nil)
        let path = folder.url.appendingPathComponent("App_1_1.sqlite").path
        let missing = try #require(FixtureFiles.missingFixture(module: "App", version: SchemaVersion("1.1"), in: folder.url.path))
        #expect(
            missing.hasPrefix(
                "version 1.1 was released, but its fixture store \(path) is missing: restore it with its .sha256 from version control (git checkout -- '\(path)' '\(path).sha256')"
            ), "\(missing)")
        #expect(missing.contains("`lucidgen fixtures --schema-version 1.1`"))
    }
}
