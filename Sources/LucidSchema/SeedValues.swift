/// The one definition of seeded rows, shared by the two encoders of the same values: the generated
/// migration tests' typed seeds (`LucidTesting.Seed`, `Seedable`) and the untyped SQL of
/// `lucidgen fixtures` (`LucidGenCore.FixtureRows`, from a resolved model without compiled records).
///
/// It says which value a property of a row takes (the edge values, by `row` and `salt`), which rows a
/// relationship points at and which rows get `NULL`. The reference rule only ever points at rows
/// `1...rows` of the target table, so every reference finds its row in the seeded set whatever the
/// order the rows are inserted in (self-references and cycles included), as long as the rows are
/// inserted with foreign key enforcement off and checked (`foreign_key_check`) before committing.
package enum SeedValues {
    /// Rows seeded per table: enough for every property to take every edge value of its type.
    package static let rows = 12

    /// The value of a list for row `row` (1-based) and property `salt`.
    package static func pick<T>(_ values: [T], row: Int, salt: Int) -> T {
        values[(row - 1 + salt) % values.count]
    }

    /// The row whose seed stands in for `row`'s when the table's CHECKs refuse some of a property's edge
    /// values: every seed that repeats every `period` rows (`pick`, booleans, enum cases) takes the value of
    /// row `row`, `row + 1`, … whose residue `(row - 1) % period` is not in `refused` (``refused`` lists the
    /// refused residues, fewer than `period`). Both encoders call it with the same lists.
    package static func passingRow(_ row: Int, period: Int, refused: [Int]) -> Int {
        guard period > 0, refused.count < period else { return row }
        var next = row
        while refused.contains((next - 1) % period) { next += 1 }
        return next
    }

    package static let strings = [
        "", "plain", "ünïcödé ✈︎ 日本語 👩🏽‍✈️", "quote ' and \" and \\", "line\nbreak\ttab", String(repeating: "long ", count: 60),
        " leading and trailing ", "NULL", "0", "42", "emoji 🛩🛫🛬", "-7",
    ]
    package static let integers: [Int64] = [
        0, 1, -1, Int64.max, Int64.min, 42, Int64(Int32.max) + 1, -1_000_000_007, 7, 2, 3, 9_007_199_254_740_993,
    ]
    package static let doubles: [Double] = [0, 1.5, -2.25, 1e300, -1e-300, 0.1, 3_600.25, 123_456_789.125, 2, -7.5, 1e15, 0.001]
    package static let floats: [Float] = [0, 1.5, -2.25, 3.4e38, 0.1, 1e-30]
    package static let urls = [
        "https://example.com/", "https://example.com/ä/path?query=1&x=%20#frag", "file:///tmp/a%20b", "mailto:pilot@example.com",
    ]

    package static func bool(row: Int, salt: Int) -> Bool { (row + salt) % 2 == 0 }

    /// Dates 1 day, 1 minute and 1 second apart, with milliseconds, around 2023 (and the epoch), as
    /// milliseconds since 1970.
    package static func dateMilliseconds(row: Int, salt: Int) -> Int64 {
        let index = row - 1 + salt
        if index % 11 == 5 { return 0 }
        return Int64(1_700_000_000_000) + Int64(index) * 86_461_000 + Int64((index * 37) % 1000)
    }

    package static func bytes(row: Int, salt: Int) -> [UInt8] {
        switch (row - 1 + salt) % 4 {
        case 0: []
        case 1: [0, 255, 0, 1]
        case 2: (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        default: Array("text as bytes ✈︎".utf8)
        }
    }

    /// The edge UUIDs, as their 16 bytes: the nil UUID, the max UUID (every byte 0xFF), a random (version 4)
    /// one, and a time-ordered (version 7) one whose bytes include 0x00 and 0x01.
    package static let uuids: [[UInt8]] = [
        Array(repeating: 0x00, count: 16),
        Array(repeating: 0xFF, count: 16),
        [0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F],
        [0x01, 0x8F, 0x3A, 0x2B, 0x7C, 0x00, 0x7E, 0x5F, 0x8A, 0x01, 0x0C, 0x1D, 0x2E, 0x3F, 0x4A, 0x00],
    ]

    package static func uuidBytes(row: Int, salt: Int) -> [UInt8] { pick(uuids, row: row, salt: salt) }

    /// The edge decimals, as the text GRDB stores for them (``DecimalText``): zero, fractions no `Double`
    /// holds exactly (0.1, 12.34), negative ones, a tiny and a large one, and 38 significant digits.
    package static let decimals = [
        "0", "12.34", "-0.01", "0.1", "123456789012345678901234567890.12345678", "-99.999", "1000000", "0.000001",
    ]

    /// Beyond the edge decimals: `<row>.25`, which no edge value is.
    package static func distinctDecimal(row: Int, salt: Int) -> String {
        row <= decimals.count ? pick(decimals, row: row, salt: salt) : "\(row).25"
    }

    /// Whether an optional value is `nil`: every third row (shifted by the salt).
    package static func isNull(row: Int, salt: Int) -> Bool { (row + salt) % 3 == 0 }

    /// How many elements an array holds: none, one or two.
    package static func arrayCount(row: Int, salt: Int) -> Int { (row + salt) % 3 }

    /// The salt of element `index` of an array whose property has `salt`.
    package static func elementSalt(_ salt: Int, index: Int) -> Int { salt + 1 + index }

    /// The case of an enumeration with `count` cases.
    package static func caseIndex(row: Int, salt: Int, count: Int) -> Int { (row - 1 + salt) % count }

    /// The raw value of an option set with `options` options.
    package static func optionSetRawValue(row: Int, salt: Int, options: Int) -> Int64 { Int64((row + salt) % (1 << min(options, 62))) }

    // MARK: Relationships

    /// The row (1...rows) a required to-one relationship of row `row` points at: another row, so that
    /// references cross the table (and a self-reference points at the next row, the last at the first).
    package static func referencedRow(row: Int, rows: Int) -> Int { row % rows + 1 }

    /// A nullable to-one relationship: no reference on every third row.
    package static func optionalReferencedRow(row: Int, rows: Int) -> Int? {
        row % 3 == 0 ? nil : referencedRow(row: row, rows: rows)
    }

    /// The rows (distinct, in 1...rows) a to-many relationship of row `row` links to: none, one or two
    /// (at most `maxLinks`). `(row, target)` pairs are unique, as a join table's primary key requires.
    /// `row` may exceed `rows` (a source table seeded with more rows than its target).
    package static func linkedRows(row: Int, rows: Int, maxLinks: Int) -> [Int] {
        let count = min(row % 3, maxLinks, rows)
        return (0..<max(count, 0)).map { (rows - row % rows + $0) % rows + 1 }
    }

    /// The position of link `index` of `count` (in ``linkedRows(row:rows:maxLinks:)``'s order) of an ordered
    /// to-many relationship: the reverse of the insertion order, so that a migration that numbered the links
    /// by rowid instead of keeping their positions shows.
    package static func linkPosition(index: Int, count: Int) -> Int { count - 1 - index }

    // MARK: Unique indexes

    /// The value of a column that must be distinct in every row (one column of each unique index, see
    /// `LucidGenCore.SeedPlan`): the edge value while the edge values are distinct (rows `1...count`
    /// of a list with a salt rotation are a permutation of it), then a value derived from the row that
    /// no edge value and no other row takes.
    package static func distinctString(row: Int, salt: Int) -> String {
        row <= strings.count ? pick(strings, row: row, salt: salt) : "plain #\(row)"
    }

    package static func distinctInteger(row: Int, salt: Int) -> Int64 {
        row <= integers.count ? pick(integers, row: row, salt: salt) : 1_000_000 + Int64(row)
    }

    package static func distinctDouble(row: Int, salt: Int) -> Double {
        row <= doubles.count ? pick(doubles, row: row, salt: salt) : 1_000_000.5 + Double(row)
    }

    /// Beyond the 6 edge floats: `row + 0.25` (≥ 7.25, exact up to 2^22 rows).
    package static func distinctFloat(row: Int, salt: Int) -> Float {
        row <= floats.count ? pick(floats, row: row, salt: salt) : Float(row) + 0.25
    }

    /// ``dateMilliseconds(row:salt:)`` but the epoch once only (in the first 11 rows): the other dates
    /// grow with the row.
    package static func distinctDateMilliseconds(row: Int, salt: Int) -> Int64 {
        let index = row - 1 + salt
        if index % 11 == 5 && row <= 11 { return 0 }
        return Int64(1_700_000_000_000) + Int64(index) * 86_461_000 + Int64((index * 37) % 1000)
    }

    package static func distinctURL(row: Int, salt: Int) -> String {
        row <= urls.count ? pick(urls, row: row, salt: salt) : "https://example.com/row/\(row)"
    }

    package static func distinctBytes(row: Int, salt: Int) -> [UInt8] {
        row <= 4 ? bytes(row: row, salt: salt) : Array("row #\(row)".utf8)
    }

    /// Beyond the 4 edge UUIDs: `5EED0000-0000-4000-8000-0000<row as 8 hexadecimal digits>` (a
    /// version 4 UUID that no edge value is).
    package static func distinctUUIDBytes(row: Int, salt: Int) -> [UInt8] {
        guard row > uuids.count else { return uuidBytes(row: row, salt: salt) }
        let number = UInt64(truncatingIfNeeded: row)
        return [0x5E, 0xED, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0] + (0..<4).map { UInt8(truncatingIfNeeded: number >> (8 * (3 - $0))) }
    }

    /// The key of row `row` of a table keyed by a uuid: `1D000000-0000-4000-8000-<row as 12 hexadecimal
    /// digits>` (readable in a failure message, and never an edge value).
    package static func identifierUUIDBytes(row: Int) -> [UInt8] {
        let number = UInt64(truncatingIfNeeded: row)
        return [0x1D, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0] + (0..<6).map { UInt8(truncatingIfNeeded: number >> (8 * (5 - $0))) }
    }

    /// A unique index whose columns cannot take a distinct value per row (booleans, enumerations, option
    /// sets): its columns count through the cartesian product of their values, as the digits of the row
    /// (`divisor` is the product of the counts of the index's columns before this one). The result is the
    /// `row` to seed the column's type with, salt 0: value `((row - 1) / divisor) % count` of the type.
    package static func productRow(row: Int, divisor: Int, count: Int) -> Int {
        ((row - 1) / divisor) % count + 1
    }
}
