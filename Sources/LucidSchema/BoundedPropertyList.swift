import Foundation

/// Property lists from files lucidgen did not write (a model package's `.xccurrentversion`, a Core Data
/// store's metadata), decoded only within bounds.
///
/// A binary property list names each object once and lets any number of collections refer to it: a few
/// hundred bytes of arrays that each hold one array many times over decode into billions of objects,
/// because the decoder builds every reference as its own copy. So the binary form's object table is
/// walked first, without decoding, counting the objects the decoded tree would have; one past the bound
/// (or a collection that contains itself, or a reference outside the table) refuses the file. The XML form
/// has no shared references: its size bounds its objects, and its nesting is counted, so that a deep file
/// cannot exhaust the decoder's stack. The old text form (OpenStep) is refused: no file lucidgen reads is
/// written in it.
package enum BoundedPropertyList {
    /// Why a property list was not decoded.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    package struct Limits: Sendable {
        package var bytes: Int
        /// Objects in the decoded tree, every reference counted as the copy it decodes to.
        package var objects: Int
        /// Collections within collections.
        package var depth: Int
        package init(bytes: Int = 1 << 20, objects: Int = 100_000, depth: Int = 64) {
            self.bytes = bytes
            self.objects = objects
            self.depth = depth
        }
    }

    /// The decoded property list (as `PropertyListSerialization` gives it), after the checks above.
    package static func decode(_ data: Data, limits: Limits = Limits()) throws(Refusal) -> Any {
        guard data.count <= limits.bytes else {
            throw Refusal(description: "a property list of \(data.count) bytes; at most \(limits.bytes) are read")
        }
        let bytes = [UInt8](data)
        if bytes.starts(with: Array("bplist".utf8)) {
            try checkBinary(bytes, limits: limits)
        } else if bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) == UInt8(ascii: "<") {
            guard data.range(of: Data("<!ENTITY".utf8)) == nil else {
                throw Refusal(description: "an XML property list that declares entities")
            }
            try checkXML(bytes, limits: limits)
        } else {
            throw Refusal(description: "not an XML or binary property list")
        }
        do {
            return try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw Refusal(description: "not a property list (\(error.localizedDescription))")
        }
    }

    /// The binary form: `bplist00`, the objects, a table of their offsets, and a 32-byte trailer giving the
    /// sizes of offsets and references, the number of objects, the top object and the table's offset.
    static func checkBinary(_ bytes: [UInt8], limits: Limits) throws(Refusal) {
        guard bytes.starts(with: Array("bplist00".utf8)) else {
            throw Refusal(description: "a binary property list in a format other than bplist00")
        }
        guard bytes.count >= 8 + 32 + 1 else { throw Refusal(description: "a binary property list too short to have a trailer") }
        let trailer = bytes.count - 32
        func integer(_ start: Int, _ size: Int) -> Int? {
            guard size >= 1, size <= 8, start >= 0, start + size <= bytes.count else { return nil }
            var value: UInt64 = 0
            for byte in bytes[start..<start + size] { value = value << 8 | UInt64(byte) }
            return value > UInt64(Int.max) ? nil : Int(value)
        }
        let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
        guard let count = integer(trailer + 8, 8), let top = integer(trailer + 16, 8), let table = integer(trailer + 24, 8),
            (1...8).contains(offsetSize), (1...8).contains(referenceSize), count >= 1, top < count
        else { throw Refusal(description: "a binary property list whose trailer is damaged") }
        guard count <= limits.objects else {
            throw Refusal(description: "a binary property list of \(count) objects; at most \(limits.objects) are read")
        }
        guard table >= 8, count <= (trailer - table) / offsetSize else {
            throw Refusal(description: "a binary property list whose offset table is outside it")
        }
        let offsets = try (0..<count).map { index throws(Refusal) -> Int in
            guard let offset = integer(table + index * offsetSize, offsetSize), offset >= 8, offset < table else {
                throw Refusal(description: "a binary property list whose object \(index) is outside it")
            }
            return offset
        }
        /// The references a collection holds (none for any other object).
        func references(of object: Int) throws(Refusal) -> [Int] {
            let start = offsets[object]
            let marker = bytes[start]
            let kind = marker >> 4
            // 0xA array, 0xC set: n references; 0xD dictionary: n keys then n values.
            guard kind == 0xA || kind == 0xC || kind == 0xD else { return [] }
            var length = Int(marker & 0x0F)
            var first = start + 1
            if length == 0x0F {
                // The length is an integer object that follows: 0x1n, then 2^n bytes.
                guard first < table, bytes[first] >> 4 == 0x1, let value = integer(first + 1, 1 << Int(bytes[first] & 0x0F)) else {
                    throw Refusal(description: "a binary property list whose object \(object) has a damaged length")
                }
                length = value
                first += 1 + (1 << Int(bytes[first] & 0x0F))
            }
            let (total, overflow) = kind == 0xD ? length.multipliedReportingOverflow(by: 2) : (length, false)
            guard !overflow, first <= table, total <= (table - first) / referenceSize else {
                throw Refusal(description: "a binary property list whose object \(object) holds more references than it has bytes")
            }
            return try (0..<total).map { index throws(Refusal) -> Int in
                guard let reference = integer(first + index * referenceSize, referenceSize), reference < count else {
                    throw Refusal(description: "a binary property list whose object \(object) refers to an object it does not have")
                }
                return reference
            }
        }
        // The decoded tree's size, each object's counted once and reused; a collection on its own path is a cycle.
        var treeSize: [Int: Int] = [:]
        var onPath: Set<Int> = []
        func size(of object: Int, depth: Int) throws(Refusal) -> Int {
            if let known = treeSize[object] { return known }
            guard depth <= limits.depth else { throw Refusal(description: "a binary property list nested more than \(limits.depth) deep") }
            guard onPath.insert(object).inserted else {
                throw Refusal(description: "a binary property list whose object \(object) contains itself")
            }
            defer { onPath.remove(object) }
            var total = 1
            for reference in try references(of: object) {
                total += try size(of: reference, depth: depth + 1)
                guard total <= limits.objects else {
                    throw Refusal(
                        description:
                            "a binary property list that decodes into more than \(limits.objects) objects (its collections refer to the same objects over and over)"
                    )
                }
            }
            treeSize[object] = total
            return total
        }
        _ = try size(of: top, depth: 0)
    }

    /// The XML form's nesting, counted by tags (entities are refused before: they could expand).
    static func checkXML(_ bytes: [UInt8], limits: Limits) throws(Refusal) {
        var depth = 0
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count else { continue }
            let next = bytes[index + 1]
            if next == UInt8(ascii: "/") {
                depth -= 1
            } else if next != UInt8(ascii: "?") && next != UInt8(ascii: "!") {
                guard let end = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { break }
                if bytes[end - 1] != UInt8(ascii: "/") { depth += 1 }
                guard depth <= limits.depth else {
                    throw Refusal(description: "an XML property list nested more than \(limits.depth) deep")
                }
                index = end
            }
        }
    }
}
