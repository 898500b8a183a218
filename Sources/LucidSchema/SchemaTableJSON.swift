import Foundation

extension SchemaTable {
    /// A table from its JSON (`Codable`'s keys), the form generated registries write their tables in: a
    /// string literal costs the compiler nothing, where a long history's thousands of `SchemaColumn(…)`
    /// calls cost seconds of every build. Decoded when a schema is first built (a migration, never the
    /// launch of an up-to-date store). Invalid JSON is a broken generated file: a precondition failure
    /// naming the error.
    public init(json: String) {
        do {
            self = try JSONDecoder().decode(SchemaTable.self, from: Data(json.utf8))
        } catch {
            preconditionFailure("a generated table's JSON does not decode (regenerate with lucidgen generate): \(error)\n\(json)")
        }
    }

    /// The JSON `init(json:)` reads, one column per line (after the first line), in the order readers
    /// expect: name, kind, key, what is particular to the table, then columns, foreign keys and indexes.
    public func json(indent: String) -> String {
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
        let columnLines = columns.map { indent + "    " + encoded($0) }.joined(separator: ",\n")
        return head + ", \"columns\": [\n" + columnLines + "],\n" + indent + " \"foreignKeys\": \(encoded(foreignKeys)), \"indexes\": \(encoded(indexes))}"
    }
}
