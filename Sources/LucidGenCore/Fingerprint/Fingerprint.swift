import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The Fingerprint stage, which runs before Load: decides from a hash of every input and the state of
/// every output whether a run can be skipped.
///
/// `generate` runs on every description edit through the build plugin and in every CI check. With a
/// ``GenerationStamp`` from the last successful run, a run whose inputs hash the same and whose outputs
/// are still as that run left them (same size and modification time, no extra generated file in an
/// owned folder) does nothing but read the inputs once: no parsing, resolving, rendering or comparing.
///
/// The inputs are the config file, every file under `input_path` (the snapshots included), the
/// snapshot folder when it is elsewhere, the templates folder when one is set, the names in the test
/// target's `Fixtures` folder (whether the current version's fixture exists changes a note), the
/// mode (full generate or one module's file) and the lucidgen executable itself (its version, size and
/// modification time, so a rebuilt or upgraded tool regenerates).
package struct InputFingerprint: Sendable, Equatable {
    /// XXH64 of the mode and the tool, hex.
    package var context: String
    /// XXH64 of each input file's contents (hex), by path (`present` for a fixture store, whose
    /// existence only matters).
    package var files: [String: String]

    /// Hashes the inputs of a run of `config` in `mode` (e.g. `generate`, or `module Name -> file`).
    /// `outputs`: files the last run wrote among the inputs (its snapshots), which its stamp checks by their state:
    /// not read (a long history's snapshots are most of its bytes), recorded as `output`.
    package static func compute(config: Config, mode: String, outputs: Set<String> = []) -> InputFingerprint {
        var files: [String: String] = [:]
        func hashFile(_ path: String) { files[path] = outputs.contains(path) ? "output" : FileState.contentHash(path) ?? "unreadable" }
        // A file's path is its key, so a file added or removed changes the fingerprint as an edit does.
        func hashFolder(_ folder: String, contents: Bool) {
            for relative in listFiles(in: folder) {
                let path = (folder as NSString).appendingPathComponent(relative)
                if contents { hashFile(path) } else { files[path] = "present" }
            }
        }
        hashFile(config.file)
        hashFolder(config.inputPath, contents: true)
        let input = (config.inputPath as NSString).standardizingPath + "/"
        if !((config.schemaPath as NSString).standardizingPath + "/").hasPrefix(input) {
            hashFolder(config.schemaPath, contents: true)
        }
        if let templates = config.templatesPath { hashFolder(templates, contents: true) }
        if let tests = config.appTests {
            hashFolder((tests.outputPath as NSString).appendingPathComponent("Fixtures"), contents: false)
        }
        return InputFingerprint(context: context(mode: mode), files: files)
    }

    /// XXH64 (hex) of lucidgen's version, `mode` and the running executable's size and modification time.
    static func context(mode: String) -> String {
        var context = XXH64()
        context.update(string: "lucidgen \(LucidGenVersion.current)")
        context.update(string: mode)
        if let executable = Bundle.main.executablePath, let state = FileState.read(executable) {
            context.update(string: "tool \(state.size) \(state.modified)")
        }
        return hex(context.finalize())
    }

    /// The fingerprint without the files a run produces (snapshots live among the inputs): those are
    /// checked by their state on disk instead, so writing them does not make the next run look changed.
    package func excluding(_ outputs: some Sequence<String>) -> InputFingerprint {
        var copy = self
        for path in outputs { copy.files[path] = nil }
        return copy
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Every file under `folder`, relative and sorted, hidden files included (snapshots live in
    /// `.schema`); empty when the folder does not exist. Read with `readdir`, which says whether an entry
    /// is a folder without a `stat` per file (Foundation's enumerator costs half of an unchanged run).
    static func listFiles(in folder: String) -> [String] {
        var result: [String] = []
        func walk(_ path: String, _ prefix: String) {
            guard let directory = opendir(path) else { return }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                // A symbolic link is an entry, never descended into (a link to a parent folder would
                // never end); its target's contents are hashed when it points at a file.
                var isFolder = Int32(entry.pointee.d_type) == Int32(DT_DIR)
                if Int32(entry.pointee.d_type) == Int32(DT_UNKNOWN) {
                    var info = stat()
                    isFolder = lstat(path + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
                }
                if isFolder {
                    walk(path + "/" + name, prefix + name + "/")
                } else {
                    result.append(prefix + name)
                }
            }
        }
        walk(folder, "")
        return result.sorted()
    }
}

/// What a file looked like: enough to notice that anything wrote to it.
///
/// File systems stamp modification times from a coarse clock (a few milliseconds on Linux), so a file
/// rewritten with the same size within a tick of being recorded would look untouched. As git does for
/// its index ("racy" entries), a file modified less than ``FileState/racyWindow`` before it was recorded
/// also keeps a hash of its contents, which is compared too.
package struct FileState: Sendable, Equatable {
    package var size: Int64
    /// Modification time in nanoseconds since 1970.
    package var modified: Int64
    package var inode: UInt64
    /// XXH64 of the contents (hex), kept only for a file modified shortly before it was recorded.
    package var hash: String?

    /// Two seconds: far more than any file system's timestamp granularity.
    package static let racyWindow: Int64 = 2_000_000_000

    /// The state of `path` (without a hash), or nil when it does not exist.
    package static func read(_ path: String) -> FileState? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
            let time = info.st_mtimespec
        #else
            let time = info.st_mtim
        #endif
        return FileState(
            size: Int64(info.st_size), modified: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec), inode: UInt64(info.st_ino))
    }

    /// The state of `path` recorded at `now`, with a hash of its contents when it is racy.
    static func record(_ path: String, now: Int64) -> FileState? {
        guard var state = read(path) else { return nil }
        if state.modified >= now - racyWindow { state.hash = contentHash(path) }
        return state
    }

    /// The state and path as a stamp or a history digest records them: `SIZE MTIME INODE HASH|- PATH`.
    func line(for path: String) -> String { "\(size) \(modified) \(inode) \(hash ?? "-") \(path)" }

    /// A state and path read back from ``line(for:)``; nil when the text is not one.
    static func parseRecord(_ text: ArraySlice<UInt8>) -> (state: FileState, path: String)? {
        func string(_ slice: ArraySlice<UInt8>) -> String { String(decoding: slice, as: UTF8.self) }
        let fields = text.split(separator: UInt8(ascii: " "), maxSplits: 4)
        guard fields.count == 5, let size = Int64(string(fields[0])), let modified = Int64(string(fields[1])),
            let inode = UInt64(string(fields[2]))
        else { return nil }
        let hash = string(fields[3])
        return (FileState(size: size, modified: modified, inode: inode, hash: hash == "-" ? nil : hash), string(fields[4]))
    }

    /// Whether `path` is still as recorded.
    func matches(_ path: String) -> Bool {
        guard var current = FileState.read(path) else { return false }
        if let hash {
            current.hash = FileState.contentHash(path)
            guard current.hash == hash else { return false }
        }
        return current == self
    }

    /// XXH64 of a file's contents (hex), or nil when it cannot be read.
    static func contentHash(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        var hasher = XXH64()
        data.withUnsafeBytes { hasher.update($0) }
        return InputFingerprint.hex(hasher.finalize())
    }

    /// Now, in nanoseconds since 1970, from the same clock file systems use.
    package static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

/// What the last successful run read and left behind, kept in the build folder (never committed).
///
/// A stamp is a cache: a missing, unreadable or foreign stamp only means the next run does the whole
/// work. It is written after a run succeeded and its files are on disk, so an interrupted run leaves
/// either the previous stamp (whose outputs then no longer match) or none.
package struct GenerationStamp: Sendable, Equatable {
    package static let currentFormat = 1

    /// The inputs the run read, without its outputs.
    package var inputs: InputFingerprint
    /// Every file the run produced, by path.
    package var outputs: [String: FileState]
    /// The generated Swift files present in the owned folders, sorted, so that a stray generated file
    /// (which a run would remove) is noticed.
    package var ownedFiles: [String]
    /// The warnings and notes the run reported; an unchanged run reports them again.
    package var diagnostics: [Diagnostic]
    /// The run's one-line summary (e.g. how many entities and which versions).
    package var summary: String

    /// Where `generate` keeps the stamp of a config: `.build/lucidgen/<config file>.stamp` beside it.
    package static func path(forConfig config: Config) -> String {
        let folder = ((config.directory as NSString).appendingPathComponent(".build") as NSString).appendingPathComponent("lucidgen")
        return (folder as NSString).appendingPathComponent((config.file as NSString).lastPathComponent + ".stamp")
    }

    /// Where `generate --module` keeps the stamp of its one output file: beside it.
    package static func path(forModuleOutput file: String) -> String { file + ".lucidgen-stamp" }

    init(inputs: InputFingerprint, outputs: [String: FileState], ownedFiles: [String], diagnostics: [Diagnostic], summary: String) {
        self.inputs = inputs
        self.outputs = outputs
        self.ownedFiles = ownedFiles
        self.diagnostics = diagnostics
        self.summary = summary
    }

    /// Records `outputs` and `ownedFolders` as they are on disk now.
    package init(inputs: InputFingerprint, outputs: [String], ownedFolders: [String], diagnostics: [Diagnostic], summary: String) {
        self.inputs = inputs.excluding(outputs)
        var states: [String: FileState] = [:]
        let now = FileState.now()
        for path in outputs { states[path] = FileState.record(path, now: now) }
        self.outputs = states
        self.ownedFiles = Self.generatedFiles(in: ownedFolders)
        self.diagnostics = diagnostics.filter { $0.severity != .error }
        self.summary = summary
    }

    /// Reads a stamp; nil when there is none or it is not one this lucidgen wrote.
    ///
    /// The format is one record per line (`input HASH PATH`, `output SIZE MTIME INODE HASH|- PATH`,
    /// `owned PATH`, `diagnostic JSON`, `summary TEXT`): a large project's stamp has thousands of
    /// entries, and a JSON decoder would cost more than everything else an unchanged run does.
    package static func read(_ path: String) -> GenerationStamp? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        // Split as bytes: String's Character-based splitting is several times slower here.
        let bytes = [UInt8](data)
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        guard let header = lines.first, String(decoding: header, as: UTF8.self) == "lucidgen-stamp \(currentFormat)" else { return nil }
        var stamp = GenerationStamp(
            inputs: InputFingerprint(context: "", files: [:]), outputs: [:], ownedFiles: [], diagnostics: [], summary: "")
        var complete = false
        func text(_ slice: ArraySlice<UInt8>) -> String { String(decoding: slice, as: UTF8.self) }
        for line in lines.dropFirst() {
            guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return nil }
            let rest = line[(space + 1)...]
            switch text(line[..<space]) {
            case "context": stamp.inputs.context = text(rest)
            case "input":
                let fields = rest.split(separator: UInt8(ascii: " "), maxSplits: 1)
                guard fields.count == 2 else { return nil }
                stamp.inputs.files[text(fields[1])] = text(fields[0])
            case "output":
                guard let (state, path) = FileState.parseRecord(rest) else { return nil }
                stamp.outputs[path] = state
            case "owned": stamp.ownedFiles.append(text(rest))
            case "diagnostic":
                guard let diagnostic = try? JSONDecoder().decode(Diagnostic.self, from: Data(rest)) else { return nil }
                stamp.diagnostics.append(diagnostic)
            case "summary": stamp.summary = text(rest)
            case "end": complete = true
            default: return nil
            }
        }
        return complete ? stamp : nil
    }

    /// The stamp's text (see ``read(_:)``); nil when a path or the summary holds a line break.
    func encoded() -> String? {
        var text = "lucidgen-stamp \(Self.currentFormat)\ncontext \(inputs.context)\n"
        for (path, hash) in inputs.files.sorted(by: { $0.key < $1.key }) { text += "input \(hash) \(path)\n" }
        for (path, state) in outputs.sorted(by: { $0.key < $1.key }) {
            text += "output \(state.line(for: path))\n"
        }
        for path in ownedFiles { text += "owned \(path)\n" }
        for diagnostic in diagnostics {
            guard let json = try? JSONEncoder().encode(diagnostic) else { return nil }
            text += "diagnostic \(String(decoding: json, as: UTF8.self))\n"
        }
        text += "summary \(summary)\nend \n"
        let paths = Array(inputs.files.keys) + Array(outputs.keys) + ownedFiles + [summary]
        return paths.contains { $0.contains("\n") || $0.contains("\r") } ? nil : text
    }

    /// Writes the stamp; a stamp that cannot be written is not an error (the next run does the whole work).
    @discardableResult
    package func write(to path: String) -> Bool {
        guard let text = encoded() else {
            Self.remove(path)
            return false
        }
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            return true
        } catch {
            return false
        }
    }

    /// Removes a stamp, so that the next run does the whole work.
    package static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Why a run with `inputs` cannot be skipped, or nil when it can: the inputs hash the same and every
    /// output is as this stamp recorded it.
    package func staleness(inputs: InputFingerprint, ownedFolders: [String]) -> String? {
        let current = inputs.excluding(outputs.keys)
        if current.context != self.inputs.context { return "lucidgen itself or the mode changed since the last run" }
        if current.files != self.inputs.files {
            let changed =
                Set(current.files.keys).union(self.inputs.files.keys).sorted().first { current.files[$0] != self.inputs.files[$0] }
                ?? "an input"
            return "\(displayPath(changed)) changed since the last run"
        }
        for (path, state) in outputs.sorted(by: { $0.key < $1.key }) where !state.matches(path) {
            return "\(displayPath(path)) changed since the last run"
        }
        if Self.generatedFiles(in: ownedFolders) != ownedFiles { return "files were added to or removed from the generated folders" }
        return nil
    }

    /// After a check found every output as recorded: the stamp without the content hashes of outputs no
    /// longer racy (modified more than ``FileState/racyWindow`` ago), so later runs only `stat` them;
    /// nil when there is no such hash.
    package func settled(now: Int64 = FileState.now()) -> GenerationStamp? {
        var copy = self
        var changed = false
        for (path, state) in outputs where state.hash != nil && state.modified < now - FileState.racyWindow {
            copy.outputs[path]?.hash = nil
            changed = true
        }
        return changed ? copy : nil
    }

    /// The `.swift` files under `folders`, by full path, sorted.
    static func generatedFiles(in folders: [String]) -> [String] {
        folders.flatMap { folder in
            InputFingerprint.listFiles(in: folder).filter { $0.hasSuffix(".swift") }.map { (folder as NSString).appendingPathComponent($0) }
        }.sorted()
    }
}
