@_spi(Generated) import LucidSchema

/// How description names become Swift and SQL names, and which names are safe.
///
/// Names are checked before anything is generated: only ASCII letters, digits and underscores,
/// starting with a letter. That keeps every name a valid, unquoted-safe SQL identifier and a
/// valid Swift identifier, so no name can inject SQL or Swift. (SQL still quotes every identifier.)
package enum Naming {
    /// A store's or a Core Data model's name as a description names it: `WMFArticle` → `wmf_article`,
    /// `URLCache` → `url_cache`, `userID` → `user_id`, `roomId` → `room_id`, `displayTitleHTMLString` →
    /// `display_title_html_string`, `sha256` and `item_name` stay; `-` and space become `_`. An acronym
    /// run splits before its last capital when a lower-case letter follows (`HTMLString`), except before
    /// a plural `s` (`messageIDs` → `message_ids`).
    package static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                // An acronym's plural stays with it: `messageIDs_data` → `message_ids_data`, not `message_i_ds_data`.
                let afterNext = index + 2 < characters.count ? characters[index + 2] : nil
                let plural = next == "s" && afterNext?.isLowercase != true
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true && !plural) {
                    result += "_"
                }
            }
            result += character == "-" || character == " " ? "_" : character.lowercased()
        }
        return result
    }

    /// `log_entry` → `LogEntry`; `posterPath` → `PosterPath`.
    package static func typeName(_ name: String) -> String {
        name.split(separator: "_").map { part in part.prefix(1).uppercased() + part.dropFirst() }.joined()
    }

    /// `tail_number` → `tailNumber`; `posterPath` stays `posterPath`.
    package static func propertyName(_ name: String) -> String {
        let type = typeName(name)
        return type.prefix(1).lowercased() + type.dropFirst()
    }

    /// A property name ready for Swift source: keywords are escaped with backticks.
    package static func swiftIdentifier(_ name: String) -> String {
        swiftKeywords.contains(name) ? "`\(name)`" : name
    }

    /// Why `name` is not a safe identifier, or nil when it is.
    package static func problem(with name: String) -> String? {
        guard let first = name.unicodeScalars.first else { return "a name may not be empty" }
        guard ("a"..."z").contains(first) || ("A"..."Z").contains(first) else {
            return "'\(name)' must start with an ASCII letter"
        }
        guard
            name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
            )
        else {
            return "'\(name)' may contain only ASCII letters, digits and underscores"
        }
        let lowered = sqlNameKey(name)
        if lowered.hasPrefix("sqlite_") { return "'\(name)' starts with 'sqlite_', which SQLite reserves" }
        if lowered.hasPrefix("lucid_") { return "'\(name)' starts with 'lucid_', which lucidgen reserves for its bookkeeping tables" }
        return nil
    }

    /// Why `name` cannot name an index, or nil when it can: an index's name is only ever SQL (quoted by
    /// `quoteIdentifier`), so any text SQLite takes (`my"idx`, a space, a line break, `Café`) but an empty
    /// one or one holding NUL (U+0000), where SQLite's text ends.
    package static func indexNameProblem(with name: String) -> String? {
        if name.isEmpty { return "an index's name may not be empty" }
        if name.utf8.contains(0) { return "an index's name may not contain NUL (U+0000)" }
        return nil
    }

    /// The longest name of an entity or subtype: its name is a file's (its description's `<name>.json`, the
    /// generated `<Name>.swift`, each first written under a temporary `.<file>.lucid-XXXXXX` beside it), and
    /// file systems take 255 bytes in a file's name. Every other name (a column's, an index's, a
    /// `persisted_name`, a case's) is as long as the app likes: SQLite and Swift have no limit.
    package static let longestFileName = 200

    /// Why `name` cannot name an entity or subtype, or nil when it can: beyond ``problem(with:)``, at most
    /// ``longestFileName`` characters.
    package static func fileNameProblem(with name: String) -> String? {
        if let problem = problem(with: name) { return problem }
        guard name.utf8.count <= longestFileName else {
            return
                "'\(name.prefix(40))…' (\(name.utf8.count) characters) is longer than \(longestFileName) characters, and an entity's or subtype's name is a file's name; "
                + "give it a shorter name (an entity keeps its table's long name with \"persisted_name\")"
        }
        return nil
    }

    /// Why `name` cannot name a column, beyond ``problem(with:)``: `rowid` (in any case), which a column of
    /// that name hides. lucidgen's migrations copy every row with its rowid (an FTS5 index, an R*Tree and the
    /// app's rows may hold rowids) and cut a long copy into rowid ranges, all by the name `rowid`: with the
    /// name taken, they would read the column's values instead (NULLs and repeats lose rows). SQLite's other
    /// names of the rowid, `oid` and `_rowid_`, lucidgen never uses: a column may take them.
    package static func columnProblem(with name: String) -> String? {
        let key = sqlNameKey(name)
        guard key == "rowid" else { return nil }
        return "a column named '\(name)' hides SQLite's rowid, which lucidgen's migrations copy rows by; "
            + "keep the property's name and store it under another with \"persisted_name\" (e.g. \"\(key)_value\")"
    }

    /// Whether `name` can name a Swift type or module.
    package static func isSwiftTypeName(_ name: String) -> Bool {
        problem(with: name) == nil && !swiftKeywords.contains(name) && !name.contains(".")
    }

    /// The modules whose names generated code qualifies types with (`Foundation.Date`, `GRDB.Column`,
    /// `Swift.Error`, `LucidRuntime.Schema`, `Testing.Test`): a type of the app named like one of them
    /// hides the module, and no qualification reaches past it. (The app's own module is one more: the
    /// generated tests write `App.Unit`.)
    package static let qualifyingModuleNames: Set<String> = [
        "Swift", "Foundation", "GRDB", "LucidRuntime", "LucidSchema", "LucidTesting", "Testing",
    ]

    /// Why `name` cannot be a `swift_name`, or nil when it can. `type`: it names a type (an entity's record,
    /// a subtype), which starts with an uppercase letter and is no keyword; otherwise a member (a
    /// property, a struct member, an enum case), which starts with a lowercase letter or `_` (so that it
    /// never names a type the generated code uses: a member `String` or `Columns` hides the type) and may
    /// be a keyword (generated code writes it in backticks; the Resolve stage rejects `self` where Swift
    /// does not accept it even so).
    package static func swiftNameProblem(_ name: String, type: Bool) -> String? {
        guard let first = name.unicodeScalars.first else { return "a swift_name may not be empty" }
        guard
            name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
            ), name != "_"
        else {
            return "'\(name)' is not a Swift identifier lucidgen accepts: ASCII letters, digits and underscores, not starting with a digit"
        }
        if type {
            guard ("A"..."Z").contains(first) else { return "'\(name)' names a type and must start with an uppercase ASCII letter" }
            if swiftKeywords.contains(name) { return "'\(name)' is a Swift keyword, which a type may not be named" }
        } else {
            guard ("a"..."z").contains(first) || first == "_" else {
                return
                    "'\(name)' names a member and must start with a lowercase ASCII letter or '_' (a member named like a type hides the type in generated code)"
            }
        }
        return nil
    }

    /// Member names every generated record and struct already has, so no property or struct member may take
    /// them (even escaped), and why. (Other members a record has, such as `databaseTableName`,
    /// `migrationColumns`, `init`, `hash(into:)` or `encode(to:)`, are static or functions that a stored
    /// property of the same name does not clash with; `swiftc` accepts each of them.)
    package static let recordMemberNames: [String: String] = [
        "self": "every Swift value's own `self` (the memberwise init's parameter would hide it)",
        "hashValue": "`hashValue`, which every record and struct has as a Hashable value",
    ]

    /// Case names a generated enum already has as members (a case `self` or `init` is fine in backticks).
    package static let enumMemberNames: [String: String] = [
        "allCases": "`allCases`, which every generated enum has (CaseIterable)"
    ]

    /// Option names a generated option set already has as members.
    package static let optionSetMemberNames: [String: String] = [
        "rawValue": "`rawValue`, the bit mask every option set stores"
    ]

    /// Type names Swift does not accept even in backticks; an entity or subtype may not be named so.
    /// (`Type` and `Protocol` are fine, but after a module they need backticks: ``memberTypeName(_:)``.)
    package static let unusableTypeNames: Set<String> = ["Self", "Any"]

    /// Type names that code lucidgen does not write uses unqualified beside the app's types, and why: an app
    /// type of the name would hide Swift's there, so no entity or subtype may take it. (The generated code
    /// itself qualifies every type it names, `Swift.Sendable`, `Foundation.Date`; this code is not lucidgen's.)
    package static let typeNamesOthersUseUnqualified: [String: String] = [
        "Void":
            "which Swift Testing's @Test names unqualified in the code it expands each generated test to (meaning Swift.Void), so that the generated tests would not build"
    ]

    /// `App.Unit`: a type of the app's module named from outside it. `Type` and `Protocol` are escaped
    /// (`App.Type` is the metatype of `App`, `App.Protocol` an error; `swiftc` accepts ``App.`Type` ``).
    /// A type's name after a `.` (`App.`Type``): `Type` and `Protocol` there would mean the metatype.
    package static func memberTypeName(_ name: String) -> String {
        name == "Type" || name == "Protocol" ? "`\(name)`" : name
    }

    /// `swift_name` if given, else `name`'s UpperCamelCase form: the Swift type of an entity's newest
    /// record or of a subtype.
    package static func typeName(_ name: String, swiftName: String?) -> String { swiftName ?? typeName(name) }

    /// The Swift name of a member (a property, a struct member, an enum case) that is called `name` at
    /// some version and `current` now: its `swift_name` while it has its current name, else `name`'s
    /// lowerCamelCase form. Not escaped (``swiftIdentifier(_:)`` does that).
    package static func memberName(_ name: String, current: String, swiftName: String?) -> String {
        name == current ? swiftName ?? propertyName(name) : propertyName(name)
    }

    /// An argument label in a call: keywords need no backticks there (Swift warns about them, `let` and
    /// `var` too), except `inout`, which starts a parameter's type.
    package static func argumentLabel(_ name: String) -> String {
        let bare = name.trimmingCharacters(in: ["`"])
        return bare == "inout" ? name : bare
    }

    /// Static members every generated record has (from GRDB's `TableRecord`, `FetchableRecord` and the
    /// query interface, and the generated ones): no association takes their names.
    package static let recordStaticMembers: Set<String> = [
        "all", "none", "filter", "select", "order", "limit", "including", "joining", "annotated", "having", "group", "matching", "exists",
        "fetchAll", "fetchOne", "fetchCount", "fetchSet", "fetchCursor", "deleteAll", "deleteOne", "updateAll", "databaseTableName",
        "databaseSelection", "aliased", "with", "orderByPrimaryKey", "belongsTo", "hasMany", "hasOne", "request", "distinct", "unordered",
        "reversed", "databaseColumnDecodingStrategy", "databaseColumnEncodingStrategy", "databaseDecodingUserInfo",
        "databaseEncodingUserInfo",
        "databaseJSONDecoder", "databaseJSONEncoder", "databaseDateDecodingStrategy", "databaseDateEncodingStrategy",
        "databaseUUIDEncodingStrategy",
        "persistenceConflictPolicy", "migrationColumns", "search", "Columns", "CodingKeys", "filterWhenConnected", "primaryKey", "find",
        "self", "Type", "Protocol", "init",
    ]

    /// Type names that a record declares inside itself: a top-level type of this name would be hidden there.
    package static let recordNestedTypeNames: Set<String> = ["CodingKeys", "Columns"]

    static let swiftKeywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout", "internal",
        "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct",
        "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as",
        "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "await", "async", "some", "any",
        "Type", "Protocol",
    ]
}
