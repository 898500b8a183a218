internal import LucidSHA256

/// SHA-256 (FIPS 180-4), for schema checksums.
///
/// Written here because the runtime's only dependencies are GRDB and swift-log, neither of which
/// exposes a digest, and Foundation on Linux has no CryptoKit. Checked against the FIPS test vectors
/// in `LucidSchemaTests`.
package enum SHA256 {
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
                compress(pending, at: 0, blocks: 1)
                pending.removeAll(keepingCapacity: true)
            }
            let blocks = (bytes.count - start) / 64
            if blocks > 0 {
                compress(bytes, at: start, blocks: blocks)
                start += 64 * blocks
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
            compress(tail, at: 0, blocks: tail.count / 64)
            return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * $0)) } }
        }

        /// `blocks` 64-byte blocks of `message` from `chunk`, by the C rounds (``lucid_sha256_compress``):
        /// in a debug build Swift's ran at a tenth of their speed, and checksums are computed on every
        /// migration and for every version of a history.
        private mutating func compress(_ message: [UInt8], at chunk: Int, blocks: Int) {
            precondition(chunk >= 0 && blocks >= 0 && chunk + 64 * blocks <= message.count)
            message.withUnsafeBufferPointer { bytes in
                h.withUnsafeMutableBufferPointer { state in
                    lucid_sha256_compress(state.baseAddress!, bytes.baseAddress! + chunk, blocks)
                }
            }
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
