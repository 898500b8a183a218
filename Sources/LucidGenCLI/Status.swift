import ArgumentParser
import Foundation
import GRDB
import LucidCoreData
import LucidFleet
import LucidGenCore
import LucidGenStore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a store records about itself: version, applied steps, data migrations, deferred cleanup.",
        discussion: """
            Reads the store's ledger (lucidgen's bookkeeping tables inside it) without changing the file: \
            its version and schema checksum, every step applied (when, how long, and whether it was \
            inferred SQL or the app's stage), the data migrations that ran, the cleanup still deferred, \
            the journal mode and the file's size.

            With a config (--config, or .lucid.yaml in the current folder when present), it also tells \
            whether the checksum matches this project's definition of that version and whether the store \
            needs migrating, and lists what the app keeps in the store beside lucidgen's tables (its \
            tables, FTS and other virtual tables, views, triggers, indexes; every step keeps them); a \
            store the project cannot open is refused exactly as `plan` refuses it (exit code 3). \
            --format json prints the same as one JSON object.

            With --stores (a folder of store files, or a glob; needs the config), it counts the stores \
            at each version instead, with the steps each version needs, and lists the files that are not \
            lucidgen stores and the stores the project would refuse (newer, unknown, not a database), \
            each with what to do; the exit code is 3 when there is any. Each store is opened once and \
            its record checked against its tables; its pages are not read (`plan --database` does).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(name: .shortAndLong, help: ArgumentHelp("The store file (exclusive with --stores).", valueName: "file"))
    var database: String?

    @OptionGroup var selection: StoreSelection

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The project's config, to compare the store with its versions (default: .lucid.yaml when present).", valueName: "path"))
    var config: String?

    @Option(help: ArgumentHelp("text or json.", valueName: "format"))
    var format: Format = .text

    @Option(help: ArgumentHelp("How long to wait for another process that holds a lock on the store, in seconds.", valueName: "seconds"))
    var busyTimeout: Double = 60

    /// What `status` reports, as printed by `--format json`.
    typealias Report = StoreInspection.Report

    func validate() throws {
        try checkBusyTimeout(busyTimeout)
        switch (database, selection.stores) {
        case (nil, nil): throw ValidationError("give a store (--database FILE) or a folder of stores (--stores FOLDER)")
        case (.some, .some): throw ValidationError("--database and --stores exclude each other")
        case (.some(let database), nil):
            try checkStoreFile(database)
            if !selection.extensions.isEmpty || selection.recursive {
                throw ValidationError("\(selection.recursive ? "--recursive" : "--extension") needs --stores")
            }
        case (nil, .some): break
        }
    }

    func run() throws {
        if let stores = selection.stores {
            try FleetStatus(selection: selection, stores: stores, config: config, format: format, busyTimeout: busyTimeout).run()
            return
        }
        let configPath = config ?? (FileManager.default.fileExists(atPath: absolutePath(".lucid.yaml")) ? ".lucid.yaml" : nil)
        let report: Report
        do {
            report = try storeWork { try StoreInspection.report(database: database!, config: configPath, busyTimeout: busyTimeout) }
        } catch let error as StoreError {
            let exit = fail(error)
            let drift = StoreInspection.driftAssessment(for: error, database: database!, config: configPath, busyTimeout: busyTimeout)
            if let drift { printError("note: \(drift.note)\n") }
            if format == .json {
                // The refusal as JSON too, for scripts: the path, why, what to do, and the drift's assessment.
                print(try Self.json(StoreInspection.refusalReport(database: database!, error: error, drift: drift)))
            }
            throw exit
        }
        switch format {
        case .json: print(try Self.json(report))
        case .text: print(Self.text(report))
        }
    }

    static func json(_ report: Report) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }

    static func text(_ report: Report) -> String {
        var lines: [String] = []
        let size = ByteCountFormatter.string(fromByteCount: Int64(report.fileSize), countStyle: .file)
        guard let ledger = report.ledger else {
            let state = report.projectState.map { "; for this project: \($0)" } ?? ""
            let note = report.userVersionNote.map { "\nNote: \($0)." } ?? ""
            if let model = report.coreDataModel {
                var lines = [
                    "\(report.path): no lucidgen record (a Core Data store \(report.coreDataDrift == nil ? "at" : "drifted from") model \(model), \(size))\(state)."
                ]
                if let drift = report.coreDataDrift {
                    lines.append(
                        "Drifted from model \(model), the nearest imported version; each difference taken as Core Data's inferred mapping takes it:"
                    )
                    lines += drift.map { "  - \($0)" }
                }
                return lines.joined(separator: "\n") + note
            }
            return
                "\(report.path): no lucidgen record (\(report.fileSize == 0 ? "an empty (0-byte) file" : "a database without lucidgen's tables"), \(size))\(state).\(note)"
        }
        var head = "\(report.path): version \(ledger.version), checksum \(ledger.checksum.prefix(12))…"
        if let state = report.projectState {
            head +=
                state == "needs migration"
                ? "; needs migrating: \(report.stepsToNewest?.joined(separator: ", ") ?? "")"
                : "; \(state) for this project (checksum matches)"
        }
        lines.append(head)
        if let note = report.userVersionNote { lines.append("Note: \(note).") }
        lines.append("  \(report.journalMode ?? "unknown journal mode"), \(size), last updated \(Self.time(ledger.updatedAt))")
        lines.append("Steps applied (\(ledger.steps.count)):")
        for step in ledger.steps {
            let duration = step.duration.map { String(format: " in %.3f s", $0) } ?? ""
            lines.append(
                "  \(Self.time(step.appliedAt))  \(step.kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))  \(step.label)\(duration)"
            )
        }
        if !ledger.dataMigrations.isEmpty {
            lines.append("Data migrations (\(ledger.dataMigrations.count)):")
            for migration in ledger.dataMigrations {
                lines.append("  \(Self.time(migration.appliedAt))  \(migration.version) \(migration.label): \(migration.outcome)")
            }
        }
        lines.append(Self.compatibility(ledger))
        if let objects = report.appObjects {
            if objects.isEmpty {
                lines.append("The app keeps nothing else in the store.")
            } else {
                lines.append("The app's objects, kept by every step (\(objects.count)):")
                for object in objects {
                    lines.append(
                        "  \(object.kind.rawValue) \(object.name)\(object.dependsOn.isEmpty ? "" : " (on \(object.dependsOn.joined(separator: ", ")))")"
                    )
                }
            }
        }
        if ledger.pendingCleanup.isEmpty {
            lines.append("No deferred cleanup pending.")
        } else {
            lines.append(
                "Deferred cleanup pending (\(ledger.pendingCleanup.count); `lucidgen migrate --finish-cleanup` runs what the registry deferred):"
            )
            for item in ledger.pendingCleanup {
                let verdict =
                    switch item.verdict {
                    case .runs: ""
                    case .notChecked: "; not checked against a registry (pass --config)"
                    case .staysPending(let reason): "; stays pending: \(reason)"
                    }
                lines.append("  #\(item.id) \(item.kind) \(item.table).\(item.object) (deferred at \(item.recordedAt)\(verdict))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// What older apps may do with the store (`StoreOptions.newerStorePolicy = .openIfAdditive`), in one
    /// line: the versions that are additive up to the store's version form its newest ones.
    static func compatibility(_ ledger: StoreLedger) -> String {
        guard let records = ledger.compatibility else {
            return
                "Older apps: no compatibility recorded (written before lucidgen recorded it): an older app refuses it, even under .openIfAdditive."
        }
        let older = records.filter { $0.version < ledger.version }
        guard !older.isEmpty else { return "Older apps: none (the store's version is its history's first)." }
        var line = "Older apps (.openIfAdditive): "
        let additive = older.filter(\.isAdditive)
        if let first = additive.first, let last = additive.last {
            line +=
                "\(first.version == last.version ? "\(first.version)" : "\(first.version) to \(last.version)") may keep writing it (every step since is additive)"
        } else {
            line += "none may write it"
        }
        if let refused = older.last(where: { !$0.isAdditive }), let change = refused.firstIncompatibleChange {
            line +=
                "; \(refused.version)\(older.first!.version == refused.version ? "" : " and older") refused: \(change)\(refused.firstIncompatibleAt.map { " (at \($0))" } ?? "")"
        }
        return line + "."
    }

    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

/// `lucidgen status --stores`: how many stores of a fleet are at each version.
struct FleetStatus {
    var selection: StoreSelection
    var stores: String
    var config: String?
    var format: Status.Format
    var busyTimeout: Double

    func run() throws {
        guard let configPath = config ?? (FileManager.default.fileExists(atPath: absolutePath(".lucid.yaml")) ? ".lucid.yaml" : nil) else {
            throw ValidationError(
                "status --stores compares each store with the project's versions: give the project's config (--config; no .lucid.yaml here)"
            )
        }
        let project = try StoreCommandOptions.parse(["--config", configPath])
        let report = FleetWork.survey(
            try project.resolve(), stores: stores, paths: try selection.paths(stores), busyTimeout: busyTimeout,
            coreDataOrigin: try project.coreDataOrigin())
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        case .text:
            print(Self.text(report, described: selection.described))
        }
        if !report.notAStore.isEmpty || !report.refused.isEmpty { throw ExitCodes.storeError }
    }

    static func text(_ report: FleetSurvey, described: String) -> String {
        guard report.total > 0 else { return "No store in \(report.stores) (\(described))." }
        var lines = [
            "\(report.stores): \(report.total) store\(report.total == 1 ? "" : "s"); this project's newest version is \(report.newestVersion)."
        ]
        for count in report.versions {
            let state =
                switch count.state {
                case "needs migrating": "needs migrating: \(count.steps ?? 0) step\(count.steps == 1 ? "" : "s")"
                default: count.state
                }
            lines.append("  \(count.version): \(count.stores) (\(state))")
        }
        if !report.coreData.isEmpty {
            lines.append("  Core Data stores, converted when migrated: \(report.coreData.count)")
            for path in report.coreData { lines.append("    \(path)") }
        }
        if !report.notAStore.isEmpty {
            lines.append("  not a lucidgen store: \(report.notAStore.count)")
            for item in report.notAStore { lines.append("    \(item.path): \(item.problem)") }
        }
        if !report.refused.isEmpty {
            lines.append("  refused: \(report.refused.count)")
            for item in report.refused {
                lines.append("    " + FleetDisplay.naming(item.path, item.problem) + (item.nextStep.map { ". \($0)" } ?? ""))
            }
        }
        return lines.joined(separator: "\n")
    }
}
