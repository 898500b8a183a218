import Foundation
@_spi(Generated) import LucidSchema

/// What `lucidgen plan`, `migrate` and `status` need of a project, as the last successful `generate`
/// resolved it: each version's tables and checksum, and the stages (the steps that need the app's code).
/// Kept beside the stamp (`.build/lucidgen/<config file>.history`, never committed).
///
/// Resolving a history costs time that grows faster than the history (every version's shape is built
/// from every entity's timeline); the store commands only need its result. While every input is as that
/// run left it (the same config and files under `input_path`, by size, modification time and inode, and
/// the same lucidgen executable), they read this instead: one line per version and per table that
/// changed, each table's JSON decoded only when a version that has it is read. Like the stamp it is a
/// cache: missing, foreign or stale, the commands resolve the descriptions as `generate` does.
package struct HistoryDigest: Sendable {
    static let currentFormat = 1

    /// A stage: a step that needs the app's code, with the tables (as at `to`) its code transforms.
    package struct Stage: Sendable, Equatable, Codable {
        package var from: SchemaVersion
        package var to: SchemaVersion
        package var label: String
        package var tables: [String]

        package init(from: SchemaVersion, to: SchemaVersion, label: String, tables: [String]) {
            self.from = from
            self.to = to
            self.label = label
            self.tables = tables
        }
    }

    /// Every version, oldest first, built on the one before it (unchanged tables shared).
    package var versions: [Schema]
    /// Each version's checksum, parallel to `versions`.
    package var checksums: [String]
    package var stages: [Stage]
    /// Each version's path to the newest with these stages, as the registry lists them (``ResolvedModel/planRoutes()``).
    package var routes: [[SchemaVersion]] = []

    /// Where the digest of `config` is kept: beside ``GenerationStamp/path(forConfig:)``.
    package static func path(forConfig config: Config) -> String {
        (GenerationStamp.path(forConfig: config) as NSString).deletingPathExtension + ".history"
    }

    /// The files whose state the digest depends on: the config and every file under `input_path` (the
    /// snapshots and the Core Data origin included), and the snapshot folder when it is elsewhere.
    static func inputs(_ config: Config) -> [String] {
        var paths = [config.file]
        func add(_ folder: String) {
            paths += InputFingerprint.listFiles(in: folder).map { (folder as NSString).appendingPathComponent($0) }
        }
        add(config.inputPath)
        let input = (config.inputPath as NSString).standardizingPath + "/"
        if !((config.schemaPath as NSString).standardizingPath + "/").hasPrefix(input) { add(config.schemaPath) }
        return paths
    }

    /// Writes the digest of `model`, with the inputs' states as they are now (after the run wrote its
    /// snapshots). A digest that cannot be written is removed: the commands then resolve.
    /// `stamp`: the stamp the run leaves, whose inputs' hashes the digest keeps (see ``refresh(config:stamp:)``).
    package static func write(_ model: ResolvedModel, config: Config, stamp: GenerationStamp) {
        let path = path(forConfig: config)
        var text = "lucidgen-history \(currentFormat)\ncontext \(InputFingerprint.context(mode: "history"))\n"
        text += "stamp \(stampHash(stamp))\n"
        guard let states = inputLines(config) else { return remove(path) }
        text += states
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var previous: [String: SchemaTable] = [:]
        for (index, schema) in model.schemas.enumerated() {
            let tables = schema.tables
            let names = Set(tables.map(\.name))
            text += "schema \(schema.version.string) \(model.checksum(at: index))\n"
            let removed = previous.keys.filter { !names.contains($0) }.sorted()
            if !removed.isEmpty, let json = try? encoder.encode(removed) { text += "removed \(String(decoding: json, as: UTF8.self))\n" }
            for table in tables where previous[table.name] != table {
                // The table's JSON on one line: its line breaks are all between members, outside strings.
                let json = table.json(indent: "").replacingOccurrences(of: "\n", with: " ")
                text += "table \(table.name.utf8.count) \(table.name) \(json)\n"
            }
            previous = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0) })
        }
        for step in model.customSteps {
            let stage = Stage(from: step.from, to: step.to, label: step.label, tables: step.tables.map(\.table))
            guard let json = try? encoder.encode(stage) else { return remove(path) }
            text += "stage \(String(decoding: json, as: UTF8.self))\n"
        }
        for route in model.planRoutes() { text += "route \(route.map(\.string).joined(separator: " "))\n" }
        text += "end \n"
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            remove(path)
        }
    }

    static func text(_ slice: ArraySlice<UInt8>) -> String { String(decoding: slice, as: UTF8.self) }

    /// The `input` lines of the inputs as they are now; nil when one cannot be read or its path cannot be written.
    static func inputLines(_ config: Config) -> String? {
        let now = FileState.now()
        var text = ""
        for input in inputs(config) {
            guard let state = FileState.record(input, now: now), !input.contains("\n") else { return nil }
            text += "input \(state.line(for: input))\n"
        }
        return text
    }

    /// XXH64 (hex) of the contents' hashes a stamp recorded for its inputs.
    static func stampHash(_ stamp: GenerationStamp) -> String {
        var hasher = XXH64()
        hasher.update(string: stamp.inputs.context)
        for (path, hash) in stamp.inputs.files.sorted(by: { $0.key < $1.key }) { hasher.update(string: "\(hash) \(path)\n") }
        return InputFingerprint.hex(hasher.finalize())
    }

    /// After `generate` found nothing changed (`stamp` still holds: every input's contents hash as that run
    /// recorded them, every output as it left it): the digest that run wrote describes the inputs as they are, even
    /// where a file was touched or put back as it was, so its recorded states are brought up to date.
    package static func refresh(config: Config, stamp: GenerationStamp) {
        let path = path(forConfig: config)
        guard let data = FileManager.default.contents(atPath: path) else { return }
        let lines = [UInt8](data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        guard lines.count > 3, text(lines[2][...]) == "stamp \(stampHash(stamp))" else { return }
        let recorded = lines.filter { $0.starts(with: Array("input ".utf8)) }.map { text($0[...]) + "\n" }.joined()
        guard let current = inputLines(config), current != recorded else { return }
        var rewritten = ""
        for (index, line) in lines.enumerated() where !line.starts(with: Array("input ".utf8)) {
            rewritten += text(line[...]) + "\n"
            if index == 2 { rewritten += current }
        }
        try? Data(rewritten.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Removes the digest of a config (a failed run), so that the commands resolve.
    package static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The digest of `config`, or nil when there is none, it is not one this lucidgen wrote, or an input
    /// changed since (a file edited, added or removed).
    package static func read(config: Config) -> HistoryDigest? {
        let path = path(forConfig: config)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let lines = [UInt8](data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        guard let header = lines.first, String(decoding: header, as: UTF8.self) == "lucidgen-history \(currentFormat)" else { return nil }
        func text(_ slice: ArraySlice<UInt8>) -> String { Self.text(slice) }
        var digest = HistoryDigest(versions: [], checksums: [], stages: [])
        var recorded: [String: FileState] = [:]
        var current: (version: SchemaVersion, changed: [any SchemaTableSource], removed: [String])?
        var complete = false
        let decoder = JSONDecoder()
        func finishVersion() {
            guard let (version, changed, removed) = current else { return }
            let schema =
                digest.versions.last.map { Schema(version: version, basedOn: $0, replacing: changed, removing: removed) }
                ?? Schema(version: version, tables: changed)
            digest.versions.append(schema)
            current = nil
        }
        for line in lines.dropFirst() {
            guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return nil }
            let rest = line[(space + 1)...]
            switch text(line[..<space]) {
            case "context":
                guard text(rest) == InputFingerprint.context(mode: "history") else { return nil }
            case "stamp":
                break
            case "input":
                guard let (state, path) = FileState.parseRecord(rest) else { return nil }
                recorded[path] = state
            case "schema":
                finishVersion()
                let fields = rest.split(separator: UInt8(ascii: " "))
                guard fields.count == 2, let version = try? SchemaVersion(parsing: text(fields[0])) else { return nil }
                current = (version, [], [])
                digest.checksums.append(text(fields[1]))
            case "removed":
                guard current != nil, let names = try? decoder.decode([String].self, from: Data(rest)) else { return nil }
                current!.removed = names
            case "table":
                // `table LENGTH NAME JSON`: the name's length in bytes, so that any name reads back.
                guard current != nil, let gap = rest.firstIndex(of: UInt8(ascii: " ")), let length = Int(text(rest[..<gap])) else {
                    return nil
                }
                let nameStart = gap + 1
                let nameEnd = nameStart + length
                guard nameEnd < rest.endIndex, rest[nameEnd] == UInt8(ascii: " ") else { return nil }
                current!.changed.append(SchemaTable.Deferred(name: text(rest[nameStart..<nameEnd]), json: text(rest[(nameEnd + 1)...])))
            case "stage":
                guard let stage = try? decoder.decode(Stage.self, from: Data(rest)) else { return nil }
                digest.stages.append(stage)
            case "route":
                let route = rest.split(separator: UInt8(ascii: " ")).map { try? SchemaVersion(parsing: text($0)) }
                guard route.count >= 2, route.allSatisfy({ $0 != nil }) else { return nil }
                digest.routes.append(route.map { $0! })
            case "end":
                complete = true
            default:
                return nil
            }
        }
        finishVersion()
        guard complete, !digest.versions.isEmpty else { return nil }
        // Every input as recorded, and no file added under the folders read.
        let now = inputs(config)
        guard now.count == recorded.count, now.allSatisfy({ recorded[$0]?.matches($0) ?? false }) else { return nil }
        // Files no longer modified recently need no hash: later reads only `stat` them (as the stamp settles).
        let settled = FileState.now() - FileState.racyWindow
        if recorded.values.contains(where: { $0.hash != nil && $0.modified < settled }) {
            var rewritten = ""
            for line in lines {
                if line.starts(with: Array("input ".utf8)), let (state, path) = FileState.parseRecord(line.dropFirst(6)),
                    state.hash != nil, state.modified < settled
                {
                    var settledState = state
                    settledState.hash = nil
                    rewritten += "input \(settledState.line(for: path))\n"
                    continue
                }
                rewritten += Self.text(line[...]) + "\n"
            }
            try? Data(rewritten.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
        return digest
    }
}
