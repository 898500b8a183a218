/// The forms of a `uuid` value: its 16 bytes (what the column stores, as GRDB stores a `Foundation.UUID`: a
/// BLOB of `uuid.uuid`), its canonical text (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F`, as `UUID.uuidString`
/// writes it, and as descriptions and sample rows write it), and its SQL literal (`X'E621E1F8…'`, a
/// column's default).
package enum UUIDText {
    /// The 16 bytes of a UUID's canonical text: 32 hexadecimal digits (either case) in groups of 8-4-4-4-12
    /// separated by hyphens, nothing else. Nil for anything else.
    package static func bytes(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count == 36 else { return nil }
        var digits: [UInt8] = []
        digits.reserveCapacity(32)
        for (index, character) in characters.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let digit = hexDigit(character) else { return nil }
            digits.append(digit)
        }
        return stride(from: 0, to: 32, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    /// The canonical text (upper-case, as `UUID.uuidString` writes it) of 16 bytes.
    package static func string(_ bytes: [UInt8]) -> String {
        precondition(bytes.count == 16, "a UUID has 16 bytes")
        let hex = self.hex(bytes)
        var result = ""
        for (index, character) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { result += "-" }
            result.append(character)
        }
        return result
    }

    /// The SQL blob literal of 16 bytes: `X'E621E1F8C36C495A93FC0C247A3E6E5F'`.
    package static func sqlLiteral(_ bytes: [UInt8]) -> String { "X'" + hex(bytes) + "'" }

    /// The 16 bytes of a SQL blob literal of 32 hexadecimal digits (`X'…'` or `x'…'`), nil for any other SQL.
    package static func bytes(sqlLiteral sql: String) -> [UInt8]? {
        let characters = Array(sql.utf8)
        guard characters.count == 35, characters[0] == UInt8(ascii: "X") || characters[0] == UInt8(ascii: "x"),
            characters[1] == UInt8(ascii: "'"), characters[34] == UInt8(ascii: "'")
        else { return nil }
        var digits: [UInt8] = []
        for character in characters[2..<34] {
            guard let digit = hexDigit(character) else { return nil }
            digits.append(digit)
        }
        return stride(from: 0, to: 32, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        var result = ""
        result.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            result.append(digits[Int(byte >> 4)])
            result.append(digits[Int(byte & 0x0F)])
        }
        return result
    }

    static func hexDigit(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
