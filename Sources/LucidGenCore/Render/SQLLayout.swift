/// Lays out a SQL statement for the generated registry's documentation (a ```` ```sql ```` block in a doc
/// comment), within a width: a `CREATE TABLE` that does not fit on one line gets one column or
/// constraint per line, a trigger one statement of its body per line, and a line still too long is
/// wrapped at spaces outside quotes and parentheses where it can be (else at spaces outside quotes). Only
/// whitespace between tokens changes: the lines read as the same statement.
enum SQLLayout {
    /// The lines of `statement` followed by `;`, each at most `width` characters where a break allows it.
    static func lines(_ statement: String, width: Int) -> [String] {
        let whole = statement + ";"
        if whole.count <= width { return [whole] }
        let characters = Array(statement)
        let scan = Scan(characters)
        var lines: [String] = []
        if statement.uppercased().hasPrefix("CREATE TABLE"), let open = scan.firstOpening(), let close = scan.closing(of: open) {
            lines.append(String(characters[...open]))
            let items = scan.split(from: open + 1, to: close, at: ",", depth: 1)
            for (index, item) in items.enumerated() {
                lines.append("    " + item.trimmingSpaces + (index < items.count - 1 ? "," : ""))
            }
            lines.append(String(characters[close...]).trimmingSpaces + ";")
        } else if let begin = scan.keyword("BEGIN"), let end = scan.lastKeyword("END"), begin < end {
            lines.append(String(characters[..<(begin + 5)]).trimmingSpaces)
            for body in scan.split(from: begin + 5, to: end, at: ";", depth: 0) where !body.trimmingSpaces.isEmpty {
                lines.append("    " + body.trimmingSpaces + ";")
            }
            lines.append(String(characters[end...]).trimmingSpaces + ";")
        } else {
            lines.append(whole)
        }
        return lines.flatMap { wrapped($0, width: width) }
    }

    /// `line` broken at spaces (continuation lines indented 4 more than it), preferring spaces outside
    /// parentheses: each piece as long as fits, a piece with no break in reach stays long.
    private static func wrapped(_ line: String, width: Int) -> [String] {
        guard line.count > width else { return [line] }
        let characters = Array(line)
        let indent = characters.prefix { $0 == " " }.count
        let scan = Scan(characters)
        let outside = scan.spaces(maxDepth: 0).filter { $0 > indent }
        let anyDepth = scan.spaces(maxDepth: Int.max).filter { $0 > indent }
        var result: [String] = []
        var start = 0
        var prefix = ""
        while prefix.count + characters.count - start > width {
            let limit = start + width - prefix.count
            let candidates = outside.filter { $0 > start && $0 <= limit }
            guard
                let space = candidates.last ?? anyDepth.last(where: { $0 > start && $0 <= limit })
                    ?? outside.first(where: { $0 > start }) ?? anyDepth.first(where: { $0 > start })
            else { break }
            result.append(prefix + String(characters[start..<space]))
            start = space + 1
            prefix = String(repeating: " ", count: indent + 4)
        }
        result.append(prefix + String(characters[start...]))
        return result
    }

    /// Where each character of a statement is: inside a quoted name or string (`"…"`, `'…'`, `` `…` ``,
    /// `[…]`) or not, and at which depth of parentheses.
    private struct Scan {
        let characters: [Character]
        /// Per character: nil inside quotes, else the parenthesis depth before it.
        let depth: [Int?]

        init(_ characters: [Character]) {
            self.characters = characters
            var depth: [Int?] = []
            var level = 0
            var quote: Character?
            for character in characters {
                if let open = quote {
                    depth.append(nil)
                    // A doubled quote closes and reopens: the same result.
                    if character == (open == "[" ? "]" : open) { quote = nil }
                    continue
                }
                switch character {
                case "\"", "'", "`", "[":
                    depth.append(nil)
                    quote = character
                case "(":
                    depth.append(level)
                    level += 1
                case ")":
                    level -= 1
                    depth.append(level)
                default:
                    depth.append(level)
                }
            }
            self.depth = depth
        }

        func firstOpening() -> Int? {
            characters.indices.first { characters[$0] == "(" && depth[$0] == 0 }
        }

        func closing(of open: Int) -> Int? {
            ((open + 1)..<characters.count).first { characters[$0] == ")" && depth[$0] == depth[open] }
        }

        /// The text between `from` and `to` split at each `separator` at `depth` outside quotes.
        func split(from: Int, to: Int, at separator: Character, depth wanted: Int) -> [String] {
            var parts: [String] = []
            var start = from
            for index in from..<to where characters[index] == separator && depth[index] == wanted {
                parts.append(String(characters[start..<index]))
                start = index + 1
            }
            parts.append(String(characters[start..<to]))
            return parts
        }

        /// The positions of the spaces outside quotes at parenthesis depth `maxDepth` or less.
        func spaces(maxDepth: Int) -> [Int] {
            characters.indices.filter { characters[$0] == " " && (depth[$0].map { $0 <= maxDepth } ?? false) }
        }

        /// The first position of `word` as a whole word outside quotes and parentheses.
        func keyword(_ word: String) -> Int? {
            positions(of: word).first
        }

        func lastKeyword(_ word: String) -> Int? {
            positions(of: word).last
        }

        private func positions(of word: String) -> [Int] {
            let letters = Array(word)
            func isWordCharacter(_ index: Int) -> Bool {
                characters.indices.contains(index) && (characters[index].isLetter || characters[index].isNumber || characters[index] == "_")
            }
            guard characters.count >= letters.count else { return [] }
            return (0...(characters.count - letters.count)).filter { start in
                depth[start] == 0 && !isWordCharacter(start - 1) && !isWordCharacter(start + letters.count)
                    && (0..<letters.count).allSatisfy { characters[start + $0].uppercased() == String(letters[$0]) }
            }
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
