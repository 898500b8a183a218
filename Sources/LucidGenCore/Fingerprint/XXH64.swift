/// XXH64, the 64-bit xxHash, written from its published specification
/// (https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md).
///
/// Used to fingerprint `generate`'s inputs: it reads several GB/s, so hashing every description and
/// snapshot of a large project costs a few milliseconds. It is not a cryptographic hash; a stamp is a
/// cache, and `--force` always regenerates.
package struct XXH64: Sendable {
    static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    private var v1: UInt64
    private var v2: UInt64
    private var v3: UInt64
    private var v4: UInt64
    private let seed: UInt64
    private var totalLength: UInt64 = 0
    /// Bytes not yet consumed by a full 32-byte stripe.
    private var buffer: [UInt8] = []

    package init(seed: UInt64 = 0) {
        self.seed = seed
        v1 = seed &+ Self.prime1 &+ Self.prime2
        v2 = seed &+ Self.prime2
        v3 = seed
        v4 = seed &- Self.prime1
        buffer.reserveCapacity(32)
    }

    @inline(__always) private static func round(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
        var acc = accumulator &+ lane &* prime2
        acc = (acc << 31) | (acc >> 33)
        return acc &* prime1
    }

    @inline(__always) private static func merge(_ accumulator: UInt64, _ value: UInt64) -> UInt64 {
        let acc = accumulator ^ round(0, value)
        return acc &* prime1 &+ prime4
    }

    @inline(__always) private static func load64(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always) private static func load32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    private mutating func consumeStripes(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset + 32 <= bytes.count {
            v1 = Self.round(v1, Self.load64(bytes, offset))
            v2 = Self.round(v2, Self.load64(bytes, offset + 8))
            v3 = Self.round(v3, Self.load64(bytes, offset + 16))
            v4 = Self.round(v4, Self.load64(bytes, offset + 24))
            offset += 32
        }
    }

    /// Feeds bytes; the result is the same however the input is split.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        totalLength &+= UInt64(bytes.count)
        var rest = bytes
        if !buffer.isEmpty {
            let take = min(32 - buffer.count, rest.count)
            buffer.append(contentsOf: rest[rest.startIndex..<rest.startIndex + take])
            rest = UnsafeRawBufferPointer(rebasing: rest[(rest.startIndex + take)...])
            guard buffer.count == 32 else { return }
            buffer.withUnsafeBytes { consumeStripes($0) }
            buffer.removeAll(keepingCapacity: true)
        }
        let whole = rest.count / 32 * 32
        consumeStripes(UnsafeRawBufferPointer(rebasing: rest[rest.startIndex..<rest.startIndex + whole]))
        buffer.append(contentsOf: rest[(rest.startIndex + whole)...])
    }

    package mutating func update(_ bytes: some Sequence<UInt8>) {
        var copy = Array(bytes)
        copy.withUnsafeMutableBytes { update(UnsafeRawBufferPointer($0)) }
    }

    /// Feeds a string's UTF-8 bytes followed by a 0 byte, so that consecutive strings cannot run together.
    package mutating func update(string: String) {
        var text = string
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
        update([0] as [UInt8])
    }

    package func finalize() -> UInt64 {
        var hash: UInt64
        if totalLength >= 32 {
            hash = ((v1 << 1) | (v1 >> 63)) &+ ((v2 << 7) | (v2 >> 57)) &+ ((v3 << 12) | (v3 >> 52)) &+ ((v4 << 18) | (v4 >> 46))
            hash = Self.merge(hash, v1)
            hash = Self.merge(hash, v2)
            hash = Self.merge(hash, v3)
            hash = Self.merge(hash, v4)
        } else {
            hash = seed &+ Self.prime5
        }
        hash &+= totalLength
        buffer.withUnsafeBytes { rest in
            var offset = 0
            while offset + 8 <= rest.count {
                hash ^= Self.round(0, Self.load64(rest, offset))
                hash = ((hash << 27) | (hash >> 37)) &* Self.prime1 &+ Self.prime4
                offset += 8
            }
            if offset + 4 <= rest.count {
                hash ^= Self.load32(rest, offset) &* Self.prime1
                hash = ((hash << 23) | (hash >> 41)) &* Self.prime2 &+ Self.prime3
                offset += 4
            }
            while offset < rest.count {
                hash ^= UInt64(rest[offset]) &* Self.prime5
                hash = ((hash << 11) | (hash >> 53)) &* Self.prime1
                offset += 1
            }
        }
        hash ^= hash >> 33
        hash &*= Self.prime2
        hash ^= hash >> 29
        hash &*= Self.prime3
        hash ^= hash >> 32
        return hash
    }

    /// The hash of `bytes` in one call.
    package static func hash(_ bytes: some Sequence<UInt8>, seed: UInt64 = 0) -> UInt64 {
        var hasher = XXH64(seed: seed)
        hasher.update(bytes)
        return hasher.finalize()
    }
}
