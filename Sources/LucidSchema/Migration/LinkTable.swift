/// A to-many relationship's link table, defined once for the generator, the planner, the runtime and
/// the tests: one row per link, named `<owner table>_<relationship column>`, with the owner's key in
/// `source_id`, the target's in `target_id` (both the primary key, the target cascading on delete) and
/// an index on `target_id`. An ordered to-many relationship's table also has `position` (`INTEGER NOT NULL`):
/// the link's place in its source's list, read back `ORDER BY position`.
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
}
