@_spi(Generated) import LucidSchema

/// Reads the members of one JSON (or YAML) object by key, reporting each problem with its place.
///
/// Keys are accepted in snake_case or camelCase (`version_history` or `versionHistory`), as Lucid
/// accepts both. The reader is told the keys valid at its place (`known`) and the keys it accepts and
/// ignores (`ignored`, each with why). After reading, ``finish(_:)`` reports the keys that are neither:
/// one that looks like a typo of a known key (``KeySuggestion``: within two edits, or the same key in
/// another case convention) is an error suggesting it, since leaving it out would silently change what is generated;
/// any other a warning (an error in a strict reader). A known key left unread (decoding stopped at an
/// earlier error) is not reported: it is not what is wrong.
struct ObjectReader {
    let node: JSONNode
    /// What the object is, for messages: `a property`, then `property 'title'` once its name is read.
    var what: String
    private let known: [String]
    private let ignored: [String: String]
    /// In a strict reader every key matters: an unknown key is an error even when it resembles no known key.
    private let strict: Bool
    private var members: [String: JSONNode.Member] = [:]
    private var order: [String] = []
    private var consumed: Set<String> = []

    /// Returns nil (and reports an error) when `node` is not an object. `known` and the keys of `ignored`
    /// are snake_case.
    init?(
        _ node: JSONNode, what: String, known: [String], ignored: [String: String] = [:], strict: Bool = false,
        diagnostics: inout DiagnosticCollector
    ) {
        guard case .object(let list) = node.value else {
            diagnostics.error("\(what) must be an object, found \(node.kindName)", at: node.location, path: node.path)
            return nil
        }
        self.node = node
        self.what = what
        self.known = known
        self.ignored = ignored
        self.strict = strict
        for member in list {
            let key = Self.normalize(member.key)
            if let existing = members[key] {
                diagnostics.error(
                    "key '\(member.key)' repeats '\(existing.key)' (snake_case and camelCase spell the same key)",
                    at: member.keyLocation, path: member.value.path)
                continue
            }
            members[key] = member
            order.append(key)
        }
    }

    /// `versionHistory` → `version_history`.
    static func normalize(_ key: String) -> String {
        // Nearly every key is snake_case already: no ASCII capital, no Character walk (a description's keys are
        // read once each, 2,000 descriptions of 20 properties are ~300,000 keys).
        if key.utf8.allSatisfy({ $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) }) { return key }
        var result = ""
        for character in key {
            if character.isUppercase {
                if !result.isEmpty { result.append("_") }
                result.append(contentsOf: character.lowercased())
            } else {
                result.append(character)
            }
        }
        return result
    }

    mutating func value(_ key: String) -> JSONNode? {
        assert(known.contains(key), "'\(key)' is read but not among the known keys of \(what)")
        consumed.insert(key)
        return members[key]?.value
    }

    func has(_ key: String) -> Bool { members[key] != nil }

    /// Where `key` is written (its name, not its value).
    func keyLocation(_ key: String) -> SourceLocation? { members[key]?.keyLocation }

    mutating func string(_ key: String, required: Bool = false, _ diagnostics: inout DiagnosticCollector) -> String? {
        guard let value = value(key) else {
            if required { diagnostics.error("missing required key '\(key)'", at: node.location, path: node.path) }
            return nil
        }
        guard case .string(let text) = value.value else {
            diagnostics.error("'\(key)' must be a string, found \(value.kindName)", at: value.location, path: value.path)
            return nil
        }
        return text
    }

    /// A string that must stay on one line of generated code (`organization_name`, a search's `tokenizer`):
    /// a control character or a line break in it is an error (`why` says where the text goes).
    mutating func singleLineString(_ key: String, why: String, _ diagnostics: inout DiagnosticCollector) -> String? {
        guard let text = string(key, &diagnostics), let node = value(key) else { return nil }
        return Self.checkSingleLine(text, key: key, why: why, at: node, &diagnostics) ? text : nil
    }

    /// Whether `text` (the value of `key` at `node`) holds no control character or line break; reports the first one.
    static func checkSingleLine(_ text: String, key: String, why: String, at node: JSONNode, _ diagnostics: inout DiagnosticCollector)
        -> Bool
    {
        guard let (offset, scalar) = text.unicodeScalars.enumerated().first(where: { isControlOrLineBreak($0.element) }) else {
            return true
        }
        let code =
            "U+" + String(repeating: "0", count: max(0, 4 - String(scalar.value, radix: 16).count))
            + String(scalar.value, radix: 16, uppercase: true)
        diagnostics.error(
            "'\(key)' may not contain control characters or line breaks (found \(code) at character \(offset + 1)): \(why)",
            at: node.location, path: node.path)
        return false
    }

    /// Control characters (C0, DEL, C1 with U+0085 NEXT LINE) and the Unicode line and paragraph separators.
    static func isControlOrLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    mutating func bool(_ key: String, _ diagnostics: inout DiagnosticCollector) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value.value else {
            diagnostics.error("'\(key)' must be true or false, found \(value.kindName)", at: value.location, path: value.path)
            return nil
        }
        return flag
    }

    mutating func array(_ key: String, _ diagnostics: inout DiagnosticCollector) -> [JSONNode]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value.value else {
            diagnostics.error("'\(key)' must be an array, found \(value.kindName)", at: value.location, path: value.path)
            return nil
        }
        return elements
    }

    mutating func strings(_ key: String, _ diagnostics: inout DiagnosticCollector) -> [String]? {
        guard let elements = array(key, &diagnostics) else { return nil }
        return elements.compactMap { element in
            guard case .string(let text) = element.value else {
                diagnostics.error("'\(key)' must list strings, found \(element.kindName)", at: element.location, path: element.path)
                return nil
            }
            return text
        }
    }

    /// Strings that must each stay on one line of generated code (a stage's `notes`): an element that is no
    /// string, or holds a control character or a line break, is an error at its place and left out.
    mutating func singleLineStrings(_ key: String, why: String, _ diagnostics: inout DiagnosticCollector) -> [String]? {
        guard let elements = array(key, &diagnostics) else { return nil }
        return elements.compactMap { element in
            guard case .string(let text) = element.value else {
                diagnostics.error("'\(key)' must list strings, found \(element.kindName)", at: element.location, path: element.path)
                return nil
            }
            return Self.checkSingleLine(text, key: key, why: why, at: element, &diagnostics) ? text : nil
        }
    }

    /// A version, written as a string (`"1.2"`) or, in YAML, as a bare number (`1.2`).
    mutating func version(_ key: String, _ diagnostics: inout DiagnosticCollector) -> SchemaVersion? {
        guard let value = value(key) else { return nil }
        return Self.version(from: value, key: key, &diagnostics)
    }

    static func version(from value: JSONNode, key: String, _ diagnostics: inout DiagnosticCollector) -> SchemaVersion? {
        let text: String
        switch value.value {
        case .string(let string): text = string
        case .number(let number): text = number
        default:
            diagnostics.error(
                "'\(key)' must be a version string such as \"1.2\", found \(value.kindName)", at: value.location, path: value.path)
            return nil
        }
        do {
            return try SchemaVersion(parsing: text)
        } catch {
            diagnostics.error(error.description, at: value.location, path: value.path)
            return nil
        }
    }

    /// The first of `keys` that is present; a later one present too is ignored, with a warning saying
    /// `why` (a key and its legacy spelling, `nullable` and `optional`, or keys that exclude each other).
    mutating func firstPresent(of keys: [String], why: String = "the same key's legacy spelling", _ diagnostics: inout DiagnosticCollector)
        -> String?
    {
        let present = keys.filter { has($0) }
        for extra in present.dropFirst() {
            let member = members[extra]!
            consumed.insert(extra)
            diagnostics.warning(
                "key '\(member.key)' is ignored: '\(members[present[0]]!.key)' is given (\(why))", at: member.keyLocation,
                path: member.value.path)
        }
        return present.first
    }

    /// The first of a key and its legacy spellings that is present, as ``firstPresent(of:why:_:)``.
    mutating func bool(firstOf keys: [String], _ diagnostics: inout DiagnosticCollector) -> Bool? {
        guard let key = firstPresent(of: keys, &diagnostics) else { return nil }
        return bool(key, &diagnostics)
    }

    mutating func string(firstOf keys: [String], _ diagnostics: inout DiagnosticCollector) -> String? {
        guard let key = firstPresent(of: keys, &diagnostics) else { return nil }
        return string(key, &diagnostics)
    }

    /// Reports the keys that are neither known nor ignored, and notes the ignored ones.
    func finish(_ diagnostics: inout DiagnosticCollector) {
        for key in order where !consumed.contains(key) && !known.contains(key) {
            let member = members[key]!
            if let reason = ignored[key] {
                diagnostics.note("ignored key '\(member.key)': \(reason)", at: member.keyLocation, path: member.value.path)
            } else if let suggestion = KeySuggestion.nearest(to: member.key, among: known) {
                diagnostics.error(
                    "unknown key '\(member.key)' in \(what); did you mean '\(suggestion)'?", at: member.keyLocation, path: member.value.path
                )
            } else if strict {
                diagnostics.error(
                    "unknown key '\(member.key)' in \(what) (known keys: \(known.joined(separator: ", ")))", at: member.keyLocation,
                    path: member.value.path)
            } else {
                diagnostics.warning("unknown key '\(member.key)' is ignored", at: member.keyLocation, path: member.value.path)
            }
        }
    }
}
