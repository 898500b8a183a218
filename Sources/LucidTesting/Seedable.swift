import Foundation

/// A type whose values the generated migration tests can make up: deterministic, and cycling through
/// the edge values of the type (empty and unicode strings, integer extremes, dates with milliseconds,
/// empty and binary data, `nil` where allowed, empty and non-empty arrays).
///
/// `row` is the 1-based row of the seeded table; `salt` separates the properties of one row, so that
/// two `String` properties of one row do not hold the same value. Across `Seed.rows` rows, every
/// property takes every edge value of its type.
public protocol Seedable {
    static func seed(row: Int, salt: Int) -> Self
}

/// The edge values the seeds cycle through, and the helpers the generated seeds call.
public enum Seed {
    /// Rows seeded per table: enough for every property to take every edge value of its type.
    public static let rows = 12

    static func pick<T>(_ values: [T], row: Int, salt: Int) -> T {
        values[(row - 1 + salt) % values.count]
    }

    public static let strings = [
        "", "plain", "ünïcödé ✈︎ 日本語 👩🏽‍✈️", "quote ' and \" and \\", "line\nbreak\ttab", String(repeating: "long ", count: 60),
        " leading and trailing ", "NULL", "0", "42", "emoji 🛩🛫🛬", "-7",
    ]
    public static let integers: [Int64] = [0, 1, -1, Int64.max, Int64.min, 42, Int64(Int32.max) + 1, -1_000_000_007, 7, 2, 3, 9_007_199_254_740_993]
    public static let doubles: [Double] = [0, 1.5, -2.25, 1e300, -1e-300, 0.1, 3_600.25, 123_456_789.125, 2, -7.5, 1e15, 0.001]

    /// The primary key of row `row` of a table whose key is an integer.
    public static func identifier(row: Int) -> Int { row }
    public static func identifier(row: Int) -> Int64 { Int64(row) }
    /// The primary key of row `row` of a table whose key is text.
    public static func identifier(row: Int) -> String { "id-\(row)" }

    /// The row a to-one relationship of row `row` points at (another row, so links cross the table).
    public static func reference<ID>(row: Int, rows: Int, _ make: (Int) -> ID) -> ID {
        make(row % rows + 1)
    }

    /// A nullable to-one relationship: no link on every third row.
    public static func optionalReference<ID>(row: Int, rows: Int, _ make: (Int) -> ID) -> ID? {
        row % 3 == 0 ? nil : make(row % rows + 1)
    }

    /// The rows a to-many relationship of row `row` links to: none, one or two (at most `maxLinks`).
    public static func links(row: Int, rows: Int, maxLinks: Int) -> [Int] {
        let count = min(row % 3, maxLinks)
        return (0..<min(count, rows)).map { (rows - row + $0) % rows + 1 }
    }
}

extension String: Seedable {
    public static func seed(row: Int, salt: Int) -> String { Seed.pick(Seed.strings, row: row, salt: salt) }
}

extension Int: Seedable {
    public static func seed(row: Int, salt: Int) -> Int { Int(Seed.pick(Seed.integers, row: row, salt: salt)) }
}

extension Int64: Seedable {
    public static func seed(row: Int, salt: Int) -> Int64 { Seed.pick(Seed.integers, row: row, salt: salt) }
}

extension Int32: Seedable {
    public static func seed(row: Int, salt: Int) -> Int32 { Int32(truncatingIfNeeded: Seed.pick(Seed.integers, row: row, salt: salt)) }
}

extension Double: Seedable {
    public static func seed(row: Int, salt: Int) -> Double { Seed.pick(Seed.doubles, row: row, salt: salt) }
}

extension Float: Seedable {
    public static func seed(row: Int, salt: Int) -> Float { [0, 1.5, -2.25, 3.4e38, 0.1, 1e-30][(row - 1 + salt) % 6] }
}

extension Bool: Seedable {
    public static func seed(row: Int, salt: Int) -> Bool { (row + salt) % 2 == 0 }
}

extension Date: Seedable {
    /// Dates 1 day, 1 minute and 1 second apart, with milliseconds, around 2023 (and the epoch).
    public static func seed(row: Int, salt: Int) -> Date {
        let index = row - 1 + salt
        if index % 11 == 5 { return Date(timeIntervalSince1970: 0) }
        let milliseconds = Int64(1_700_000_000_000) + Int64(index) * 86_461_000 + Int64((index * 37) % 1000)
        return Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }
}

extension URL: Seedable {
    public static func seed(row: Int, salt: Int) -> URL {
        let urls = ["https://example.com/", "https://example.com/ä/path?query=1&x=%20#frag", "file:///tmp/a%20b", "mailto:pilot@example.com"]
        return URL(string: urls[(row - 1 + salt) % urls.count])!
    }
}

extension Data: Seedable {
    public static func seed(row: Int, salt: Int) -> Data {
        switch (row - 1 + salt) % 4 {
        case 0: Data()
        case 1: Data([0, 255, 0, 1])
        case 2: Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        default: Data("text as bytes ✈︎".utf8)
        }
    }
}

extension Optional: Seedable where Wrapped: Seedable {
    /// `nil` on every third row, the wrapped type's seed otherwise.
    public static func seed(row: Int, salt: Int) -> Wrapped? {
        (row + salt) % 3 == 0 ? nil : Wrapped.seed(row: row, salt: salt)
    }
}

extension Array: Seedable where Element: Seedable {
    /// Empty, one or two elements.
    public static func seed(row: Int, salt: Int) -> [Element] {
        (0..<((row + salt) % 3)).map { Element.seed(row: row, salt: salt + 1 + $0) }
    }
}

extension Seedable where Self: CaseIterable {
    /// Enums: every case in turn.
    public static func seed(row: Int, salt: Int) -> Self {
        let cases = Array(allCases)
        return cases[(row - 1 + salt) % cases.count]
    }
}
