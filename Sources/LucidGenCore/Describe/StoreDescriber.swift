import Foundation
@_spi(Generated) import LucidSchema

/// `lucidgen describe`: the descriptions of the tables a store already has, so that lucidgen adopts the store
/// as it is, with no hand edits. The inverse of Resolve for one version: each table with a single-column
/// primary key becomes an entity (its name, and its columns' names, in snake_case with the store's spelling as
/// `persisted_name`), each column a property typed by its storage class (or by a hint), each single-column
/// foreign key to another table's key a to-one relationship with its `ON DELETE` action, each index an
/// `indexes` item with its name, `AUTOINCREMENT` the identifier's. Nothing is guessed silently: what it
/// cannot describe faithfully is a finding, and tables it cannot describe stay the app's.
package struct StoreDescriber {
    /// A column's declared type as the store has it, when it is none of SQLite's four storage classes
    /// (GRDB writes `BOOLEAN`, `DATETIME`, `DOUBLE`…): `table.column` (lower-cased) → declared type.
    package var declaredTypes: [String: String] = [:]
    /// `--type table.column=date`: the description type of a column SQLite cannot tell (lower-cased key).
    package var typeHints: [String: String] = [:]

    package init(declaredTypes: [String: String] = [:], typeHints: [String: String] = [:]) {
        self.declaredTypes = declaredTypes
        self.typeHints = typeHints
    }

    /// One description file to write, and what describing the store found.
    package struct Output: Sendable {
        /// Entity name → the description's JSON text.
        package var entities: [(name: String, json: String)] = []
        /// What the descriptions do not say as the store has it (the store will not be recognised until it is resolved).
        package var problems: [String] = []
        /// What the descriptions say that SQLite does not store (a type from a hint, a default written as a value).
        package var notes: [String] = []
        /// Tables left to the app, with why.
        package var appTables: [(name: String, why: String)] = []
    }

    package func describe(_ tables: [SchemaTable], version: SchemaVersion) -> Output {
        var output = Output()
        let entityTables = tables.filter { $0.primaryKey.count == 1 && $0.column(named: $0.primaryKey[0]) != nil }
        for table in tables where !entityTables.contains(where: { $0.name == table.name }) {
            output.appTables.append((table.name, table.primaryKey.isEmpty
                ? "it has no declared primary key (lucidgen's entities are keyed)"
                : "its primary key has \(table.primaryKey.count) columns (a link table: describing it as a to-many relationship is not done yet)"))
        }
        let keyed = Dictionary(entityTables.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        for table in entityTables {
            output.entities.append((Self.snakeCase(table.name), entity(table, keyed: keyed, version: version, &output)))
        }
        return output
    }

    private func entity(_ table: SchemaTable, keyed: [String: SchemaTable], version: SchemaVersion, _ output: inout Output) -> String {
        let name = Self.snakeCase(table.name)
        let key = table.column(named: table.primaryKey[0])!
        var object: [(String, String)] = [("name", Self.json(name))]
        if name != table.name { object.append(("persisted_name", Self.json(table.name))) }
        // The identifier: lucidgen's `id` column, or the property that is the key.
        let keyType: String
        switch key.type {
        case .integer: keyType = "int"
        case .text: keyType = "string"
        default:
            keyType = "string"
            output.problems.append("table \(table.name): its primary key \(key.name) is \(key.type.rawValue); lucidgen's identifiers are INTEGER or TEXT")
        }
        let autoincrement = table.autoincrement == true ? #", "autoincrement": true"# : ""
        if key.name == "id" {
            object.append(("identifier", #"{ "type": "\#(keyType)"\#(autoincrement) }"#))
        } else {
            object.append(("identifier", #"{ "type": "property", "property_name": \#(Self.json(Self.snakeCase(key.name))) }"#))
            if !autoincrement.isEmpty { output.problems.append("table \(table.name): AUTOINCREMENT on \(key.name), a key that is a property, cannot be described (name the key column id)") }
        }
        object.append(("version_history", #"[{ "version": \#(Self.json(version.string)) }]"#))

        // To-one relationships: single-column foreign keys to another table's key.
        var relationships: [String: (target: SchemaTable, key: SchemaForeignKey)] = [:]
        for foreignKey in table.foreignKeys {
            guard foreignKey.columns.count == 1, let target = keyed[foreignKey.table.lowercased()],
                foreignKey.tableColumns.isEmpty || (foreignKey.tableColumns.count == 1 && sameSQLName(foreignKey.tableColumns[0], target.primaryKey[0]))
            else {
                output.problems.append("table \(table.name): its foreign key (\(foreignKey.columns.joined(separator: ", "))) → \(foreignKey.table) is not a single column referencing a described table's key")
                continue
            }
            relationships[foreignKey.columns[0].lowercased()] = (target, foreignKey)
        }
        var properties: [String] = []
        var propertyNames: [String: String] = [:]
        if key.name != "id" { propertyNames[key.name.lowercased()] = Self.snakeCase(key.name) }
        for column in table.columns {
            let propertyName = Self.snakeCase(column.name)
            propertyNames[column.name.lowercased()] = propertyName
            if key.name == "id" && sameSQLName(column.name, key.name) { continue }
            var fields: [(String, String)] = [("name", Self.json(propertyName))]
            if propertyName != column.name { fields.append(("persisted_name", Self.json(column.name))) }
            let path = "\(table.name).\(column.name)".lowercased()
            if let (target, foreignKey) = relationships[column.name.lowercased()] {
                fields.append(("property_type", #"{ "entity_name": \#(Self.json(Self.snakeCase(target.name))), "association": "to_one" }"#))
                if !column.notNull { fields.append(("nullable", "true")) }
                let standard: SchemaForeignKey.Action = column.notNull ? .cascade : .setNull
                if foreignKey.onDelete != standard { fields.append(("on_delete", Self.json(Self.actionName(foreignKey.onDelete)))) }
            } else {
                let declared = declaredTypes[path]
                let type = typeHints[path] ?? declared.map(Self.typeName(declared:)) ?? Self.typeName(column.type)
                if let hint = typeHints[path] { output.notes.append("\(table.name).\(column.name): described as \(hint) (--type), stored as \(column.type.rawValue)") }
                if let declared {
                    output.problems.append("\(table.name).\(column.name): declared \(declared), which lucidgen does not describe yet: described as \(type), so the store's column and the description's differ")
                }
                fields.append(("property_type", Self.json(type)))
                if !column.notNull && !(key.name != "id" && sameSQLName(column.name, key.name)) { fields.append(("nullable", "true")) }
                if let defaultSQL = column.defaultSQL {
                    if let value = Self.defaultValue(defaultSQL, type: column.type) {
                        fields.append(("default_value", value))
                    } else {
                        output.problems.append("\(table.name).\(column.name): its default \(defaultSQL) is an expression, which lucidgen does not describe yet")
                    }
                }
            }
            properties.append("{ " + fields.map { "\(Self.json($0.0)): \($0.1)" }.joined(separator: ", ") + " }")
        }
        object.append(("properties", "[\n    " + properties.joined(separator: ",\n    ") + "\n  ]"))

        // Every index, by its name; a to-one's only when the store names it otherwise than lucidgen would.
        var indexes: [String] = []
        for index in table.indexes {
            let names = index.columns.map { propertyNames[$0.lowercased()] ?? Self.snakeCase($0) }
            let standard = ShapeBuilder.defaultIndexName(table: table.name, columns: index.columns, unique: index.unique)
            if index.columns.count == 1, !index.unique, relationships[index.columns[0].lowercased()] != nil, index.name == standard { continue }
            var fields = [("properties", "[" + names.map(Self.json).joined(separator: ", ") + "]")]
            if index.unique { fields.append(("unique", "true")) }
            if index.name != standard { fields.append(("name", Self.json(index.name))) }
            indexes.append("{ " + fields.map { "\(Self.json($0.0)): \($0.1)" }.joined(separator: ", ") + " }")
        }
        for column in relationships.keys.sorted() where !table.indexes.contains(where: { $0.columns.count == 1 && $0.columns[0].lowercased() == column }) {
            output.problems.append("table \(table.name): lucidgen indexes every to-one column, and the store has no index on \(column)")
        }
        if !indexes.isEmpty { object.append(("indexes", "[\n    " + indexes.joined(separator: ",\n    ") + "\n  ]")) }
        return "{\n" + object.map { "  \(Self.json($0.0)): \($0.1)" }.joined(separator: ",\n") + "\n}\n"
    }

    /// `roomId` → `room_id`, `Item` → `item`, `item_name` stays.
    package static func snakeCase(_ name: String) -> String {
        var result = ""
        var previous: Character?
        for character in name {
            if character.isUppercase {
                if let previous, previous.isLowercase || previous.isNumber { result += "_" }
                result += character.lowercased()
            } else {
                result.append(character == "-" || character == " " ? "_" : character)
            }
            previous = character
        }
        return result
    }

    static func typeName(_ type: SchemaColumn.StorageType) -> String {
        switch type {
        case .integer: "int"
        case .real: "double"
        case .text: "string"
        case .blob: "data"
        }
    }

    /// The description type of a declared type that is none of the four storage classes, by SQLite's
    /// affinity rules (https://sqlite.org/datatype3.html, 3.1), with GRDB's BOOLEAN and DATETIME as bool and date.
    static func typeName(declared: String) -> String {
        let upper = declared.uppercased()
        if upper.contains("INT") { return "int" }
        if upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT") { return "string" }
        if upper.contains("BLOB") || upper.isEmpty || upper == "WITH NO TYPE" { return "data" }
        if upper.contains("REAL") || upper.contains("FLOA") || upper.contains("DOUB") { return "double" }
        if upper.contains("BOOL") { return "bool" }
        if upper.contains("DATE") || upper.contains("TIME") { return "date" }
        return "double"
    }

    static func actionName(_ action: SchemaForeignKey.Action) -> String {
        switch action {
        case .cascade: "cascade"
        case .setNull: "set_null"
        case .setDefault: "set_default"
        case .restrict: "restrict"
        case .noAction: "no_action"
        }
    }

    /// A SQL literal default as a description value (JSON), or nil for an expression.
    static func defaultValue(_ sql: String, type: SchemaColumn.StorageType) -> String? {
        var text = sql.trimmingCharacters(in: .whitespaces)
        while text.hasPrefix("("), text.hasSuffix(")") { text = String(text.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces) }
        if text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") {
            return json(String(text.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'"))
        }
        if type == .integer, Int64(text) != nil { return text }
        if type == .real, Double(text) != nil { return text }
        return nil
    }

    static func json(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
}
