import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files a command writes together (`describe`'s and `import`'s descriptions and config): all of them, or
/// none.
///
/// Every target is checked before anything is written: one that exists is refused unless it may be
/// replaced, and one that is not a regular file (a folder, a device, a FIFO) is refused always. Then each
/// file is written beside its target under a temporary name, and only when every one is written are they
/// moved into place, each atomically. A file that may not replace anything is linked into place, which
/// fails if a file appeared there meanwhile. When any step fails, the temporary files, the files this
/// transaction placed where nothing was, and the folders it made are removed again.
package enum FileTransaction {
    /// One file to write; `mayReplace`: the command may replace a file already there (`--force`, or a
    /// file the command updates by design, such as the config's `current_version`).
    package struct File: Sendable {
        package var path: String
        package var contents: Data
        package var mayReplace: Bool
        package init(path: String, contents: Data, mayReplace: Bool) {
            self.path = path
            self.contents = contents
            self.mayReplace = mayReplace
        }
        package init(path: String, text: String, mayReplace: Bool) {
            self.init(path: path, contents: Data(text.utf8), mayReplace: mayReplace)
        }
    }

    /// Why nothing was written: each target refused, with why.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        package var refused: [(path: String, reason: String)]
        package var description: String { refused.map { "\($0.path): \($0.reason)" }.joined(separator: "\n") }
    }

    /// The targets of `files` that cannot be written, with why (nothing is written).
    package static func refusals(_ files: [File], replaceReason: String = "exists already") -> [(path: String, reason: String)] {
        var refused: [(String, String)] = []
        for file in files {
            switch FileKind.at(file.path) {
            case .missing: continue
            case .regular: if !file.mayReplace { refused.append((file.path, replaceReason)) }
            case .folder: refused.append((file.path, "a folder, not a file"))
            case .special(let what), .other(let what):
                refused.append((file.path, "\(what), not a regular file: lucidgen writes none there"))
            }
        }
        return refused
    }

    /// Writes every file or none (see the type). Throws ``Refusal`` when a target is refused or a step fails.
    package static func write(_ files: [File], replaceReason: String = "exists already") throws(Refusal) {
        let refused = refusals(files, replaceReason: replaceReason)
        guard refused.isEmpty else { throw Refusal(refused: refused) }
        var madeFolders: [String] = []
        var temporaries: [String] = []
        var placedNew: [String] = []
        func undo() {
            for path in temporaries + placedNew { unlink(path) }
            for folder in madeFolders.reversed() { rmdir(folder) }
        }
        do throws(Refusal) {
            for file in files {
                try makeFolder((file.path as NSString).deletingLastPathComponent, made: &madeFolders)
                do {
                    temporaries.append(try OutputFile.writeTemporary(file.contents, beside: file.path))
                } catch {
                    throw Refusal(refused: [(file.path, "cannot write beside it: \(error.message)")])
                }
            }
            for (file, temporary) in zip(files, temporaries) {
                if file.mayReplace {
                    let existed = FileKind.at(file.path) != .missing
                    guard rename(temporary, file.path) == 0 else { throw Refusal(refused: [(file.path, OutputFile.errnoText())]) }
                    if !existed { placedNew.append(file.path) }
                } else {
                    // link(2) never replaces: a file that appeared since the check stays, and the write fails.
                    if link(temporary, file.path) == 0 {
                        unlink(temporary)
                    } else {
                        guard errno != EEXIST else { throw Refusal(refused: [(file.path, replaceReason)]) }
                        // A file system without hard links (exFAT, some network volumes): the check made
                        // above stands, and rename places the file.
                        guard FileKind.at(file.path) == .missing else { throw Refusal(refused: [(file.path, replaceReason)]) }
                        guard rename(temporary, file.path) == 0 else { throw Refusal(refused: [(file.path, OutputFile.errnoText())]) }
                    }
                    placedNew.append(file.path)
                }
                temporaries.removeAll { $0 == temporary }
            }
        } catch {
            undo()
            throw error
        }
    }

    /// Makes `folder` and its missing parents, remembering each one made (outermost first).
    private static func makeFolder(_ folder: String, made: inout [String]) throws(Refusal) {
        let path = folder.isEmpty ? "." : folder
        switch FileKind.at(path) {
        case .folder: return
        case .missing: break
        default: throw Refusal(refused: [(path, "not a folder")])
        }
        try makeFolder((path as NSString).deletingLastPathComponent, made: &made)
        guard mkdir(path, 0o777) == 0 || errno == EEXIST else {
            throw Refusal(refused: [(path, "cannot make the folder: \(OutputFile.errnoText())")])
        }
        made.append(path)
    }
}

/// What is at a path, links followed: what lucidgen may read (a regular file) or write (a regular file
/// replaced, a FIFO or device written in place).
package enum FileKind: Equatable, Sendable {
    case missing
    case regular
    case folder
    /// A node written in place (`a FIFO`, `a character device`), in words.
    case special(String)
    /// Something no file can be written to (`a socket`, `a symbolic link to nothing`), in words.
    case other(String)

    package static func at(_ path: String) -> FileKind {
        var info = stat()
        guard stat(path, &info) == 0 else {
            // A link to nothing: writing would follow it to wherever it points.
            var link = stat()
            return lstat(path, &link) == 0 ? .other("a symbolic link to nothing") : .missing
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .folder
        case S_IFIFO: return .special("a FIFO")
        case S_IFCHR: return .special("a character device")
        case S_IFBLK: return .special("a block device")
        case S_IFSOCK: return .other("a socket")
        default: return .other("an unknown kind of file")
        }
    }
}

/// A file a user names for lucidgen to write (`--report`, `--module-output`): a regular file (or none) is
/// replaced atomically; anything else that accepts writing (a terminal, a FIFO, a device) and every path
/// under `/dev` or `/proc` (`/dev/stdout`, `/dev/fd/3`: an open descriptor, perhaps of a regular file the
/// shell redirected to) is written in place, appended to, never replaced; a folder or a socket is refused.
package enum OutputFile {
    /// Why `path` cannot be written, or nil when it can: checked before the work whose result it receives
    /// (a fleet's report, before any store is migrated).
    package static func problem(writing path: String) -> String? {
        let kind = FileKind.at(path)
        if case .special(let what) = kind {
            return access(path, W_OK) == 0 ? nil : "\(what) that is not writable"
        }
        if namesOpenDescriptor(path), kind == .regular || kind == .missing {
            return kind == .missing ? "no such file" : access(path, W_OK) == 0 ? nil : "it is not writable"
        }
        switch kind {
        case .missing, .regular:
            // Replacing atomically needs the folder's permission to create and rename a file.
            let folder = (resolved(path) as NSString).deletingLastPathComponent
            let folderPath = folder.isEmpty ? "." : folder
            guard FileKind.at(folderPath) == .folder else { return "its folder \(folderPath) does not exist" }
            guard access(folderPath, W_OK | X_OK) == 0 else { return "its folder \(folderPath) is not writable" }
            if kind == .regular, access(path, W_OK) != 0 { return "it is not writable" }
            return nil
        case .folder:
            return "a folder, not a file"
        case .special(let what), .other(let what):
            return "\(what), not a file lucidgen can write"
        }
    }

    /// Writes `contents` to `path` (see the type). Throws with what went wrong.
    package static func write(_ contents: Data, to path: String) throws(Failure) {
        if let problem = problem(writing: path) { throw Failure(message: problem) }
        // The process's own standard output or error (`/dev/stdout`, or the file it is redirected to):
        // written through that descriptor, after what was printed before, so that what follows comes after.
        for descriptor in [STDOUT_FILENO, STDERR_FILENO] where isOpen(descriptor, at: path) {
            fflush(nil) // every stream: what was printed goes first
            try writeAll(contents, to: descriptor)
            return
        }
        let kind = FileKind.at(path)
        if kind != .missing && kind != .regular || namesOpenDescriptor(path) {
            // In place: no file is created, none replaced, nothing written before is overwritten.
            let descriptor = open(path, O_WRONLY | O_APPEND)
            guard descriptor >= 0 else { throw Failure(message: errnoText()) }
            defer { close(descriptor) }
            try writeAll(contents, to: descriptor)
            return
        }
        // Through a link to a regular file, the file it points to is replaced, not the link.
        let target = resolved(path)
        let temporary = try writeTemporary(contents, beside: target)
        guard rename(temporary, target) == 0 else {
            let text = errnoText()
            unlink(temporary)
            throw Failure(message: text)
        }
    }

    /// Whether `descriptor` is open on the file at `path`.
    static func isOpen(_ descriptor: Int32, at path: String) -> Bool {
        var open = stat(), named = stat()
        return fstat(descriptor, &open) == 0 && stat(path, &named) == 0 && open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// Whether `path`, or a link it leads through, is one of the system's names of open files or devices
    /// (`/dev/stdout`, `/proc/self/fd/1`): replacing what it resolves to (the file the shell redirected
    /// standard output to) would leave the process writing to a file no longer there.
    static func namesOpenDescriptor(_ path: String) -> Bool {
        var current = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        for _ in 0..<32 {
            let standardized = (current as NSString).standardizingPath
            if standardized.hasPrefix("/dev/") || standardized.hasPrefix("/proc/") { return true }
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return false }
            current =
                target.hasPrefix("/")
                ? target : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(target)
        }
        return false
    }

    package struct Failure: LocalizedError, Sendable, CustomStringConvertible {
        package var message: String
        package var description: String { message }
        package var errorDescription: String? { message }
    }

    /// Writes `contents` to a new file beside `path` (a hidden name that no other file has) and returns its path.
    static func writeTemporary(_ contents: Data, beside path: String) throws(Failure) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        var template = Array(
            ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(".\((path as NSString).lastPathComponent).lucid-XXXXXX")
                .utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw Failure(message: errnoText()) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { close(descriptor) }
        do {
            try writeAll(contents, to: descriptor)
            // mkstemp makes the file readable by its owner only; a written file has the usual permissions.
            let mask = umask(0)
            umask(mask)
            fchmod(descriptor, 0o666 & ~mask)
        } catch {
            unlink(temporary)
            throw error
        }
        return temporary
    }

    private static func writeAll(_ contents: Data, to descriptor: Int32) throws(Failure) {
        let failed: String? = contents.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errnoText()
                }
                offset += count
            }
            return nil
        }
        if let failed { throw Failure(message: failed) }
    }

    /// `path` with its links followed, when it names an existing file; else `path`.
    static func resolved(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

#if canImport(Darwin)
    private let systemWrite = Darwin.write
#elseif canImport(Glibc)
    private let systemWrite = Glibc.write
#else
    private let systemWrite = Musl.write
#endif
