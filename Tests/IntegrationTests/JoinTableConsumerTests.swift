import Foundation
import LucidGenCore
import LucidTestSupport
import Testing

/// The app's own join table in a compiled app: a store its GRDB code made before lucidgen (`bookAuthor(bookId,
/// authorId)`, composite key, both references cascading), described with `link_table`, is adopted by the
/// generated registry; the generated link helpers (`linkAuthors`, `unlinkAuthors`), the link record
/// (`Book.AuthorsLink`) and the `Book.authors` association (GRDB's `hasMany(through:)`) read and write the
/// app's columns.
///
/// One package, one build (`swift run`), at a fixed place under `.build/` with its own scratch folder.
@Suite(.serialized) struct JoinTableConsumerTests {
    static let manifest = """
        // swift-tools-version:6.1
        import PackageDescription

        let package = Package(
            name: "Library",
            dependencies: [.package(name: "lucidgen", path: "\(repositoryRoot.path)")],
            targets: [
                .executableTarget(name: "App", dependencies: [.product(name: "LucidRuntime", package: "lucidgen")]),
            ],
            swiftLanguageModes: [.v6]
        )

        """

    static let config = """
        input_path: .entities
        current_version: "1.0"
        targets:
          app:
            module_name: App
            output_path: Sources/App/Generated

        """

    static let book = """
        { "name": "book", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [
            { "name": "title", "property_type": "string" },
            { "name": "authors", "property_type": { "entity_name": "author", "association": "to_many",
              "link_table": { "name": "bookAuthor", "source_column": "bookId", "target_column": "authorId", "target_index": "index_bookAuthor_on_authorId" } } } ] }
        """

    static let author = """
        { "name": "author", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "name", "property_type": "string" }] }
        """

    static let main = #"""
        import Foundation
        import GRDB
        import LucidRuntime

        let path = CommandLine.arguments[1]
        try? FileManager.default.removeItem(atPath: path)
        // The store as the app's GRDB code made it, before lucidgen.
        let made = try DatabaseQueue(path: path)
        try made.write { db in
            try db.execute(sql: """
                CREATE TABLE author (id INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL);
                CREATE TABLE book (id INTEGER PRIMARY KEY NOT NULL, title TEXT NOT NULL);
                CREATE TABLE bookAuthor (
                  bookId INTEGER NOT NULL REFERENCES book(id) ON DELETE CASCADE,
                  authorId INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE,
                  PRIMARY KEY (bookId, authorId));
                CREATE INDEX index_bookAuthor_on_authorId ON bookAuthor(authorId);
                INSERT INTO author VALUES (1, 'Ursula'), (2, 'Terry'), (3, 'Neil');
                INSERT INTO book VALUES (1, 'Earthsea'), (2, 'Good Omens');
                INSERT INTO bookAuthor VALUES (1, 1), (2, 2);
                """)
        }
        try made.close()

        let opened = try LucidStore.open(atPath: path, registry: AppSchema.self)
        print("opened: \(opened.outcome)")
        try opened.database.write { db in
            try Book(id: 2, title: "Good Omens").linkAuthors(db, ids: [3, 2])
            try Book(id: 1, title: "Earthsea").unlinkAuthors(db, ids: [1])
            try Book.AuthorsLink(sourceID: 1, targetID: 3).insert(db)
        }
        try opened.database.read { db in
            let names = try Book(id: 2, title: "Good Omens").request(for: Book.authors).order(Author.Columns.name).fetchAll(db).map(\.name)
            print("authors: \(names)")
            print("links: \(try String.fetchAll(db, sql: "SELECT bookId || '-' || authorId FROM bookAuthor ORDER BY 1"))")
            let books = try Book.AuthorsLink.filter(Book.AuthorsLink.Columns.targetID == 3).order(Book.AuthorsLink.Columns.sourceID).fetchAll(db).map(\.sourceID)
            print("books of 3: \(books)")
        }
        print("done")
        """#

    @Test func theAppsJoinTableIsReadAndWrittenByTheGeneratedCode() throws {
        let base = repositoryRoot.appendingPathComponent(".build/e2e-join-table")
        let package = base.appendingPathComponent("Library")
        try? FileManager.default.removeItem(at: package)
        try CompositeConsumerTests.write(
            [
                "Package.swift": Self.manifest, ".lucid.yaml": Self.config, ".entities/book.json": Self.book,
                ".entities/author.json": Self.author,
                "Sources/App/main.swift": Self.main,
            ], in: package)
        let generate = try run(lucidgenBinary, ["generate"], in: package)
        #expect(generate.status == 0, "\(generate.output)\n\(generate.error)")
        let scratch = base.appendingPathComponent("scratch").path
        let result = try run(
            swiftExecutable, ["run", "--scratch-path", scratch, "App", base.appendingPathComponent("library.sqlite").path], in: package)
        let log = result.output + result.error
        #expect(result.status == 0, "the app did not build or run:\n\(log.suffix(6000))")
        #expect(result.output.contains("opened: adopted"), "\(result.output)")
        #expect(result.output.contains(#"authors: ["Neil", "Terry"]"#), "\(result.output)")
        #expect(result.output.contains(#"links: ["1-3", "2-2", "2-3"]"#), "\(result.output)")
        #expect(result.output.contains("books of 3: [1, 2]"), "\(result.output)")
        #expect(result.output.hasSuffix("done\n"), "\(result.output)")
        let warnings = log.split(separator: "\n").filter { $0.contains("warning:") && $0.contains("/Library/") }
        #expect(warnings.isEmpty, "the app and its generated code must compile without warnings: \(warnings.prefix(10))")
    }
}
