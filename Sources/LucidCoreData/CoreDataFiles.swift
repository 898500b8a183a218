import Foundation
import GRDB
import LucidRuntime
import LucidSchema

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a Core Data store keeps outside its rows, read as a file from anywhere is: its metadata's property
/// list, bounded before it is decoded, and the files of externally stored values, read only as regular
/// files inside the store's `_EXTERNAL_DATA` folder.
package enum CoreDataMetadata {
    /// The bounds a store's metadata is decoded within: a real store's is a few kilobytes and some hundred
    /// objects, so larger metadata is not Core Data's.
    package static let limits = BoundedPropertyList.Limits(bytes: 1 << 20, objects: 50_000)

    /// `NSStoreModelVersionHashes` of the store's metadata (`Z_METADATA.Z_PLIST`, a property list): entity
    /// name → hash. Nil when the store has none, or its metadata is not a property list within ``limits``.
    package static func storedHashes(_ db: Database) throws -> [String: Data]? {
        let value = try DatabaseValue.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") ?? .null
        let plist: Data
        switch value.storage {
        case .blob(let data): plist = data
        case .string(let text): plist = Data(text.utf8)
        default: return nil
        }
        guard let metadata = try? BoundedPropertyList.decode(plist, limits: limits) as? [String: Any],
            let hashes = metadata["NSStoreModelVersionHashes"] as? [String: Any]
        else { return nil }
        let data = hashes.compactMapValues { $0 as? Data }
        return data.count == hashes.count ? data : nil
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
            guard status.st_mode & S_IFMT == S_IFDIR else {
                return .failure(.notAFile(directory, "is not a folder (a link or another kind of file)"))
            }
        }
        let path = (folder as NSString).appendingPathComponent(name)
        var status = stat()
        guard lstat(path, &status) == 0 else { return .failure(.missing(path)) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            return .failure(.notAFile(path, "is not a regular file (a link, folder, device or FIFO)"))
        }
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(.unreadable(path, String(cString: strerror(errno)))) }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return .failure(.notAFile(path, "is not a regular file"))
        }
        guard status.st_size <= maximumSize else { return .failure(.tooLarge(path, Int64(status.st_size))) }
        var data = Data(count: Int(status.st_size))
        var done = 0
        while done < data.count {
            let read = data.withUnsafeMutableBytes { buffer in systemRead(descriptor, buffer.baseAddress! + done, buffer.count - done) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                return .failure(.unreadable(path, read == 0 ? "shorter than its size" : String(cString: strerror(errno))))
            }
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
            case .notAFile(let path, let why):
                "its value would be read from \(path), which \(why): only regular files inside the store's _EXTERNAL_DATA folder are read"
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
