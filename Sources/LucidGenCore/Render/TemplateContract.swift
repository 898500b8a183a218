import Foundation

/// The keys of a template context struct and what each holds, read from the struct's type itself (its
/// synthesized `Decodable` conformance, decoded from a ``TemplateKeys/Recorder`` that notes each key asked
/// for): no list of names is kept by hand.
final class TemplateKeys: Sendable {
    /// `EntityContext.Property`.
    let typeName: String
    let fields: [(key: String, slot: Slot)]

    indirect enum Slot: Sendable {
        case text, number, flag
        case object(TemplateKeys)
        case list(Slot)
        case optional(Slot)
        /// A stored property of a type no template can render.
        case unsupported(String)

        /// Without `optional`.
        var unwrapped: Slot {
            if case .optional(let wrapped) = self { wrapped.unwrapped } else { self }
        }

        /// How `Templates.md` names it.
        var kindName: String {
            switch self {
            case .text: "text"
            case .number: "number"
            case .flag: "bool"
            case .object: "object"
            case .list(let element):
                switch element.unwrapped {
                case .text: "list of text"
                case .number: "list of numbers"
                default: "list"
                }
            case .optional(let wrapped): "optional \(wrapped.kindName)"
            case .unsupported(let type): "unsupported \(type)"
            }
        }
    }

    subscript(key: String) -> Slot? { fields.first { $0.key == key }?.slot }

    init(of type: any TemplateContext.Type) {
        let recorder = Recorder()
        _ = try? type.init(from: recorder)
        typeName = String(reflecting: type).replacingOccurrences(of: "LucidGenCore.", with: "")
        fields = recorder.fields
    }

    static func slot(of type: Any.Type) -> Slot {
        if type == String.self { return .text }
        if type == Bool.self { return .flag }
        if type == Int.self { return .number }
        if let optional = type as? any OptionalType.Type { return .optional(slot(of: optional.wrappedType)) }
        if let list = type as? any ListType.Type { return .list(slot(of: list.elementType)) }
        if let context = type as? any TemplateContext.Type { return .object(TemplateKeys(of: context)) }
        return .unsupported(String(describing: type))
    }

    /// Every object reachable from these keys by its path (`shapes.properties`), these keys at "".
    func scopes(at path: String = "") -> [(path: String, keys: TemplateKeys)] {
        var result = [(path, self)]
        for (key, slot) in fields {
            let nested: TemplateKeys? =
                switch slot.unwrapped {
                case .object(let keys): keys
                case .list(let element): if case .object(let keys) = element.unwrapped { keys } else { nil }
                default: nil
                }
            if let nested { result += nested.scopes(at: path.isEmpty ? key : "\(path).\(key)") }
        }
        return result
    }

    /// Decodes a context with a default value for every key, noting each key and its type.
    final class Recorder: Decoder {
        var fields: [(key: String, slot: Slot)] = []
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(Keyed(recorder: self))
        }

        func unkeyedContainer() -> any UnkeyedDecodingContainer { EmptyList() }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Unsupported() }
    }

    struct Unsupported: Error {}

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let recorder: Recorder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) -> Bool { true }

        private func note<T>(_ type: T.Type, _ key: Key, optional: Bool = false) {
            let slot = TemplateKeys.slot(of: type)
            recorder.fields.append((key.stringValue, optional ? .optional(slot) : slot))
        }

        func decode(_ type: String.Type, forKey key: Key) -> String {
            note(type, key)
            return ""
        }

        func decode(_ type: Bool.Type, forKey key: Key) -> Bool {
            note(type, key)
            return false
        }

        func decode(_ type: Int.Type, forKey key: Key) -> Int {
            note(type, key)
            return 0
        }

        /// A list (empty) or a nested context (itself recorded, the keys it notes thrown away).
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            note(type, key)
            return try T(from: Recorder())
        }

        func decodeIfPresent(_ type: String.Type, forKey key: Key) -> String? {
            note(type, key, optional: true)
            return nil
        }

        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) -> Bool? {
            note(type, key, optional: true)
            return nil
        }

        func decodeIfPresent(_ type: Int.Type, forKey key: Key) -> Int? {
            note(type, key, optional: true)
            return nil
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) -> T? {
            note(type, key, optional: true)
            return nil
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<
            NestedKey
        > {
            throw Unsupported()
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw Unsupported() }
        func superDecoder() throws -> any Decoder { throw Unsupported() }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw Unsupported() }
    }

    /// An empty list: a list's element type is read from the list's type.
    struct EmptyList: UnkeyedDecodingContainer {
        var codingPath: [any CodingKey] { [] }
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }

        mutating func decodeNil() -> Bool { true }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw Unsupported() }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            throw Unsupported()
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Unsupported() }
        mutating func superDecoder() throws -> any Decoder { throw Unsupported() }
    }
}

protocol OptionalType { static var wrappedType: Any.Type { get } }
extension Optional: OptionalType { static var wrappedType: Any.Type { Wrapped.self } }

protocol ListType { static var elementType: Any.Type { get } }
extension Array: ListType { static var elementType: Any.Type { Element.self } }

/// Checks that every name a Mustache template uses is a key of the context it is rendered with, as
/// swift-mustache looks it up: in the innermost section's item first, then in each enclosing one.
///
/// `generate` runs it on the templates an app gives with `templates_path` (``Renderer``): a name that is
/// no key would render as nothing, silently. The tests run it on the bundled ones.
struct TemplateContract {
    /// The context each bundled template is rendered with; `header` is every template's partial.
    static let contexts: [String: any TemplateContext.Type] = [
        "entity": EntityContext.self, "subtype": SubtypeContext.self, "schema": SchemaContext.self,
        "migrations": MigrationsContext.self, "tests": TestsContext.self, "header": HeaderContext.self,
    ]

    /// What a template's names are looked up in at its top level: its context, then the header's keys.
    static func frames(_ template: String) -> [Frame] {
        guard let context = contexts[template] else { return [] }
        let own = TemplateKeys(of: context)
        return template == "header" ? [.keys(own)] : [.keys(TemplateKeys(of: HeaderContext.self)), .keys(own)]
    }

    /// swift-mustache's transforms of a list's item (`{{index()}}`, `{{#first()}}`), named without an argument.
    static let sequenceTransforms: Set<String> = ["first()", "last()", "index()", "even()", "odd()"]

    /// A name the contexts lack, or a name used as what its key is not.
    struct Finding: CustomStringConvertible, Equatable {
        var template: String
        var line: Int
        var message: String
        /// The column of the tag's `{{` (1-based; 0 when the finding has no tag).
        var column = 0
        var description: String { "\(template).mustache:\(line): \(message)" }
    }

    /// The bundled templates by name, for partials (`{{> header}}`).
    var partials: [String: String] = [:]

    /// What a section pushes: an item with keys, or a string or number (`{{.}}`).
    enum Frame {
        case keys(TemplateKeys)
        case value
    }

    func check(_ name: String, text: String, frames: [Frame], including: Set<String> = []) -> [Finding] {
        var findings: [Finding] = []
        var frames = frames
        // Each open section: its name, and whether it pushed a frame.
        var open: [(name: String, pushed: Bool)] = []
        var checkedToEnd = true
        scan: for tag in Self.tags(in: text) {
            func report(_ message: String) {
                findings.append(Finding(template: name, line: tag.line, message: message, column: tag.column))
            }
            func unknown(_ key: String) {
                let searched = frames.reversed().compactMap { if case .keys(let keys) = $0 { keys } else { nil } }
                let hint = Self.nearest(to: key, among: searched.flatMap { $0.fields.map(\.key) }).map { "; did you mean `\($0)`?" } ?? ""
                report("`\(tag.text)`: `\(key)` is no key of \(searched.map(\.typeName).joined(separator: ", then "))\(hint)")
            }
            let sigil = tag.content.first
            let named = ["#", "^", "/", "&", ">", "!", "%", "=", "$", "<"].contains(sigil) ? tag.content.dropFirst() : tag.content[...]
            let bare = named.trimmingCharacters(in: .whitespaces)
            if Self.sequenceTransforms.contains(bare) {
                if sigil == "#" || sigil == "^" { open.append((bare, false)) }
                if sigil == "/", let last = open.last, last.name == bare { open.removeLast() }
                continue
            }
            let key = Self.variable(bare)
            switch sigil {
            case "!", "%": continue
            case "=":
                // Other delimiters: the tags after this one are not `{{…}}`, and are not checked.
                checkedToEnd = false
                break scan
            case "$", "<":
                // A block or a parent template: its content is checked where it stands.
                open.append((key, false))
            case ">":
                guard let partial = partials[key] else {
                    report("`\(tag.text)`: no template is named `\(key)` (\(partials.keys.sorted().joined(separator: ", ")))")
                    continue
                }
                guard !including.contains(key) else { continue }
                findings += check(key, text: partial, frames: frames, including: including.union([name]))
            case "/":
                guard let last = open.popLast(), last.name == key else {
                    report("`\(tag.text)` closes no open section")
                    continue
                }
                if last.pushed { frames.removeLast() }
            case "#", "^":
                guard let slot = resolve(key, in: frames) else {
                    unknown(key)
                    open.append((key, false))
                    continue
                }
                var pushed: Frame?
                if sigil == "#" {
                    switch slot.unwrapped {
                    case .object(let keys): pushed = .keys(keys)
                    case .list(let element):
                        if case .object(let keys) = element.unwrapped { pushed = .keys(keys) } else { pushed = .value }
                    case .text, .number: pushed = .value
                    case .flag, .optional, .unsupported: pushed = nil
                    }
                }
                if let pushed { frames.append(pushed) }
                open.append((key, pushed != nil))
            default:
                if key == "." {
                    if case .value? = frames.last {} else { report("`\(tag.text)` outside a section over text or numbers") }
                    continue
                }
                guard let slot = resolve(key, in: frames) else {
                    unknown(key)
                    continue
                }
                switch slot.unwrapped {
                case .text, .number: break
                default: report("`\(tag.text)`: `\(key)` is a \(slot.kindName), not text (open it as a section)")
                }
            }
        }
        for section in open where checkedToEnd {
            findings.append(Finding(template: name, line: 0, message: "section `\(section.name)` is never closed"))
        }
        return findings
    }

    /// The key (camelCase, as templates write them) a misspelled name was probably meant to be: within
    /// ``KeySuggestion``'s distance, or the same letters in another case.
    static func nearest(to name: String, among keys: [String]) -> String? {
        let letters = KeySuggestion.conventionFree(name)
        var best: (key: String, distance: Int)?
        for key in keys {
            let distance =
                KeySuggestion.conventionFree(key) == letters
                ? 0 : KeySuggestion.editDistance(name, key, limit: KeySuggestion.maximumDistance(from: key))
            guard let distance, distance < best?.distance ?? .max else { continue }
            best = (key, distance)
        }
        return best?.key
    }

    /// A name's slot as Mustache finds it: its first part in the innermost frame that has it, the others
    /// within (`a.b`).
    func resolve(_ name: String, in frames: [Frame]) -> TemplateKeys.Slot? {
        let parts = name.split(separator: ".").map(String.init)
        guard let first = parts.first else { return nil }
        for case .keys(let keys) in frames.reversed() {
            guard var slot = keys[first] else { continue }
            for part in parts.dropFirst() {
                guard case .object(let nested) = slot.unwrapped, let next = nested[part] else { return nil }
                slot = next
            }
            return slot
        }
        return nil
    }

    /// swift-mustache's transforms (`{{ uppercased(name) }}`) name the key inside the parentheses.
    static func variable(_ text: String) -> String {
        var name = text.trimmingCharacters(in: .whitespaces)
        while name.hasSuffix(")"), let open = name.firstIndex(of: "(") {
            name = String(name[name.index(after: open)..<name.index(before: name.endIndex)]).trimmingCharacters(in: .whitespaces)
        }
        return name
    }

    struct Tag {
        /// The tag as written (`{{#shapes}}`).
        var text: String
        /// Between the braces, trimmed (`#shapes`; `&name` for `{{{name}}}`).
        var content: String
        var line: Int
        /// Where its `{{` is on its line (1-based).
        var column: Int
    }

    static func tags(in template: String) -> [Tag] {
        var tags: [Tag] = []
        var rest = template[...]
        var line = 1
        while let start = rest.range(of: "{{") {
            line += rest[..<start.lowerBound].filter { $0 == "\n" }.count
            let before = template[..<start.lowerBound]
            let column =
                before.distance(from: before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex, to: before.endIndex)
                + 1
            let triple = rest[start.upperBound...].hasPrefix("{")
            let close = triple ? "}}}" : "}}"
            let from = triple ? rest.index(after: start.upperBound) : start.upperBound
            guard let end = rest[from...].range(of: close) else { break }
            let inner = rest[from..<end.lowerBound].trimmingCharacters(in: .whitespaces)
            tags.append(
                Tag(
                    text: String(rest[start.lowerBound..<end.upperBound]), content: triple ? "&" + inner : inner, line: line, column: column
                ))
            line += rest[start.lowerBound..<end.upperBound].filter { $0 == "\n" }.count
            rest = rest[end.upperBound...]
        }
        return tags
    }
}
