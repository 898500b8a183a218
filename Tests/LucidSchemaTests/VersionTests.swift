@_spi(Generated) import LucidSchema
import Testing

@Suite struct VersionTests {
    @Test func comparesNumericallyPerComponent() throws {
        #expect(try SchemaVersion(parsing: "3.10") > SchemaVersion(parsing: "3.2"))
        #expect(try SchemaVersion(parsing: "1.9.9") < SchemaVersion(parsing: "1.10"))
        #expect(try SchemaVersion(parsing: "2.0") > SchemaVersion(parsing: "1.99.99"))
    }

    @Test func trailingZerosAreEqual() throws {
        let short = try SchemaVersion(parsing: "1.1")
        let long = try SchemaVersion(parsing: "1.1.0")
        #expect(short == long)
        #expect(Set([short, long]).count == 1)
        #expect(!(short < long) && !(long < short))
        #expect(short.identifierSuffix == "1_1")
        #expect(long.identifierSuffix == "1_1_0")
    }

    @Test(arguments: ["1", "", "1.", ".1", "1..2", "a.b", "1.-1", "1.2 ", "v1.2", "1.2-beta", "1.1234567890"])
    func rejectsMalformedVersions(_ text: String) {
        #expect(throws: SchemaVersionError(string: text)) { try SchemaVersion(parsing: text) }
    }

    @Test func codableRoundTripKeepsSpelling() throws {
        let version = try SchemaVersion(parsing: "1.0.0")
        #expect(version.string == "1.0.0")
        #expect(version.description == "1.0.0")
    }
}

@Suite struct SHA256Tests {
    // FIPS 180-4 / NIST test vectors.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (String(repeating: "a", count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func matchesTestVectors(_ input: String, _ expected: String) {
        #expect(SHA256.hex(of: input) == expected)
    }
}

@Suite struct SchemaDDLTests {
    @Test func rendersQuotedDDLWithKeysAndIndexes() {
        let table = SchemaTable(
            name: "flight",
            columns: [
                SchemaColumn(name: "id", type: .integer, notNull: true),
                SchemaColumn(name: "aircraft", type: .text, notNull: false),
                SchemaColumn(name: "note", type: .text, notNull: true, defaultSQL: "'it''s'"),
            ],
            primaryKey: ["id"],
            foreignKeys: [SchemaForeignKey(columns: ["aircraft"], table: "aircraft", tableColumns: ["id"], onDelete: .setNull)],
            indexes: [SchemaIndex(name: "flight_aircraft_index", columns: ["aircraft"])])
        #expect(
            table.createStatements == [
                #"CREATE TABLE "flight" ("id" INTEGER PRIMARY KEY NOT NULL, "aircraft" TEXT, "note" TEXT NOT NULL DEFAULT 'it''s', FOREIGN KEY ("aircraft") REFERENCES "aircraft"("id") ON DELETE SET NULL)"#,
                #"CREATE INDEX "flight_aircraft_index" ON "flight" ("aircraft")"#,
            ])
    }

    @Test func checksumIgnoresVersionAndTableOrderButNotShape() {
        let a = SchemaTable(name: "a", columns: [SchemaColumn(name: "id", type: .integer, notNull: true)], primaryKey: ["id"])
        let b = SchemaTable(name: "b", columns: [SchemaColumn(name: "id", type: .text, notNull: true)], primaryKey: ["id"])
        let one = Schema(version: SchemaVersion("1.0"), tables: [a, b])
        let two = Schema(version: SchemaVersion("2.0"), tables: [b, a])
        #expect(one.checksum == two.checksum)
        var changed = b
        changed.columns[0].type = .integer
        #expect(Schema(version: SchemaVersion("1.0"), tables: [a, changed]).checksum != one.checksum)
    }

    @Test func quotesIdentifiersAndLiterals() {
        #expect(quoteIdentifier(#"a"b"#) == #""a""b""#)
        #expect(quoteLiteral("it's") == "'it''s'")
    }
}

@Suite struct SHA256StreamingTests {
    @Test func theDigestDoesNotDependOnHowTheInputIsSplit() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        let whole = SHA256.digest(bytes)
        for split in [0, 1, 55, 56, 63, 64, 65, 4_097, 9_999, 10_000] {
            var hasher = SHA256.Hasher()
            hasher.update(Array(bytes[..<split]))
            hasher.update(Array(bytes[split...]))
            #expect(hasher.finalize() == whole, "split at \(split)")
        }
        var byteByByte = SHA256.Hasher()
        for byte in bytes.prefix(200) { byteByByte.update([byte]) }
        #expect(byteByByte.finalize() == SHA256.digest(bytes.prefix(200)))
    }
}
