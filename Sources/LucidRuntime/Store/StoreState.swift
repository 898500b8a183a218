@_spi(Generated) import LucidSchema

/// What a store file is when lucidgen looks at it, before anything changes it: what
/// ``StoreStatus/start`` says of a store inspected, and ``MigrationOutcome/start`` of one opened.
///
/// ```swift
/// switch try LucidStore.inspect(atPath: path, registry: FlightLogSchema.self).start {
/// case .newFile, .emptyFile, .emptyDatabase: print("opening it creates the store")
/// case .version(let version, let adopted): print("a store at \(version)\(adopted ? ", recognised from its tables" : "")")
/// }
/// ```
public enum StoreState: Sendable, Equatable {
    /// No file: opening it creates the store at the newest version.
    case newFile
    /// A file of zero bytes, which SQLite reads as an empty database (apps often create the file before
    /// opening it): initialised at the newest version, like a new file.
    case emptyFile
    /// A database without lucidgen's tables: empty, or holding only the app's own objects, which stay
    /// beside the tables of the newest version.
    case emptyDatabase
    /// A store at this version (`adopted`: recognised from its tables, without lucidgen's record).
    case version(SchemaVersion, adopted: Bool)
}
