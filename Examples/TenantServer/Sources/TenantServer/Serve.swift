import ArgumentParser
import Foundation
import Hummingbird
import Logging
import LucidFleet
import LucidRuntime
import Notes

/// Serves the notes of every tenant in the data folder, and migrates their stores as a fleet meanwhile.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve GET/POST /tenants/:tenant/notes; migrate the data folder's stores at startup while serving.")

    @Option(help: "The data folder (one store per tenant, <tenant>.sqlite).")
    var data = "data"

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port (0: any free port; the one chosen is printed).")
    var port = 8080

    @Option(help: "Stores the startup fleet migrates at a time.")
    var jobs = 2

    @Option(help: "Stores kept open at most (a WAL store holds three file descriptors).")
    var openStores = 256

    @Flag(help: "Do not migrate the fleet at startup: each store migrates on its tenant's first request.")
    var noFleet = false

    func run() async throws {
        var logger = Logger(label: "tenant-server")
        logger.logLevel = .info
        let folder = try TenantFolder(data)
        let paths = noFleet ? [] : try folder.storePaths()

        var options = StoreOptions()
        // A store's migration logs at info; a fleet of them would drown the server's own lines.
        options.logger.logLevel = .warning
        let stores = try StoreCache(registry: NotesSchema.self, options: options, capacity: openStores)
        let progress = FleetProgress(paths: paths)
        if noFleet { progress.finish() }

        let router = Router()
        NotesRoutes(folder: folder, stores: stores, progress: progress).add(to: router)
        var app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "tenant-server"),
            onServerRunning: { [host] channel in
                // The load test reads this line for the port.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(channel.localAddress?.port ?? 0)\n".utf8))
            },
            logger: logger
        )
        if !noFleet {
            let fleet = try StoreFleet(registry: NotesSchema.self, options: options, limits: StoreFleet.Limits(jobs: jobs))
            app.addServices(FleetMigration(fleet: fleet, paths: paths, progress: progress, logger: logger))
        }
        logger.info(
            noFleet
                ? "serving the stores of \(folder.path); each migrates on its tenant's first request"
                : "serving \(paths.count) tenants' stores from \(folder.path)")
        try await app.runService()
        logger.info("stopped: \(progress.snapshot.requests) requests answered")
    }
}
