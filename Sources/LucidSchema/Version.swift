/// A schema version such as `1.0`, `1.1.0` or `3.10`.
///
/// Versions compare numerically per component, and missing trailing components count as zero:
/// `3.10 > 3.2` and `1.1 == 1.1.0`. The original spelling is kept for display and for generated
/// names (`Movie_1_1`), but it never takes part in comparisons.
///
/// ```swift
/// let a = try SchemaVersion(parsing: "1.1")
/// let b = try SchemaVersion(parsing: "1.1.0")
/// assert(a == b)
/// ```
public struct SchemaVersion: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// The numeric components as written (`[1, 1]` for `1.1`).
    public let components: [Int]
    /// The version as written in the descriptions.
    public let string: String

    /// Parses `MAJOR.MINOR[.PATCH…]`: two or more dot-separated non-negative integers.
    public init(parsing string: String) throws(SchemaVersionError) {
        let parts = string.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { throw SchemaVersionError(string: string) }
        var components: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 9, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part) else {
                throw SchemaVersionError(string: string)
            }
            components.append(value)
        }
        self.components = components
        self.string = string
    }

    /// A version known to be valid; traps otherwise. For generated code and tests.
    public init(_ string: StaticString) {
        do { try self.init(parsing: "\(string)") } catch { preconditionFailure("invalid schema version \(string)") }
    }

    private var normalized: [Int] {
        var c = components
        while c.count > 2, c.last == 0 { c.removeLast() }
        return c
    }

    public static func == (lhs: SchemaVersion, rhs: SchemaVersion) -> Bool { lhs.normalized == rhs.normalized }
    public func hash(into hasher: inout Hasher) { hasher.combine(normalized) }

    public static func < (lhs: SchemaVersion, rhs: SchemaVersion) -> Bool {
        let count = max(lhs.components.count, rhs.components.count)
        for index in 0..<count {
            let l = index < lhs.components.count ? lhs.components[index] : 0
            let r = index < rhs.components.count ? rhs.components[index] : 0
            if l != r { return l < r }
        }
        return false
    }

    public var description: String { string }

    /// The form used in Swift type names: `1.1` → `1_1`.
    package var identifierSuffix: String { components.map(String.init).joined(separator: "_") }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do { try self.init(parsing: string) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(string)
    }
}

/// A version string that is not `MAJOR.MINOR[.PATCH]`.
public struct SchemaVersionError: Error, CustomStringConvertible, Equatable {
    public let string: String

    public init(string: String) {
        self.string = string
    }

    public var description: String { "'\(string)' is not a version: expected MAJOR.MINOR or MAJOR.MINOR.PATCH, e.g. \"1.2\"" }
}
