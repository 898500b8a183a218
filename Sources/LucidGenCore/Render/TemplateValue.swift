/// Turns a ``TemplateContext`` into what swift-mustache renders: a struct becomes a `[String: Any]` of its
/// keys (a nil optional left out, so that Mustache looks the name up in the enclosing contexts), a list an
/// array, and strings, numbers and `Bool`s stay as they are.
///
/// The one place where the typed contexts meet Mustache. Dictionaries rather than the structs themselves:
/// swift-mustache would read a struct through a `Mirror` at every name it looks up.
enum TemplateValue {
    /// The dictionary a template renders: the header's keys and the context's.
    static func dictionary(header: HeaderContext, _ context: any TemplateContext) -> [String: Any] {
        dictionary(of: header).merging(dictionary(of: context)) { _, own in own }
    }

    static func dictionary(of context: any TemplateContext) -> [String: Any] {
        encoded(context).dictionary
    }

    fileprivate static func value(of value: some Encodable) -> Any {
        switch value {
        case let string as String: string
        case let bool as Bool: bool
        case let int as Int: int
        default: encoded(value).value
        }
    }

    private static func encoded(_ value: some Encodable) -> Storage {
        let encoder = Encoder()
        // Encoding into dictionaries and arrays cannot fail: no container throws.
        try? value.encode(to: encoder)
        return encoder.storage
    }

    /// A struct's keys or a list's items, filled by the encoder's containers.
    fileprivate final class Storage {
        var dictionary: [String: Any] = [:]
        var array: [Any] = []
        var single: Any?
        var isList = false

        var value: Any { single ?? (isList ? array : dictionary) }
    }

    fileprivate struct Encoder: Swift.Encoder {
        let storage = Storage()
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed(storage: storage))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            storage.isList = true
            return Unkeyed(storage: storage)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { Single(storage: storage) }
    }

    fileprivate struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) {}

        // Most values: stored as they are, without the generic path's casts.
        mutating func encode(_ value: String, forKey key: Key) { storage.dictionary[key.stringValue] = value }
        mutating func encode(_ value: Bool, forKey key: Key) { storage.dictionary[key.stringValue] = value }
        mutating func encode(_ value: Int, forKey key: Key) { storage.dictionary[key.stringValue] = value }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {
            storage.dictionary[key.stringValue] = TemplateValue.value(of: value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<
            NestedKey
        > {
            preconditionFailure("template contexts encode no nested containers")
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            preconditionFailure("template contexts encode no nested containers")
        }

        mutating func superEncoder() -> any Swift.Encoder { preconditionFailure("template contexts have no superclass") }
        mutating func superEncoder(forKey key: Key) -> any Swift.Encoder { preconditionFailure("template contexts have no superclass") }
    }

    fileprivate struct Unkeyed: UnkeyedEncodingContainer {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }
        var count: Int { storage.array.count }

        mutating func encodeNil() {}

        mutating func encode(_ value: String) { storage.array.append(value) }

        mutating func encode<T: Encodable>(_ value: T) {
            storage.array.append(TemplateValue.value(of: value))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("template contexts encode no nested containers")
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            preconditionFailure("template contexts encode no nested containers")
        }

        mutating func superEncoder() -> any Swift.Encoder { preconditionFailure("template contexts have no superclass") }
    }

    fileprivate struct Single: SingleValueEncodingContainer {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() {}

        mutating func encode<T: Encodable>(_ value: T) {
            storage.single = TemplateValue.value(of: value)
        }
    }
}
