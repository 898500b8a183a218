extension SchemaColumn {
    /// Functions a default may call that SQLite's core does not have: `uuid()`, a version 4 UUID as lowercase
    /// text (SQLite's uuid extension's, which SQLiteData's keys default to: `DEFAULT (uuid())`). The app's
    /// connections have it (registered, or built into its SQLite); `lucidgen`'s own connections register it when
    /// their SQLite lacks it, and a migration step on a connection without it is refused before any change.
    /// The one list: the generator's default grammar accepts these, the runtime checks and provides them.
    package static let appFunctions: Set<String> = ["uuid"]
}
