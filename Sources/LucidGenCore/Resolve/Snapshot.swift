import Foundation
@_spi(Generated) import LucidSchema

/// The frozen record of one schema version, whole: what `<schema_path>/<version>.json` says, with the
/// versions its file continues (``SnapshotFile``) applied.
///
/// A snapshot holds the tables (the storage shape, whose DDL the checksum covers) and the entities as
/// described at that version (types and defaults that the tables alone do not show). Once a version is
/// released (older than `current_version`), its snapshot is never rewritten: the descriptions must keep
/// producing exactly this shape, and `generate` fails naming what changed if they do not.
package struct SchemaSnapshot: Sendable, Equatable {
    package struct EntitySnapshot: Sendable, Codable, Equatable {
        package var name: String
        package var table: String
        package var identifier: String
        package var properties: [PropertySnapshot]
        /// A subentity's parent at the version (its `properties` are its own; the inherited ones are the
        /// parent's). Absent for other entities, and in snapshots written before entity inheritance.
        package var parent: String? = nil
        /// True for an abstract entity (absent otherwise).
        package var abstract: Bool? = nil
    }

    package struct PropertySnapshot: Sendable, Codable, Equatable {
        package var name: String
        package var type: String
        package var nullable: Bool
        package var defaultValue: String?

        enum CodingKeys: String, CodingKey {
            case name, type, nullable
            case defaultValue = "default"
        }
    }

    /// A subtype as it was at the snapshot's version. Only enums are recorded for now (`kind` "enum",
    /// their cases); the record leaves room for option sets' options and structs' members.
    package struct SubtypeSnapshot: Sendable, Codable, Equatable {
        package var name: String
        package var kind: String
        package var cases: [String]?
        /// A struct's members at the version (nil in snapshots released before structs had members recorded).
        package var members: [MemberSnapshot]? = nil
    }

    /// A struct member at a version: what its JSON key and Swift type were.
    package struct MemberSnapshot: Sendable, Codable, Equatable {
        package var name: String
        package var type: String
        package var nullable: Bool
    }

    package var version: SchemaVersion
    /// SHA-256 of the version's DDL (``Schema/checksum``).
    package var checksum: String
    package var entities: [EntitySnapshot]
    package var tables: [SchemaTable]
    /// The subtypes at this version; nil in snapshots frozen before subtypes were recorded (they stay
    /// valid as they are: nothing about their subtypes is checked).
    package var subtypes: [SubtypeSnapshot]? = nil
    /// Set by `lucidgen release`: the version was released, so its snapshot binds even while it is still
    /// `current_version` (a change to it would no longer be the released stores' shape). Absent before.
    package var released: Bool? = nil

    package var schema: Schema { Schema(version: version, tables: tables) }

    /// This (frozen) snapshot with the column annotations that do not bind taken from `derived`: a snapshot
    /// written by an older lucidgen has no ``SchemaColumn/valueType`` (a recorded one binds), and whether a
    /// change's loss is accepted (``SchemaColumn/lossyConversionFrom``) says how a store migrates, not
    /// what it holds. Neither is part of the DDL, so a released snapshot stays valid (and is not
    /// rewritten) without them.
    package func completingColumnAnnotations(from derived: SchemaSnapshot) -> SchemaSnapshot {
        var result = self
        if result.subtypes == nil { result.subtypes = derived.subtypes }
        // A snapshot frozen before structs were recorded checks its enums only.
        if var recorded = result.subtypes, let now = derived.subtypes, !recorded.contains(where: { $0.members != nil }) {
            recorded += now.filter { $0.members != nil && !recorded.map(\.name).contains($0.name) }
            result.subtypes = recorded.sorted { $0.name < $1.name }
        }
        // By name, once: a model may have thousands of tables, or a table thousands of columns.
        let derivedTables = Dictionary(derived.tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for tableIndex in result.tables.indices {
            guard let derivedTable = derivedTables[result.tables[tableIndex].name] else { continue }
            let derivedColumns = Dictionary(derivedTable.columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for columnIndex in result.tables[tableIndex].columns.indices {
                let column = result.tables[tableIndex].columns[columnIndex]
                guard let derivedColumn = derivedColumns[column.name] else { continue }
                if column.valueType == nil { result.tables[tableIndex].columns[columnIndex].valueType = derivedColumn.valueType }
                result.tables[tableIndex].columns[columnIndex].lossyConversionFrom = derivedColumn.lossyConversionFrom
                // A JSON struct's change names the Swift types, which are named after the newest version: a
                // later member change renames the released version's type (`Frame` becomes `Frame_3_0`).
                // Whether the members changed is frozen; how the types are called now is not.
                if column.jsonStructChange != nil, let now = derivedColumn.jsonStructChange {
                    result.tables[tableIndex].columns[columnIndex].jsonStructChange = now
                }
            }
        }
        return result
    }

    /// The file name of a version's snapshot.
    package static func fileName(for version: SchemaVersion) -> String { "\(version.string).json" }

    /// Whether the snapshot file of `version` in `folder` is marked released (false when there is none or
    /// it cannot be read: then marking it says why).
    package static func isMarkedReleased(version: SchemaVersion, in folder: String) -> Bool {
        let path = (folder as NSString).appendingPathComponent(fileName(for: version))
        guard let data = FileManager.default.contents(atPath: path), let file = try? SnapshotFile.decoded(from: data) else { return false }
        return file.released == true
    }

    /// Marks the snapshot file of `version` in `folder` released (`lucidgen release`): from then on it binds
    /// even while the version is still `current_version`. Returns the file's path. The file is replaced
    /// whole (written beside it, then renamed over it): the mark is there completely or not at all, and
    /// nothing else in it changes (a file of changes stays one).
    @discardableResult
    package static func markReleased(version: SchemaVersion, in folder: String) throws -> String {
        let path = (folder as NSString).appendingPathComponent(fileName(for: version))
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GenerationFailed(
                "there is no snapshot of \(version) to mark released; run `lucidgen generate` first",
                at: SourceLocation(file: displayPath(path)))
        }
        var file = try SnapshotFile.decoded(from: data)
        guard file.released != true else { return path }
        file.released = true
        do {
            try Data(file.encoded().utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw GenerationFailed("cannot write the snapshot: \(error.localizedDescription)", at: SourceLocation(file: displayPath(path)))
        }
        return path
    }
}

/// A snapshot file as it is on disk (`<schema_path>/<version>.json`).
///
/// Format 1 holds the whole snapshot. Format 2 (written since) holds what changed since the snapshot of
/// its `base` version (the version before it, whose file is frozen by then): the entities, tables and
/// subtypes that are new or differ, and the names of those gone. A history of a thousand versions whose
/// tables grow wider held every table in every file (432 MiB for the long-history benchmark's 1,000
/// versions); its files now grow with the changes. A file without `base` is whole. The `checksum` is
/// the whole version's, so a changed base, or an edited file, is found as before.
package struct SnapshotFile: Sendable, Codable, Equatable {
    package var format: Int
    package var version: SchemaVersion
    /// SHA-256 of the version's whole DDL (``Schema/checksum``).
    package var checksum: String
    /// The version whose snapshot this file continues; nil: the file is whole.
    package var base: SchemaVersion? = nil
    /// The entities (whole: those new or changed since `base`).
    package var entities: [SchemaSnapshot.EntitySnapshot]
    package var removedEntities: [String]? = nil
    package var tables: [SchemaTable]
    package var removedTables: [String]? = nil
    /// Nil in format-1 files frozen before subtypes were recorded.
    package var subtypes: [SchemaSnapshot.SubtypeSnapshot]? = nil
    package var removedSubtypes: [String]? = nil
    /// Set by `lucidgen release` (see ``SchemaSnapshot/released``): the file's own, never its base's.
    package var released: Bool? = nil

    /// The format `generate` writes; format 1 is read as it always was.
    package static let currentFormat = 2
    package static let readableFormats = 1...currentFormat

    enum CodingKeys: String, CodingKey {
        case format, version, checksum, base, entities, tables, subtypes, released
        case removedEntities = "removed_entities"
        case removedTables = "removed_tables"
        case removedSubtypes = "removed_subtypes"
    }

    /// The whole snapshot: this file's items over those of `base` (the snapshot of ``base``; ignored for a
    /// whole file). Items are sorted by name, as the generator writes them.
    package func snapshot(continuing base: SchemaSnapshot?) -> SchemaSnapshot {
        guard self.base != nil, let base else {
            return SchemaSnapshot(
                version: version, checksum: checksum, entities: entities, tables: tables, subtypes: subtypes, released: released)
        }
        return SchemaSnapshot(
            version: version, checksum: checksum,
            entities: Self.applying(entities, removed: removedEntities, to: base.entities, name: \.name),
            tables: Self.applying(tables, removed: removedTables, to: base.tables, name: \.name),
            subtypes: Self.applying(subtypes ?? [], removed: removedSubtypes, to: base.subtypes ?? [], name: \.name),
            released: released)
    }

    /// The items of `new` that `old` lacks or has otherwise, and the names of `old`'s that `new` lacks (nil: none).
    private static func changes<Item: Equatable>(from old: [Item], to new: [Item], name: KeyPath<Item, String>) -> ([Item], [String]?) {
        let oldByName = Dictionary(old.map { ($0[keyPath: name], $0) }, uniquingKeysWith: { first, _ in first })
        let newNames = Set(new.map { $0[keyPath: name] })
        let removed = old.map { $0[keyPath: name] }.filter { !newNames.contains($0) }
        return (new.filter { oldByName[$0[keyPath: name]] != $0 }, removed.isEmpty ? nil : removed)
    }

    /// `base` without the items named in `removed` or in `changed`, with `changed`, sorted by name.
    private static func applying<Item>(_ changed: [Item], removed: [String]?, to base: [Item], name: KeyPath<Item, String>) -> [Item] {
        let replaced = Set(changed.map { $0[keyPath: name] }).union(removed ?? [])
        return (base.filter { !replaced.contains($0[keyPath: name]) } + changed).sorted { $0[keyPath: name] < $1[keyPath: name] }
    }

    /// The canonical file contents: pretty, key-sorted JSON with a trailing newline.
    package func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain values cannot fail.
        let data = try! encoder.encode(self)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// A snapshot file's contents: its tables (most of it) read by LucidSchema's table reader, the rest by
    /// `JSONDecoder`, which took a fifth of `lucidgen plan` for the tables of a model of 2,000 entities.
    /// JSON the table reader does not accept is decoded whole by `JSONDecoder`, whose error then says
    /// what is wrong, as it always did.
    static func decoded(from data: Data) throws -> SnapshotFile {
        let decoder = JSONDecoder()
        guard let head = try? decoder.decode(Head.self, from: data),
            let tables = try? SchemaTable.tables(
                underKey: CodingKeys.tables.stringValue, inJSONObject: String(decoding: data, as: UTF8.self))
        else { return try decoder.decode(SnapshotFile.self, from: data) }
        return SnapshotFile(
            format: head.format, version: head.version, checksum: head.checksum, base: head.base, entities: head.entities,
            removedEntities: head.removedEntities, tables: tables, removedTables: head.removedTables, subtypes: head.subtypes,
            removedSubtypes: head.removedSubtypes, released: head.released)
    }

    /// Every field of a snapshot file but its tables, under the same keys.
    private struct Head: Decodable {
        var format: Int
        var version: SchemaVersion
        var checksum: String
        var base: SchemaVersion?
        var entities: [SchemaSnapshot.EntitySnapshot]
        var removedEntities: [String]?
        var removedTables: [String]?
        var subtypes: [SchemaSnapshot.SubtypeSnapshot]?
        var removedSubtypes: [String]?
        var released: Bool?

        enum CodingKeys: String, CodingKey {
            case format, version, checksum, base, entities, subtypes, released
            case removedEntities = "removed_entities"
            case removedTables = "removed_tables"
            case removedSubtypes = "removed_subtypes"
        }
    }
}

extension SnapshotFile {
    /// The file that writes `snapshot`: what changed since `base` (the snapshot of the version before, as its
    /// file reads), or the whole snapshot when there is none.
    package init(_ snapshot: SchemaSnapshot, continuing base: SchemaSnapshot?) {
        format = Self.currentFormat
        version = snapshot.version
        checksum = snapshot.checksum
        released = snapshot.released
        guard let base else {
            entities = snapshot.entities
            tables = snapshot.tables
            subtypes = snapshot.subtypes
            return
        }
        self.base = base.version
        (entities, removedEntities) = Self.changes(from: base.entities, to: snapshot.entities, name: \.name)
        (tables, removedTables) = Self.changes(from: base.tables, to: snapshot.tables, name: \.name)
        (subtypes, removedSubtypes) = Self.changes(from: base.subtypes ?? [], to: snapshot.subtypes ?? [], name: \.name)
    }
}

/// The entries of released versions found to match their snapshots: each entity and table as a snapshot
/// froze it and as the descriptions derived it, by name.
///
/// Whether a released version matches its snapshot is decided entry by entry: a frozen entity aligned
/// with the derived entity of its name (``ShapeBuilder/aligningRelationshipTargets(of:with:)``), a frozen
/// table completed from the derived table of its name (``SchemaSnapshot/completingColumnAnnotations(from:)``),
/// each equal to the derived entry at its place; and the subtypes, which depend on the version's whole list.
/// So an entry that pairs exactly as one that matched at an earlier version matches again, and only the
/// others are aligned, completed and compared. With every older version released (`generate --force`,
/// `fixtures`), aligning, completing and comparing every entry of every version was a large part of a long
/// history's run; snapshot files of format 2 share their unchanged entries with the version before, and
/// the schemas their quiet tables, and equal arrays that share storage compare at once.
struct ReleaseMatches {
    private var entities: [String: (frozen: SchemaSnapshot.EntitySnapshot, derived: SchemaSnapshot.EntitySnapshot)] = [:]
    private var tables: [String: (frozen: SchemaTable, derived: SchemaTable)] = [:]

    /// Whether `frozen` (a released version's snapshot) matches `derived`, as
    /// `aligning(frozen).completingColumnAnnotations(from: derived) == SnapshotStore.comparable(derived, with: that)`
    /// says, with `aligning` aligning relationship targets with `derived`. The entries of a version that
    /// matches are remembered; false says nothing is known (compare the whole to say what differs).
    mutating func matches(frozen: SchemaSnapshot, derived: SchemaSnapshot, aligning: (SchemaSnapshot) -> SchemaSnapshot) -> Bool {
        guard frozen.version == derived.version, frozen.checksum == derived.checksum, frozen.released == derived.released,
            frozen.entities.count == derived.entities.count, frozen.tables.count == derived.tables.count
        else { return false }
        let newEntities = frozen.entities.indices.filter { index in
            let (old, new) = (frozen.entities[index], derived.entities[index])
            guard old.name == new.name, let pair = entities[old.name] else { return true }
            return pair.frozen != old || pair.derived != new
        }
        let newTables = frozen.tables.indices.filter { index in
            let (old, new) = (frozen.tables[index], derived.tables[index])
            guard old.name == new.name, let pair = tables[old.name] else { return true }
            return pair.frozen != old || pair.derived != new
        }
        // Only those entries, aligned and completed as the whole would be (each entry alone), with the subtypes.
        var part = frozen
        part.entities = newEntities.map { frozen.entities[$0] }
        part.tables = newTables.map { frozen.tables[$0] }
        let aligned = aligning(part).entities
        let completed = part.completingColumnAnnotations(from: derived)
        guard zip(newEntities, aligned).allSatisfy({ derived.entities[$0] == $1 }),
            zip(newTables, completed.tables).allSatisfy({ derived.tables[$0] == $1 }),
            completed.subtypes == SnapshotStore.comparable(derived, with: completed).subtypes
        else { return false }
        for index in newEntities { entities[frozen.entities[index].name] = (frozen.entities[index], derived.entities[index]) }
        for index in newTables { tables[frozen.tables[index].name] = (frozen.tables[index], derived.tables[index]) }
        return true
    }
}

/// A frozen snapshot's entities and their properties, found by name in constant time.
///
/// The resolver compares every property with every released snapshot; a linear search of the snapshot's
/// entities and then of the entity's properties made that quadratic in the model's size (2,000 entities,
/// or an entity of 1,500 properties). Where a snapshot repeats a name (it never should), the first wins,
/// as a linear search would find it.
struct SnapshotIndex: Sendable {
    let snapshot: SchemaSnapshot
    private let entityPositions: [String: Int]
    private let propertyPositions: [[String: Int]]

    init(_ snapshot: SchemaSnapshot) {
        self.snapshot = snapshot
        entityPositions = Self.positions(of: snapshot.entities.map(\.name))
        propertyPositions = snapshot.entities.map { Self.positions(of: $0.properties.map(\.name)) }
    }

    /// The entity of this name (its name at the snapshot's version).
    func entity(named name: String) -> SchemaSnapshot.EntitySnapshot? {
        entityPositions[name].map { snapshot.entities[$0] }
    }

    /// The property `property` of the entity named `entity` (both as named at the snapshot's version).
    func property(named property: String, ofEntityNamed entity: String) -> SchemaSnapshot.PropertySnapshot? {
        guard let entityPosition = entityPositions[entity], let position = propertyPositions[entityPosition][property] else { return nil }
        return snapshot.entities[entityPosition].properties[position]
    }

    /// Whether the entity named `entity` has a property named `property`.
    func hasProperty(named property: String, ofEntityNamed entity: String) -> Bool {
        self.property(named: property, ofEntityNamed: entity) != nil
    }

    /// Each name's first position.
    static func positions(of names: [String]) -> [String: Int] {
        Dictionary(names.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }
}

/// Reads the snapshot folder.
enum SnapshotStore {
    /// Every snapshot in `folder`, by version, whole (each file applied to the snapshot of the version it
    /// continues). Unreadable or malformed files are errors, and so is a file whose base is missing.
    static func load(from folder: String, _ diagnostics: inout DiagnosticCollector) -> [SchemaVersion: (
        snapshot: SchemaSnapshot, file: String
    )] {
        var result: [SchemaVersion: (snapshot: SchemaSnapshot, file: String)] = [:]
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return result }
        let files = names.sorted().filter { $0.hasSuffix(".json") }
        // Decoding (and checksumming, below) each snapshot is independent: a long history has one per
        // version, and this is a large part of its run, so every core takes a share.
        enum Loaded { case unreadable, malformed(String), decoded(SnapshotFile) }
        let loaded = Parallel.map(count: files.count) { index -> Loaded in
            guard let data = FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent(files[index])) else {
                return .unreadable
            }
            do {
                return .decoded(try SnapshotFile.decoded(from: data))
            } catch {
                return .malformed("\(error)")
            }
        }
        var decoded: [(file: SnapshotFile, path: String)] = []
        var paths: [SchemaVersion: String] = [:]
        for (name, outcome) in zip(files, loaded) {
            let path = (folder as NSString).appendingPathComponent(name)
            let shown = displayPath(path)
            let file: SnapshotFile
            switch outcome {
            case .unreadable:
                diagnostics.error("cannot read this schema snapshot", at: SourceLocation(file: shown))
                continue
            case .malformed(let error):
                diagnostics.error("malformed schema snapshot: \(error); restore it from version control", at: SourceLocation(file: shown))
                continue
            case .decoded(let read):
                file = read
            }
            guard SnapshotFile.readableFormats.contains(file.format) else {
                diagnostics.error(
                    "schema snapshot format \(file.format) is not supported by this lucidgen", at: SourceLocation(file: shown))
                continue
            }
            if name != SchemaSnapshot.fileName(for: file.version) {
                diagnostics.error(
                    "this snapshot is of version \(file.version); its file must be named '\(SchemaSnapshot.fileName(for: file.version))'",
                    at: SourceLocation(file: shown))
                continue
            }
            if let existing = paths[file.version] {
                diagnostics.error(
                    "two snapshots of version \(file.version) (also '\(displayPath(existing))')", at: SourceLocation(file: shown))
                continue
            }
            paths[file.version] = path
            decoded.append((file, path))
        }
        // Whole snapshots, oldest first: a file's base is older, so it is whole by then. A file whose base
        // is missing is an error; one whose base is not valid says nothing more (the base's error says it).
        decoded.sort { $0.file.version < $1.file.version }
        var whole: [SchemaVersion: SchemaSnapshot] = [:]
        var broken = Set<SchemaVersion>()
        var applied: [(snapshot: SchemaSnapshot, path: String, base: SchemaVersion?)] = []
        // The versions of every file there, read or not (a malformed base is reported as such, not as missing).
        let present = Set(files.compactMap { try? SchemaVersion(parsing: String($0.dropLast(".json".count))) })
        for (file, path) in decoded {
            var base: SchemaSnapshot?
            if let version = file.base {
                if version >= file.version {
                    diagnostics.error(
                        "this snapshot continues \(version)'s, which is not an earlier version; restore it from version control",
                        at: SourceLocation(file: displayPath(path)))
                    broken.insert(file.version)
                    continue
                }
                guard let found = whole[version] else {
                    if !present.contains(version) {
                        diagnostics.error(
                            "this snapshot holds what changed since version \(version), whose snapshot \(SchemaSnapshot.fileName(for: version)) is missing; restore it from version control",
                            at: SourceLocation(file: displayPath(path)))
                    }
                    broken.insert(file.version)
                    continue
                }
                base = found
            }
            let snapshot = file.snapshot(continuing: base)
            whole[file.version] = snapshot
            applied.append((snapshot, path, file.base))
        }
        let checksumMatches = Parallel.map(count: applied.count) { applied[$0].snapshot.schema.checksum == applied[$0].snapshot.checksum }
        // A version whose snapshot, or whose base's, does not match its checksum: an edit, reported at the first file.
        for ((snapshot, path, base), matches) in zip(applied, checksumMatches) {
            if let base, broken.contains(base) {
                broken.insert(snapshot.version)
                continue
            }
            if !matches {
                diagnostics.error(
                    "schema snapshot \(snapshot.version) was edited by hand: its tables no longer match its checksum; restore it from version control",
                    at: SourceLocation(file: displayPath(path)))
                broken.insert(snapshot.version)
                continue
            }
            result[snapshot.version] = (snapshot, path)
        }
        return result
    }

    /// One difference between a frozen snapshot and the shape the descriptions produce now: the entity
    /// (current name), property (as named in the snapshot) or table it concerns, when known, for its place.
    struct Difference {
        var entity: String?
        var property: String?
        var table: String?
        /// The enum or struct the difference is about (located at its description).
        var subtype: String? = nil
        var message: String
    }

    /// `derived` as a released version compares with `frozen`: without the subtypes the frozen snapshot does
    /// not record and nothing at the version uses (an enum or struct described after the release belongs to
    /// the versions that have it, not to released ones). A snapshot frozen before subtypes were recorded
    /// checks none.
    static func comparable(_ derived: SchemaSnapshot, with frozen: SchemaSnapshot) -> SchemaSnapshot {
        guard let recorded = frozen.subtypes, let now = derived.subtypes else { return derived }
        let recordedNames = Set(recorded.map(\.name))
        // Every subtype recorded: what the properties use keeps nothing more (a long history asks at every version).
        if now.allSatisfy({ recordedNames.contains($0.name) }) { return derived }
        let byName = Dictionary(now.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // The names the version's properties use, and (through struct members) what those use in turn.
        func names(in type: String) -> [String] {
            type.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init)
        }
        var used = Set<String>(), pending = derived.entities.flatMap { $0.properties.flatMap { names(in: $0.type) } }
        while let name = pending.popLast() {
            guard used.insert(name).inserted, let members = byName[name]?.members else { continue }
            pending += members.flatMap { names(in: $0.type) }
        }
        var result = derived
        result.subtypes = now.filter { recordedNames.contains($0.name) || used.contains($0.name) }
        return result
    }

    /// Human-readable differences between a frozen snapshot and the shape the descriptions produce now.
    static func differences(frozen: SchemaSnapshot, derived: SchemaSnapshot) -> [Difference] {
        var result: [Difference] = []
        let frozenEntities = Dictionary(uniqueKeysWithValues: frozen.entities.map { ($0.name, $0) })
        let derivedEntities = Dictionary(uniqueKeysWithValues: derived.entities.map { ($0.name, $0) })
        for name in Set(frozenEntities.keys).union(derivedEntities.keys).sorted() {
            switch (frozenEntities[name], derivedEntities[name]) {
            case (.some, nil):
                result.append(
                    Difference(
                        entity: name,
                        message: "entity '\(name)' is in the released snapshot but the descriptions no longer produce it at this version "
                            + "(if it was renamed, add \"previous_name\" to the version_history item of the rename; if it was removed, keep its description and add \"removed_at_version\")"
                    ))
            case (nil, .some):
                result.append(
                    Difference(
                        entity: name,
                        message:
                            "entity '\(name)' is not in the released snapshot (if it was added later, its first version_history item must be that later version)"
                    ))
            case (let old?, let new?):
                if old.parent != new.parent {
                    // Entity inheritance: a change of `parent` without `parent_history` rewrites released versions.
                    let was = old.parent.map { "parent '\($0)'" } ?? "no parent"
                    let now = new.parent.map { "parent '\($0)'" } ?? "no parent"
                    result.append(
                        Difference(
                            entity: name,
                            message:
                                "entity '\(name)': \(was) became \(now); a released version keeps its parent: say where it changes with \"parent_history\" (e.g. [{ \"until_version\": \"<the next version>\", \"parent\": \(old.parent.map { "\"\($0)\"" } ?? "null") }])"
                        ))
                } else if old.table != new.table {
                    result.append(Difference(entity: name, message: "entity '\(name)': table '\(old.table)' became '\(new.table)'"))
                }
                if old.abstract != new.abstract {
                    result.append(
                        Difference(
                            entity: name,
                            message:
                                "entity '\(name)' became \(new.abstract == true ? "abstract" : "concrete") (\"abstract\" holds at every version)"
                        ))
                }
                if old.identifier != new.identifier {
                    result.append(
                        Difference(entity: name, message: "entity '\(name)': identifier '\(old.identifier)' became '\(new.identifier)'"))
                }
                let oldProperties = Dictionary(uniqueKeysWithValues: old.properties.map { ($0.name, $0) })
                let newProperties = Dictionary(uniqueKeysWithValues: new.properties.map { ($0.name, $0) })
                for property in Set(oldProperties.keys).union(newProperties.keys).sorted() {
                    switch (oldProperties[property], newProperties[property]) {
                    case (.some, nil):
                        result.append(
                            Difference(
                                entity: name, property: property,
                                message: "entity '\(name)': property '\(property)' is missing "
                                    + "(if it was removed later, keep it and add \"removed_at_version\"; if it was renamed later, add \"previous_name\" and \"renamed_at_version\")"
                            ))
                    case (nil, .some):
                        result.append(
                            Difference(
                                entity: name, property: property,
                                message:
                                    "entity '\(name)': property '\(property)' was added (if it was added in a later version, set its \"added_at_version\")"
                            ))
                    case (let a?, let b?):
                        if a.type != b.type {
                            result.append(
                                Difference(
                                    entity: name, property: property,
                                    message: "entity '\(name)': property '\(property)' changed type from \(a.type) to \(b.type)"))
                        }
                        if a.nullable != b.nullable {
                            result.append(
                                Difference(
                                    entity: name, property: property,
                                    message:
                                        "entity '\(name)': property '\(property)' changed from \(a.nullable ? "nullable" : "required") to \(b.nullable ? "nullable" : "required")"
                                ))
                        }
                        if a.defaultValue != b.defaultValue {
                            result.append(
                                Difference(
                                    entity: name, property: property,
                                    message:
                                        "entity '\(name)': property '\(property)' changed default from \(a.defaultValue ?? "none") to \(b.defaultValue ?? "none")"
                                ))
                        }
                    case (nil, nil): break
                    }
                }
            case (nil, nil): break
            }
        }
        if let recorded = frozen.subtypes {
            for subtype in derived.subtypes ?? [] where !recorded.contains(where: { $0.name == subtype.name }) {
                result.append(
                    Difference(
                        subtype: subtype.name,
                        message:
                            "\(subtype.kind) '\(subtype.name)' is not in the released snapshot, but a property uses it at this version "
                            + "(a subtype described after the release belongs to the later versions whose properties use it: set the property's added_at_version, or its type_history)"
                    ))
            }
        }
        for subtype in frozen.subtypes ?? [] {
            let now = derived.subtypes?.first { $0.name == subtype.name }
            if let members = subtype.members, now?.members != members {
                func show(_ members: [SchemaSnapshot.MemberSnapshot]) -> String {
                    members.map { "\($0.name): \($0.type)\($0.nullable ? "?" : "")" }.joined(separator: ", ")
                }
                result.append(
                    Difference(
                        subtype: subtype.name,
                        message:
                            "struct '\(subtype.name)' had the members \(show(members)), now \(now?.members.map(show) ?? "none")"
                            + "; say at which later version each member was added, removed, renamed or made optional or required (added_at_version, removed_at_version, previous_name with renamed_at_version, type_history)"
                    ))
                continue
            }
            guard let cases = subtype.cases, now?.cases != cases else { continue }
            guard let newCases = now?.cases else {
                result.append(
                    Difference(
                        subtype: subtype.name,
                        message: "enum '\(subtype.name)' is in the released snapshot but no longer an enum at this version"))
                continue
            }
            let removed = cases.filter { !newCases.contains($0) }, added = newCases.filter { !cases.contains($0) }
            result.append(
                Difference(
                    subtype: subtype.name,
                    message:
                        "enum '\(subtype.name)' had the cases \(cases.joined(separator: ", ")), now \(newCases.joined(separator: ", "))"
                        + (removed.isEmpty ? "" : " (gone: \(removed.joined(separator: ", ")))")
                        + (added.isEmpty ? "" : " (new: \(added.joined(separator: ", ")))")
                        + "; say at which later version each case was added, removed or renamed (added_at_version, removed_at_version, previous_name with renamed_at_version)"
                ))
        }
        if result.isEmpty && frozen.tables != derived.tables {
            let frozenTables = Dictionary(uniqueKeysWithValues: frozen.tables.map { ($0.name, $0) })
            for table in derived.tables where frozenTables[table.name] != table {
                result.append(
                    Difference(
                        table: table.name,
                        message: "table '\(table.name)' differs: " + Self.difference(frozen: frozenTables[table.name], now: table)))
            }
            for table in frozen.tables where derived.tables.allSatisfy({ $0.name != table.name }) {
                result.append(Difference(table: table.name, message: "table '\(table.name)' is no longer produced"))
            }
        }
        return result
    }

    /// Where, in the snapshot file at `path`, the entity or table that `difference` concerns is (its
    /// name): the place a difference without a description to point at (one deleted) is shown.
    static func location(of difference: Difference, inSnapshotAt path: String) -> SourceLocation? {
        let (list, name) = difference.entity.map { ("entities", $0) } ?? difference.table.map { ("tables", $0) } ?? ("", "")
        guard !list.isEmpty, let data = FileManager.default.contents(atPath: path),
            let root = try? JSONParser.parse(Array(data), file: displayPath(path)),
            case .object(let members) = root.value, case .array(let items)? = members.first(where: { $0.key == list })?.value.value
        else { return nil }
        for item in items {
            guard case .object(let fields) = item.value, let field = fields.first(where: { $0.key == "name" }),
                case .string(name) = field.value.value
            else { continue }
            return field.keyLocation
        }
        return nil
    }

    /// What changed in a table: its SQL when that differs, else its history (where it or a column came from).
    static func difference(frozen: SchemaTable?, now: SchemaTable) -> String {
        guard let frozen else { return "it is new, now \(now.createTableStatement())" }
        if frozen.createStatements != now.createStatements {
            let gone = frozen.columns.map(\.name).filter { name in now.column(named: name) == nil }
            let hint =
                gone.isEmpty
                ? ""
                : "; if column \(gone.joined(separator: ", ")) was renamed at a later version, say so on its property: "
                    + #"a type_history item { "until_version": "<that version>", "persisted_name": "<the old column name>" }"#
            return "frozen \(frozen.createStatements.joined(separator: "; ")), now \(now.createStatements.joined(separator: "; "))\(hint)"
        }
        func origin(_ renamed: String?, _ converted: String?) -> String {
            if let renamed { return "renamed from '\(renamed)'" }
            if let converted { return "converted from '\(converted)'" }
            return "no earlier name"
        }
        var changes: [String] = []
        if (frozen.renamedFrom, frozen.convertedFromColumn) != (now.renamedFrom, now.convertedFromColumn) {
            changes.append(
                "the table was \(origin(frozen.renamedFrom, frozen.convertedFromColumn)), now \(origin(now.renamedFrom, now.convertedFromColumn))"
            )
        }
        for column in now.columns {
            guard let old = frozen.column(named: column.name),
                (old.renamedFrom, old.convertedFromJoinTable) != (column.renamedFrom, column.convertedFromJoinTable)
            else { continue }
            changes.append(
                "column '\(column.name)' was \(origin(old.renamedFrom, old.convertedFromJoinTable)), now \(origin(column.renamedFrom, column.convertedFromJoinTable))"
            )
        }
        for column in now.columns where frozen.column(named: column.name).map({ $0.caseChanges != column.caseChanges }) ?? false {
            let describe = { (changes: [EnumCaseChange]?) in
                changes.map { $0.map(\.description).joined(separator: ", ") } ?? "no case changes"
            }
            changes.append(
                "column '\(column.name)' had \(describe(frozen.column(named: column.name)?.caseChanges)), now \(describe(column.caseChanges))"
            )
        }
        for column in now.columns {
            guard let old = frozen.column(named: column.name), let frozenType = old.valueType, frozenType != column.valueType else {
                continue
            }
            changes.append("column '\(column.name)' held \(frozenType) values, now \(column.valueType?.description ?? "unknown")")
        }
        return changes.isEmpty ? "frozen \(frozen), now \(now)" : changes.joined(separator: "; ")
    }
}
