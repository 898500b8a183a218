import ArgumentParser
import Foundation
import GRDB
import LucidCoreData
import LucidGenCore
import LucidGenStore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// Options shared by `plan` and `migrate` (each declares its own `--database`: optional for `plan`).
struct StoreCommandOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: ArgumentHelp("The config file whose descriptions define the versions.", valueName: "path"))
    var config: String = ".lucid.yaml"

    @Option(help: ArgumentHelp("Migrate only up to this version (default: the newest).", valueName: "version"))
    var to: String?

    @Option(
        help: ArgumentHelp(
            "How long to wait for another process that holds a lock on the store (e.g. another migrate), in seconds.", valueName: "seconds")
    )
    var busyTimeout: Double = 60

    func validate() throws {
        try checkBusyTimeout(busyTimeout)
    }

    /// What `lucidgen import coredata` wrote beside the descriptions (``ProjectVersions/coreDataOrigin(config:)``).
    func coreDataOrigin() throws -> CoreDataOrigin? {
        try storeWork { try ProjectVersions.coreDataOrigin(config: config) }
    }

    /// The versions up to `--to` and the steps that need the app's code (``ProjectVersions/resolve(config:to:lint:)``).
    func resolve() throws -> ProjectVersions.Resolved {
        try resolve(lint: false)
    }

    /// ``resolve()``; with `lint`, also the lint findings of the steps up to `--to`.
    func resolve(lint: Bool) throws -> ProjectVersions.Resolved {
        try storeWork { try ProjectVersions.resolve(config: config, to: to, lint: lint) }
    }
}

func fail(_ error: StoreError) -> ExitCode {
    printError("error: \(cliDescription(error))\n")
    return ExitCodes.storeError
}

/// A refused store command's exit code, once its error and (for a drifted store) the note are printed.
func refused(_ refusal: StoreRefusal) -> ExitCode {
    let exit = fail(refusal.error)
    if let note = refusal.note { printError("note: \(note)\n") }
    return exit
}

struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Show the migration path a store would take (or, without --database, the path from the oldest version), without changing anything.",
        discussion: """
            With --database, reads the store's recorded version (or recognises it from its tables), then \
            prints the path to the newest version: each step, what it does (ALTER TABLE, table rebuilds \
            with the rows they copy, tables created and dropped), which steps need the app's own code, \
            the objects the app keeps in the store (every step keeps them), and any step that would \
            refuse because it cannot keep one (a view over a column it removes, say), with what to do. \
            --database is optional: without it (e.g. in a CI job, which has no store) the plan is the path \
            from the oldest version to the newest, as the planner takes it.

            --format text (the default) prints the plan as lines; --format markdown prints it for a \
            pull-request comment: a heading, what was planned, a table of the steps (with the rows each \
            step rewrites when a store is given), each step's operations, the findings, and a Mermaid \
            diagram of the version graph with the chosen path highlighted.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, markdown
    }

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The store file (optional: without it, the path from the oldest version).", valueName: "file"))
    var database: String?

    @OptionGroup var options: StoreCommandOptions

    @Option(
        help: ArgumentHelp(
            "text, or markdown for a pull-request comment (step table, findings, Mermaid diagram of the versions).", valueName: "format"))
    var format: Format = .text

    @Flag(
        help: ArgumentHelp(
            "Plan as `migrate --accept-drift` opens: a store whose tables drifted from one version by inferable differences is brought to it first (each repair listed), then the path. Without it such a store is refused, and the refusal says whether --accept-drift would take it."
        ))
    var acceptDrift = false

    func validate() throws {
        if let database { try checkStoreFile(database) }
    }

    func run() throws {
        let resolved = try options.resolve(lint: format == .markdown)
        let (versions, findings) = (resolved.versions, resolved.findings)
        let newest = versions[versions.count - 1].version
        var planOptions = StorePlan.Options(
            database: database, busyTimeout: options.busyTimeout, coreDataOrigin: try options.coreDataOrigin())
        planOptions.searchedEdges = format == .markdown
        planOptions.acceptDrift = acceptDrift
        let planned: StorePlan.Planned
        do {
            planned = try StorePlan.plan(resolved, planOptions)
        } catch {
            throw refused(error)
        }
        let edges = planned.edges
        guard case .store(let status) = planned.subject, let database else {
            guard case .fromOldest(let steps) = planned.subject else { return }
            let oldest = versions[0].version
            switch format {
            case .markdown:
                print(
                    PlanMarkdown(subject: .oldestVersion, versions: versions.map(\.version), edges: edges, steps: steps, findings: findings)
                        .render(), terminator: "")
            case .text:
                if steps.isEmpty {
                    print("No store given: \(newest) is the only version; nothing to migrate.")
                } else {
                    print("No store given: the path from the oldest version, \(oldest), to \(newest).")
                    printSteps(steps, rowCounts: [:])
                }
            }
            return
        }
        if !status.drift.isEmpty, format == .text {
            print(
                "\(database): drifted from version \(status.version!) (\(status.adopted ? "no lucidgen record; its tables are nearest \(status.version!)'s" : "its tables contradict its record")); --accept-drift brings it to \(status.version!) first:"
            )
            for repair in status.drift { print("  - \(repair)") }
        }
        if format == .markdown {
            let subject: PlanMarkdown.Subject =
                switch status.start {
                case .newFile: .newStore(path: database, what: "no such file")
                case .emptyDatabase: .newStore(path: database, what: "a database without lucidgen's tables")
                case .emptyFile: .newStore(path: database, what: "an empty (0-byte) file, which SQLite reads as a new database")
                case .version: .store(path: database, version: status.version?.string ?? newest.string, adopted: status.adopted)
                }
            var markdown = PlanMarkdown(
                subject: subject, versions: versions.map(\.version), edges: edges, steps: status.steps, rowCounts: status.rowCounts,
                findings: findings)
            markdown.drift = status.drift
            markdown.coreDataConversion = status.coreDataConversion.map {
                .init(model: $0.model, counts: $0.lines, notes: $0.notes, drift: $0.drift)
            }
            print(markdown.render(), terminator: "")
            return
        }
        switch status.start {
        case .newFile: print("\(database): no such file; opening it would create a store at \(newest).")
        case .emptyDatabase:
            print(
                "\(database): a database without lucidgen's tables; opening it would create the tables of \(newest) (beside anything the app keeps in it)."
            )
        case .emptyFile:
            print(
                "\(database): an empty (0-byte) file, which SQLite reads as a new database; migrate would create the store at \(newest) in it."
            )
        case .version where !status.needsMigration && !status.drift.isEmpty: print("Then at version \(newest), the newest.")
        case .version where !status.needsMigration: print("\(database): at version \(newest), the newest. Nothing to do.")
        case .version:
            if let model = status.coreDataModel {
                print(
                    "\(database): a Core Data store \(status.coreDataConversion?.drift.isEmpty == false ? "drifted from" : "at") model \(model): converts into lucidgen's tables at \(status.version!) first (one-way; a copy is kept as \(database).coredata-backup); newest is \(newest)."
                )
                if let conversion = status.coreDataConversion { printCoreDataConversion(conversion) }
            } else {
                print(
                    "\(database): at version \(status.version!)\(status.adopted ? " (recognised from its tables)" : ""); newest is \(newest)."
                )
            }
            printSteps(status.steps, rowCounts: status.rowCounts)
        }
        if let disagreement = status.userVersionDisagreement { print("Note: \(disagreement).") }
        if status.pendingCleanup > 0 { print("Deferred cleanup pending: \(status.pendingCleanup) item(s).") }
        if !status.appObjects.isEmpty {
            print(
                "The app's objects in the store (\(status.appObjects.count)), kept by every step: \(status.appObjects.map { "\($0.kind.rawValue) \(StoreDescriber.shown($0.name))" }.joined(separator: ", "))."
            )
        }
        for found in status.appObjectConflicts {
            let error = StoreError.appObjectsInTheWay(
                step: found.step.label, from: found.step.from, to: found.step.to, conflicts: found.conflicts)
            print("Step \(found.step.label) would refuse (unless its stage's willMigrate drops these first):")
            for conflict in found.conflicts { print("  - \(conflict)") }
            print("  \(error.nextStep).")
        }
    }

    /// The steps as lines, with the rows each rebuild copies when known.
    func printSteps(_ steps: [MigrationStep], rowCounts: [String: Int]) {
        print("Path: \(steps.count) step\(steps.count == 1 ? "" : "s").")
        for (index, step) in steps.enumerated() {
            print("  \(index + 1). \(step.label)")
            if step.operations.isEmpty { print("       (no change to the tables; only the version record)") }
            for (operation, text) in zip(step.operations, MigrationOperation.planTexts(of: step.operations)) {
                var line = "       - \(text.line)"
                if case .rebuildTable(let rebuild) = operation, let rows = rowCounts[rebuild.sourceTable] ?? rowCounts[rebuild.table.name] {
                    line += ": copies \(rows) row\(rows == 1 ? "" : "s")"
                }
                print(line)
                for change in text.changes { print("           · \(change)") }
            }
        }
    }
}

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Migrate a store (--database) or a folder of stores (--stores) to the newest version (or --to a version).",
        discussion: """
            Runs the path `lucidgen plan` shows. Each step commits atomically with the store's version \
            record (or, with --whole-path, the whole path commits at once), so an interruption leaves the \
            store at a consistent version and a second run resumes. Shows a progress bar on a terminal \
            and plain lines otherwise. Steps that need the app's own code (custom stages) cannot run here: \
            open the store from the app. A path through such a stage fails when it reaches it: by default \
            the steps before it stay committed; with --whole-path the store is left as it was.

            With --stores, every store file of a folder (or a glob) is migrated, --jobs at a time, each \
            as --database would migrate it (--to, --dry-run, --whole-path, --defer-cleanup and \
            --finish-cleanup apply to each). A store already at the version costs one open. A path that \
            passes a stage is refused once, before any store changes, naming the stage and its stores. \
            --canary K migrates the first K stores (in path order) first and starts no other if one \
            fails; --max-failures M starts no new store after M failures. A terminal shows one progress \
            line (stores done, failures, rate, time left); otherwise only failures are printed (and, with \
            --verbose, a line per store), then a summary. --report writes each store's path, versions \
            before and after, steps, duration, outcome, and error with its next step, as JSON. A killed \
            run leaves every store at a version on its path; run it again to finish.

            EXIT CODES (--stores)
              0   every store is at the version
              3   some stores failed or are not lucidgen stores (the others were migrated), or a stage
                  stands on the path (nothing changed)
              6   stopped early: the canary failed, --max-failures was reached, or SIGINT/SIGTERM
                  (the stores in flight finish their current step; the report is written); the stores
                  not started are untouched
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp("The store file (exclusive with --stores).", valueName: "file"))
    var database: String?

    @OptionGroup var selection: StoreSelection

    @OptionGroup var options: StoreCommandOptions

    @Option(
        help: ArgumentHelp("With --stores: how many stores are migrated at the same time (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Option(
        help: ArgumentHelp(
            "With --stores: write each store's outcome to this file, as JSON (a FIFO or /dev/stdout is written in place).",
            valueName: "report.json"))
    var report: String?

    @Option(help: ArgumentHelp("With --stores: migrate the first K stores first, and stop if any of them fails.", valueName: "k"))
    var canary: Int?

    @Option(help: ArgumentHelp("With --stores: start no new store after this many failures.", valueName: "m"))
    var maxFailures: Int?

    @Flag(help: "With --stores: print a line for each store as it finishes.")
    var verbose = false

    @Flag(help: "Migrate a temporary copy and report what happened; the store is not changed.")
    var dryRun = false

    @Flag(help: "Defer dropping columns and tables and creating indexes; the store is usable meanwhile.")
    var deferCleanup = false

    @Flag(
        help: "After migrating (if needed), finish the deferred cleanup the registry accounts for (the others stay pending: see `status`).")
    var finishCleanup = false

    @Flag(help: "Run the whole path in one transaction: a failure (e.g. at a stage that needs the app's code) leaves the store unchanged.")
    var wholePath = false

    @Flag(
        help: ArgumentHelp(
            "Take inferable drift: a store whose tables contradict its record, or one without a record whose tables are nearest one version's, is brought to that version first (a missing nullable or defaulted column added, an extra column holding no value dropped, a missing index created), each repair printed. Anything else is still refused, unchanged. Core Data stores take inferable drift without it."
        ))
    var acceptDrift = false

    @Flag(help: "Print every SQL statement.")
    var traceSQL = false

    func validate() throws {
        if deferCleanup && finishCleanup { throw ValidationError("--defer-cleanup and --finish-cleanup contradict each other") }
        if acceptDrift && selection.stores != nil {
            throw ValidationError("--accept-drift takes one store's drift (--database FILE), not a fleet's")
        }
        switch (database, selection.stores) {
        case (nil, nil): throw ValidationError("give a store (--database FILE) or a folder of stores (--stores FOLDER)")
        case (.some, .some): throw ValidationError("--database and --stores exclude each other")
        case (.some(let database), nil):
            try checkStoreFile(database)
            let fleetOnly = [
                (jobs != nil, "--jobs"), (report != nil, "--report"), (canary != nil, "--canary"), (maxFailures != nil, "--max-failures"),
                (verbose, "--verbose"), (!selection.extensions.isEmpty, "--extension"), (selection.recursive, "--recursive"),
            ]
            if let (_, name) = fleetOnly.first(where: \.0) { throw ValidationError("\(name) needs --stores") }
        case (nil, .some):
            if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
            if let canary, canary < 0 { throw ValidationError("--canary must not be negative") }
            if let maxFailures, maxFailures < 1 { throw ValidationError("--max-failures must be at least 1") }
        }
    }

    func run() throws {
        if let stores = selection.stores {
            try FleetMigration(
                selection: selection, stores: stores, options: options, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount,
                canary: canary ?? 0,
                maxFailures: maxFailures, report: report, verbose: verbose, dryRun: dryRun, deferCleanup: deferCleanup,
                finishCleanup: finishCleanup,
                wholePath: wholePath, traceSQL: traceSQL
            ).run()
            return
        }
        try migrateOne(database!)
    }

    func migrateOne(_ database: String) throws {
        let resolved = try options.resolve()
        var migration = StoreMigration(database: database, busyTimeout: options.busyTimeout, coreDataOrigin: try options.coreDataOrigin())
        (migration.dryRun, migration.deferCleanup, migration.finishCleanup) = (dryRun, deferCleanup, finishCleanup)
        (migration.wholePath, migration.traceSQL, migration.acceptDrift) = (wholePath, traceSQL, acceptDrift)
        let display = ProgressDisplay(interactive: isatty(STDERR_FILENO) == 1)
        migration.progress = { display.show($0) }
        let migrated: StoreMigration.Migrated
        do {
            migrated = try migration.run(resolved)
        } catch let refusal as StoreRefusal {
            display.finish()
            throw refused(refusal)
        }
        display.finish()
        if let count = migrated.finishedCleanup { print("finished \(count) deferred cleanup item\(count == 1 ? "" : "s").") }
        let prefix = dryRun ? "Dry run: " : ""
        print("\(prefix)\(database): \(migrated.outcome).")
        if let conversion = migrated.outcome.coreDataConversion { printCoreDataConversion(conversion) }
        if dryRun { print("The store was not changed.") }
    }
}

/// A progress bar on a terminal, plain lines elsewhere (one per step and operation, not per chunk).
final class ProgressDisplay: @unchecked Sendable {
    let interactive: Bool
    private var lastLine = ""
    private let lock = NSLock()

    init(interactive: Bool) {
        self.interactive = interactive
    }

    func show(_ progress: MigrationProgress) {
        lock.lock()
        defer { lock.unlock() }
        let rows = progress.rowsTotal > 0 ? " \(progress.rowsDone)/\(progress.rowsTotal) rows" : ""
        if interactive {
            let fraction =
                progress.rowsTotal > 0 ? Double(progress.rowsDone) / Double(progress.rowsTotal) : (progress.operation == "done" ? 1 : 0)
            let overall = (Double(max(progress.step - 1, 0)) + fraction) / Double(max(progress.totalSteps, 1))
            let width = 24
            let filled = Int(overall * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let line = "\(bar) step \(progress.step)/\(progress.totalSteps) \(progress.operation)\(rows)"
            // Not printError: its terminal-safe text would show the carriage return as an escape.
            printProgress(line)
            lastLine = line
        } else {
            // An operation's first line, and its last when it copies rows (all rows copied, not yet committed).
            let line = "step \(progress.step)/\(progress.totalSteps) (\(progress.stepLabel)): \(progress.operation)"
            let key = line + (progress.rowsTotal > 0 && progress.rowsDone == progress.rowsTotal ? rows : "")
            guard key != lastLine, progress.rowsDone == 0 || progress.rowsDone == progress.rowsTotal else { return }
            lastLine = key
            printError((line + rows + "\n"))
        }
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if interactive && !lastLine.isEmpty { printError("\n") }
    }
}

/// `--database FILE` names a store file, or none yet (migrate creates it): a folder, a device (`/dev/null`,
/// which SQLite would read as an empty database and leave a `-journal` beside), a FIFO or a socket is a
/// usage error, before anything is opened.
func checkStoreFile(_ path: String, option: String = "--database") throws {
    if let problem = storeFileProblem(path, option: option) { throw ValidationError(problem) }
}

/// Runs a store command's work (LucidGenStore), saying why it stopped as the CLI says it: a usage error, or
/// the generator's diagnostics (exit code 1).
func storeWork<T>(_ work: () throws -> T) throws -> T {
    do {
        return try work()
    } catch StoreWorkError.usage(let message) {
        throw ValidationError(message)
    } catch StoreWorkError.input(let diagnostics) {
        printDiagnostics(diagnostics, verbose: false)
        throw ExitCodes.inputErrors
    }
}

/// What a Core Data store's conversion writes (`plan`) or wrote (`migrate`): each entity's rows, each
/// to-many's links, and each row that is not as Core Data had it.
func printCoreDataConversion(_ conversion: CoreDataConversionReport) {
    if !conversion.drift.isEmpty {
        print(
            "Drifted from model \(conversion.model), the nearest imported version; each difference taken as Core Data's inferred mapping takes it:"
        )
        for difference in conversion.drift { print("  - \(difference)") }
    }
    print("Conversion from Core Data (model \(conversion.model)), counted against the Core Data rows:")
    for line in conversion.lines { print("  \(line)") }
    guard !conversion.notes.isEmpty else { return }
    print("Not as Core Data had it (\(conversion.notes.count); the copy kept as .coredata-backup has the original):")
    for note in conversion.notes { print("  - \(note)") }
}

/// `--busy-timeout`'s seconds as a usage error when they are no number of seconds to wait (`inf`, `nan`,
/// `1e300`, negative): SQLite counts its busy timeout in 32-bit milliseconds.
func checkBusyTimeout(_ seconds: Double) throws {
    guard seconds.isFinite, seconds >= 0, seconds <= StoreOptions.maximumBusyTimeout else {
        throw ValidationError(
            "--busy-timeout \(seconds): expected a number of seconds from 0 to \(Int(StoreOptions.maximumBusyTimeout)), e.g. 60")
    }
}
