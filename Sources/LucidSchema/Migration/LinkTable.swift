/// A to-many relationship's link table, defined once for the generator, the planner, the runtime and
/// the tests: one row per link, named `<owner table>_<relationship column>`, with the owner's key in
/// `source_id`, the target's in `target_id` (both the primary key, the target cascading on delete) and
/// an index on `target_id`. An ordered to-many relationship's table also has `position` (`INTEGER NOT NULL`):
/// the link's place in its source's list, read back `ORDER BY position`.
///
/// A relationship whose description names the app's own join table (`link_table`: GRDB's `bookAuthor(bookId,
/// authorId)`) keeps that table's name, columns and index (``Columns``): its source column is the first of
/// its two-column primary key, its target column the second, as ``columns(of:)`` reads them.
///
/// ```swift
/// LinkTable.name(owner: "log_entry", relationship: "crew")   // "log_entry_crew"
/// ```
package enum LinkTable {
    /// The owner row's key.
    package static let sourceColumn = "source_id"
    /// The target row's key.
    package static let targetColumn = "target_id"
    /// An ordered relationship's link position within its source's list (0-based, increasing; gaps allowed).
    package static let positionColumn = "position"

    /// The table of relationship `relationship` (its column name) of table `owner`.
    package static func name(owner: String, relationship: String) -> String { "\(owner)_\(relationship)" }

    /// The index on `target_id` of link table `table`.
    package static func targetIndexName(_ table: String) -> String { "\(table)_target_index" }

    /// The columns of a link table: lucidgen's (``lucid(_:)``) or the app's own join table's.
    package struct Columns: Sendable, Hashable {
        /// The owner row's key.
        package var source: String
        /// The target row's key.
        package var target: String
        /// The index on the target column (nil: the table has none).
        package var targetIndex: String?
        /// The table is `STRICT` (as SQLiteData makes every table).
        package var strict = false
        /// The `ON UPDATE` action of the source column's foreign key (nil: none, NO ACTION).
        package var sourceOnUpdate: SchemaForeignKey.Action?
        /// The `ON UPDATE` action of the target column's foreign key (nil: none, NO ACTION).
        package var targetOnUpdate: SchemaForeignKey.Action?

        package init(
            source: String, target: String, targetIndex: String?, strict: Bool = false, sourceOnUpdate: SchemaForeignKey.Action? = nil,
            targetOnUpdate: SchemaForeignKey.Action? = nil
        ) {
            self.source = source
            self.target = target
            self.targetIndex = targetIndex
            self.strict = strict
            self.sourceOnUpdate = sourceOnUpdate
            self.targetOnUpdate = targetOnUpdate
        }

        /// lucidgen's layout of link table `table`.
        package static func lucid(_ table: String) -> Columns {
            Columns(source: LinkTable.sourceColumn, target: LinkTable.targetColumn, targetIndex: LinkTable.targetIndexName(table))
        }
    }

    /// The source and target columns of link table `table`: its two-column primary key, in order
    /// (`source_id`, `target_id` for lucidgen's own).
    package static func columns(of table: SchemaTable?) -> (source: String, target: String) {
        guard let table, table.primaryKey.count == 2 else { return (sourceColumn, targetColumn) }
        return (table.primaryKey[0], table.primaryKey[1])
    }
}
