import Foundation
import GRDB
import Logging
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting

/// The app's objects on the stores the explorer migrates: a store is shared with the app.
///
/// For a store seeded at an older version, objects are drawn from the explorer's seed over the tables and
/// scalar columns that exist at that version: a view (some columns, with a `WHERE`), a `BEFORE DELETE`
/// guard or an `AFTER UPDATE OF` audit trigger writing an app table, an external-content FTS5 index over
/// one or two text columns with its three sync triggers (FTS5 §4.4.3), an app table with a foreign key to
/// a described table, and `grdb_migrations`. What each shows is recorded before migrating.
///
/// The oracle derives from the history alone (never from the runtime's conflict finder) which steps of the
/// path cannot keep which objects: a removed table or column an object uses, a renamed table or column an
/// FTS5 table names in its declaration. Then the migration must refuse at the first such step naming exactly
/// those objects (the store unchanged from that step's start: byte-identical when it is the first step or
/// the whole path is one transaction), and `LucidStore.inspect` must have reported the same findings; else
/// every object must still exist and work afterwards: the view returns the same rows (on the columns whose
/// values the history leaves as they were), FTS `integrity-check` passes and a `MATCH` finds the same rows
/// by identifier, the guard refuses a delete, an update is audited, the app table keeps its rows and its
/// foreign key, and every described table keeps each row's rowid.
struct AppObjectOracle {
    let history: History
    let workspace: Workspace
    let model: ResolvedModel
    let seed: UInt64
    /// The options the app migrates with (its stages, and the registry's declared ones).
    let options: StoreOptions
    let registryStages: [ExplicitStage]
    let rows: FixtureRows

    enum Kind: String {
        case view, guardTrigger = "guard trigger", auditTrigger = "audit trigger", fts = "FTS5 index", appTable = "app table",
            grdbMigrations = "grdb_migrations"
    }

    /// One object (with what comes with it) planted on the store.
    struct Planted {
        var kind: Kind
        /// The entity whose table it is on (nil: `grdb_migrations`).
        var entity: Int?
        /// The properties whose columns it uses (by key), and their columns at the start version.
        var properties: [Int] = []
        var columns: [String] = []
        /// The names that depend on the entity's table (those a refusal names).
        var names: [String] = []
        /// Every name it puts in `sqlite_master` (with helper tables, FTS shadow tables excepted).
        var created: [String] = []
        var sql: [String] = []
    }

    // MARK: Drawing

    /// A scalar property's column at `version`, and its storage.
    struct Candidate {
        var entity: Int
        var property: Int
        var column: String
        var type: SchemaColumn.StorageType
    }

    func shape(of entityKey: Int, at version: SchemaVersion) -> EntityShape? {
        guard let final = workspace.entity(entityKey), let resolved = model.entities.first(where: { $0.name == final.name }) else {
            return nil
        }
        return resolved.shape(at: version)
    }

    func column(of entityKey: Int, _ propertyKey: Int, at version: SchemaVersion) -> String? {
        guard let property = workspace.entity(entityKey)?.property(propertyKey), let shape = shape(of: entityKey, at: version) else {
            return nil
        }
        return shape.properties.first { $0.currentName == property.name }?.column
    }

    /// The release index of a schema version.
    func releaseIndex(of version: SchemaVersion) -> Int? {
        history.releases.firstIndex { (try? SchemaVersion(parsing: $0.version)) == version }
    }

    /// Edits applied after release `start`, up to and including release `end`, with their release's version.
    func edits(after start: Int, through end: Int) -> [(SchemaVersion, Edit)] {
        guard start + 1 <= end else { return [] }
        return history.releases[(start + 1)...end].flatMap { release in
            let version = (try? SchemaVersion(parsing: release.version))
            return (workspace.applied[release.version] ?? []).compactMap { edit in version.map { ($0, edit) } }
        }
    }

    /// Whether the values of a property stay as they were from release `start` to the newest: no type
    /// change (a conversion) and no change of `nullable` (NULLs made required take the default) after it.
    func valuesKept(entity: Int, property: Int, after start: Int) -> Bool {
        for (_, edit) in edits(after: start, through: history.releases.count - 1) {
            switch edit {
            case .changeType(let e, let p, _) where e == entity && p == property: return false
            case .setNullable(let e, let p, _, _) where e == entity && p == property: return false
            default: continue
            }
        }
        return true
    }

    func draw(at schema: Schema, start: Int, _ generator: inout HistoryGenerator) -> [Planted] {
        let version = schema.version
        var tables: [(entity: Int, table: String, key: String, keyType: SchemaColumn.StorageType, scalars: [Candidate])] = []
        for entity in workspace.entitiesAt[history.releases[start].version] ?? [] where entity.removedAt == nil {
            guard let shape = shape(of: entity.key, at: version), let table = schema.table(named: shape.tableName) else { continue }
            var scalars: [Candidate] = []
            for property in entity.properties where property.removedAt == nil && property.key != entity.identifierProperty {
                guard case .scalar = property.kind, let name = column(of: entity.key, property.key, at: version),
                    let column = table.column(named: name)
                else { continue }
                scalars.append(Candidate(entity: entity.key, property: property.key, column: column.name, type: column.type))
            }
            tables.append((entity.key, table.name, shape.identifier.column, shape.identifier.storage, scalars))
        }
        guard !tables.isEmpty else { return [] }
        var planted: [Planted] = []
        let q = quoteIdentifier

        let withScalars = tables.filter { !$0.scalars.isEmpty }
        if !withScalars.isEmpty && generator.chance(85) {
            let table = generator.pick(withScalars)
            var chosen: [Candidate] = []
            for _ in 0..<generator.int(1...2) {
                let candidate = generator.pick(table.scalars)
                if !chosen.contains(where: { $0.property == candidate.property }) { chosen.append(candidate) }
            }
            // The WHERE reads a chosen column whose values the history keeps (else the rowid).
            let kept = chosen.filter { valuesKept(entity: $0.entity, property: $0.property, after: start) }
            let condition = kept.first.map { "\(q($0.column)) IS NOT NULL" } ?? "rowid % 2 = 1"
            let select = chosen.enumerated().map { "\(q($0.element.column)) AS v\($0.offset)" }.joined(separator: ", ")
            planted.append(
                Planted(
                    kind: .view, entity: table.entity, properties: chosen.map(\.property), columns: chosen.map(\.column),
                    names: ["app_view"], created: ["app_view"],
                    sql: ["CREATE VIEW app_view AS SELECT \(select) FROM \(q(table.table)) WHERE \(condition)"]))
        }
        if generator.chance(85) {
            let table = generator.pick(tables)
            if table.scalars.isEmpty || generator.chance(50) {
                planted.append(
                    Planted(
                        kind: .guardTrigger, entity: table.entity, names: ["app_guard"], created: ["app_guard"],
                        sql: [
                            "CREATE TRIGGER app_guard BEFORE DELETE ON \(q(table.table)) BEGIN SELECT RAISE(ABORT, 'the app keeps every row'); END"
                        ]))
            } else {
                let column = generator.pick(table.scalars)
                planted.append(
                    Planted(
                        kind: .auditTrigger, entity: table.entity, properties: [column.property], columns: [column.column],
                        names: ["app_audit_trigger"],
                        created: ["app_audit", "app_audit_trigger"],
                        sql: [
                            "CREATE TABLE app_audit (row_id INTEGER, old_value, new_value)",
                            "CREATE TRIGGER app_audit_trigger AFTER UPDATE OF \(q(column.column)) ON \(q(table.table)) BEGIN INSERT INTO app_audit VALUES (old.rowid, old.\(q(column.column)), new.\(q(column.column))); END",
                        ]))
            }
        }
        let withText = tables.filter { $0.scalars.contains { $0.type == .text } }
        if !withText.isEmpty && generator.chance(75) {
            let table = generator.pick(withText)
            let texts = table.scalars.filter { $0.type == .text }
            var chosen = [generator.pick(texts)]
            if texts.count > 1 && generator.chance(50) {
                let second = generator.pick(texts)
                if second.property != chosen[0].property { chosen.append(second) }
            }
            let columns = chosen.map { q($0.column) }.joined(separator: ", ")
            let new = chosen.map { "new.\(q($0.column))" }.joined(separator: ", ")
            let old = chosen.map { "old.\(q($0.column))" }.joined(separator: ", ")
            let t = q(table.table)
            planted.append(
                Planted(
                    kind: .fts, entity: table.entity, properties: chosen.map(\.property), columns: chosen.map(\.column),
                    names: ["app_fts", "app_fts_ai", "app_fts_ad", "app_fts_au"],
                    created: ["app_fts", "app_fts_ai", "app_fts_ad", "app_fts_au"],
                    sql: [
                        "CREATE VIRTUAL TABLE app_fts USING fts5(\(columns), content=\(quoteLiteral(table.table)), content_rowid='rowid')",
                        "CREATE TRIGGER app_fts_ai AFTER INSERT ON \(t) BEGIN INSERT INTO app_fts (rowid, \(columns)) VALUES (new.rowid, \(new)); END",
                        "CREATE TRIGGER app_fts_ad AFTER DELETE ON \(t) BEGIN INSERT INTO app_fts (app_fts, rowid, \(columns)) VALUES ('delete', old.rowid, \(old)); END",
                        """
                        CREATE TRIGGER app_fts_au AFTER UPDATE ON \(t) BEGIN
                          INSERT INTO app_fts (app_fts, rowid, \(columns)) VALUES ('delete', old.rowid, \(old));
                          INSERT INTO app_fts (rowid, \(columns)) VALUES (new.rowid, \(new));
                        END
                        """,
                        "INSERT INTO app_fts (app_fts) VALUES ('rebuild')",
                    ]))
        }
        if generator.chance(75) {
            let table = generator.pick(tables)
            planted.append(
                Planted(
                    kind: .appTable, entity: table.entity, names: ["app_note"], created: ["app_note"],
                    sql: [
                        "CREATE TABLE app_note (id INTEGER PRIMARY KEY, ref \(table.keyType.rawValue) REFERENCES \(q(table.table))(\(q(table.key))) ON DELETE CASCADE, body TEXT)",
                        "INSERT INTO app_note (ref, body) SELECT \(q(table.key)), 'note ' || rowid FROM \(q(table.table)) ORDER BY rowid LIMIT 3",
                    ]))
        }
        planted.append(
            Planted(
                kind: .grdbMigrations, created: ["grdb_migrations"],
                sql: [
                    "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)",
                    "INSERT INTO grdb_migrations VALUES ('v1'), ('v2')",
                ]))
        return planted
    }

    // MARK: What the history says

    /// Words of the planted SQL that SQLite also takes as bare names (keywords outside its reserved set, type
    /// names): a table or column named like one is "named" by every object whose SQL has the word (see the
    /// known limit on ``expectedConflicts(_:steps:start:)``). Reserved keywords (`select`, `values`, `table`…)
    /// are never names to the runtime when bare.
    static let keywords: Set<String> = [
        "of", "begin", "end", "after", "before", "trigger", "view", "by", "key", "raise", "abort", "virtual", "cascade", "integer", "text",
    ]

    static func words(_ sql: String) -> Set<String> {
        Set(sql.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
    }

    /// The conflicts of each step of `steps` (from the store at release `start`), as `name: reason`: those the
    /// history makes (`must`), and those the runtime may add (`may`).
    ///
    /// Known limit of the runtime: the runtime tells which tables and columns a trigger or virtual table
    /// uses by the words of its SQL; a bare word that SQLite also takes as a name (`key`, `after`, `raise`)
    /// counts as one, so a table or column named like it counts as used by every object whose SQL has the
    /// word (a guard's `SELECT RAISE`): its removal is refused though nothing uses it. `may` holds exactly
    /// those over-refusals, so that the explorer stays green on them.
    func expectedConflicts(_ planted: [Planted], steps: [MigrationStep], start: Int) -> [(must: Set<String>, may: Set<String>)] {
        steps.map { step in
            var must: Set<String> = []
            var may: Set<String> = []
            func keywordNamed(_ name: String, by object: Planted) -> Bool {
                Self.keywords.contains(name.lowercased()) && object.sql.contains { Self.words($0).contains(name.lowercased()) }
            }
            for (version, edit) in edits(after: start, through: history.releases.count - 1) where version > step.from && version <= step.to
            {
                switch edit {
                case .removeEntity(let key):
                    let table = shape(of: key, at: step.from)?.tableName ?? "?"
                    for object in planted where object.entity != nil {
                        if object.entity == key {
                            must.formUnion(object.names.map { "\($0): uses a removed table" })
                        } else if keywordNamed(table, by: object) {
                            may.formUnion(object.names.map { "\($0): uses a removed table" })
                        }
                        // The to-one columns pointing at it go with it.
                        for property in workspace.entity(object.entity!)?.properties ?? [] where property.kind == .toOne(entity: key) {
                            if let column = self.column(of: object.entity!, property.key, at: step.from), keywordNamed(column, by: object) {
                                may.formUnion(object.names.map { "\($0): uses removed column \(column.lowercased())" })
                            }
                        }
                    }
                // A column of a table the step removes goes with the table.
                case .removeProperty(let key, _) where shape(of: key, at: step.to) == nil:
                    continue
                case .removeProperty(let key, let property):
                    let column = (self.column(of: key, property, at: step.from) ?? "?").lowercased()
                    for object in planted where object.entity == key {
                        if object.properties.contains(property) {
                            must.formUnion(object.names.map { "\($0): uses removed column \(column)" })
                        } else if keywordNamed(column, by: object) {
                            may.formUnion(object.names.map { "\($0): uses removed column \(column)" })
                        }
                    }
                default: continue
                }
            }
            // Renames by the names at both ends of the step (a rename and its reversal within one step is none).
            for object in planted where object.kind == .fts {
                guard let entity = object.entity, let before = shape(of: entity, at: step.from), let after = shape(of: entity, at: step.to)
                else { continue }
                let columnRenamed = object.properties.contains { property in
                    guard let old = column(of: entity, property, at: step.from), let new = column(of: entity, property, at: step.to) else {
                        return false
                    }
                    return old.lowercased() != new.lowercased()
                }
                if before.tableName.lowercased() != after.tableName.lowercased() || columnRenamed {
                    must.insert("app_fts: cannot follow a rename")
                }
                // The known issue: a rename of a table or column named like a keyword of its SQL (`table`).
                let renamedTables = (workspace.entitiesAt[history.releases[start].version] ?? []).compactMap { other -> String? in
                    guard let old = shape(of: other.key, at: step.from)?.tableName, let new = shape(of: other.key, at: step.to)?.tableName,
                        old.lowercased() != new.lowercased()
                    else { return nil }
                    return old
                }
                let renamedColumns = (workspace.entity(entity)?.properties ?? []).compactMap { property -> String? in
                    guard let old = column(of: entity, property.key, at: step.from),
                        let new = column(of: entity, property.key, at: step.to), old.lowercased() != new.lowercased()
                    else { return nil }
                    return old
                }
                if (renamedTables + renamedColumns).contains(where: { keywordNamed($0, by: object) }) {
                    may.insert("app_fts: cannot follow a rename")
                }
            }
            return (must, may.subtracting(must))
        }
    }

    static func describe(_ conflicts: [AppObjectConflict]) -> [String] {
        Set(
            conflicts.map { conflict -> String in
                switch conflict.reason {
                case .usesRemovedTable: "\(conflict.object.name): uses a removed table"
                case .usesRemovedColumn(_, let column): "\(conflict.object.name): uses removed column \(column.lowercased())"
                case .cannotFollowRename: "\(conflict.object.name): cannot follow a rename"
                case .nameTaken(let name): "\(conflict.object.name): name taken by \(name)"
                }
            }
        ).sorted()
    }

    // MARK: Checking

    static func strings(_ db: Database, _ sql: String, _ arguments: StatementArguments = []) throws -> [String] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in row.databaseValues.map(render).joined(separator: "|") }
    }

    static func render(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64(let integer): "\(integer)"
        case .double(let double): "\(double)"
        case .string(let text): text
        case .blob(let data): "x'" + data.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }

    /// What the planted objects show before migrating.
    struct Before {
        var viewRows: [[DatabaseValue]] = []
        var term: String?
        var matches: [String] = []
        var notes: [String] = []
        /// Per entity at the start: rowid → identifier.
        var rowids: [Int: [String]] = [:]
        var guardRows = 0
    }

    /// Plants objects on a store seeded at `schema`, migrates it, and checks them. Failures as messages.
    /// What became of the objects on one store, for the soak's statistics.
    enum Result: String, CaseIterable {
        case kept = "kept every object", refused = "refused as the history says", knownIssue = "refused by the known issue (keyword names)",
            failed = "failed"
    }

    func check(from schema: Schema, index: Int) -> (failures: [String], result: Result) {
        var result = Result.kept
        var (failures, objects) = checkObjects(from: schema, index: index, result: &result)
        // The objects once per store, after its first failure.
        if !failures.isEmpty { failures[0] += "\n      objects: " + objects }
        return (failures, failures.isEmpty ? result : .failed)
    }

    func checkObjects(from schema: Schema, index: Int, result: inout Result) -> ([String], String) {
        guard let start = releaseIndex(of: schema.version) else { return ([], "") }
        var generator = HistoryGenerator(seed: seed &* 1_000_003 &+ UInt64(index) &+ 0xA99)
        let planted = draw(at: schema, start: start, &generator)
        let wholePath = generator.chance(50)
        let source = "app objects from \(schema.version)"
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("explore-objects-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = (folder as NSString).appendingPathComponent("store.sqlite")
        let described = planted.map { "\($0.kind.rawValue) (\($0.sql.joined(separator: "; ")))" }.joined(separator: "\n      ")
        func failure(_ message: String) -> String { "\(source) [\(wholePath ? "whole path" : "per step")]: \(message)" }
        let stages = options.stages.map(\.explicit) + registryStages
        let before: Before
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let database = try LucidStore.create(
                atPath: path, versions: model.schemas, version: schema.version, dataMigrations: options.dataMigrations, stages: stages)
            try SeedWriter.write(database) { db in
                for statement in rows.insertStatements(at: schema.version, rows: Seed.rows) { try db.execute(sql: statement) }
            }
            before = try database.write { db in
                for object in planted { for sql in object.sql { try db.execute(sql: sql) } }
                return try read(planted, db, at: schema.version, start: start)
            }
            try database.close()
        } catch {
            return ([failure("the explorer cannot plant them: \(error)")], described)
        }

        let status: StoreStatus
        do {
            status = try LucidStore.inspect(atPath: path, versions: model.schemas, stages: stages)
        } catch {
            return ([failure("inspect failed: \(error)")], described)
        }
        var failures: [String] = []
        // Every planted object (and nothing of lucidgen's) is the app's.
        let listed = Set(status.appObjects.map { $0.name.lowercased() })
        let expectedNames = Set(planted.flatMap(\.created))
        if !expectedNames.isSubset(of: listed) || !listed.allSatisfy({ expectedNames.contains($0) || $0.hasPrefix("app_fts_") }) {
            failures.append(failure("inspect lists the app's objects \(listed.sorted()), planted \(expectedNames.sorted())"))
        }
        let expected = expectedConflicts(planted, steps: status.steps, start: start)
        let inspected = status.steps.map { step in
            status.appObjectConflicts.first { $0.step.from == step.from && $0.step.to == step.to }.map { Self.describe($0.conflicts) } ?? []
        }
        let agrees = zip(expected, inspected).allSatisfy { expected, found in
            expected.must.isSubset(of: found) && Set(found).isSubset(of: expected.must.union(expected.may))
        }
        if !agrees {
            let show = { (lists: [[String]]) in
                zip(status.steps, lists).filter { !$0.1.isEmpty }.map { "\($0.0.from) → \($0.0.to): \($0.1)" }
            }
            failures.append(
                failure("inspect reports conflicts \(show(inspected)), the history gives \(show(expected.map { $0.must.sorted() }))"))
        }
        // The step that refuses: the first the history says cannot keep every object (or, with the known issue, the first inspect names).
        let refusing = zip(status.steps, zip(expected, inspected)).first { !$0.1.0.must.isEmpty || (agrees && !$0.1.1.isEmpty) }.map {
            ($0.0, agrees ? $0.1.1 : $0.1.0.must.sorted())
        }
        let bytes = FileManager.default.contents(atPath: path)
        var migration = options
        migration.declaredStages += registryStages
        migration.atomicity = wholePath ? .wholePath : .perStep
        migration.logger = Logger(label: "lucidgen.explorer") { _ in SwiftLogNoOpLogHandler() }
        do {
            let database = try LucidStore.open(atPath: path, versions: model.schemas, options: migration).database
            defer { try? database.close() }
            if let (step, conflicts) = refusing {
                return (
                    failures + [failure("the migration did not refuse at \(step.from) → \(step.to), which cannot keep \(conflicts)")],
                    described
                )
            }
            // The checks write (a refused delete, an audited update): they are the app's statements after opening.
            failures += try database.write { db in try self.after(planted, before, db, start: start) }.map(failure)
        } catch let error as StoreError {
            guard case .appObjectsInTheWay(_, let from, let to, let conflicts) = error else {
                return (failures + [failure("the migration failed: \(error)")], described)
            }
            guard let (step, expectedConflicts) = refusing else {
                return (
                    failures + [
                        failure(
                            "the migration refused at \(from) → \(to), but the history leaves every object usable: \(Self.describe(conflicts))"
                        )
                    ], described
                )
            }
            if step.from != from || step.to != to || Self.describe(conflicts) != expectedConflicts {
                failures.append(
                    failure(
                        "the migration refused at \(from) → \(to) naming \(Self.describe(conflicts)), the history gives \(step.from) → \(step.to) naming \(expectedConflicts)"
                    ))
            }
            result = zip(status.steps, expected).first { $0.0.from == step.from }.map { $0.1.must.isEmpty } == true ? .knownIssue : .refused
            let stays = wholePath ? schema.version : step.from
            let version = try? DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") }
            if version.flatMap({ try? SchemaVersion(parsing: $0) }) != stays {
                failures.append(failure("after refusing at \(from) → \(to) the store is at \(version ?? "no version"), not \(stays)"))
            }
            if stays == schema.version && FileManager.default.contents(atPath: path) != bytes {
                failures.append(failure("the refused migration changed the store's bytes"))
            }
        } catch {
            return (failures + [failure("the migration failed: \(error)")], described)
        }
        return (failures, described)
    }

    /// What the planted objects show on the store (before migrating).
    func read(_ planted: [Planted], _ db: Database, at version: SchemaVersion, start: Int) throws -> Before {
        var before = Before()
        for entity in workspace.entitiesAt[history.releases[start].version] ?? [] where entity.removedAt == nil {
            guard let shape = shape(of: entity.key, at: version) else { continue }
            before.rowids[entity.key] = try Self.strings(
                db, "SELECT rowid, \(quoteIdentifier(shape.identifier.column)) FROM \(quoteIdentifier(shape.tableName)) ORDER BY rowid")
        }
        for object in planted {
            switch object.kind {
            case .view:
                before.viewRows = try Row.fetchAll(db, sql: "SELECT * FROM app_view").map { Array($0.databaseValues) }
            case .fts:
                guard let entity = object.entity, let shape = shape(of: entity, at: version) else { continue }
                // A word of some row's first indexed column.
                let values = try String.fetchAll(
                    db,
                    sql:
                        "SELECT CAST(\(quoteIdentifier(object.columns[0])) AS TEXT) FROM \(quoteIdentifier(shape.tableName)) WHERE \(quoteIdentifier(object.columns[0])) IS NOT NULL ORDER BY rowid"
                )
                before.term = values.lazy.flatMap { $0.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) } }.first.map {
                    String($0).lowercased()
                }
                if let term = before.term { before.matches = try matches(term, table: shape.tableName, key: shape.identifier.column, db) }
            case .appTable:
                before.notes = try Self.strings(db, "SELECT * FROM app_note ORDER BY id")
            case .guardTrigger:
                guard let entity = object.entity, let shape = shape(of: entity, at: version) else { continue }
                before.guardRows = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(shape.tableName))") ?? 0
            default: continue
            }
        }
        return before
    }

    func matches(_ term: String, table: String, key: String, _ db: Database) throws -> [String] {
        try Self.strings(
            db,
            "SELECT t.\(quoteIdentifier(key)) FROM app_fts JOIN \(quoteIdentifier(table)) AS t ON t.rowid = app_fts.rowid WHERE app_fts MATCH ? ORDER BY 1",
            ["\"\(term)\""])
    }

    /// After a migration that kept them: each object is there and works.
    func after(_ planted: [Planted], _ before: Before, _ db: Database, start: Int) throws -> [String] {
        var failures: [String] = []
        let newest = model.schemas[model.schemas.count - 1].version
        let names = Set(try String.fetchAll(db, sql: "SELECT lower(name) FROM sqlite_master"))
        for object in planted {
            let missing = object.created.filter { !names.contains($0) }
            if !missing.isEmpty {
                failures.append("\(object.kind.rawValue): \(missing.joined(separator: ", ")) is gone after the migration")
            }
        }
        if !failures.isEmpty { return failures }
        // Every described table kept each row's rowid (and identifier).
        for (entity, rows) in before.rowids.sorted(by: { $0.key < $1.key }) {
            guard let shape = shape(of: entity, at: newest) else { continue }
            let now = try Self.strings(
                db, "SELECT rowid, \(quoteIdentifier(shape.identifier.column)) FROM \(quoteIdentifier(shape.tableName)) ORDER BY rowid")
            if now != rows {
                failures.append(
                    "table \(shape.tableName) has rowid|identifier \(now.prefix(6)) after the migration, \(rows.prefix(6)) before")
            }
        }
        func call(_ label: String, _ body: () throws -> Void) {
            do { try body() } catch { failures.append("\(label): \(error)") }
        }
        for object in planted {
            guard let entity = object.entity else {
                call("grdb_migrations") {
                    let rows = try Self.strings(db, "SELECT identifier FROM grdb_migrations ORDER BY 1")
                    if rows != ["v1", "v2"] { failures.append("grdb_migrations holds \(rows)") }
                }
                continue
            }
            guard let shape = shape(of: entity, at: newest) else {
                failures.append("\(object.kind.rawValue): its table's entity is gone, yet the migration kept it")
                continue
            }
            let table = quoteIdentifier(shape.tableName)
            let key = quoteIdentifier(shape.identifier.column)
            switch object.kind {
            case .view:
                call("view") {
                    let rows = try Row.fetchAll(db, sql: "SELECT * FROM app_view").map { Array($0.databaseValues) }
                    let kept = object.properties.enumerated().filter { valuesKept(entity: entity, property: $0.element, after: start) }.map(
                        \.offset)
                    let project = { (rows: [[DatabaseValue]]) in
                        rows.map { row in kept.map { Self.render(row[$0]) }.joined(separator: "|") }.sorted()
                    }
                    if rows.count != before.viewRows.count || project(rows) != project(before.viewRows) {
                        failures.append(
                            "view: \(rows.count) rows \(project(rows).prefix(4)) after the migration, \(before.viewRows.count) rows \(project(before.viewRows).prefix(4)) before (columns \(kept) compared)"
                        )
                    }
                }
            case .guardTrigger:
                call("guard trigger") {
                    var refused = false
                    do {
                        try db.execute(sql: "DELETE FROM \(table) WHERE rowid = (SELECT min(rowid) FROM \(table))")
                    } catch {
                        refused = true
                    }
                    let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
                    if (before.guardRows > 0 && !refused) || count != before.guardRows {
                        failures.append(
                            "guard trigger: a delete was \(refused ? "refused" : "allowed"), \(count) rows after the migration, \(before.guardRows) before"
                        )
                    }
                }
            case .auditTrigger:
                call("audit trigger") {
                    let audited = try Self.strings(db, "SELECT * FROM app_audit")
                    if !audited.isEmpty {
                        failures.append(
                            "audit trigger: the migration's own statements were audited as the app's updates: \(audited.prefix(4))")
                    }
                    guard let column = self.column(of: entity, object.properties[0], at: newest),
                        let rowid = try Int64.fetchOne(db, sql: "SELECT min(rowid) FROM \(table)")
                    else { return }
                    try db.execute(
                        sql: "UPDATE \(table) SET \(quoteIdentifier(column)) = \(quoteIdentifier(column)) WHERE rowid = ?",
                        arguments: [rowid])
                    let rows = try Self.strings(db, "SELECT row_id FROM app_audit WHERE row_id = ?", [rowid])
                    if rows.count != 1 {
                        failures.append("audit trigger: an update of \(shape.tableName).\(column) wrote \(rows.count) audit rows")
                    }
                }
            case .fts:
                call("FTS5 index") {
                    try db.execute(sql: "INSERT INTO app_fts (app_fts, rank) VALUES ('integrity-check', 1)")
                    if let term = before.term, object.properties.allSatisfy({ valuesKept(entity: entity, property: $0, after: start) }) {
                        let found = try matches(term, table: shape.tableName, key: shape.identifier.column, db)
                        if found != before.matches {
                            failures.append(
                                "FTS5 index: MATCH \"\(term)\" finds \(found.prefix(6)) after the migration, \(before.matches.prefix(6)) before"
                            )
                        }
                    }
                    guard let column = self.column(of: entity, object.properties[0], at: newest),
                        let rowid = try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM \(table)")
                    else { return }
                    // The sync triggers still fire.
                    try db.execute(sql: "UPDATE \(table) SET \(quoteIdentifier(column)) = 'zyzzyva' WHERE rowid = ?", arguments: [rowid])
                    try db.execute(sql: "INSERT INTO app_fts (app_fts, rank) VALUES ('integrity-check', 1)")
                    let found = try matches("zyzzyva", table: shape.tableName, key: shape.identifier.column, db)
                    let identifier = try Self.strings(db, "SELECT \(key) FROM \(table) WHERE rowid = ?", [rowid])
                    if found != identifier { failures.append("FTS5 index: after an update MATCH finds \(found), expected \(identifier)") }
                }
            case .appTable:
                call("app table") {
                    let notes = try Self.strings(db, "SELECT * FROM app_note ORDER BY id")
                    if notes != before.notes { failures.append("app table: rows \(notes) after the migration, \(before.notes) before") }
                    let keys = try Self.strings(db, "SELECT \"table\", \"to\" FROM pragma_foreign_key_list('app_note')")
                    if keys.map({ $0.lowercased() }) != ["\(shape.tableName)|\(shape.identifier.column)".lowercased()] {
                        failures.append("app table: its foreign key is \(keys), expected \(shape.tableName)(\(shape.identifier.column))")
                    }
                    let broken = try Self.strings(db, "PRAGMA foreign_key_check('app_note')")
                    if !broken.isEmpty { failures.append("app table: foreign_key_check: \(broken.prefix(4))") }
                }
            case .grdbMigrations:
                continue
            }
        }
        return failures
    }
}
