import ArgumentParser

/// `tenant-server serve` answers notes per tenant, one SQLite store each, and migrates the fleet of stores
/// at startup; `tenant-server seed` writes tenants' stores at an older version, as that release of the app
/// made them.
@main
struct TenantServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenant-server",
        abstract: "A notes server with one SQLite store per tenant, migrated by LucidRuntime.",
        subcommands: [Serve.self, Seed.self],
        defaultSubcommand: Serve.self
    )
}
