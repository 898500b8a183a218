import Foundation
import GRDB
@_spi(Generated) import LucidSchema

/// What opening does with a store another framework wrote (a Core Data store): the runtime recognises
/// one (``CoreDataStoreLayout``) and refuses it unchanged, unless the app set a conversion in its options
/// (`StoreOptions.coreDataOrigin`, which the LucidCoreData product adds). The runtime holds the conversion
/// through this seam, so an app that never met Core Data links none of it.
package protocol StoreConversion: Sendable {
    /// Whether a recognised store is converted; if not, it is refused, unchanged.
    var converts: Bool { get }
    /// Converts the store `db` holds into lucidgen's tables (a step of the outcome), then migrates it on.
    func convert(_ db: Database, layout: CoreDataStoreLayout, by migrator: StoreMigrator) throws -> MigrationOutcome
    /// What converting the store would do, without changing it.
    func inspect(layout: CoreDataStoreLayout, by migrator: StoreMigrator) throws(StoreError) -> StoreStatus
}

/// What a conversion reported (LucidCoreData's `CoreDataConversionReport`), kept by ``MigrationOutcome`` and
/// ``StoreStatus`` and compared by value.
package struct ConversionReport: Sendable, Equatable {
    package let value: any Sendable
    private let isEqual: @Sendable (any Sendable) -> Bool

    package init<Report: Sendable & Equatable>(_ report: Report) {
        value = report
        isEqual = { ($0 as? Report) == report }
    }

    package static func == (lhs: ConversionReport, rhs: ConversionReport) -> Bool { lhs.isEqual(rhs.value) }
}

extension StoreStatus {
    /// A store opening would convert from another framework's `model` into lucidgen's tables of `schema`
    /// (taken as adopted there), then migrate along `steps`.
    package static func converting(_ model: String, into schema: Schema, checksum: String, steps: [MigrationStep], report: ConversionReport)
        -> StoreStatus
    {
        var status = StoreStatus(
            start: .version(schema.version, adopted: true), version: schema.version, checksum: checksum, adopted: true, steps: steps,
            rowCounts: [:], pendingCleanup: 0)
        status.coreDataModel = model
        status.conversionReport = report
        return status
    }
}
