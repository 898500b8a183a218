import Foundation
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

@testable import LucidGenCore

/// The faster forms of work a wide or many-entity model repeats: each gives what the simpler
/// form it replaced gave.
@Suite struct WideModelTests {
    /// The `Character`-wise tidying that ``Renderer/tidy(_:)`` replaced, as the reference.
    static func characterWiseTidy(_ text: String) -> String {
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = line
            while line.last == " " { line = line.dropLast() }
            if line.isEmpty, lines.last?.isEmpty == true { continue }
            lines.append(line)
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(arguments: [
        "", "\n", "   \n  \n", "a", "a\n", "a  \nb \n", "\n\n\na\n\n\n\nb\n\n", "  lead\n\n\n  \ntrail  \n  \n",
        "crlf\r\n\r\nkept \r\nx\n", "\r\n", "\ra\n\r", "ünïcødé  \n\n\n✈︎ \n", "e\u{301} \n \u{301}\n", "tab\t\n\t\n",
    ])
    func tidyGivesWhatTheCharacterWiseTidyingGave(_ text: String) {
        #expect(Renderer.tidy(text) == Self.characterWiseTidy(text))
    }

    @Test func tidyCollapsesBlankLinesAndTrailingSpaces() {
        #expect(Renderer.tidy("\n\nstruct A {  \n\n\n    var x: Int \n}\n\n") == "struct A {\n\n    var x: Int\n}\n")
    }

    /// The stored dates of every seeded row are what a `DateFormatter` (UTC, POSIX) wrote.
    @Test func storedDatesAreWhatADateFormatterWrote() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        func expected(_ milliseconds: Int64) -> String {
            let seconds = milliseconds / 1000
            return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
                + String(format: ".%03d", Int(milliseconds - seconds * 1000))
        }
        var samples: [Int64] = [
            0, 1, 999, 1000, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 4_107_542_399_999, 253_402_300_799_999,
        ]
        for row in 1...200 {
            for salt in [0, 1, 7, 40, 1_499] {
                samples.append(SeedValues.dateMilliseconds(row: row, salt: salt))
                samples.append(SeedValues.distinctDateMilliseconds(row: row, salt: salt))
            }
        }
        // Every day of four centuries (leap years, century years, 2000), at a varying time of day.
        for day in stride(from: Int64(-1_000), to: 146_097 + 1_000, by: 1) {
            samples.append(day * 86_400_000 + (day * 7_919_123) % 86_400_000)
        }
        for milliseconds in samples where milliseconds >= 0 {
            #expect(FixtureRows.storedDate(milliseconds: milliseconds) == expected(milliseconds), "\(milliseconds)")
        }
    }

    @Test func storedDatesBefore1970() {
        #expect(FixtureRows.storedDate(milliseconds: -1) == "1969-12-31 23:59:59.999")
        #expect(FixtureRows.storedDate(milliseconds: -86_400_000) == "1969-12-31 00:00:00.000")
        #expect(FixtureRows.storedDate(milliseconds: -62_135_596_800_000) == "0001-01-01 00:00:00.000")
    }

    @Test func aSnapshotIndexFindsEntitiesAndPropertiesByNameTheFirstOfAName() {
        func property(_ name: String, _ type: String) -> SchemaSnapshot.PropertySnapshot {
            SchemaSnapshot.PropertySnapshot(name: name, type: type, nullable: false, defaultValue: nil)
        }
        let snapshot = SchemaSnapshot(
            version: SchemaVersion("1.0"), checksum: "",
            entities: [
                SchemaSnapshot.EntitySnapshot(
                    name: "a", table: "a", identifier: "int",
                    properties: [property("x", "int"), property("y", "string"), property("x", "double")]),
                SchemaSnapshot.EntitySnapshot(name: "b", table: "b", identifier: "int", properties: [property("x", "bool")]),
                SchemaSnapshot.EntitySnapshot(name: "a", table: "a2", identifier: "int", properties: [property("z", "int")]),
            ],
            tables: [])
        let index = SnapshotIndex(snapshot)
        #expect(index.entity(named: "a")?.table == "a")
        #expect(index.entity(named: "c") == nil)
        #expect(index.property(named: "x", ofEntityNamed: "a")?.type == "int")
        #expect(index.property(named: "y", ofEntityNamed: "a")?.type == "string")
        #expect(index.property(named: "x", ofEntityNamed: "b")?.type == "bool")
        #expect(index.property(named: "z", ofEntityNamed: "a") == nil)
        #expect(index.hasProperty(named: "y", ofEntityNamed: "a"))
        #expect(!index.hasProperty(named: "y", ofEntityNamed: "b"))
    }

    @Test func tablesByNameKeyFoldsASCIICaseAndKeepsTheFirst() {
        func table(_ name: String, _ column: String) -> SchemaTable {
            SchemaTable(name: name, columns: [SchemaColumn(name: column, type: .integer, notNull: true)], primaryKey: [column])
        }
        let schema = Schema(version: SchemaVersion("1.0"), tables: [table("Alpha", "id"), table("beta", "key"), table("ALPHA", "other")])
        let byKey = schema.tablesByNameKey()
        #expect(byKey.count == 2)
        #expect(byKey[sqlNameKey("alpha")] == schema.table(named: "alpha"))
        #expect(byKey[sqlNameKey("BETA")]?.primaryKey == ["key"])
    }
}

/// Every snapshot committed in this repository (the FlightLog app's, the examples', the golden tests')
/// decodes through the table reader to exactly what `JSONDecoder` makes of it.
@Suite struct SnapshotDecodingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func snapshotFiles() -> [URL] {
        let folders = [
            ".entities/.schema", "Examples/Journal/.entities/.schema", "Examples/TenantServer/.entities/.schema",
            "Tests/LucidGenCoreTests/Golden/library/expected/.entities/.schema",
        ]
        return folders.flatMap { folder -> [URL] in
            let url = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            return names.filter { $0.hasSuffix(".json") }.sorted().map { url.appendingPathComponent($0) }
        }
    }

    @Test func committedSnapshotsDecodeAsJSONDecoderDecodesThem() throws {
        let files = Self.snapshotFiles()
        #expect(files.count >= 8)
        for file in files {
            let data = try Data(contentsOf: file)
            #expect(
                try SnapshotFile.decoded(from: data) == JSONDecoder().decode(SnapshotFile.self, from: data), "\(file.lastPathComponent)"
            )
        }
    }

    @Test func malformedSnapshotsFailAsJSONDecoderFailsOnThem() throws {
        let data = try Data(contentsOf: try #require(Self.snapshotFiles().first))
        let text = String(decoding: data, as: UTF8.self)
        for broken in [
            text.replacingOccurrences(of: "\"tables\"", with: "\"tablez\""), String(text.dropLast(3)),
            text.replacingOccurrences(of: "\"notNull\"", with: "\"notnull\""),
        ] {
            let expected =
                "\(try #require(throws: (any Error).self) { try JSONDecoder().decode(SnapshotFile.self, from: Data(broken.utf8)) })"
            let actual = "\(try #require(throws: (any Error).self) { try SnapshotFile.decoded(from: Data(broken.utf8)) })"
            #expect(actual == expected)
        }
    }
}
