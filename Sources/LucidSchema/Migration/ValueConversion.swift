/// What happens to a column's values when its value type changes from one version to the next.
///
/// A conversion is inferred only where it is exact for every value the old type can hold; anything
/// else needs the app's code, unless the description accepts the loss of that one change
/// (``SchemaColumn/lossyConversionFrom``), in which case SQLite's `CAST` does it.
///
/// | old → new | inferred |
/// |---|---|
/// | same value type | nothing (a storage class change, e.g. a to-one key whose target key became a string, as below) |
/// | `int` → `string` | `CAST(… AS TEXT)`: decimal digits, exact and reads back |
/// | `bool` → `int` | nothing: 0/1 are integers |
/// | `float` → `double` | nothing: a stored float is already the double of its value |
/// | `seconds`, `milliseconds` ↔ `double` | nothing: the same number (`seconds` ↔ `milliseconds` would change its meaning: the app's code) |
/// | `url`, `color` → `string`; `string` → `color` | nothing: the same text |
/// | `uuid` → `data` | nothing: the same 16 bytes |
/// | `int` → `decimal` | `CAST(… AS TEXT)`: the integer's digits, the text GRDB stores for that `Decimal` |
/// | `decimal` → `string` | nothing: the same text |
/// | unknown value types (older registries) | by storage class: same class nothing, INTEGER → TEXT `CAST` |
/// | `int`/`double`/`float`/`decimal` → `int`/`double`/`float`/`decimal`/`string`, loss accepted | `CAST` to the new storage class |
/// | anything else | the app's code |
package enum ValueConversion: Sendable, Hashable, CustomStringConvertible {
    /// The stored values stay as they are.
    case unchanged
    /// `CAST(value AS <storage>)`.
    case cast(SchemaColumn.StorageType)

    package var description: String {
        switch self {
        case .unchanged: "unchanged"
        case .cast(let storage): "CAST AS \(storage.rawValue)"
        }
    }

    /// The conversion of a column from its previous version's shape, or why it needs the app's code.
    /// `label` names the column in the reason (`table.column`).
    package static func between(_ old: SchemaColumn, _ new: SchemaColumn, label: String) -> Result<ValueConversion, ConversionRefusal> {
        if let exact = exact(from: old, to: new) { return .success(exact) }
        // Without value types (older registries), the storage classes stand for them.
        let oldType = old.valueType ?? .other(old.type.rawValue)
        let newType = new.valueType ?? .other(new.type.rawValue)
        let change = "\(oldType) → \(newType)"
        if new.lossyConversionFrom != nil {
            if let lossy = lossy(from: old, to: new) { return .success(lossy) }
            return .failure(
                ConversionRefusal(
                    "\(label): \(change) is no conversion SQLite's CAST can make, even with its loss accepted (lossy_conversion)"))
        }
        let hint =
            lossy(from: old, to: new) != nil ? "; add \"lossy_conversion\": true to its type_history item to accept SQLite's CAST" : ""
        let why = Self.example(oldType, newType).map { ": \($0)" } ?? ""
        return .failure(ConversionRefusal("\(label): \(change) cannot convert every value exactly\(why)\(hint)"))
    }

    /// Conversions that keep every value.
    static func exact(from old: SchemaColumn, to new: SchemaColumn) -> ValueConversion? {
        guard let oldType = old.valueType, let newType = new.valueType, !(oldType.isToOne && newType.isToOne) else {
            return byStorage(from: old.type, to: new.type)
        }
        if oldType == newType { return byStorage(from: old.type, to: new.type) }
        switch (oldType, newType) {
        // GRDB stores a `Decimal` as its text, which for an integer is its digits (what CAST writes), and reads
        // it back exactly.
        case (.int, .string), (.int, .decimal): return .cast(.text)
        case (.bool, .int), (.float, .double), (.url, .string), (.color, .string), (.string, .color),
            (.seconds, .double), (.double, .seconds), (.milliseconds, .double), (.double, .milliseconds), (.uuid, .data),
            (.decimal, .string):
            return old.type == new.type ? .unchanged : nil
        default: return nil
        }
    }

    /// Storage class changes that keep every value when nothing else is known.
    static func byStorage(from old: SchemaColumn.StorageType, to new: SchemaColumn.StorageType) -> ValueConversion? {
        if old == new { return .unchanged }
        if old == .integer && new == .text { return .cast(.text) }
        return nil
    }

    /// Conversions SQLite's CAST can do when the description accepts that some values change.
    static func lossy(from old: SchemaColumn, to new: SchemaColumn) -> ValueConversion? {
        guard let oldType = old.valueType, let newType = new.valueType, oldType.isNumber, newType.isNumber || newType == .string else {
            return nil
        }
        return old.type == new.type ? .unchanged : .cast(new.type)
    }

    private static func example(_ old: ValueType, _ new: ValueType) -> String? {
        switch (old, new) {
        case (.int, .double), (.int, .float), (.int, .seconds), (.int, .milliseconds):
            "integers beyond 2^53 have no exact floating-point value"
        case (.double, .string), (.float, .string): "SQLite writes a REAL as text with 15 significant digits"
        case (.double, .float): "a Float keeps about 7 significant digits"
        case (.double, .int), (.float, .int): "fractions are cut off"
        case (.seconds, .milliseconds), (.milliseconds, .seconds): "the unit changes, every value must be scaled"
        case (.string, _): "not every text is a valid \(new)"
        case (.data, .uuid): "not every blob is the 16 bytes of a UUID"
        case (.decimal, .double), (.decimal, .float), (.decimal, .seconds), (.decimal, .milliseconds):
            "a decimal's digits beyond a Double's 15 to 17 are lost"
        case (.decimal, .int): "fractions are cut off"
        case (.double, .decimal), (.float, .decimal): "SQLite writes a REAL as text with 15 significant digits"
        case (.uuid, _): "a uuid is stored as its 16 bytes, which are no \(new) value"
        default: nil
        }
    }
}

/// Why a column's values cannot be converted without the app's code.
package struct ConversionRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
