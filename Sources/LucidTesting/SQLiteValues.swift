import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// SQLite's value conversions, computed in Swift: the migration oracle uses them to know what a store
/// must hold without asking SQLite (which runs the migration under test), so a conversion SQLite gets
/// "wrong" for the app shows up as a difference instead of being copied into the expectation.
///
/// They follow SQLite's documented rules (<https://sqlite.org/datatype3.html>, `CAST` and column
/// affinity) and, for a REAL written as text, its `printf("%!.15g")`: 15 significant digits rounded
/// half up, trailing zeros removed but at least one digit after the point, and the exponent form
/// (`1.0e+15`, `1.0e-05`) when the decimal exponent is below -4 or above 14. How the 15 digits are
/// found depends on the linked SQLite: before 3.43 by scaling in `long double` (its last digit can be
/// off for large exponents, and the oracle reproduces that), from 3.43 on from the exact value.
package enum SQLiteValues {
    /// The text SQLite makes of a REAL (`CAST(x AS TEXT)`, a REAL stored into a TEXT column).
    package static func text(of value: Double) -> String {
        Database.sqliteLibVersionNumber >= 3_043_000 ? exactText(of: value) : longDoubleText(of: value)
    }

    #if arch(x86_64) || arch(i386)
        typealias LongDouble = Float80
    #else
        // Apple's arm64 long double is a double; other platforms' quadruple precision is not modelled.
        typealias LongDouble = Double
    #endif

    /// SQLite 3.42 and earlier (`sqlite3_str_vappendf`, `%!.15g`): the value is scaled into [1, 10) in
    /// `long double`, 5e-15 is added for rounding, and the digits are taken off one by one.
    static func longDoubleText(of double: Double) -> String {
        if double.isNaN { return "NaN" }
        var real = LongDouble(double)
        var sign = ""
        if real < 0 {
            real = -real
            sign = "-"
        }
        var precision = 14
        let rounder: Double = 5.0e-05 * 1.0e-10
        var exponent = 0
        if real > 0 {
            var scale: LongDouble = 1
            while real >= LongDouble(1e100 as Double) * scale && exponent <= 350 { scale *= LongDouble(1e100 as Double); exponent += 100 }
            while real >= LongDouble(1e10 as Double) * scale && exponent <= 350 { scale *= LongDouble(1e10 as Double); exponent += 10 }
            while real >= 10 * scale && exponent <= 350 { scale *= 10; exponent += 1 }
            real /= scale
            while real < LongDouble(1e-8 as Double) { real *= LongDouble(1e8 as Double); exponent -= 8 }
            while real < 1 { real *= 10; exponent -= 1 }
            if exponent > 350 { return sign + "Inf" }
        }
        real += LongDouble(rounder)
        if real >= 10 { real *= LongDouble(0.1 as Double); exponent += 1 }
        let exponential = exponent < -4 || exponent > precision
        // Digits before the point, less one (the exponential form has one); negative: "0." and zeros first.
        let integerDigits = exponential ? 0 : exponent
        if !exponential { precision -= exponent }
        var significant = 26
        func digit() -> Character {
            guard significant > 0 else { return "0" }
            significant -= 1
            let digit = Int(real)
            real = (real - LongDouble(digit)) * 10
            return Character(String(digit))
        }
        var text = ""
        if integerDigits < 0 {
            text.append("0")
        } else {
            for _ in 0...integerDigits { text.append(digit()) }
        }
        text.append(".")
        var leadingZeros = integerDigits + 1
        while leadingZeros < 0 { text.append("0"); precision -= 1; leadingZeros += 1 }
        while precision > 0 { text.append(digit()); precision -= 1 }
        while text.last == "0" { text.removeLast() }
        if text.last == "." { text.append("0") }
        if exponential {
            let magnitude = Swift.abs(exponent)
            text += "e" + (exponent < 0 ? "-" : "+") + (magnitude < 10 ? "0" : "") + String(magnitude)
        }
        return sign + text
    }

    /// SQLite 3.43 and later: the 15 significant digits of the exact value, rounded half up.
    static func exactText(of value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Inf" : "Inf" }
        if value == 0 { return "0.0" }
        let sign = value < 0 ? "-" : ""
        // The exact binary value to 41 significant digits: enough to round to 15 half up.
        let exact = String(format: "%.40e", Swift.abs(value))
        let parts = exact.split(separator: "e")
        var digits = parts[0].filter(\.isNumber).map { Int($0.asciiValue! - 48) }
        var exponent = Int(parts[1])!
        let roundUp = digits[15] >= 5
        digits = Array(digits.prefix(15))
        if roundUp {
            var index = 14
            while index >= 0 {
                if digits[index] == 9 {
                    digits[index] = 0
                    index -= 1
                } else {
                    digits[index] += 1
                    break
                }
            }
            if index < 0 {
                digits = [1] + Array(repeating: 0, count: 14)
                exponent += 1
            }
        }
        func trimmed(_ fraction: ArraySlice<Int>) -> String {
            var fraction = Array(fraction)
            while fraction.last == 0 { fraction.removeLast() }
            return fraction.isEmpty ? "0" : fraction.map(String.init).joined()
        }
        if exponent < -4 || exponent > 14 {
            let magnitude = Swift.abs(exponent)
            let exponentText = (magnitude < 10 ? "0" : "") + String(magnitude)
            return sign + "\(digits[0])." + trimmed(digits[1...]) + "e" + (exponent < 0 ? "-" : "+") + exponentText
        }
        if exponent >= 0 {
            return sign + digits[0...exponent].map(String.init).joined() + "." + trimmed(digits[(exponent + 1)...])
        }
        return sign + "0." + String(repeating: "0", count: -exponent - 1) + trimmed(digits[0...])
    }

    /// `CAST(value AS storage)`.
    package static func cast(_ value: DatabaseValue, to storage: SchemaColumn.StorageType) -> DatabaseValue {
        switch (value.storage, storage) {
        case (.null, _): return .null
        case (.int64(let integer), .text): return String(integer).databaseValue
        case (.double(let double), .text): return text(of: double).databaseValue
        case (.blob(let data), .text): return String(decoding: data, as: UTF8.self).databaseValue
        case (.int64(let integer), .real): return Double(integer).databaseValue
        case (.string(let text), .real): return (numericPrefix(of: text).map(\.double) ?? 0).databaseValue
        case (.blob(let data), .real): return (numericPrefix(of: String(decoding: data, as: UTF8.self)).map(\.double) ?? 0).databaseValue
        case (.double(let double), .integer): return integer(truncating: double).databaseValue
        case (.string(let text), .integer): return integerPrefix(of: text).databaseValue
        case (.blob(let data), .integer): return integerPrefix(of: String(decoding: data, as: UTF8.self)).databaseValue
        case (.string(let text), .blob): return Data(text.utf8).databaseValue
        case (.int64(let integer), .blob): return Data(String(integer).utf8).databaseValue
        case (.double(let double), .blob): return Data(text(of: double).utf8).databaseValue
        default: return value
        }
    }

    /// The value SQLite stores when `value` is written into a column of type `storage` (its affinity):
    /// numbers become text in a TEXT column, well-formed numeric text becomes a number in an INTEGER or
    /// REAL column, a REAL with an exact integer value becomes an INTEGER in an INTEGER column.
    package static func stored(_ value: DatabaseValue, in storage: SchemaColumn.StorageType) -> DatabaseValue {
        switch (value.storage, storage) {
        case (.int64(let integer), .text): return String(integer).databaseValue
        case (.double(let double), .text): return text(of: double).databaseValue
        case (.int64(let integer), .real): return Double(integer).databaseValue
        case (.string(let text), .real):
            guard let number = wellFormedNumber(text) else { return value }
            return number.double.databaseValue
        case (.string(let text), .integer):
            guard let number = wellFormedNumber(text) else { return value }
            if let integer = number.exactInteger { return integer.databaseValue }
            return exactInteger(number.double).map(\.databaseValue) ?? number.double.databaseValue
        case (.double(let double), .integer):
            return exactInteger(double).map(\.databaseValue) ?? value
        default: return value
        }
    }

    /// The value of a constant `DEFAULT` clause (`NULL`, `-3`, `2.5`, `'text'`, `X'00ff'`), or nil for
    /// an expression (such as the current date), whose value SQLite computes when the row is written.
    package static func literal(_ sql: String) -> DatabaseValue? {
        let text = sql.trimmingCharacters(in: .whitespaces)
        if text.uppercased() == "NULL" { return .null }
        if let string = SQLLexer.stringLiteral(text) {
            return string.databaseValue
        }
        if text.count >= 3, text.uppercased().hasPrefix("X'"), text.hasSuffix("'") {
            let hex = Array(text.dropFirst(2).dropLast())
            guard hex.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            for index in stride(from: 0, to: hex.count, by: 2) {
                guard let byte = UInt8(String(hex[index...index + 1]), radix: 16) else { return nil }
                bytes.append(byte)
            }
            return Data(bytes).databaseValue
        }
        if text.uppercased() == "TRUE" { return 1.databaseValue }
        if text.uppercased() == "FALSE" { return 0.databaseValue }
        guard let number = wellFormedNumber(text) else { return nil }
        if let integer = number.exactInteger { return integer.databaseValue }
        return number.double.databaseValue
    }

    // MARK: Numbers in text

    struct Number {
        var double: Double
        /// Set when the text is an integer literal that fits 64 bits.
        var exactInteger: Int64?
    }

    /// The integer at the start of the text (after spaces) as CAST AS INTEGER reads it: sign and digits
    /// only (`'1e3'` is 1), saturating at the 64-bit range, 0 when there is none.
    static func integerPrefix(of text: String) -> Int64 {
        var bytes = Substring(text.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).utf8[...]
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            negative = first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var magnitude: UInt64 = 0
        var overflow = false
        for byte in bytes {
            guard (48...57).contains(byte) else { break }
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte - 48))
            if o1 || o2 { overflow = true; break }
            magnitude = sum
        }
        if negative { return overflow || magnitude > UInt64(Int64.max) ? .min : -Int64(magnitude) }
        return overflow || magnitude > UInt64(Int64.max) ? .max : Int64(magnitude)
    }

    /// The text as a number when all of it (but surrounding spaces) is a decimal number.
    static func wellFormedNumber(_ text: String) -> Number? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let prefix = numericPrefixWithLength(of: Substring(trimmed)), prefix.length == trimmed.utf8.count else { return nil }
        return prefix.number
    }

    /// The longest decimal number at the start of the text (after spaces), as SQLite's CAST reads it.
    static func numericPrefix(of text: String) -> Number? {
        numericPrefixWithLength(of: text.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(\.number)
    }

    private static func numericPrefixWithLength(of text: Substring) -> (number: Number, length: Int)? {
        let bytes = Array(text.utf8)
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
        var digits = index - integerStart
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            let fractionStart = index + 1
            var end = fractionStart
            while end < bytes.count, (48...57).contains(bytes[end]) { end += 1 }
            if digits > 0 || end > fractionStart {
                digits += end - fractionStart
                index = end
                isInteger = false
            }
        }
        guard digits > 0 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            var end = index + 1
            if end < bytes.count, bytes[end] == UInt8(ascii: "+") || bytes[end] == UInt8(ascii: "-") { end += 1 }
            let exponentStart = end
            while end < bytes.count, (48...57).contains(bytes[end]) { end += 1 }
            if end > exponentStart {
                index = end
                isInteger = false
            }
        }
        let literal = String(decoding: bytes[0..<index], as: UTF8.self)
        guard let double = Double(literal) else { return nil }
        return (Number(double: double, exactInteger: isInteger ? Int64(literal) : nil), index)
    }

    /// SQLite's REAL → INTEGER: the fraction cut off, saturating at the 64-bit range.
    static func integer(truncating double: Double) -> Int64 {
        if double.isNaN { return 0 }
        if double <= -9.223372036854775808e18 { return .min }
        if double >= 9.223372036854775808e18 { return .max }
        return Int64(double)
    }

    /// The integer a REAL equals exactly (strictly inside the 64-bit range), if any.
    static func exactInteger(_ double: Double) -> Int64? {
        guard let integer = Int64(exactly: double), integer > .min, integer < .max else { return nil }
        return integer
    }
}
