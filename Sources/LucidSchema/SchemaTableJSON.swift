import Foundation

extension SchemaTable {
    /// A table from its JSON (`Codable`'s keys), the form generated registries write their tables in: a
    /// string literal costs the compiler nothing, where a long history's thousands of `SchemaColumn(…)`
    /// calls cost seconds of every build. Decoded when a schema is first built (a migration, never the
    /// launch of an up-to-date store) by a small reader of exactly this shape: Foundation's `JSONDecoder`
    /// took ~0.37M instructions per table, 60 % of a one-step migration of a 150-version app.
    /// Invalid JSON is a broken generated file: a precondition failure naming the error.
    package init(json: String) {
        do {
            self = try TableJSONReader.table(json)
        } catch {
            preconditionFailure("a generated table's JSON does not decode (regenerate with lucidgen generate): \(error)\n\(json)")
        }
    }

    /// The tables in the array under `key` of a JSON object (a schema snapshot's `"tables"`), each read as
    /// ``init(json:)`` reads one; the object's other keys are skipped, and nil means it has no such key.
    /// The generator reads every snapshot on every run: with `JSONDecoder`, the tables of a model of
    /// 2,000 entities were a fifth of `lucidgen plan`. Throws on JSON this reader does not accept.
    package static func tables(underKey key: String, inJSONObject json: String) throws -> [SchemaTable]? {
        try TableJSONReader.tables(underKey: key, inObject: json)
    }

    /// The JSON `init(json:)` reads, one column, foreign key or index per line (after the table's own keys), in
    /// the order readers expect: name, kind, key, what is particular to the table, then columns, foreign
    /// keys and indexes. An item longer than ``jsonLineWidth`` continues on the next lines, broken between
    /// its members, so that a generated registry stays readable.
    package func json(indent: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func encoded(_ value: some Encodable) -> String {
            // Encoding these plain values cannot fail.
            String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self)
        }
        var head = "{\"name\": \(encoded(name)), \"kind\": \(encoded(kind)), \"primaryKey\": \(encoded(primaryKey))"
        if let renamedFrom { head += ", \"renamedFrom\": \(encoded(renamedFrom))" }
        if let convertedFromColumn { head += ", \"convertedFromColumn\": \(encoded(convertedFromColumn))" }
        if let reusesName { head += ", \"reusesName\": \(reusesName)" }
        if let autoincrement { head += ", \"autoincrement\": \(autoincrement)" }
        if let strict { head += ", \"strict\": \(strict)" }
        if let primaryKeyConflict { head += ", \"primaryKeyConflict\": \(encoded(primaryKeyConflict))" }
        if let movedRows { head += ", \"movedRows\": \(encoded(movedRows))" }
        if let checks { head += ", \"checks\": \(encoded(checks))" }
        func list(_ items: [String]) -> String {
            let itemIndent = indent + "    "
            guard !items.isEmpty else { return "[]" }
            return "[\n" + items.map { itemIndent + Self.wrappedJSONObject($0, indent: itemIndent + " ") }.joined(separator: ",\n") + "]"
        }
        // A table without search writes no key for it (its JSON is what it was before search existed).
        let searchPart = search.map { ",\n" + indent + " \"search\": \(encoded($0))" } ?? ""
        return head + ",\n" + indent + " \"columns\": " + list(columns.map(encoded)) + ",\n"
            + indent + " \"foreignKeys\": " + list(foreignKeys.map(encoded)) + ",\n"
            + indent + " \"indexes\": " + list(indexes.map(encoded)) + searchPart + "}"
    }

    /// The longest line of ``json(indent:)``'s items before their indentation, where a break allows it.
    static let jsonLineWidth = 103

    /// A compact JSON object broken between its members into lines of at most ``jsonLineWidth``
    /// characters (a member longer than that stands alone), continuation lines indented by `indent`.
    static func wrappedJSONObject(_ object: String, indent: String) -> String {
        guard object.count > jsonLineWidth, object.first == "{" else { return object }
        // The commas between members: outside strings, at the object's own depth.
        var members: [Substring] = []
        var start = object.index(after: object.startIndex)
        var depth = 0
        var inString = false
        var escaped = false
        var index = start
        while index < object.endIndex {
            let character = object[index]
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "{" || character == "[" {
                depth += 1
            } else if character == "}" || character == "]" {
                if depth == 0 { members.append(object[start..<index]) }
                depth -= 1
            } else if character == ",", depth == 0 {
                members.append(object[start..<index])
                start = object.index(after: index)
            }
            index = object.index(after: index)
        }
        var lines: [String] = []
        var line = "{"
        for (offset, member) in members.enumerated() {
            let piece = member + (offset == members.count - 1 ? "}" : ",")
            if line != "{", line.count + piece.count > jsonLineWidth {
                lines.append(line)
                line = ""
            }
            line += piece
        }
        lines.append(line)
        return lines.joined(separator: "\n" + indent)
    }
}

/// A table as a schema version states it: built (``SchemaTable``), or deferred (``SchemaTable/Deferred``),
/// built the first time a version that has it is read.
@_spi(Generated) public protocol SchemaTableSource: Sendable {
    /// The table itself (built from its JSON the first time, for a deferred table).
    var builtTable: SchemaTable { get }
}

extension SchemaTable: SchemaTableSource {
    @_spi(Generated) public var builtTable: SchemaTable { self }
}

extension SchemaTable {
    /// A table of a generated registry, as its name and its JSON (``SchemaTable/init(json:)``), built the
    /// first time a schema version that has it is read, and once for every version that shares it.
    ///
    /// A registry lists every version, and a 150-version history has hundreds of table definitions:
    /// decoding them all was three quarters of planning the migration of a store one version behind,
    /// which reads two versions.
    ///
    /// ```swift
    /// // Generated:
    /// static let table_aircraft_2 = SchemaTable.Deferred(name: "aircraft", json: #"""
    ///     {"name": "aircraft", "kind": "entity", …}
    ///     """#)
    /// ```
    @_spi(Generated) public final class Deferred: SchemaTableSource, Sendable {
        package let name: String
        private let built: BuiltOnce<SchemaTable>

        @_spi(Generated) public init(name: String, json: String) {
            self.name = name
            built = BuiltOnce {
                let table = SchemaTable(json: json)
                precondition(
                    table.name == name,
                    "a generated table named \(name) holds the JSON of \(table.name) (regenerate with lucidgen generate)")
                return table
            }
        }

        @_spi(Generated) public var builtTable: SchemaTable { table }

        /// Whether the table was read (decoded) already.
        var isBuilt: Bool { built.isMade }

        /// The table, decoded the first time it is read.
        package var table: SchemaTable { built.value }
    }
}

/// Reads the JSON of a ``SchemaTable`` (objects, arrays, strings, booleans, null: what `json(indent:)`
/// writes), with the same keys as its `Codable` conformance; unknown keys are skipped, as `Codable` does.
/// It reads straight into the table's fields (no intermediate tree, no dictionary of keys): a 150-version
/// registry decodes ~420 tables when a store first migrates.
enum TableJSONReader {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func table(_ json: String) throws -> SchemaTable {
        try read(json, what: "the table") { try table(&$0) }
    }

    static func tables(underKey key: String, inObject json: String) throws -> [SchemaTable]? {
        try read(json, what: "the object") { reader in
            var tables: [SchemaTable]?
            try reader.object { reader, name in
                if name == key { tables = try reader.array { try table(&$0) } } else { try reader.skipValue() }
            }
            return tables
        }
    }

    /// `body`'s value, read from the whole of `json` (nothing but space after `what` it reads).
    private static func read<T>(_ json: String, what: String, _ body: (inout Reader) throws -> T) throws -> T {
        // The string's own NUL-terminated bytes (no copy for a literal or a native string).
        let count = json.utf8.count
        return try json.withCString { pointer in
            var reader = Reader(
                bytes: UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: count + 1))
            let value = try body(&reader)
            reader.skipSpace()
            guard reader.peek == 0 else { throw reader.failure("text after \(what)") }
            return value
        }
    }

    // MARK: Shapes

    private static func table(_ reader: inout Reader) throws -> SchemaTable {
        var name: String?, kind: SchemaTable.Kind?, primaryKey: [String]?, columns: [SchemaColumn]?
        var foreignKeys: [SchemaForeignKey]?, indexes: [SchemaIndex]?
        var renamedFrom: String?, convertedFromColumn: String?, reusesName: Bool?, search: SchemaSearch?, autoincrement: Bool?,
            strict: Bool?, primaryKeyConflict: String?
        var movedRows: [MovedRows]?
        var checks: [SchemaCheck]?
        try reader.object { reader, key in
            switch key {
            case "name": name = try reader.string()
            case "kind":
                let text = try reader.string()
                guard let value = SchemaTable.Kind(rawValue: text) else { throw reader.failure("unknown table kind \(text)") }
                kind = value
            case "primaryKey": primaryKey = try reader.strings()
            case "columns": columns = try reader.array { try column(&$0) }
            case "foreignKeys": foreignKeys = try reader.array { try foreignKey(&$0) }
            case "indexes": indexes = try reader.array { try index(&$0) }
            case "renamedFrom": renamedFrom = try reader.optionalString()
            case "convertedFromColumn": convertedFromColumn = try reader.optionalString()
            case "reusesName": reusesName = try reader.optionalBool()
            case "search": search = try self.search(&reader)
            case "autoincrement": autoincrement = try reader.optionalBool()
            case "strict": strict = try reader.optionalBool()
            case "primaryKeyConflict": primaryKeyConflict = try reader.optionalString()
            case "movedRows": movedRows = try reader.array { try self.movedRows(&$0) }
            case "checks": checks = try reader.array { try check(&$0) }
            default: try reader.skipValue()
            }
        }
        var table = SchemaTable(
            name: try required(name, "name", reader), kind: try required(kind, "kind", reader),
            columns: try required(columns, "columns", reader),
            primaryKey: try required(primaryKey, "primaryKey", reader), foreignKeys: try required(foreignKeys, "foreignKeys", reader),
            indexes: try required(indexes, "indexes", reader), renamedFrom: renamedFrom, convertedFromColumn: convertedFromColumn,
            reusesName: reusesName,
            search: search, autoincrement: autoincrement)
        table.strict = strict
        table.primaryKeyConflict = primaryKeyConflict
        table.checks = checks
        table.movedRows = movedRows
        return table
    }

    private static func movedRows(_ reader: inout Reader) throws -> MovedRows {
        var table: String?, kinds: [KindRewrite.Rename]?, kind: String?
        try reader.object { reader, key in
            switch key {
            case "table": table = try reader.string()
            case "kinds":
                kinds = try reader.array { reader in
                    var from: String?, to: String?
                    try reader.object { reader, key in
                        switch key {
                        case "from": from = try reader.string()
                        case "to": to = try reader.string()
                        default: try reader.skipValue()
                        }
                    }
                    return KindRewrite.Rename(from: try required(from, "from", reader), to: try required(to, "to", reader))
                }
            case "kind": kind = try reader.optionalString()
            default: try reader.skipValue()
            }
        }
        return MovedRows(table: try required(table, "table", reader), kinds: kinds, kind: kind)
    }

    private static func check(_ reader: inout Reader) throws -> SchemaCheck {
        var name: String?, expression: String?
        try reader.object { reader, key in
            switch key {
            case "name": name = try reader.optionalString()
            case "expression": expression = try reader.string()
            default: try reader.skipValue()
            }
        }
        return SchemaCheck(name: name, expression: try required(expression, "expression", reader))
    }

    private static func search(_ reader: inout Reader) throws -> SchemaSearch? {
        reader.skipSpace()
        if reader.peek == UInt8(ascii: "n") {
            _ = try reader.optionalString()
            return nil
        }
        var columns: [String]?, tokenizer: String?
        try reader.object { reader, key in
            switch key {
            case "columns": columns = try reader.strings()
            case "tokenizer": tokenizer = try reader.optionalString()
            default: try reader.skipValue()
            }
        }
        return SchemaSearch(columns: try required(columns, "columns", reader), tokenizer: tokenizer)
    }

    private static func column(_ reader: inout Reader) throws -> SchemaColumn {
        var name: String?, type: SchemaColumn.StorageType?, notNull: Bool?
        var defaultSQL: String?, renamedFrom: String?, convertedFromJoinTable: String?, valueType: ValueType?,
            lossyConversionFrom: ValueType?
        var reusesName: Bool?, extractedFrom: String?, jsonPath: String?, caseChanges: [EnumCaseChange]?, jsonStructChange: String?
        var compositeGroup: [String]?, requiredWhenPresent: Bool?, declaredType: String?, collation: String?, notNullConflict: String?
        var check: String?, generatedSQL: String?, generatedStored: Bool?
        try reader.object { reader, key in
            switch key {
            case "name": name = try reader.string()
            case "type":
                let text = try reader.string()
                guard let value = SchemaColumn.StorageType(rawValue: text) else { throw reader.failure("unknown column type \(text)") }
                type = value
            case "notNull": notNull = try reader.bool()
            case "defaultSQL": defaultSQL = try reader.optionalString()
            case "renamedFrom": renamedFrom = try reader.optionalString()
            case "convertedFromJoinTable": convertedFromJoinTable = try reader.optionalString()
            case "valueType": valueType = try reader.optionalString().map(ValueType.init)
            case "lossyConversionFrom": lossyConversionFrom = try reader.optionalString().map(ValueType.init)
            case "reusesName": reusesName = try reader.optionalBool()
            case "extractedFrom": extractedFrom = try reader.optionalString()
            case "jsonPath": jsonPath = try reader.optionalString()
            case "jsonStructChange": jsonStructChange = try reader.optionalString()
            case "compositeGroup": compositeGroup = try reader.array { try $0.string() }
            case "requiredWhenPresent": requiredWhenPresent = try reader.optionalBool()
            case "caseChanges": caseChanges = try reader.array { try caseChange(&$0) }
            case "declaredType": declaredType = try reader.optionalString()
            case "collation": collation = try reader.optionalString()
            case "notNullConflict": notNullConflict = try reader.optionalString()
            case "check": check = try reader.optionalString()
            case "generatedSQL": generatedSQL = try reader.optionalString()
            case "generatedStored": generatedStored = try reader.optionalBool()
            default: try reader.skipValue()
            }
        }
        var column = SchemaColumn(
            name: try required(name, "name", reader), type: try required(type, "type", reader),
            notNull: try required(notNull, "notNull", reader),
            defaultSQL: defaultSQL, renamedFrom: renamedFrom, convertedFromJoinTable: convertedFromJoinTable, valueType: valueType,
            lossyConversionFrom: lossyConversionFrom, reusesName: reusesName, extractedFrom: extractedFrom, jsonPath: jsonPath,
            caseChanges: caseChanges,
            jsonStructChange: jsonStructChange, compositeGroup: compositeGroup, requiredWhenPresent: requiredWhenPresent
        )
        .declared(declaredType)
        column.collation = collation
        column.notNullConflict = notNullConflict
        column.check = check
        column.generatedSQL = generatedSQL
        column.generatedStored = generatedStored
        return column
    }

    private static func caseChange(_ reader: inout Reader) throws -> EnumCaseChange {
        var from: String?, to: String?, removed: Bool?, byApp: Bool?
        try reader.object { reader, key in
            switch key {
            case "from": from = try reader.string()
            case "to": to = try reader.optionalString()
            case "removed": removed = try reader.optionalBool()
            case "byApp": byApp = try reader.optionalBool()
            default: try reader.skipValue()
            }
        }
        var change = EnumCaseChange(from: try required(from, "from", reader), to: to, removed: removed == true)
        change.byApp = byApp
        return change
    }

    private static func foreignKey(_ reader: inout Reader) throws -> SchemaForeignKey {
        var columns: [String]?, table: String?, tableColumns: [String]?, onDelete: SchemaForeignKey.Action?,
            onUpdate: SchemaForeignKey.Action?
        try reader.object { reader, key in
            switch key {
            case "columns": columns = try reader.strings()
            case "table": table = try reader.string()
            case "tableColumns": tableColumns = try reader.strings()
            case "onDelete":
                let text = try reader.string()
                guard let value = SchemaForeignKey.Action(rawValue: text) else { throw reader.failure("unknown ON DELETE action \(text)") }
                onDelete = value
            case "onUpdate":
                let text = try reader.string()
                guard let value = SchemaForeignKey.Action(rawValue: text) else { throw reader.failure("unknown ON UPDATE action \(text)") }
                onUpdate = value
            default: try reader.skipValue()
            }
        }
        return SchemaForeignKey(
            columns: try required(columns, "columns", reader), table: try required(table, "table", reader),
            tableColumns: try required(tableColumns, "tableColumns", reader), onDelete: try required(onDelete, "onDelete", reader),
            onUpdate: onUpdate)
    }

    private static func index(_ reader: inout Reader) throws -> SchemaIndex {
        var name: String?, columns: [String]?, unique: Bool?, onConflict: String?
        try reader.object { reader, key in
            switch key {
            case "name": name = try reader.string()
            case "columns": columns = try reader.strings()
            case "unique": unique = try reader.bool()
            case "onConflict": onConflict = try reader.optionalString()
            default: try reader.skipValue()
            }
        }
        var index = SchemaIndex(
            name: try required(name, "name", reader), columns: try required(columns, "columns", reader),
            unique: try required(unique, "unique", reader))
        index.onConflict = onConflict
        return index
    }

    private static func required<T>(_ value: T?, _ key: String, _ reader: Reader) throws -> T {
        guard let value else { throw reader.failure("missing \(key)") }
        return value
    }

    // MARK: Syntax

    /// Over NUL-terminated UTF-8 (the terminator ends every scan without a bounds check of its own).
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var peek: UInt8 { bytes[position] }

        func failure(_ message: String) -> Failure { Failure(description: "\(message) at byte \(position)") }

        mutating func skipSpace() {
            while true {
                switch peek {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        mutating func expect(_ byte: UInt8) throws {
            skipSpace()
            guard peek == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
            position += 1
        }

        /// `{ "key": value, … }`: `body` reads each key's value.
        mutating func object(_ body: (inout Reader, String) throws -> Void) throws {
            try expect(UInt8(ascii: "{"))
            skipSpace()
            if peek == UInt8(ascii: "}") {
                position += 1
                return
            }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw failure("expected a key") }
                let key = try quoted()
                try expect(UInt8(ascii: ":"))
                try body(&self, key)
                skipSpace()
                if peek == UInt8(ascii: ",") { position += 1; continue }
                try expect(UInt8(ascii: "}"))
                return
            }
        }

        /// `[ item, … ]`.
        mutating func array<T>(_ item: (inout Reader) throws -> T) throws -> [T] {
            try expect(UInt8(ascii: "["))
            var items: [T] = []
            skipSpace()
            if peek == UInt8(ascii: "]") {
                position += 1
                return items
            }
            while true {
                items.append(try item(&self))
                skipSpace()
                if peek == UInt8(ascii: ",") { position += 1; continue }
                try expect(UInt8(ascii: "]"))
                return items
            }
        }

        mutating func strings() throws -> [String] { try array { try $0.string() } }

        mutating func string() throws -> String {
            guard let text = try optionalString() else { throw failure("expected a string") }
            return text
        }

        mutating func optionalString() throws -> String? {
            skipSpace()
            if peek == UInt8(ascii: "n") {
                try word("null")
                return nil
            }
            guard peek == UInt8(ascii: "\"") else { throw failure("expected a string") }
            return try quoted()
        }

        mutating func bool() throws -> Bool {
            guard let flag = try optionalBool() else { throw failure("expected a boolean") }
            return flag
        }

        mutating func optionalBool() throws -> Bool? {
            skipSpace()
            switch peek {
            case UInt8(ascii: "t"): try word("true"); return true
            case UInt8(ascii: "f"): try word("false"); return false
            case UInt8(ascii: "n"): try word("null"); return nil
            default: throw failure("expected a boolean")
            }
        }

        /// Any value, unread (an unknown key's).
        mutating func skipValue() throws {
            skipSpace()
            switch peek {
            case UInt8(ascii: "{"): try object { reader, _ in try reader.skipValue() }
            case UInt8(ascii: "["): _ = try array { try $0.skipValue() }
            case UInt8(ascii: "\""): _ = try quoted()
            case UInt8(ascii: "t"): try word("true")
            case UInt8(ascii: "f"): try word("false")
            case UInt8(ascii: "n"): try word("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                while true {
                    switch peek {
                    case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"),
                        UInt8(ascii: "0")...UInt8(ascii: "9"):
                        position += 1
                    default:
                        return
                    }
                }
            default:
                throw failure("unexpected character")
            }
        }

        private mutating func word(_ text: StaticString) throws {
            let count = text.utf8CodeUnitCount
            for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] {
                throw failure("expected \(text)")
            }
            position += count
        }

        /// A string at `position` (its opening quote), escapes decoded.
        mutating func quoted() throws -> String {
            position += 1
            let start = position
            // The common case: no escape, so the bytes are the string.
            while true {
                let byte = peek
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                    position += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte == 0 { throw failure("unterminated string") }
                position += 1
            }
            var scalars = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while true {
                let byte = peek
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    return String(decoding: scalars, as: UTF8.self)
                case 0:
                    throw failure("unterminated string")
                case UInt8(ascii: "\\"):
                    position += 1
                    let escape = peek
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append(0x22)
                    case UInt8(ascii: "\\"): scalars.append(0x5C)
                    case UInt8(ascii: "/"): scalars.append(0x2F)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800..<0xDC00).contains(code) {
                            // A surrogate pair: the low half must follow.
                            guard peek == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                                throw failure("lone surrogate")
                            }
                            position += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw failure("invalid surrogate pair") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw failure("invalid \\u escape") }
                        scalars.append(contentsOf: String(Character(scalar)).utf8)
                    default:
                        throw failure("invalid escape")
                    }
                default:
                    scalars.append(byte)
                    position += 1
                }
            }
        }

        private mutating func hex4() throws -> UInt32 {
            var code: UInt32 = 0
            for _ in 0..<4 {
                let byte = peek
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw failure("invalid \\u escape")
                }
                code = code << 4 | digit
                position += 1
            }
            return code
        }
    }
}
