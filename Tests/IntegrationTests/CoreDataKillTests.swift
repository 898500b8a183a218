import Foundation
import GRDB
import LucidTestSupport
import Testing

/// `lucidgen migrate` converting a Core Data store, killed (SIGKILL) right after one of the lines it says
/// (its progress, entity by entity), drawn from a fixed seed: the store is the Core Data store it was (every row) or lucidgen's at a version of its
/// path (every row), and the next run converts or finishes it, every value there.
@Suite(.serialized) struct CoreDataKillTests {
    /// Kills: 4 here, `LUCIDGEN_COREDATA_KILLS` (e.g. 40) on demand.
    static var kills: Int { ProcessInfo.processInfo.environment["LUCIDGEN_COREDATA_KILLS"].flatMap(Int.init) ?? 4 }
    static let customers = 40_000

    /// The Shop history's first model version as Core Data lays it out (as real stores' DDL has it:
    /// `CoreData/STORE-LAYOUT-EVIDENCE.md`), with its bookkeeping tables and metadata row, no entity row.
    static let shopDDL = CoreDataModels.shopDDL

    /// The Shop store at its first model version, large enough for the conversion to take a while.
    static func writeStore(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: Self.shopDDL)
            let n = customers
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY VALUES (1, 'Customer', 0, \(n + 7)), (2, 'Order', 0, \(n)), (3, 'Product', 0, 3)")
            try db.execute(
                sql: """
                    WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < \(n))
                    INSERT INTO ZCUSTOMER (Z_PK, Z_ENT, Z_OPT, ZNAME, ZEMAIL, ZJOINED, ZLOYALTY, ZTOKEN)
                    SELECT x, 1, 1, 'customer ' || x, 'c' || x || '@example.com', 600000000 + x + 0.125, x * 0.5, randomblob(16) FROM i
                    """)
            try db.execute(sql: "INSERT INTO ZPRODUCT VALUES (1, 3, 1, 'A', 'Anvil'), (2, 3, 1, 'B', 'Bell'), (3, 3, 1, 'C', 'Cog')")
            try db.execute(
                sql: """
                    WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < \(n))
                    INSERT INTO ZORDER (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZCUSTOMER, ZTOTAL) SELECT x, 2, 1, x, x, x / 4.0 FROM i
                    """)
            // Each order's items in the order 3, 1, 2 (by Z_FOK), inserted in another order.
            try db.execute(
                sql: """
                    WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < \(n))
                    INSERT INTO Z_2ITEMS SELECT x, 1, 2048 FROM i UNION ALL SELECT x, 2, 3072 FROM i UNION ALL SELECT x, 3, 1024 FROM i
                    """)
        }
        try queue.close()
    }

    /// What the store is after a kill: "coredata" (untouched: every Core Data row, none of lucidgen's tables)
    /// or lucidgen's version (every row converted).
    static func check(_ path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { (db: Database) throws -> String in
            if try db.tableExists("lucid_store") {
                let version = try String.fetchOne(db, sql: "SELECT version FROM lucid_store") ?? "?"
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(version == "1.0" ? "customer" : "client")") == customers)
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM order_items") == customers * 3)
                #expect(try !db.tableExists("ZCUSTOMER"))
                return version
            }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM ZCUSTOMER") == customers)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_2ITEMS") == customers * 3)
            #expect(try !db.tableExists("customer") && !db.tableExists("client") && !db.tableExists("order_items"))
            return "coredata"
        }
    }

    /// Planted drifts (what real stores show after hand edits): a column the model lacks (every customer has a value) and a nullable one
    /// it has, missing; the conversion takes them from model Shop's layout, and a kill leaves the store as it was or converted.
    static let drift =
        "ALTER TABLE ZCUSTOMER ADD COLUMN ZNICKNAME VARCHAR; UPDATE ZCUSTOMER SET ZNICKNAME = 'n' || Z_PK; ALTER TABLE ZPRODUCT DROP COLUMN ZTITLE"

    @Test(arguments: [nil, drift])
    func killedWhileConvertingTheStoreIsAsItWasOrConvertedAndTheRerunFinishes(drift: String?) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try run(lucidgenBinary, ["import", "coredata", CoreDataModels.shop.path], in: folder).status == 0)
        #expect(try run(lucidgenBinary, ["generate"], in: folder).status == 0)
        let pristine = folder.appendingPathComponent("pristine.sqlite").path
        try Self.writeStore(pristine)
        if let drift {
            let queue = try DatabaseQueue(path: pristine)
            try queue.write { db in try db.execute(sql: drift) }
            try queue.close()
        }
        let store = folder.appendingPathComponent("Shop.sqlite").path
        func fresh() throws {
            for suffix in ["", "-wal", "-shm", "-journal", ".coredata-backup", ".coredata-backup.partial"] {
                try? FileManager.default.removeItem(atPath: store + suffix)
            }
            try FileManager.default.copyItem(atPath: pristine, toPath: store)
        }
        // `plan` and `status` say the drift before anything is written.
        try fresh()
        let plan = try run(lucidgenBinary, ["plan", "--database", "Shop.sqlite"], in: folder)
        let status = try run(lucidgenBinary, ["status", "--database", "Shop.sqlite"], in: folder)
        #expect(plan.status == 0 && status.status == 0, "\(plan.error)\(status.error)")
        for output in [plan.output, status.output] {
            #expect(output.contains("Drifted from model Shop, the nearest imported version") == (drift != nil), "\(output)")
            #expect(
                output.contains(
                    "  - ZPRODUCT has no column ZTITLE, which model Shop has: Product.title (product.title) is NULL in its 3 rows")
                    == (drift != nil), "\(output)")
        }
        #expect(
            status.output.contains("no lucidgen record (a Core Data store \(drift == nil ? "at" : "drifted from") model Shop, "),
            "\(status.output)")
        #expect(
            plan.output.contains("Shop.sqlite: a Core Data store \(drift == nil ? "at" : "drifted from") model Shop: converts"),
            "\(plan.output)")
        #expect(try Self.check(store) == "coredata")
        if drift != nil {
            // A drift the conversion cannot take (an entity of the store's own with rows): refused, with no
            // `--accept-drift` note (that flag is for lucidgen's and the app's stores; a conversion takes what it can).
            let queue = try DatabaseQueue(path: store)
            try queue.write { db in
                try db.execute(
                    sql:
                        "CREATE TABLE ZGADGET ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER ); INSERT INTO ZGADGET VALUES (1, 9, 1); INSERT INTO Z_PRIMARYKEY VALUES (9, 'Gadget', 0, 1)"
                )
            }
            try queue.close()
            let refused = try run(lucidgenBinary, ["plan", "--database", "Shop.sqlite"], in: folder)
            #expect(refused.status == 3 && refused.error.contains("Gadget"), "\(refused.error)")
            #expect(!refused.error.contains("--accept-drift"), "\(refused.error)")
            try fresh()
        }
        // A whole run, observed: the lines it says (the conversion's progress, entity by entity, then the
        // path's steps). Each kill comes right after one of them, drawn from a fixed seed.
        try fresh()
        let whole = try ObservedProcess(lucidgenBinary, ["migrate", "--database", "Shop.sqlite"], in: folder)
        _ = whole.waitForLine { _ in false }
        whole.process.waitUntilExit()
        let said = whole.lines
        #expect(whole.process.terminationStatus == 0, "\(said)")
        #expect(said.contains { $0.contains("Customer → customer: \(Self.customers) rows") }, "\(said)")
        #expect(try Self.check(store) == "3.0")
        // `lucidgen migrate` says the drift, each difference.
        let drifted = [
            "Drifted from model Shop, the nearest imported version; each difference taken as Core Data's inferred mapping takes it:",
            "  - ZCUSTOMER has column ZNICKNAME, which model Shop does not: its \(Self.customers) values are not converted (the .coredata-backup keeps them)",
            "  - ZPRODUCT has no column ZTITLE, which model Shop has: Product.title (product.title) is NULL in its 3 rows",
        ]
        #expect(drifted.allSatisfy(said.contains) == (drift != nil), "\(said)")

        var random = FleetKillTests.Seeded(state: 39)
        var found: [String: Int] = [:]
        var openTransactions = 0
        for attempt in 0..<Self.kills {
            try fresh()
            let after = Int(random.next() % UInt64(max(said.count - 1, 1)))
            let process = try ObservedProcess(lucidgenBinary, ["migrate", "--database", "Shop.sqlite"], in: folder)
            var seen = 0
            let line = process.waitForLine { _ in
                seen += 1
                return seen > after
            }
            #expect(line != nil, "kill \(attempt): the run ended after \(seen) lines: \(process.lines)")
            process.kill()
            if fileSize(store + "-journal") > 0 || fileSize(store + "-wal") > 0 { openTransactions += 1 }
            let state = try Self.check(store)
            #expect(["coredata", "1.0", "2.0", "3.0"].contains(state), "kill \(attempt) after \(line ?? "?"): \(state)")
            found[state, default: 0] += 1
            let rerun = try run(lucidgenBinary, ["migrate", "--database", "Shop.sqlite"], in: folder)
            #expect(rerun.status == 0, "kill \(attempt) after \(line ?? "?"), found \(state): \(rerun.output)\(rerun.error)")
            #expect(try Self.check(store) == "3.0")
            // Values, after the kill and the rerun: a date to the millisecond, an order's items in Z_FOK order.
            let queue = try DatabaseQueue(path: store)
            try queue.read { (db: Database) throws in
                #expect(try String.fetchOne(db, sql: "SELECT joined FROM client WHERE id = 7") == "2020-01-06 10:40:07.125")
                #expect(
                    try Int64.fetchAll(db, sql: "SELECT target_id FROM order_items WHERE source_id = 9 ORDER BY position") == [3, 1, 2])
                #expect(try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'client'") == Int64(Self.customers + 7))
            }
            try queue.close()
        }
        print(
            "Core Data kill test\(drift == nil ? "" : " (drifted store)"): \(Self.kills) kills after one of the run's \(said.count) lines, \(openTransactions) with a transaction open on disk; found after the kills: \(found)"
        )
    }

    /// Artsy Folio's store at model "ArtsyFolio v1.4" (a file its shipped app's Core Data wrote), in the
    /// team's shared folder (``realWorldFolder(_:holding:for:)``); nil (and said) when absent.
    static let artsy = realWorldFolder("coredata/artsy-energy", holding: "stores/ArtsyPartner_1.4.sqlite", for: "CoreDataKillTests")

    /// Each table's rows.
    static func counts(_ path: String) throws -> [String: Int] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { (db: Database) throws -> [String: Int] in
            var counts: [String: Int] = [:]
            for table in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'lucid_%'")
            {
                counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(table)\"") ?? 0
            }
            return counts
        }
    }

    /// A real store, killed at a line of its conversion or migration drawn from a fixed seed: the Core Data
    /// store it was (every table's rows) or lucidgen's (every entity's rows and every link), and the rerun
    /// finishes with every row.
    @Test(.enabled(if: artsy != nil, "Artsy Folio's stores are absent"))
    func killedWhileConvertingARealStoreIsAsItWasOrConverted() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-kill-real-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let map = repositoryRoot.appendingPathComponent("Tests/LucidGenCoreTests/CoreData/ArtsyFolio-versions.yaml").path
        let imported = try run(
            lucidgenBinary,
            ["import", "coredata", Self.artsy!.appendingPathComponent("ArtsyPartner.xcdatamodeld").path, "--version-map", map], in: folder)
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try run(lucidgenBinary, ["generate"], in: folder).status == 0)
        let original = Self.artsy!.appendingPathComponent("stores/ArtsyPartner_1.4.sqlite").path
        let store = folder.appendingPathComponent("Folio.sqlite").path
        let coreData = try Self.counts(original)
        // lucidgen's tables and the Core Data rows they hold (at 6.0, the store's version, and at 19.0).
        let converted = [
            "album": 10, "artist": 4, "artwork": 68, "document": 18, "image": 76, "location": 2, "note": 0, "partner": 1, "show": 11,
            "user": 108,
            "album_artists": 5, "album_artworks": 78, "artist_shows_featuring_artist": 13, "artwork_shows": 30,
        ]
        #expect(
            coreData["ZDOCUMENT"] == converted["document"] && coreData["Z_1ARTWORKS"] == converted["album_artworks"]
                && coreData["Z_3SHOWS"] == converted["artwork_shows"])
        func fresh() throws {
            for suffix in ["", "-wal", "-shm", "-journal", ".coredata-backup", ".coredata-backup.partial"] {
                try? FileManager.default.removeItem(atPath: store + suffix)
            }
            try FileManager.default.copyItem(atPath: original, toPath: store)
        }
        func check() throws -> String {
            let queue = try DatabaseQueue(path: store)
            let version = try queue.read { (db: Database) throws -> String? in
                try db.tableExists("lucid_store") ? try String.fetchOne(db, sql: "SELECT version FROM lucid_store") : nil
            }
            try queue.close()
            let counts = try Self.counts(store)
            if let version {
                #expect(converted.allSatisfy { counts[$0.key] == $0.value }, "\(counts)")
                return version
            }
            #expect(counts == coreData)
            return "coredata"
        }
        try fresh()
        let whole = try ObservedProcess(lucidgenBinary, ["migrate", "--database", "Folio.sqlite"], in: folder)
        _ = whole.waitForLine { _ in false }
        whole.process.waitUntilExit()
        let said = whole.lines
        #expect(whole.process.terminationStatus == 0, "\(said)")
        #expect(said.contains { $0.contains("Artwork.shows → artwork_shows: 30 links") }, "\(said)")
        #expect(try check() == "19.0")
        var random = FleetKillTests.Seeded(state: 48)
        var found: [String: Int] = [:]
        for attempt in 0..<Self.kills {
            try fresh()
            let after = Int(random.next() % UInt64(max(said.count - 1, 1)))
            let process = try ObservedProcess(lucidgenBinary, ["migrate", "--database", "Folio.sqlite"], in: folder)
            var seen = 0
            let line = process.waitForLine { _ in
                seen += 1
                return seen > after
            }
            process.kill()
            let state = try check()
            #expect(["coredata", "6.0", "19.0"].contains(state), "kill \(attempt) after \(line ?? "?"): \(state)")
            found[state, default: 0] += 1
            let rerun = try run(lucidgenBinary, ["migrate", "--database", "Folio.sqlite"], in: folder)
            #expect(rerun.status == 0, "kill \(attempt) after \(line ?? "?"), found \(state): \(rerun.output)\(rerun.error)")
            #expect(try check() == "19.0")
        }
        print(
            "Core Data kill test (Artsy Folio's 1.4 store): \(Self.kills) kills after one of the run's \(said.count) lines; found after the kills: \(found)"
        )
    }
}
