import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import Samples
import StoreTestSupport
import Testing

/// Swift and SQL keywords as entity and property names (`Samples/.entities/order.json`, `select.json`,
/// `default.json`, …): the generated records compile (this file builds) and read and write real rows.
@Suite struct HostileNameTests {
    @Test func keywordNamedRecordsRoundTrip() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("store.sqlite")
        let database = try LucidStore.create(atPath: path, versions: SamplesSchema.versions, version: SchemaVersion("2.0"))
        defer { try? database.close() }
        try database.write { db in
            var select = Select(by: "me", is: 1, any: "thing")
            try select.insert(db)
            #expect(select.id != nil)
            try Class(id: "b", class: "y").insert(db)
            let target = "b"
            try Order(
                id: 7, type: 2, group: [1, 2], class: true, init: "i", protocol: "p", hash: "h", databaseTableName: "d", columns: "c",
                codingKeys: "k", encode: "e", description: "desc", select: "s", table: 1.5, rawValue: "r", name: "n", values: "v", row: "w",
                where: target
            )
            .insert(db)
            try Order.FromLink(sourceID: 7, targetID: target).insert(db)
            try Default(id: "a", default: "x").insert(db)
            try Protocol(id: "c", protocol: "z").insert(db)
            try Type(id: "d", type: "t").insert(db)
            try Init(id: "e", init: "u").insert(db)
        }
        let order = try database.read { db in try Order.filter(Order.Columns.select == "s").fetchOne(db) }
        #expect(
            order?.`default` == "x" && order?.`class` == true && order?.`init` == "i" && order?.group == [1, 2] && order?.`where` != nil)
        #expect(order?.description == "desc" && order?.hash == "h" && order?.encode == "e" && order?.databaseTableName == "d")
        #expect(try database.read { db in try Order.FromLink.fetchCount(db) } == 1)
        #expect(try database.read { db in try Protocol.fetchOne(db, key: "c")?.`protocol` } == "z")
        #expect(try database.read { db in try Type.fetchOne(db, key: "d")?.type } == "t")
        #expect(Order.databaseTableName == "order" && Select.databaseTableName == "select")
    }
}
