import LucidSchema

/// Reads the members of one JSON (or YAML) object by key, reporting each problem with its place.
///
/// Keys are accepted in snake_case or camelCase (`version_history` or `versionHistory`), as Lucid
/// accepts both. After reading, ``finish(ignored:)`` reports keys that were never read: keys listed
/// as ignored get a note, any other key a warning naming it.
struct ObjectReader {
    let node: JSONNode
    private var members: [String: JSONNode.Member] = [:]
    private var order: [String] = []
    private var consumed: Set<String> = []

    /// Returns nil (and reports an error) when `node` is not an object.
    init?(_ node: JSONNode, what: String, diagnostics: inout DiagnosticCollector) {
        guard case .object(let list) = node.value else {
            diagnostics.error("\(what) must be an object, found \(node.kindName)", at: node.location, path: node.path)
            return nil
        }
        self.node = node
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
        consumed.insert(key)
        return members[key]?.value
    }

    func has(_ key: String) -> Bool { members[key] != nil }

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
            diagnostics.error("'\(key)' must be a version string such as \"1.2\", found \(value.kindName)", at: value.location, path: value.path)
            return nil
        }
        do {
            return try SchemaVersion(parsing: text)
        } catch {
            diagnostics.error(error.description, at: value.location, path: value.path)
            return nil
        }
    }

    /// Reports each key that was not read as an error: in objects whose every key matters (a typo there
    /// would silently change what is generated). `known` lists the keys, for the message.
    func finishStrictly(what: String, known: [String], _ diagnostics: inout DiagnosticCollector) {
        for key in order where !consumed.contains(key) {
            let member = members[key]!
            diagnostics.error(
                "unknown key '\(member.key)' in \(what) (known keys: \(known.joined(separator: ", ")))", at: member.keyLocation, path: member.value.path)
        }
    }

    /// Reports keys that were not read: `ignored` maps a key to why it is ignored.
    func finish(ignored: [String: String], _ diagnostics: inout DiagnosticCollector) {
        for key in order where !consumed.contains(key) {
            let member = members[key]!
            if let reason = ignored[key] {
                diagnostics.note("ignored key '\(member.key)': \(reason)", at: member.keyLocation, path: member.value.path)
            } else {
                diagnostics.warning("unknown key '\(member.key)' is ignored", at: member.keyLocation, path: member.value.path)
            }
        }
    }
}
