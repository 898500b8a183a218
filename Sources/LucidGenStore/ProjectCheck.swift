import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting

/// `lucidgen check`'s work, the CI gate's: every stage of `generate` without writing, the fixtures, the
/// sample rows, the lint; what it finds is a ``CheckReport``.
package enum ProjectCheck {
    /// What `check` is asked: its command line, as values.
    package struct Options: Sendable {
        package var config = ".lucid.yaml"
        /// CloudKit's additive-only rule, on top of `lint.additive_only`.
        package var additiveOnly = false
        /// SQLiteData's sync rules, on top of `lint.sqlitedata`.
        package var sqliteData = false
        /// Lint only the steps after this version (else `lint.since`, else every step).
        package var since: String?

        package init(config: String = ".lucid.yaml") {
            self.config = config
        }
    }

    /// The report, and the model the check resolved (nil when the descriptions or config do not load).
    package struct Outcome {
        package var report: CheckReport
        package var model: ResolvedModel?
    }

    /// A fixture must be its version as the descriptions define it now: one written before its version was
    /// final (then edited) no longer is, and the generated tests fail on it.
    package static func tablesProblem(ofFixtureAt path: String, model: ResolvedModel) -> String? {
        guard let version = FixtureFiles.version(inName: (path as NSString).lastPathComponent) else { return nil }
        guard let schema = model.schemas.first(where: { $0.version == version }) else {
            return "its version \(version) is not one of the versions \(model.versions.map(\.string).joined(separator: ", "))"
        }
        let differences: [String]
        do {
            differences = try LucidStore.differences(atPath: path, from: schema)
        } catch {
            return "cannot read its tables: \(error)"
        }
        guard !differences.isEmpty else { return nil }
        let shown = differences.prefix(3).joined(separator: "; ") + (differences.count > 3 ? "; and \(differences.count - 3) more" : "")
        return
            "its tables are not version \(version)'s as the descriptions define it now (\(shown)): it was written before \(version) was final. "
            + "If \(version) was never released, delete the fixture and its .sha256 and write it with `lucidgen release` once \(version) is final; "
            + "if it was released, restore \(version)'s descriptions"
    }

    /// Checks the project of `options.config`, writing nothing: the report, and the model it resolved (nil
    /// when the descriptions or config do not load), for a command that goes on from a passing check
    /// (`release`) without loading and resolving the descriptions again.
    package static func run(_ options: Options) throws -> Outcome {
        let (config, since, additiveOnly, sqliteData) = (options.config, options.since, options.additiveOnly, options.sqliteData)
        var sinceVersion: SchemaVersion?
        if let since {
            guard let parsed = try? SchemaVersion(parsing: since) else { throw StoreWorkError.usage("--since \(since) is not a version") }
            sinceVersion = parsed
        }
        var report = CheckReport()
        let pipeline = GeneratorPipeline(
            configPath: absolutePath(config), schemaTrial: SchemaTrial.diagnostics, seedCheckProbe: SchemaTrial.seedCheckProbe)
        let checked: (input: LoadedInput, result: GeneratorPipeline.Result)
        do {
            checked = try pipeline.check()
        } catch {
            report.diagnostics = error.diagnostics
            report.exitCode = 1
            return Outcome(report: report, model: nil)
        }
        let (input, result) = checked
        let model = result.model
        report.diagnostics = result.diagnostics
        if let sinceVersion, !model.versions.contains(sinceVersion) {
            throw StoreWorkError.usage(
                "--since \(sinceVersion) is not one of the versions \(model.versions.map(\.string).joined(separator: ", "))")
        }
        let written = result.report
        report.stale =
            written.created.map { ($0, "missing") } + written.updated.map { ($0, "out of date") }
            + written.removed.map { ($0, "no longer generated") }

        if let tests = model.config.appTests {
            let folder = (tests.outputPath as NSString).appendingPathComponent("Fixtures")
            let listed: [String]
            do {
                listed =
                    model.releasedVersions.isEmpty && !FileManager.default.fileExists(atPath: folder)
                    ? [] : try FixtureFiles.list(in: folder)
            } catch {
                listed = []
                report.fixtures.append((folder, error.description))
            }
            let module = model.config.app.moduleName
            for version in model.releasedVersions where FileManager.default.fileExists(atPath: folder) {
                if let missing = FixtureFiles.missingFixture(module: module, version: version, in: folder) {
                    report.missingFixtures.append(
                        ((folder as NSString).appendingPathComponent(FixtureFiles.fileName(module: module, version: version)), missing))
                }
            }
            for path in listed {
                report.fixturesChecked += 1
                if let problem = FixtureFiles.namingProblem(at: path) ?? FixtureFiles.checksumProblem(at: path)
                    ?? Self.tablesProblem(ofFixtureAt: path, model: model)
                {
                    report.fixtures.append((path, problem))
                }
            }
        }

        // The project's sample rows: named after a version, its tables and columns, accepted by SQLite.
        let samples = SampleRowsValidation.check(model)
        report.diagnostics += samples.diagnostics + SampleRowsTrial.diagnostics(model: model, files: samples.files)

        var settings = model.config.lint
        if additiveOnly { settings.additiveOnly = true }
        if sqliteData { settings.sqliteData = true }
        if let sinceVersion { settings.since = sinceVersion }
        let lint = Linter(model: model, descriptions: input.entities, settings: settings).run()
        report.findings = lint.findings
        report.diagnostics += lint.diagnostics
        report.steps = model.versions.count - 1 - (settings.since.map { since in model.versions.filter { $0 < since }.count } ?? 0)
        report.additiveOnly = settings.additiveOnly
        report.sqliteData = settings.sqliteData

        if report.diagnostics.contains(where: { $0.severity == .error }) {
            report.exitCode = 1
        } else if !report.stale.isEmpty {
            report.exitCode = 2
        } else if report.findings.contains(where: { $0.severity == .error }) {
            report.exitCode = 4
        } else if !report.fixtures.isEmpty || !report.missingFixtures.isEmpty {
            report.exitCode = 5
        }
        return Outcome(report: report, model: model)
    }

}

/// What `lucidgen check` found, in each output format.
package struct CheckReport {
    package var diagnostics: [Diagnostic] = []
    /// Generated files that `generate` would write: (path, why).
    package var stale: [(String, String)] = []
    package var fixtures: [(String, String)] = []
    /// Released versions without their committed fixture: (the file to restore, what to do).
    package var missingFixtures: [(String, String)] = []
    package var fixturesChecked = 0
    package var findings: [LintFinding] = []
    package var steps = 0
    package var additiveOnly = false
    package var sqliteData = false
    package var exitCode: Int32 = 0

    package init() {}

    private func place(_ location: SourceLocation?) -> String {
        guard let location else { return "" }
        return location.line > 0 ? "\(location.file):\(location.line):\(location.column): " : "\(location.file): "
    }

    private var counts: (errors: Int, warnings: Int, notes: Int) {
        // The generator's own notes (frozen versions, ignored keys) are shown with --verbose only, and not counted.
        let severities = findings.map(\.severity.rawValue) + diagnostics.filter { $0.severity != .note }.map(\.severity.rawValue)
        return (
            severities.filter { $0 == "error" }.count + stale.count + fixtures.count + missingFixtures.count,
            severities.filter { $0 == "warning" }.count,
            severities.filter { $0 == "note" }.count
        )
    }

    package func text(verbose: Bool) -> String {
        var lines: [String] = []
        for diagnostic in diagnostics where verbose || diagnostic.severity != .note { lines.append(diagnostic.description) }
        for (path, why) in stale { lines.append("\(displayPath(path)): error: generated file \(why); run `lucidgen generate`") }
        for (path, problem) in fixtures { lines.append("\(displayPath(path)): error: fixture cannot be trusted: \(problem)") }
        for (path, problem) in missingFixtures { lines.append("\(displayPath(path)): error: fixture missing: \(problem)") }
        for finding in findings { lines.append("\(place(finding.location))\(finding.severity.rawValue): \(finding.text)") }
        let (errors, warnings, notes) = counts
        var summary =
            "check: \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"), \(notes) note\(notes == 1 ? "" : "s")"
        if exitCode != 1 {
            let rules: [String] = (additiveOnly ? ["additive only"] : []) + (sqliteData ? ["SQLiteData's sync rules"] : [])
            summary += "; \(steps) step\(steps == 1 ? "" : "s") linted\(rules.isEmpty ? "" : " (\(rules.joined(separator: ", ")))")"
            summary +=
                stale.isEmpty ? "; generated files up to date" : "; \(stale.count) generated file\(stale.count == 1 ? "" : "s") out of date"
            summary +=
                "; \(fixturesChecked) fixture\(fixturesChecked == 1 ? "" : "s") verified\(fixtures.isEmpty ? "" : " (\(fixtures.count) bad)")"
            if !missingFixtures.isEmpty { summary += ", \(missingFixtures.count) missing" }
        }
        lines.append(summary + (exitCode == 0 ? "; passed" : "; failed (exit \(exitCode))"))
        return lines.map { $0 + "\n" }.joined()
    }

    package func github(verbose: Bool) -> String {
        func annotation(_ severity: String, _ location: SourceLocation?, title: String?, _ message: String) -> String {
            var properties: [String] = []
            if let location {
                properties.append("file=\(escapeProperty(location.file))")
                if location.line > 0 { properties += ["line=\(location.line)", "col=\(location.column)"] }
            }
            if let title { properties.append("title=\(escapeProperty(title))") }
            let level = severity == "note" ? "notice" : severity
            return "::\(level)\(properties.isEmpty ? "" : " " + properties.joined(separator: ","))::\(escapeData(message))\n"
        }
        var out = ""
        for diagnostic in diagnostics where verbose || diagnostic.severity != .note {
            out += annotation(
                diagnostic.severity.rawValue, diagnostic.location, title: nil,
                diagnostic.message + (diagnostic.path.map { " (at \($0))" } ?? ""))
        }
        for (path, why) in stale {
            out += annotation("error", SourceLocation(file: displayPath(path)), title: "generated file \(why)", "run `lucidgen generate`")
        }
        for (path, problem) in fixtures { out += annotation("error", SourceLocation(file: displayPath(path)), title: "fixture", problem) }
        for (path, problem) in missingFixtures {
            out += annotation("error", SourceLocation(file: displayPath(path)), title: "missing fixture", problem)
        }
        for finding in findings { out += annotation(finding.severity.rawValue, finding.location, title: finding.code.id, finding.text) }
        return out + text(verbose: false).split(separator: "\n").last.map { String($0) + "\n" }!
    }

    /// GitHub's workflow-command escaping of a message.
    private func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(
            of: "\n", with: "%0A")
    }

    /// … and of a property value.
    private func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    package var json: String {
        func location(_ location: SourceLocation?) -> [String: Any] {
            guard let location else { return [:] }
            return ["file": location.file, "line": location.line, "column": location.column]
        }
        let object: [String: Any] = [
            "exitCode": Int(exitCode),
            "passed": exitCode == 0,
            "stepsLinted": steps,
            "additiveOnly": additiveOnly,
            "sqliteData": sqliteData,
            "findings": findings.map { finding -> [String: Any] in
                var item: [String: Any] = [
                    "code": finding.code.id, "family": finding.code.family.rawValue, "severity": finding.severity.rawValue,
                    "message": finding.message, "summary": finding.code.summary, "instead": finding.code.instead,
                    "entity": finding.entity, "from": finding.from.string, "to": finding.to.string,
                ]
                if let property = finding.property { item["property"] = property }
                if let reason = finding.acknowledgement { item["acknowledged"] = reason }
                return item.merging(location(finding.location)) { a, _ in a }
            },
            "staleFiles": stale.map { ["file": displayPath($0.0), "problem": $0.1] },
            "fixtures": [
                "checked": fixturesChecked, "problems": fixtures.map { ["file": displayPath($0.0), "problem": $0.1] },
                "missing": missingFixtures.map { ["file": displayPath($0.0), "problem": $0.1] },
            ],
            "diagnostics": diagnostics.map { diagnostic -> [String: Any] in
                var item: [String: Any] = ["severity": diagnostic.severity.rawValue, "message": diagnostic.message]
                if let path = diagnostic.path { item["path"] = path }
                return item.merging(location(diagnostic.location)) { a, _ in a }
            },
        ]
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
