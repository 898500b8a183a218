import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store files `--stores` names: a folder's files with the store extensions, or the files a glob
/// matches (expanded here, so a quoted pattern works as well as the shell's expansion).
///
/// A file counts when it is a regular file, or a symbolic link to one (followed once: the link is listed,
/// its target migrated), and is not SQLite's or lucidgen's companion of a store (`-wal`, `-shm`,
/// `-journal`, `.sha256`, a copy being migrated). In a folder, only names ending in one of the extensions
/// count; a glob's pattern chooses its files itself, and a folder it matches is listed like the folder
/// argument. `recursive` descends into subfolders (and folders that links point to, each once). A file
/// reached twice (through a link) counts once. The list is in path order.
package struct StoreList {
    package static let defaultExtensions = ["sqlite", "db"]

    /// The extensions without their dot.
    package let extensions: [String]
    let recursive: Bool
    private var seenFiles: Set<String> = []
    private var seenFolders: Set<String> = []
    private(set) var paths: [String] = []

    package init(extensions: [String], recursive: Bool) {
        let given = extensions.map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }.filter { !$0.isEmpty }
        self.extensions = given.isEmpty ? Self.defaultExtensions : given
        self.recursive = recursive
    }

    /// The store files `argument` names, in path order.
    package static func find(_ argument: String, extensions: [String] = [], recursive: Bool = false) throws(ListError) -> [String] {
        var list = StoreList(extensions: extensions, recursive: recursive)
        try list.add(argument)
        return list.paths.sorted()
    }

    /// What `--stores` named that holds no store file.
    package struct ListError: Error, CustomStringConvertible {
        package var description: String
    }

    private mutating func add(_ argument: String) throws(ListError) {
        let expanded = (argument as NSString).expandingTildeInPath
        // A path that exists is that path, whatever characters its names hold (`tenants [eu]`); only
        // one that does not is a glob.
        if Self.kind(expanded) == .other, expanded.contains(where: { "*?[".contains($0) }) {
            let matches = Self.glob(Self.pattern(expanded))
            guard !matches.isEmpty else { throw ListError(description: "no file matches \(argument)") }
            for match in matches {
                switch Self.kind(match) {
                case .folder: addFolder(match)
                case .file: addFile(match)
                case .other: continue
                }
            }
            return
        }
        switch Self.kind(expanded) {
        case .folder: addFolder(expanded)
        case .file: addFile(expanded)
        case .other: throw ListError(description: "\(argument): no such folder or file")
        }
    }

    private mutating func addFolder(_ folder: String) {
        guard seenFolders.insert(Self.realPath(folder)).inserted else { return }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        for name in names {
            let path = (folder as NSString).appendingPathComponent(name)
            switch Self.kind(path) {
            case .folder where recursive: addFolder(path)
            case .file where extensions.contains(where: { name.hasSuffix("." + $0) }): addFile(path)
            default: continue
            }
        }
    }

    private mutating func addFile(_ path: String) {
        let name = (path as NSString).lastPathComponent
        guard !Self.isCompanion(name), seenFiles.insert(Self.realPath(path)).inserted else { return }
        paths.append(path)
    }

    /// SQLite's files beside a store, a fixture's checksum, and the copies lucidgen migrates beside a store.
    static func isCompanion(_ name: String) -> Bool {
        ["-wal", "-shm", "-journal", ".sha256"].contains { name.hasSuffix($0) } || name.contains(".lucid-migrating-")
    }

    enum Kind { case file, folder, other }

    /// What `path` is once a link is followed (`stat`, not `lstat`).
    static func kind(_ path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .other }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        default: return .other
        }
    }

    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `argument` as a glob(3) pattern: its longest leading folders that exist are names, their `[`, `*`,
    /// `?` and `\` escaped (`tenants [eu]/*.sqlite` matches the `.sqlite` files of the folder `tenants [eu]`).
    static func pattern(_ argument: String) -> String {
        let components = argument.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var literal = 0
        var prefix = ""
        for (index, component) in components.enumerated().dropLast() {
            prefix += (index == 0 ? "" : "/") + component
            guard prefix.isEmpty || kind(prefix) == .folder else { break }
            literal = index + 1
        }
        func escaped(_ name: String) -> String {
            name.reduce(into: "") { result, character in
                if "[*?\\".contains(character) { result += "\\" }
                result.append(character)
            }
        }
        return (components[..<literal].map(escaped) + components[literal...]).joined(separator: "/")
    }

    /// The paths `pattern` matches (glob(3)), sorted; none when it matches nothing.
    static func glob(_ pattern: String) -> [String] {
        var matches = glob_t()
        defer { globfree(&matches) }
        #if canImport(Darwin)
            let status = Darwin.glob(pattern, 0, nil, &matches)
        #elseif canImport(Glibc)
            let status = Glibc.glob(pattern, 0, nil, &matches)
        #else
            let status = Musl.glob(pattern, 0, nil, &matches)
        #endif
        guard status == 0 else { return [] }
        return (0..<Int(matches.gl_pathc)).compactMap { index in matches.gl_pathv[index].map { String(cString: $0) } }
    }
}
