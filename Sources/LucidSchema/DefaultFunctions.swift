extension SchemaColumn {
    /// The functions its default calls (lower-cased, in order, each once): `["uuid"]` for SQLiteData's
    /// `DEFAULT (uuid())`, `[]` for a literal. SQLite resolves them when it prepares any INSERT into the table
    /// (a rebuild's copy too, though every column is given), so a step that creates, rebuilds or fills the table
    /// needs each on its connection: the runtime checks before the step's first change.
    package var calledFunctions: [String] {
        guard let sql = defaultSQL else { return [] }
        return Self.calledFunctions(in: sql)
    }

    /// The names followed by `(` in `sql`, outside string literals and quoted names (lower-cased, each once).
    package static func calledFunctions(in sql: String) -> [String] {
        var names: [String] = []
        let scalars = Array(sql.unicodeScalars)
        var index = 0
        func isWordStart(_ c: Unicode.Scalar) -> Bool { (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" }
        func isWord(_ c: Unicode.Scalar) -> Bool { isWordStart(c) || (c >= "0" && c <= "9") || c == "$" }
        while index < scalars.count {
            let c = scalars[index]
            if c == "'" || c == "\"" || c == "`" || c == "[" {
                let close: Unicode.Scalar = c == "[" ? "]" : c
                index += 1
                while index < scalars.count, scalars[index] != close { index += 1 }
                index += 1
            } else if isWordStart(c) {
                var word = ""
                while index < scalars.count, isWord(scalars[index]) {
                    word.unicodeScalars.append(scalars[index])
                    index += 1
                }
                var next = index
                while next < scalars.count, scalars[next] == " " || scalars[next] == "\t" || scalars[next] == "\n" { next += 1 }
                if next < scalars.count, scalars[next] == "(", !names.contains(word.lowercased()) { names.append(word.lowercased()) }
            } else if c >= "0" && c <= "9" {
                while index < scalars.count, isWord(scalars[index]) || scalars[index] == "." { index += 1 }
            } else {
                index += 1
            }
        }
        return names
    }
}
