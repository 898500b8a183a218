/// SHA-256 (FIPS 180-4), for schema checksums.
///
/// Written here because the runtime's only dependencies are GRDB and swift-log, neither of which
/// exposes a digest, and Foundation on Linux has no CryptoKit. Checked against the FIPS test vectors
/// in `LucidSchemaTests`.
package enum SHA256 {
    fileprivate static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The digest of `bytes`.
    package static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var hasher = Hasher()
        hasher.update(Array(bytes))
        return hasher.finalize()
    }

    /// A digest fed piece by piece (a file read in chunks: memory stays flat whatever its size).
    package struct Hasher: Sendable {
        private var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        /// Bytes not yet compressed (fewer than 64).
        private var pending: [UInt8] = []
        private var length: UInt64 = 0

        package init() {}

        /// Feeds bytes; the digest is the same however the input is split.
        package mutating func update(_ bytes: [UInt8]) {
            length &+= UInt64(bytes.count)
            var start = 0
            if !pending.isEmpty {
                let take = min(64 - pending.count, bytes.count)
                pending += bytes[0..<take]
                start = take
                guard pending.count == 64 else { return }
                compress(pending, at: 0)
                pending.removeAll(keepingCapacity: true)
            }
            while start + 64 <= bytes.count {
                compress(bytes, at: start)
                start += 64
            }
            pending += bytes[start...]
        }

        /// The digest of everything fed so far.
        package mutating func finalize() -> [UInt8] {
            let bitLength = length &* 8
            var tail = pending
            tail.append(0x80)
            while tail.count % 64 != 56 { tail.append(0) }
            for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
            for chunk in stride(from: 0, to: tail.count, by: 64) { compress(tail, at: chunk) }
            return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * $0)) } }
        }

        /// One 64-byte block. The schedule lives in a stack buffer and every array is read through an
        /// unsafe pointer: with `w` an array property, each write checked uniqueness and bounds, which made
        /// checksums (computed on every migration) cost several times what the rounds do.
        private mutating func compress(_ message: [UInt8], at chunk: Int) {
            precondition(chunk >= 0 && chunk + 64 <= message.count)
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                message.withUnsafeBufferPointer { bytes in
                    let m = bytes.baseAddress! + chunk
                    for i in 0..<16 {
                        w[i] = UInt32(m[i * 4]) << 24 | UInt32(m[i * 4 + 1]) << 16 | UInt32(m[i * 4 + 2]) << 8 | UInt32(m[i * 4 + 3])
                    }
                }
                for i in 16..<64 {
                    let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] &>> 3)
                    let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] &>> 10)
                    w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                }
                SHA256.k.withUnsafeBufferPointer { k in
                    for i in 0..<64 {
                        let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                        let choice = (e & f) ^ (~e & g)
                        let t1 = hh &+ s1 &+ choice &+ k[i] &+ w[i]
                        let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = s0 &+ majority
                        (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                    }
                }
            }
            h[0] = h[0] &+ a; h[1] = h[1] &+ b; h[2] = h[2] &+ c; h[3] = h[3] &+ d
            h[4] = h[4] &+ e; h[5] = h[5] &+ f; h[6] = h[6] &+ g; h[7] = h[7] &+ hh
        }
    }

    /// The digest of the UTF-8 bytes of `text`, as 64 lowercase hex digits.
    package static func hex(of text: String) -> String {
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in digest(text.utf8) {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

}

// Masking shifts (`&>>`, `&<<`): `n` is always 1…31 here, and in a debug build (the build plugin's) the
// checked shifts and subtraction cost more than the rounds themselves.
@inline(__always) private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x &>> n) | (x &<< (32 &- n)) }
