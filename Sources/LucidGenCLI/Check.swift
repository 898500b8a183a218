import ArgumentParser
import Foundation
import LucidGenCore
import LucidGenStore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting

/// `lucidgen check`: the CI gate and pre-commit hook.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The CI gate: descriptions valid, generated files up to date, snapshots and fixtures unchanged, every step linted.",
        discussion: """
            Runs every stage of `generate` without writing anything, then:
              - descriptions and config valid, released versions unchanged against their frozen snapshots
              - generated files up to date (what `generate --check` checks; a stamp never skips it here)
              - every fixture store under <targets.app_tests.output_path>/Fixtures matches its .sha256 and \
            is its version as the descriptions define it (its tables, columns, keys, indexes)
              - every sample rows file (<input_path>/.samples/<version>.json, seeded by the generated tests) is \
            named after a version, holds that version's tables and columns with every required column, and is \
            accepted by SQLite beside the seeded rows (keys, CHECKs, foreign keys)
              - a lint of every step between neighbouring versions (after lint.since or --since), each finding \
            with a stable code, its place in the descriptions and what to do instead:
            \(Check.codeTable)

            Severity per code: `lint.severity` in .lucid.yaml (error, warning, note, off). A finding a release \
            proceeds with knowingly is acknowledged in .lucid.yaml (`lint.acknowledged`: code, entity, property, \
            the version its step goes to, and a reason): it is then reported as a note. An acknowledgement that \
            matches nothing is a warning. Acknowledgements never go in the descriptions (a released version's \
            descriptions are frozen).

            --additive-only enforces CloudKit's rule (WWDC22): only new entities and new optional or defaulted \
            properties; any other change is an AO error (also `lint.additive_only: true`). --sqlitedata enforces \
            the rules SQLiteData's SyncEngine checks before it syncs with CloudKit: the newest version has no \
            uniqueness but the primary key, no foreign key ON DELETE RESTRICT or NO ACTION, no cycle of foreign \
            keys between tables, and one uuid primary key column per table; and no later version adds a required \
            property without a default or removes or renames a table or column; each is an SD error (also \
            `lint.sqlitedata: true`). With --since VERSION \
            only the steps after VERSION are linted (a shipped history can start the gate at its next release).

            Output: --format text (default: file:line:column: severity: [CODE] message, which editors jump to), \
            json (one object: findings, stale files, fixtures, diagnostics, exit code), github (GitHub Actions \
            annotations: ::error file=…,line=…,col=…,title=CODE::message).

            EXIT CODES
              0   passed (warnings and notes allowed)
              1   the descriptions, config or sample rows have errors, or a released version's snapshot changed
              2   generated files are out of date: run `lucidgen generate`
              4   lint findings at error severity (including --additive-only and --sqlitedata)
              5   a fixture store does not match its .sha256 (or has none, or a name without a version), or its \
                  tables are not its version's
              64  the command line is invalid
            When several apply, every problem is reported and the exit code is the first in this list.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, github
    }

    @Option(name: .shortAndLong, help: ArgumentHelp("The config file.", valueName: "path"))
    var config: String = ".lucid.yaml"

    @Flag(help: "Enforce CloudKit's additive-only rule: only new entities and new optional or defaulted properties.")
    var additiveOnly = false

    @Flag(
        name: .customLong("sqlitedata"),
        help:
            "Enforce SQLiteData's sync rules (SyncEngine): uuid keys, no uniqueness but the key, no RESTRICT or NO ACTION, no foreign-key cycles, no removal or rename, nothing required added without a default."
    )
    var sqliteData = false

    @Option(help: ArgumentHelp("Lint only the steps after this version (default: lint.since, else every step).", valueName: "version"))
    var since: String?

    @Option(help: ArgumentHelp("text, json or github (GitHub Actions annotations).", valueName: "format"))
    var format: Format = .text

    @Flag(name: .shortAndLong, help: "Also print notes of the generator (ignored keys, frozen versions).")
    var verbose = false

    static var codeTable: String {
        LintCode.all.map { "    \($0.id)  \($0.defaultSeverity.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \($0.summary)" }
            .joined(separator: "\n")
    }

    func run() throws {
        try checkedModel()
    }

    /// Runs the check as `run()` does and returns the model it resolved, for a command that goes on from a
    /// passing check (`release`) without loading and resolving the descriptions again.
    @discardableResult
    func checkedModel() throws -> ResolvedModel {
        var options = ProjectCheck.Options(config: config)
        options.additiveOnly = additiveOnly
        options.sqliteData = sqliteData
        options.since = since
        let outcome = try storeWork { try ProjectCheck.run(options) }
        emit(outcome.report)
        guard outcome.report.exitCode == 0, let model = outcome.model else { throw ExitCode(outcome.report.exitCode) }
        return model
    }

    func emit(_ report: CheckReport) {
        switch format {
        case .text: print(report.text(verbose: verbose), terminator: "")
        case .json: print(report.json)
        case .github: print(report.github(verbose: verbose), terminator: "")
        }
    }
}
