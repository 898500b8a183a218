import ArgumentParser
import Foundation
import LucidFleet
import LucidGenCore
import LucidGenStore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// `--stores` and what counts as a store file (`migrate` and `status`).
struct StoreSelection: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A folder of store files, or a glob (quoted: 'tenants/*.sqlite'): a fleet, one store per file (exclusive with --database).",
            valueName: "folder|glob"))
    var stores: String?

    @Option(
        name: .customLong("extension"),
        help: ArgumentHelp(
            "With --stores and a folder: the extension of a store file, repeatable (default: sqlite and db).", valueName: "ext"))
    var extensions: [String] = []

    @Flag(help: "With --stores: also the stores in subfolders.")
    var recursive = false

    /// The store files, in path order (printed and thrown as a store error when `--stores` names none).
    func paths(_ stores: String) throws -> [String] {
        do {
            return try StoreList.find(stores, extensions: extensions, recursive: recursive)
        } catch {
            printError("error: \(error.description)\n")
            throw ExitCodes.storeError
        }
    }

    /// "files ending in .sqlite or .db", for messages.
    var described: String {
        let list = StoreList(extensions: extensions, recursive: recursive).extensions.map { "." + $0 }
        return "files ending in " + (list.count == 1 ? list[0] : list.dropLast().joined(separator: ", ") + " or " + list.last!)
    }
}

/// `lucidgen migrate --stores`: a ``StoreFleet`` run of the project's versions over a folder of stores.
struct FleetMigration {
    var selection: StoreSelection
    var stores: String
    var options: StoreCommandOptions
    var jobs: Int
    var canary: Int
    var maxFailures: Int?
    var report: String?
    var verbose: Bool
    var dryRun: Bool
    var deferCleanup: Bool
    var finishCleanup: Bool
    var wholePath: Bool
    var traceSQL: Bool

    func run() throws {
        // Found before any store is migrated: a report that cannot be written would lose every outcome.
        if let report, let problem = OutputFile.problem(writing: absolutePath(report)) {
            throw ValidationError("--report \(report): \(problem)")
        }
        var settings = FleetWork.Settings()
        (settings.jobs, settings.canary, settings.maxFailures) = (jobs, canary, maxFailures)
        (settings.dryRun, settings.deferCleanup, settings.finishCleanup) = (dryRun, deferCleanup, finishCleanup)
        (settings.wholePath, settings.traceSQL, settings.busyTimeout) = (wholePath, traceSQL, options.busyTimeout)
        settings.coreDataOrigin = try options.coreDataOrigin()
        let work = FleetWork(try options.resolve(), settings: settings)
        let target = work.target
        let paths = try selection.paths(stores)
        if paths.isEmpty {
            print("No store in \(stores) (\(selection.described)); nothing to do.")
            try write(FleetReport(source: stores, target: target.string, dryRun: dryRun, jobs: jobs, reports: [], stopped: nil, elapsed: 0))
            return
        }
        try refuse(work.stagesOnPath(paths))

        let began = Date()
        let display = FleetDisplay(total: paths.count, interactive: isatty(STDERR_FILENO) == 1, verbose: verbose)
        let run = work.fleet.run(paths, job: work.job, deliver: { display.add($0) })
        // SIGINT or SIGTERM (an operator's Ctrl-C, a deploy's stop): no new store starts, the stores in
        // flight stop after their current step, and the report is written; a second signal ends at once.
        let interruption = FleetInterruption { signal in
            printError(
                "\nlucidgen: \(signal == SIGINT ? "interrupted" : "terminated"): starting no new store; the stores in flight stop after their current step (signal again to stop at once)\n"
            )
            run.stop(.cancelled)
        }
        run.start()
        run.waitUntilFinished()
        interruption.restore()
        display.finish()
        let elapsed = Date().timeIntervalSince(began)

        let order = Dictionary(uniqueKeysWithValues: paths.enumerated().map { ($1, $0) })
        let reports = display.reports.sorted { order[$0.path, default: 0] < order[$1.path, default: 0] }
        let fleetReport = FleetReport(
            source: stores, target: target.string, dryRun: dryRun, jobs: jobs, reports: reports, stopped: run.stopReason, elapsed: elapsed)
        try write(fleetReport)
        print((dryRun ? "Dry run: " : "") + fleetReport.summary + (dryRun ? " No store was changed." : ""))
        if run.stopReason != nil && fleetReport.counts.notStarted > 0 { throw ExitCodes.stoppedEarly }
        if fleetReport.counts.failed + fleetReport.counts.notAStore > 0 { throw ExitCodes.storeError }
    }

    func write(_ fleetReport: FleetReport) throws {
        guard let report else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try OutputFile.write(try encoder.encode(fleetReport) + Data("\n".utf8), to: absolutePath(report))
        } catch {
            printError("error: could not write the report to \(report): \(error.localizedDescription)\n")
            throw ExitCodes.storeError
        }
    }

    /// Stages (the app's code) on the path of some stores: the command cannot run them, so it refuses
    /// once, before any store changes, naming each stage and the stores whose path passes it.
    func refuse(_ concerned: [FleetWork.StageOnPath]) throws {
        guard let before = concerned.map(\.stage.from).min() else { return }
        for item in concerned {
            let paths = item.paths
            let shown = paths.prefix(5).joined(separator: ", ") + (paths.count > 5 ? " and \(paths.count - 5) more" : "")
            printError(
                "error: the path of \(paths.count) store\(paths.count == 1 ? "" : "s") passes the app's stage \(item.stage.label), which `lucidgen migrate` cannot run (the app's code): \(shown).\n"
            )
        }
        printError(
            "No store was changed. Migrate up to the stage with --to \(before) (each store stops before it), then let the app run it: open each store from the app with StoreOptions.stages = <Module>Schema.stages(using: <your implementation>), or migrate the fleet from the app with StoreFleet.\n"
        )
        throw ExitCodes.storeError
    }
}

/// What a fleet run prints as stores finish: the failures (standard error), one line per store with
/// `--verbose` (standard output), and on a terminal a progress line (done / total, failures, rate, time
/// left) redrawn on standard error.
final class FleetDisplay: @unchecked Sendable {
    let total: Int
    let interactive: Bool
    let verbose: Bool
    private let lock = NSLock()
    private let began = Date()
    private var lastDrawn: Date?
    private var failures = 0
    private var drawn = false
    private(set) var reports: [StoreFleet.StoreReport] = []

    init(total: Int, interactive: Bool, verbose: Bool) {
        self.total = total
        self.interactive = interactive
        self.verbose = verbose
    }

    func add(_ report: StoreFleet.StoreReport) {
        lock.lock()
        defer { lock.unlock() }
        reports.append(report)
        if report.isFailure { failures += 1 }
        let message: String? =
            switch report.outcome {
            case .failed(let error): "error: " + Self.naming(report.path, cliDescription(error))
            case .notAStore(let what): "error: \(report.path) is not a lucidgen store (\(what)): \(report.nextStep ?? "")"
            default: nil
            }
        if let message {
            clearProgress()
            printError(message + "\n")
        }
        if verbose {
            clearProgress()
            print(Self.line(report))
            // As each store finishes, also into a pipe or a log file (standard output is buffered there).
            fflush(nil)
        }
        let now = Date()
        if interactive, lastDrawn.map({ now.timeIntervalSince($0) >= 0.1 }) ?? true || reports.count == total {
            lastDrawn = now
            drawn = true
            printProgress(Self.progress(done: reports.count, total: total, failures: failures, elapsed: now.timeIntervalSince(began)))
        }
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drawn { printError("\n") }
        drawn = false
    }

    private func clearProgress() {
        guard drawn else { return }
        printProgress("")
        drawn = false
    }

    /// `message`, after the store's path unless it names it already.
    static func naming(_ path: String, _ message: String) -> String {
        message.contains(path) ? message : "\(path): \(message)"
    }

    /// `--verbose`'s line for one store.
    static func line(_ report: StoreFleet.StoreReport) -> String {
        let seconds = String(format: "%.2f s", report.duration)
        switch report.outcome {
        case .migrated:
            return
                "migrated \(report.path): \(report.versionBefore?.string ?? "?") → \(report.versionAfter?.string ?? "?") in \(report.steps.count) step\(report.steps.count == 1 ? "" : "s") (\(seconds))"
        case .alreadyCurrent:
            let elsewhere =
                report.versionBefore.map { $0 != report.versionAfter ? " (migrated from \($0) by another process meanwhile)" : "" } ?? ""
            return "current \(report.path): at \(report.versionAfter?.string ?? "?")\(elsewhere)"
        case .failed(let error): return "failed " + naming(report.path, error.problem)
        case .notAStore(let what): return "not a store \(report.path): \(what)"
        case .stoppedBetweenSteps: return "stopped \(report.path) at \(report.versionAfter?.string ?? "?"), between steps"
        case .notStarted(let reason): return "not started \(report.path) (\(FleetReport.words(reason)))"
        }
    }

    /// The progress line: `120/2000 stores, 1 failed, 35.2 stores/s, about 54 s left`.
    static func progress(done: Int, total: Int, failures: Int, elapsed: TimeInterval) -> String {
        var line = "\(done)/\(total) stores"
        if failures > 0 { line += ", \(failures) failed" }
        guard elapsed > 0, done > 0 else { return line }
        let rate = Double(done) / elapsed
        line += String(format: ", %.1f stores/s", rate)
        if done < total {
            let left = Double(total - done) / rate
            line += left < 90 ? ", about \(Int(left.rounded(.up))) s left" : ", about \(Int((left / 60).rounded(.up))) min left"
        }
        return line
    }
}

/// SIGINT and SIGTERM during a fleet run: the first calls `stop` (on a queue of its own), a second one
/// ends the process as the signal would; ``restore()`` gives both back their default action.
final class FleetInterruption: @unchecked Sendable {
    private let sources: [DispatchSourceSignal]
    private let queue = DispatchQueue(label: "lucidgen fleet signals")
    private var received = false

    init(stop: @escaping @Sendable (Int32) -> Void) {
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            sources.append(source)
        }
        self.sources = sources
        for (source, signalNumber) in zip(sources, [SIGINT, SIGTERM]) {
            source.setEventHandler { [self] in
                if received {
                    signal(signalNumber, SIG_DFL)
                    raise(signalNumber)
                    return
                }
                received = true
                stop(signalNumber)
            }
            source.resume()
        }
    }

    func restore() {
        queue.sync {
            for source in sources { source.cancel() }
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
    }
}
