import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import GRDB

/// What a Core Data store keeps outside its rows, read as a file from anywhere is: its metadata's property
/// list, bounded before it is decoded, and the files of externally stored values, read only as regular
/// files inside the store's `_EXTERNAL_DATA` folder.
package enum CoreDataMetadata {
    /// Larger metadata is not Core Data's (a real store's is a few kilobytes).
    static let maximumSize = 1 << 20
    /// Objects a binary property list may hold, and objects its references may expand to when decoded
    /// (an object referenced twice is decoded twice: a few objects can expand to billions).
    static let maximumObjects = 50_000

    /// `NSStoreModelVersionHashes` of the store's metadata (`Z_METADATA.Z_PLIST`, a property list): entity
    /// name → hash. Nil when the store has none, or its metadata is not a property list within the bounds.
    package static func storedHashes(_ db: Database) throws -> [String: Data]? {
        let value = try DatabaseValue.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") ?? .null
        let plist: Data
        switch value.storage {
        case .blob(let data): plist = data
        case .string(let text): plist = Data(text.utf8)
        default: return nil
        }
        guard plist.count <= maximumSize, isBounded(plist),
            let metadata = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any],
            let hashes = metadata["NSStoreModelVersionHashes"] as? [String: Any]
        else { return nil }
        let data = hashes.compactMapValues { $0 as? Data }
        return data.count == hashes.count ? data : nil
    }

    /// Whether a property list decodes to at most ``maximumObjects`` objects: a binary one's trailer, offset
    /// table and references are walked (each reference inside the object table, no cycle); an XML one has
    /// no references, so its size bounds it.
    package static func isBounded(_ plist: Data) -> Bool {
        let bytes = [UInt8](plist)
        guard bytes.starts(with: Array("bplist".utf8)) else { return true }
        guard bytes.count >= 8 + 32 else { return false }
        func integer(_ at: Int, _ size: Int) -> Int? {
            guard size >= 1, size <= 8, at >= 0, at + size <= bytes.count else { return nil }
            var value: UInt64 = 0
            for byte in bytes[at..<(at + size)] { value = value << 8 | UInt64(byte) }
            return value > UInt64(Int.max) ? nil : Int(value)
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
        guard let count = integer(trailer + 8, 8), let top = integer(trailer + 16, 8), let table = integer(trailer + 24, 8),
            (1...8).contains(offsetSize), (1...8).contains(referenceSize), count >= 1, count <= maximumObjects, top < count,
            table >= 8, table <= trailer, count <= (trailer - table) / offsetSize
        else { return false }
        var offsets: [Int] = []
        for index in 0..<count {
            guard let offset = integer(table + index * offsetSize, offsetSize), offset >= 8, offset < table else { return false }
            offsets.append(offset)
        }
        /// The references an object holds (nil: it is not within the object table).
        func references(_ object: Int) -> [Int]? {
            let at = offsets[object]
            let marker = bytes[at]
            let kind = marker >> 4
            guard [0xA, 0xB, 0xC, 0xD].contains(kind) else { return [] }
            var length = Int(marker & 0x0F), start = at + 1
            if length == 0x0F {
                guard start < table, bytes[start] >> 4 == 0x1, let size = Optional(1 << Int(bytes[start] & 0x0F)), size <= 8,
                    let value = integer(start + 1, size)
                else { return nil }
                length = value
                start += 1 + size
            }
            let total = kind == 0xD ? length.multipliedReportingOverflow(by: 2) : (partialValue: length, overflow: false)
            guard !total.overflow, total.partialValue <= count * 2, start + total.partialValue * referenceSize <= table else { return nil }
            var found: [Int] = []
            for index in 0..<total.partialValue {
                guard let reference = integer(start + index * referenceSize, referenceSize), reference < count else { return nil }
                found.append(reference)
            }
            return found
        }
        // Each object's size when decoded (itself and what it references), each computed once; a cycle
        // or a size over the bound is refused.
        var sizes: [Int?] = Array(repeating: nil, count: count)
        var visiting = Set<Int>()
        var stack: [(object: Int, children: [Int], next: Int)] = []
        func push(_ object: Int) -> Bool {
            guard let children = references(object), visiting.insert(object).inserted else { return false }
            stack.append((object, children, 0))
            return true
        }
        guard push(top) else { return false }
        while let frame = stack.last {
            if frame.next < frame.children.count {
                stack[stack.count - 1].next += 1
                let child = frame.children[frame.next]
                if sizes[child] == nil { guard push(child) else { return false } }
                continue
            }
            var size = 1
            for child in frame.children {
                size += sizes[child] ?? 0
                if size > maximumObjects { return false }
            }
            sizes[frame.object] = size
            visiting.remove(frame.object)
            stack.removeLast()
        }
        return true
    }
}

enum CoreDataExternalFile {
    /// A larger file is refused rather than read into memory.
    static let maximumSize = 1 << 30

    /// The bytes of `name` in `folder` (the store's `.<store>_SUPPORT/_EXTERNAL_DATA`), or why not: the
    /// folder and its parent must be folders, not links; the file a regular file (a link, device or FIFO is
    /// never opened: `O_NOFOLLOW | O_NONBLOCK`, checked again on the open descriptor), at most
    /// ``maximumSize`` bytes.
    static func read(_ name: String, in folder: String) -> Result<Data, Failure> {
        let support = (folder as NSString).deletingLastPathComponent
        for directory in [support, folder] {
            var status = stat()
            guard lstat(directory, &status) == 0 else { return .failure(.missing(directory)) }
            guard status.st_mode & S_IFMT == S_IFDIR else { return .failure(.notAFile(directory, "is not a folder (a link or another kind of file)")) }
        }
        let path = (folder as NSString).appendingPathComponent(name)
        var status = stat()
        guard lstat(path, &status) == 0 else { return .failure(.missing(path)) }
        guard status.st_mode & S_IFMT == S_IFREG else { return .failure(.notAFile(path, "is not a regular file (a link, folder, device or FIFO)")) }
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(.unreadable(path, String(cString: strerror(errno)))) }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return .failure(.notAFile(path, "is not a regular file")) }
        guard status.st_size <= maximumSize else { return .failure(.tooLarge(path, Int64(status.st_size))) }
        var data = Data(count: Int(status.st_size))
        var done = 0
        while done < data.count {
            let read = data.withUnsafeMutableBytes { buffer in systemRead(descriptor, buffer.baseAddress! + done, buffer.count - done) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { return .failure(.unreadable(path, read == 0 ? "shorter than its size" : String(cString: strerror(errno)))) }
            done += read
        }
        return .success(data)
    }

    enum Failure: Error {
        case missing(String)
        case notAFile(String, String)
        case unreadable(String, String)
        case tooLarge(String, Int64)

        var description: String {
            switch self {
            case .missing(let path): "its value is stored in \(path), which is missing: restore the store's _SUPPORT folder beside it"
            case .notAFile(let path, let why): "its value would be read from \(path), which \(why): only regular files inside the store's _EXTERNAL_DATA folder are read"
            case .unreadable(let path, let why): "its value's file \(path) cannot be read (\(why))"
            case .tooLarge(let path, let size): "its value's file \(path) is \(size) bytes, over the \(maximumSize) bytes read into a row"
            }
        }
    }
}

#if canImport(Glibc)
private let systemRead = Glibc.read
#elseif canImport(Musl)
private let systemRead = Musl.read
#elseif canImport(Darwin)
private let systemRead = Darwin.read
#endif
