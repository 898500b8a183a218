import ArgumentParser
import Foundation
import LucidGenCore

/// The `lucidgen` command: generates versioned Swift records, schemas and migration tests from entity descriptions.
package struct LucidGen: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "lucidgen",
        abstract: "Generate versioned SQLite records and schemas from entity descriptions, and migrate stores safely.",
        discussion: """
            lucidgen reads entity descriptions (JSON, one entity per file, in .entities/) whose version_history \
            says how each entity evolved, and a .lucid.yaml config. `lucidgen generate` writes one Swift record \
            type per entity per version, the schema of every version and a schema registry, and freezes each \
            released version's schema in a snapshot.

            EXIT CODES
              0   success
              1   the input has errors (each printed as file:line:column: error: message)
              2   `generate --check` found generated files that are out of date
              3   `plan`, `migrate` or `status`: the store cannot be migrated (newer, unknown, damaged,
                  locked, no path, or a step failed and was rolled back); the error says what to do next;
                  `migrate --stores`: some stores failed (the others were migrated)
              4   `check`: lint findings at error severity
              5   `check`: a fixture store does not match its .sha256
              6   `migrate --stores`: stopped early (the canary failed, or --max-failures was reached);
                  the stores not started are untouched
              64  the command line is invalid
            """,
        version: LucidGenVersion.current,
        subcommands: [
            Generate.self, Check.self, Plan.self, Migrate.self, Status.self, Fixtures.self, Release.self, Init.self, Describe.self,
            Import.self, Templates.self,
        ]
    )

    package init() {}
}

/// Exit codes, as documented in `lucidgen --help`.
enum ExitCodes {
    static let inputErrors = ExitCode(1)
    static let stale = ExitCode(2)
    static let storeError = ExitCode(3)
    static let stoppedEarly = ExitCode(6)
}

/// Prints diagnostics to standard error, errors last so they stay in view.
func printDiagnostics(_ diagnostics: [Diagnostic], verbose: Bool) {
    let shown = diagnostics.filter { verbose || $0.severity != .note }.sorted { $0.severity < $1.severity }
    for diagnostic in shown {
        printError((diagnostic.description + "\n"))
    }
}
