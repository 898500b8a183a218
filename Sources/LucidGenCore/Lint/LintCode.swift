@_spi(Generated) import LucidSchema

/// A lint finding's stable code: what `lucidgen check` reports about a step of the history, with the
/// severity it has unless `.lucid.yaml` says otherwise (`lint.severity`).
///
/// Codes never change meaning once released; new kinds of findings get new codes. The families follow
/// Atlas's `migrate lint`: **DS** destructive (data is dropped),
/// **BC** backward-incompatible (an app built for the older version can no longer read or write the
/// store), **MF** data-dependent (the step may fail, or change values, depending on the rows present),
/// **AO** CloudKit's additive-only rule (`--additive-only`, WWDC22), one code per
/// ``AdditiveRule/Change/Kind``, and **SD** the schema rules SQLiteData's `SyncEngine` enforces before it
/// syncs a database with CloudKit (`--sqlitedata`).
package struct LintCode: Sendable, Hashable, Comparable, CustomStringConvertible {
    package enum Family: String, Sendable {
        case destructive, backwardIncompatible = "backward-incompatible", dataDependent = "data-dependent", additiveOnly = "additive-only"
        case sqliteData = "sqlitedata"
    }

    /// `DS102`.
    package var id: String
    package var family: Family
    package var defaultSeverity: LintSeverity
    /// One line: what the code means.
    package var summary: String
    /// One line: what to do instead.
    package var instead: String

    package var description: String { id }

    /// What the finding's change does, after its own message: the summary's part after the colon, or
    /// for AO codes the rule it breaks.
    package var consequence: String {
        if family == .additiveOnly {
            return "not additive under CloudKit's rule (only new entities and new optional or defaulted properties)"
        }
        guard let colon = summary.range(of: ": ") else { return summary }
        return String(summary[colon.upperBound...])
    }

    package static func < (lhs: LintCode, rhs: LintCode) -> Bool { lhs.id < rhs.id }

    // MARK: Destructive

    package static let entityRemoved = LintCode(
        id: "DS101", family: .destructive, defaultSeverity: .error,
        summary: "an entity is removed: its table and every row in it are dropped",
        instead:
            "keep the entity until no release reads it (stop writing it first), or move its rows in a stage, then acknowledge the removal")
    package static let propertyRemoved = LintCode(
        id: "DS102", family: .destructive, defaultSeverity: .error,
        summary: "a property is removed: its column and every value in it are dropped",
        instead: "keep the property (mark it unused) until no release reads it, or move its values in a stage, then acknowledge the removal"
    )
    package static let lossyConversion = LintCode(
        id: "DS103", family: .destructive, defaultSeverity: .error,
        summary: "a narrowing type change (lossy_conversion): values that do not fit the new type are changed",
        instead: "add a property of the new type and convert in a stage that decides what each value becomes, or acknowledge the loss")

    // MARK: Backward-incompatible

    package static let entityRenamed = LintCode(
        id: "BC101", family: .backwardIncompatible, defaultSeverity: .warning,
        summary: "an entity is renamed: apps built before this version look for its table under the old name",
        instead: "keep the old name as persisted_name if older releases must keep working on new stores")
    package static let propertyRenamed = LintCode(
        id: "BC102", family: .backwardIncompatible, defaultSeverity: .warning,
        summary: "a property is renamed: apps built before this version read and write its column under the old name",
        instead: "keep the old column name as persisted_name if older releases must keep working on new stores")
    package static let typeChanged = LintCode(
        id: "BC103", family: .backwardIncompatible, defaultSeverity: .warning,
        summary: "a property's type changes: apps built before this version read its values as the old type",
        instead: "add a property of the new type beside the old one if older releases must keep working on new stores")
    package static let associationChanged = LintCode(
        id: "BC104", family: .backwardIncompatible, defaultSeverity: .warning,
        summary: "a relationship changes association or target: its storage (column or join table) is replaced",
        instead: "add a new relationship beside the old one if older releases must keep working on new stores")
    package static let becameRequired = LintCode(
        id: "BC105", family: .backwardIncompatible, defaultSeverity: .warning,
        summary: "an optional property becomes required: apps built before this version may write NULL, which now fails",
        instead: "keep it optional and enforce the value in the app if older releases must keep working on new stores")

    package static let parentChanged = LintCode(
        id: "BC107", family: .backwardIncompatible, defaultSeverity: .warning,
        summary:
            "an entity's parent changes (parent_history): its rows move to another table, ids kept, and apps built before this version look for them in the old one",
        instead: "keep the parent if older releases must keep working on new stores")
    package static let enumCaseRenamed = LintCode(
        id: "BC106", family: .backwardIncompatible, defaultSeverity: .warning,
        summary: "an enum case is renamed: apps built before this version cannot read the stored values of the new name",
        instead: "add the new case beside the old one (and stop writing the old one) if older releases must keep working on new stores")

    // MARK: Data-dependent

    package static let requiredAddedWithoutDefault = LintCode(
        id: "MF101", family: .dataDependent, defaultSeverity: .warning,
        summary: "a required property without a default is added to an entity that may already have rows",
        instead: "give it a default_value, or make it nullable, or fill it in a stage from the existing rows")
    package static let nullsFilled = LintCode(
        id: "MF102", family: .dataDependent, defaultSeverity: .warning,
        summary: "an optional property becomes required: rows holding NULL get the default (or the step fails without one)",
        instead: "fill the NULLs on purpose in a stage, or keep the property optional")
    package static let convertedByAppCode = LintCode(
        id: "MF103", family: .dataDependent, defaultSeverity: .note,
        summary: "a type change is converted by the app's code: what it does depends on the rows present",
        instead: "commit a fixture store of the old version with real-looking rows so the generated tests exercise the stage")
    package static let toManyBecomesToOne = LintCode(
        id: "MF104", family: .dataDependent, defaultSeverity: .warning,
        summary: "a to-many relationship becomes to-one: the step fails (and changes nothing) if a row has several links",
        instead: "remove the extra links in a stage before the step, or keep the relationship to-many")

    package static let uniquenessAdded = LintCode(
        id: "MF105", family: .dataDependent, defaultSeverity: .warning,
        summary: "a uniqueness is added over existing rows: the step fails (and changes nothing) if rows share a value",
        instead: "remove or merge the duplicate rows in a stage before this version (the error names them), or keep the index non-unique")

    package static let enumCaseRemovedWithFallback = LintCode(
        id: "MF106", family: .dataDependent, defaultSeverity: .warning,
        summary: "an enum case is removed with a fallback: every row holding it gets the fallback value",
        instead: "decide per row in a stage (remove the fallback so the app's code converts each row), or keep the case")
    package static let enumCaseRemovedByAppCode = LintCode(
        id: "MF107", family: .dataDependent, defaultSeverity: .note,
        summary: "an enum case is removed without a fallback: the app's code decides what each row holding it becomes",
        instead: "commit a fixture store of the old version holding the case so the generated tests exercise the stage")

    // MARK: Additive-only (--additive-only)

    package static func additiveOnly(_ kind: AdditiveRule.Change.Kind) -> LintCode {
        let (number, summary): (Int, String) =
            switch kind {
            case .tableRemoved: (101, "an entity or join table is removed")
            case .tableRenamed: (102, "an entity is renamed")
            case .primaryKeyChanged: (103, "a table's primary key changes")
            case .columnRemoved: (104, "a property is removed")
            case .columnRenamed: (105, "a property is renamed")
            case .columnChanged: (106, "a property's type, optionality, default or association changes")
            case .requiredColumnAdded: (107, "a required property without a default is added")
            case .foreignKeyAdded: (108, "a relationship adds a foreign key older apps' writes are checked against")
            case .uniqueIndexChanged: (109, "a uniqueness is added or removed")
            case .appCode: (110, "the step runs the app's code")
            case .dataMigration: (111, "a data migration runs")
            case .enumCaseChanged: (112, "an enum case is renamed or removed")
            }
        return LintCode(
            id: "AO\(number)", family: .additiveOnly, defaultSeverity: .error,
            summary: "not additive (CloudKit's rule: only new entities and new optional or defaulted properties): \(summary)",
            instead: "add a new entity or a new optional (or defaulted) property, and leave the old one in place")
    }

    // MARK: SQLiteData's sync rules (--sqlitedata)

    package static let syncUniqueness = LintCode(
        id: "SD101", family: .sqliteData, defaultSeverity: .error,
        summary:
            "a uniqueness other than the primary key: SQLiteData's SyncEngine refuses it (records from other devices cannot be merged under it)",
        instead:
            "remove the `unique` (or the unique `indexes` item) and keep the values distinct in the app, or make the value the entity's uuid identifier"
    )
    package static let syncRestrictingForeignKey = LintCode(
        id: "SD102", family: .sqliteData, defaultSeverity: .error,
        summary:
            "a foreign key ON DELETE RESTRICT or NO ACTION: SQLiteData's SyncEngine refuses it (a deletion from another device must always apply)",
        instead: "give the relationship on_delete cascade, set_null (nullable) or set_default")
    package static let syncForeignKeyCycle = LintCode(
        id: "SD103", family: .sqliteData, defaultSeverity: .error,
        summary:
            "tables reference each other in a cycle of foreign keys: SQLiteData's SyncEngine refuses it (it sends parents before children)",
        instead: "remove one relationship of the cycle (keep the link in a separate entity, or in only one direction)")
    package static let syncPrimaryKey = LintCode(
        id: "SD104", family: .sqliteData, defaultSeverity: .error,
        summary:
            "a primary key that is not one uuid column: SQLiteData's SyncEngine refuses it (keys must be globally unique across devices)",
        instead:
            "give the entity a uuid identifier ({\"type\": \"uuid\"}, or a uuid property as the identifier); make a to-many's links an entity with a uuid identifier and two to-one relationships"
    )
    package static let syncRequiredColumnAdded = LintCode(
        id: "SD105", family: .sqliteData, defaultSeverity: .error,
        summary:
            "a required property without a default is added at a later version: SQLiteData's SyncEngine refuses it (records from devices on an older version lack it)",
        instead: "make it nullable or give it a default_value (NOT NULL ON CONFLICT REPLACE with a default is accepted too)")
    package static let syncRemovedOrRenamed = LintCode(
        id: "SD106", family: .sqliteData, defaultSeverity: .error,
        summary:
            "a table or column is removed or renamed at a later version: SQLiteData's SyncEngine refuses it (devices on an older version still sync the old one)",
        instead: "keep the old entity or property (stop using it in the app) and add a new one beside it")

    /// The SQLiteData codes, for `--help` and the docs.
    package static let sqliteDataCodes: [LintCode] =
        [syncUniqueness, syncRestrictingForeignKey, syncForeignKeyCycle, syncPrimaryKey, syncRequiredColumnAdded, syncRemovedOrRenamed]

    /// Every code, for `--help`, the README and configuration checks.
    package static let all: [LintCode] =
        [
            entityRemoved, propertyRemoved, lossyConversion, entityRenamed, propertyRenamed, typeChanged, associationChanged,
            becameRequired,
            enumCaseRenamed, requiredAddedWithoutDefault, nullsFilled, convertedByAppCode, toManyBecomesToOne, uniquenessAdded,
            enumCaseRemovedWithFallback, enumCaseRemovedByAppCode, parentChanged,
        ]
        + AdditiveRule.Change.Kind.allCases.map(additiveOnly) + sqliteDataCodes

    package static func named(_ id: String) -> LintCode? { all.first { $0.id == id.uppercased() } }
}

/// How much a finding matters: `error` fails `lucidgen check`, `warning` and `note` are reported, `off`
/// is not reported at all.
package enum LintSeverity: String, Sendable, Hashable, Comparable, CaseIterable {
    case off, note, warning, error

    package static func < (lhs: LintSeverity, rhs: LintSeverity) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
