import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// One seeding function of the generated migration tests and the versions it seeds: the rows of one
/// record type (and its link tables), from the version the record type starts at through the last
/// version that has it.
///
/// A long history changes few entities per version, so the generated tests write one function per
/// distinct record type and this table of ranges, instead of one function per version repeating every
/// entity. Seeding version `v` runs, in order, every function whose range holds `v`.
///
/// ```swift
/// static let seeders: [VersionedSeeder] = [
///     VersionedSeeder(from: SchemaVersion("1.0"), through: SchemaVersion("1.9"), seedAircraft_1_0),
///     VersionedSeeder(from: SchemaVersion("2.0"), through: SchemaVersion("3.0"), seedAircraft_2_0),
/// ]
/// try VersionedSeeder.seed(seeders, version: SchemaVersion("1.4"), db, rows: Seed.rows)
/// ```
@_spi(Generated) public struct VersionedSeeder: Sendable {
    /// Inserts `rows` rows of one record type (and their links).
    public typealias Function = @Sendable (_ db: Database, _ rows: Int) throws -> Void

    /// The first version the function seeds.
    public var from: SchemaVersion
    /// The last version the function seeds.
    public var through: SchemaVersion
    /// The seeding function.
    public var function: Function

    /// A function seeding versions `from` through `through` (both included).
    public init(from: SchemaVersion, through: SchemaVersion, _ function: @escaping Function) {
        self.from = from
        self.through = through
        self.function = function
    }

    /// Whether this function seeds `version`.
    public func seeds(_ version: SchemaVersion) -> Bool { from <= version && version <= through }

    /// Runs, in order, every function of `seeders` that seeds `version` (none for a version without
    /// tables).
    public static func seed(_ seeders: [VersionedSeeder], version: SchemaVersion, _ db: Database, rows: Int) throws {
        for seeder in seeders where seeder.seeds(version) { try seeder.function(db, rows) }
    }
}
