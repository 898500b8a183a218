import Foundation

/// The forms of a `decimal` value (`Foundation.Decimal`): its text as descriptions and sample rows write it
/// (`"12.50"`, `"-1e-3"`), and its text as the column stores it, which is what GRDB 7 stores for a `Decimal`
/// (its `databaseValue`: `NSDecimalNumber(decimal:).description(withLocale: en_US_POSIX)`, `"12.5"`,
/// `"-0.001"`; no exponent, no trailing zero, `"0"` for zero). GRDB reads a `Decimal` back from that text,
/// from an INTEGER exactly, and from a REAL through `Double`.
///
/// ```swift
/// DecimalText.stored("12.50")   // "12.5"
/// DecimalText.stored("1e3")     // "1000"
/// DecimalText.stored("12abc")   // nil
/// ```
package enum DecimalText {
    static let posix = Locale(identifier: "en_US_POSIX")

    /// The most significant digits a `Decimal` holds exactly (its mantissa is 128 bits).
    package static let maximumDigits = 38

    /// The text GRDB stores for the decimal number `text` means: nil when `text` is no decimal number (an
    /// optional sign, digits with an optional fraction, an optional exponent, nothing else) or one a
    /// `Decimal` cannot hold exactly (more than 38 significant digits, or beyond its range).
    package static func stored(_ text: String) -> String? {
        guard let digits = significantDigits(text), digits.count <= maximumDigits,
            let decimal = Decimal(string: text, locale: posix), !decimal.isNaN
        else { return nil }
        // A value whose exponent is out of Decimal's range would come back as another (or zero).
        if !digits.isEmpty && decimal.isZero { return nil }
        return stored(decimal)
    }

    /// The text GRDB stores for `decimal`.
    package static func stored(_ decimal: Decimal) -> String {
        NSDecimalNumber(decimal: decimal).description(withLocale: posix)
    }

    /// The significant digits of a decimal number's text (leading and trailing zeros left out; empty for
    /// zero), nil when the text is no decimal number.
    static func significantDigits(_ text: String) -> [UInt8]? {
        var bytes = Array(text.utf8)[...]
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var mantissa: [UInt8] = []
        var sawPoint = false
        var sawDigit = false
        while let byte = bytes.first {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                mantissa.append(byte)
                sawDigit = true
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                break
            }
            bytes = bytes.dropFirst()
        }
        guard sawDigit else { return nil }
        if let marker = bytes.first {
            guard marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") else { return nil }
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard !bytes.isEmpty, bytes.count <= 4, bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                return nil
            }
        }
        let zero = UInt8(ascii: "0")
        guard let first = mantissa.firstIndex(where: { $0 != zero }), let last = mantissa.lastIndex(where: { $0 != zero }) else {
            return []
        }
        return Array(mantissa[first...last])
    }
}
