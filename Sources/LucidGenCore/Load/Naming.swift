/// How description names become Swift and SQL names, and which names are safe.
///
/// Names are checked before anything is generated: only ASCII letters, digits and underscores,
/// starting with a letter. That keeps every name a valid, unquoted-safe SQL identifier and a
/// valid Swift identifier, so no name can inject SQL or Swift. (SQL still quotes every identifier.)
public enum Naming {
    /// `log_entry` → `LogEntry`; `posterPath` → `PosterPath`.
    public static func typeName(_ name: String) -> String {
        name.split(separator: "_").map { part in part.prefix(1).uppercased() + part.dropFirst() }.joined()
    }

    /// `tail_number` → `tailNumber`; `posterPath` stays `posterPath`.
    public static func propertyName(_ name: String) -> String {
        let type = typeName(name)
        return type.prefix(1).lowercased() + type.dropFirst()
    }

    /// A property name ready for Swift source: keywords are escaped with backticks.
    public static func swiftIdentifier(_ name: String) -> String {
        swiftKeywords.contains(name) ? "`\(name)`" : name
    }

    /// Why `name` is not a safe identifier, or nil when it is.
    public static func problem(with name: String) -> String? {
        guard let first = name.unicodeScalars.first else { return "a name may not be empty" }
        guard ("a"..."z").contains(first) || ("A"..."Z").contains(first) else {
            return "'\(name)' must start with an ASCII letter"
        }
        guard name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) else {
            return "'\(name)' may contain only ASCII letters, digits and underscores"
        }
        guard name.count <= 64 else { return "'\(name)' is longer than 64 characters" }
        let lowered = name.lowercased()
        if lowered.hasPrefix("sqlite_") { return "'\(name)' starts with 'sqlite_', which SQLite reserves" }
        if lowered.hasPrefix("lucid_") { return "'\(name)' starts with 'lucid_', which lucidgen reserves for its bookkeeping tables" }
        return nil
    }

    /// Whether `name` can name a Swift type or module.
    public static func isSwiftTypeName(_ name: String) -> Bool {
        problem(with: name) == nil && !swiftKeywords.contains(name) && !name.contains(".")
    }

    /// Types the generated files name without a module prefix.
    public static let reservedTypeNames: Set<String> = [
        "String", "Int", "Int64", "Double", "Float", "Bool", "Date", "Data", "URL", "Array", "Dictionary", "Set", "Optional",
        "Codable", "Hashable", "Sendable", "CodingKey", "CaseIterable", "OptionSet", "Never",
        "Schema", "SchemaTable", "SchemaColumn", "SchemaForeignKey", "SchemaIndex", "SchemaVersion", "SchemaRegistry",
        "FetchableRecord", "PersistableRecord", "MutablePersistableRecord", "ColumnExpression", "InsertionSuccess", "DatabaseValueConvertible",
        "Foundation", "LucidRuntime", "LucidSchema", "GRDB",
    ]

    /// Member names every generated record already has, so no property may take them (even escaped), and why.
    /// (Other members a record has, such as `databaseTableName`, `hash(into:)` or `encode(to:)`, are static or
    /// functions that a stored property of the same name does not clash with.)
    public static let recordMemberNames: [String: String] = [
        "self": "every Swift value's own `self` (the memberwise init's parameter would hide it)",
        "hashValue": "`hashValue`, which every record has as a Hashable value",
    ]

    /// Type names Swift does not accept even in backticks; an entity or subtype may not be named so.
    public static let unusableTypeNames: Set<String> = ["Self", "Any"]

    /// Type names that a record declares inside itself: a top-level type of this name would be hidden there.
    public static let recordNestedTypeNames: Set<String> = ["CodingKeys", "Columns"]

    static let swiftKeywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout", "internal",
        "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct",
        "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as",
        "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "await", "async", "some", "any",
        "Type", "Protocol",
    ]
}
