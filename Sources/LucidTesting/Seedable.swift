import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// A type whose values the generated migration tests can make up: deterministic, and cycling through
/// the edge values of the type (empty and unicode strings, integer extremes, dates with milliseconds,
/// empty and binary data, the nil and max UUIDs, decimals no `Double` holds, `nil` where allowed, empty and non-empty arrays).
///
/// `row` is the 1-based row of the seeded table; `salt` separates the properties of one row, so that
/// two `String` properties of one row do not hold the same value. Across `Seed.rows` rows, every
/// property takes every edge value of its type.
///
/// ```swift
/// extension AircraftClass: Seedable {
///     public static func seed(row: Int, salt: Int) -> AircraftClass { allCases[(row + salt) % allCases.count] }
/// }
/// ```
public protocol Seedable {
    /// The value of the property salted `salt` in row `row`.
    static func seed(row: Int, salt: Int) -> Self
}

/// A type that can also take a distinct value in every row: the generated migration tests seed one
/// column of each unique index with ``seedDistinct(row:salt:)`` (the edge values while they are distinct,
/// then values derived from the row, which `lucidgen fixtures`
/// encodes as SQL too). Booleans, enumerations and option sets have too few values to conform: a unique
/// index over only such columns is seeded through the cartesian product of their values
/// (`Seed.product(row:divisor:count:)`).
public protocol DistinctSeedable: Seedable {
    /// The value of the property salted `salt` in row `row`, distinct from every other row's.
    static func seedDistinct(row: Int, salt: Int) -> Self
}

/// The helpers the generated seeds call. The values and the reference rule are
/// `LucidSchema.SeedValues`, which `lucidgen fixtures` encodes as SQL too: one definition, two encoders.
@_spi(Generated) public enum Seed {
    /// Rows seeded per table: enough for every property to take every edge value of its type.
    public static var rows: Int { SeedValues.rows }

    static func pick<T>(_ values: [T], row: Int, salt: Int) -> T { SeedValues.pick(values, row: row, salt: salt) }

    /// The row whose seed a property takes when the table's CHECKs refuse some of its edge values (the
    /// residues `(row - 1) % period` in `refused`): the next row whose value passes. `lucidgen fixtures`
    /// writes the same values.
    public static func passingRow(_ row: Int, period: Int, refused: [Int]) -> Int {
        SeedValues.passingRow(row, period: period, refused: refused)
    }

    /// The edge strings: empty, unicode, multi-line, quotes and SQL-looking text.
    public static var strings: [String] { SeedValues.strings }
    /// The edge integers: 0, ±1, `Int64.min`, `Int64.max`, 2^53 ± 1.
    public static var integers: [Int64] { SeedValues.integers }
    /// The edge doubles: 0, -0, tiny and huge values, fractions that do not round-trip through 15 digits.
    public static var doubles: [Double] { SeedValues.doubles }

    /// The primary key of row `row` of a table whose key is an integer.
    public static func identifier(row: Int) -> Int { row }
    /// The primary key of row `row` of a table whose key is an `Int64`.
    public static func identifier(row: Int) -> Int64 { Int64(row) }
    /// The primary key of row `row` of a table whose key is text.
    public static func identifier(row: Int) -> String { "id-\(row)" }
    /// The primary key of row `row` of a table whose key is a uuid (`1D000000-0000-4000-8000-<row>`).
    public static func identifier(row: Int) -> UUID {
        let b = SeedValues.identifierUUIDBytes(row: row)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// The row a to-one relationship of row `row` points at (another row of the seeded set, so links
    /// cross the table, and self-references and cycles find their rows).
    public static func reference<ID>(row: Int, rows: Int, _ make: (Int) -> ID) -> ID {
        make(SeedValues.referencedRow(row: row, rows: rows))
    }

    /// A nullable to-one relationship: no link on every third row.
    public static func optionalReference<ID>(row: Int, rows: Int, _ make: (Int) -> ID) -> ID? {
        SeedValues.optionalReferencedRow(row: row, rows: rows).map(make)
    }

    /// The rows a to-many relationship of row `row` links to: none, one or two (at most `maxLinks`).
    public static func links(row: Int, rows: Int, maxLinks: Int) -> [Int] {
        SeedValues.linkedRows(row: row, rows: rows, maxLinks: maxLinks)
    }

    /// A column of a unique index over booleans, enumerations or option sets: the value of digit
    /// `((row - 1) / divisor) % count` of the cartesian product of the index's columns.
    public static func product<T: Seedable>(row: Int, divisor: Int, count: Int) -> T {
        T.seed(row: SeedValues.productRow(row: row, divisor: divisor, count: count), salt: 0)
    }

    /// A nullable column of such an index: `nil` beyond row `total` (the rows the product holds), as
    /// SQLite lets NULLs repeat in a unique index.
    public static func product<T: Seedable>(row: Int, divisor: Int, count: Int, total: Int) -> T? {
        row > total ? nil : T.seed(row: SeedValues.productRow(row: row, divisor: divisor, count: count), salt: 0)
    }
}

extension String: DistinctSeedable {
    /// The edge value of `String` for this row and property (the generated tests' seeding).
    public static func seed(row: Int, salt: Int) -> String { Seed.pick(Seed.strings, row: row, salt: salt) }
    public static func seedDistinct(row: Int, salt: Int) -> String { SeedValues.distinctString(row: row, salt: salt) }
}

extension Int: DistinctSeedable {
    /// The edge value of `Int` for this row and property (the generated tests' seeding).
    public static func seed(row: Int, salt: Int) -> Int { Int(Seed.pick(Seed.integers, row: row, salt: salt)) }
    public static func seedDistinct(row: Int, salt: Int) -> Int { Int(SeedValues.distinctInteger(row: row, salt: salt)) }
}

extension Int64: DistinctSeedable {
    /// The edge value of `Int64` for this row and property (the generated tests' seeding).
    public static func seed(row: Int, salt: Int) -> Int64 { Seed.pick(Seed.integers, row: row, salt: salt) }
    public static func seedDistinct(row: Int, salt: Int) -> Int64 { SeedValues.distinctInteger(row: row, salt: salt) }
}

extension Int32: Seedable {
    /// The edge value of `Int32` for this row and property (the generated tests' seeding).
    public static func seed(row: Int, salt: Int) -> Int32 { Int32(truncatingIfNeeded: Seed.pick(Seed.integers, row: row, salt: salt)) }
}

extension Double: DistinctSeedable {
    /// The edge value of `Double` for this row and property (the generated tests' seeding).
    public static func seed(row: Int, salt: Int) -> Double { Seed.pick(Seed.doubles, row: row, salt: salt) }
    public static func seedDistinct(row: Int, salt: Int) -> Double { SeedValues.distinctDouble(row: row, salt: salt) }
}

extension Float: DistinctSeedable {
    /// The edge value of `Float` for this row and property (the generated tests' seeding).
    public static func seed(row: Int, salt: Int) -> Float { Seed.pick(SeedValues.floats, row: row, salt: salt) }
    public static func seedDistinct(row: Int, salt: Int) -> Float { SeedValues.distinctFloat(row: row, salt: salt) }
}

extension Bool: Seedable {
    /// The edge value of `Bool` for this row and property (the generated tests' seeding).
    public static func seed(row: Int, salt: Int) -> Bool { SeedValues.bool(row: row, salt: salt) }
}

extension Date: DistinctSeedable {
    /// Dates 1 day, 1 minute and 1 second apart, with milliseconds, around 2023 (and the epoch).
    public static func seed(row: Int, salt: Int) -> Date {
        Date(timeIntervalSince1970: TimeInterval(SeedValues.dateMilliseconds(row: row, salt: salt)) / 1000)
    }

    public static func seedDistinct(row: Int, salt: Int) -> Date {
        Date(timeIntervalSince1970: TimeInterval(SeedValues.distinctDateMilliseconds(row: row, salt: salt)) / 1000)
    }
}

extension URL: DistinctSeedable {
    /// The edge value of `URL` for this row and property (the generated tests' seeding).
    public static func seed(row: Int, salt: Int) -> URL {
        URL(string: Seed.pick(SeedValues.urls, row: row, salt: salt))!
    }

    public static func seedDistinct(row: Int, salt: Int) -> URL { URL(string: SeedValues.distinctURL(row: row, salt: salt))! }
}

extension Data: DistinctSeedable {
    /// The edge value of `Data` for this row and property (the generated tests' seeding).
    public static func seed(row: Int, salt: Int) -> Data { Data(SeedValues.bytes(row: row, salt: salt)) }
    public static func seedDistinct(row: Int, salt: Int) -> Data { Data(SeedValues.distinctBytes(row: row, salt: salt)) }
}

extension UUID: DistinctSeedable {
    /// The nil UUID, the max UUID, a random (version 4) and a time-ordered (version 7) one.
    public static func seed(row: Int, salt: Int) -> UUID { UUID(seedBytes: SeedValues.uuidBytes(row: row, salt: salt)) }
    public static func seedDistinct(row: Int, salt: Int) -> UUID { UUID(seedBytes: SeedValues.distinctUUIDBytes(row: row, salt: salt)) }

    private init(seedBytes b: [UInt8]) {
        self.init(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}

extension Decimal: DistinctSeedable {
    /// Zero, fractions no `Double` holds exactly (0.1, 12.34), negative ones, a tiny and a large one, and 38
    /// significant digits.
    public static func seed(row: Int, salt: Int) -> Decimal { Decimal(string: SeedValues.pick(SeedValues.decimals, row: row, salt: salt))! }
    public static func seedDistinct(row: Int, salt: Int) -> Decimal { Decimal(string: SeedValues.distinctDecimal(row: row, salt: salt))! }
}

extension Optional: Seedable where Wrapped: Seedable {
    /// `nil` on every third row, the wrapped type's seed otherwise.
    public static func seed(row: Int, salt: Int) -> Wrapped? {
        SeedValues.isNull(row: row, salt: salt) ? nil : Wrapped.seed(row: row, salt: salt)
    }
}

extension Optional: DistinctSeedable where Wrapped: DistinctSeedable {
    /// `nil` on every third row (NULLs may repeat in a unique index), the wrapped type's distinct value otherwise.
    public static func seedDistinct(row: Int, salt: Int) -> Wrapped? {
        SeedValues.isNull(row: row, salt: salt) ? nil : Wrapped.seedDistinct(row: row, salt: salt)
    }
}

extension Array: Seedable where Element: Seedable {
    /// Empty, one or two elements.
    public static func seed(row: Int, salt: Int) -> [Element] {
        (0..<SeedValues.arrayCount(row: row, salt: salt)).map { Element.seed(row: row, salt: SeedValues.elementSalt(salt, index: $0)) }
    }
}

extension Seedable where Self: CaseIterable {
    /// Enums: every case in turn.
    public static func seed(row: Int, salt: Int) -> Self {
        let cases = Array(allCases)
        return cases[SeedValues.caseIndex(row: row, salt: salt, count: cases.count)]
    }
}
