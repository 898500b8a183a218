import Foundation
@_spi(Generated) import LucidSchema

/// The `lint` section of `.lucid.yaml`: how `lucidgen check` treats each finding.
///
/// ```yaml
/// lint:
///   since: "2.0"              # lint only the steps after 2.0 (older ones shipped long ago)
///   additive_only: false      # as `check --additive-only` (CloudKit's rule) when true
///   sqlitedata: false         # as `check --sqlitedata` (SQLiteData's sync rules) when true
///   severity:                 # per code: error, warning, note or off
///     BC102: error
///     MF103: off
///   acknowledged:             # findings a release proceeds with knowingly: each needs a reason
///     - code: DS102
///       entity: aircraft
///       property: flight_data # for property findings
///       version: "3.0"        # the version the step goes to
///       reason: "moved into flight_data by the moveFlightData stage at 2.1"
/// ```
///
/// Acknowledgements live here, not in the descriptions: a released version's descriptions are frozen.
package struct LintSettings: Sendable {
    /// One finding a release proceeds with knowingly.
    package struct Acknowledgement: Sendable {
        package var code: String
        /// The entity's current name.
        package var entity: String
        /// The property's current name, for property findings.
        package var property: String?
        /// The version the step goes to.
        package var version: SchemaVersion
        package var reason: String
        package var location: SourceLocation
    }

    package var severities: [String: LintSeverity] = [:]
    package var acknowledgements: [Acknowledgement] = []
    package var since: SchemaVersion?
    package var additiveOnly = false
    /// SQLiteData's sync rules (`--sqlitedata`): the SD codes.
    package var sqliteData = false

    package init() {}

    /// The severity of `code` here.
    package func severity(of code: LintCode) -> LintSeverity { severities[code.id] ?? code.defaultSeverity }

    static func read(_ node: JSONNode, _ diagnostics: inout DiagnosticCollector) -> LintSettings {
        var settings = LintSettings()
        guard
            var reader = ObjectReader(
                node, what: "'lint'", known: ["since", "additive_only", "sqlitedata", "severity", "acknowledged"], diagnostics: &diagnostics
            )
        else { return settings }
        defer { reader.finish(&diagnostics) }
        settings.since = reader.version("since", &diagnostics)
        settings.additiveOnly = reader.bool("additive_only", &diagnostics) ?? false
        settings.sqliteData = reader.bool("sqlitedata", &diagnostics) ?? false
        if let severity = reader.value("severity") {
            // Codes are read as written (the object reader would respell `DS102` as snake_case).
            if case .object(let members) = severity.value {
                for member in members {
                    guard let code = LintCode.named(member.key) else {
                        diagnostics.error(
                            "unknown lint code '\(member.key)' (codes: \(LintCode.all.map(\.id).joined(separator: ", ")))",
                            at: member.keyLocation, path: member.value.path)
                        continue
                    }
                    // YAML 1.1 reads a bare `off` (or `no`) as false.
                    if case .bool(false) = member.value.value {
                        settings.severities[code.id] = .off
                        continue
                    }
                    guard case .string(let text) = member.value.value, let level = LintSeverity(rawValue: text.lowercased()) else {
                        diagnostics.error(
                            "the severity of \(code.id) must be one of \(LintSeverity.allCases.map(\.rawValue).joined(separator: ", "))",
                            at: member.value.location, path: member.value.path)
                        continue
                    }
                    settings.severities[code.id] = level
                }
            } else {
                diagnostics.error(
                    "'lint.severity' must map codes to severities, found \(severity.kindName)", at: severity.location, path: severity.path)
            }
        }
        for item in reader.array("acknowledged", &diagnostics) ?? [] {
            guard
                var entry = ObjectReader(
                    item, what: "an acknowledgement", known: ["code", "entity", "property", "version", "reason"], diagnostics: &diagnostics)
            else { continue }
            defer { entry.finish(&diagnostics) }
            let code = entry.string("code", required: true, &diagnostics)
            let entity = entry.string("entity", required: true, &diagnostics)
            let property = entry.string("property", &diagnostics)
            let version = entry.version("version", &diagnostics)
            let reason = entry.string("reason", &diagnostics)
            if !entry.has("version") {
                diagnostics.error("an acknowledgement needs the 'version' its step goes to", at: item.location, path: item.path)
            }
            if reason?.trimmingCharacters(in: .whitespaces).isEmpty ?? true {
                diagnostics.error(
                    "an acknowledgement needs a 'reason': why the release proceeds with this finding", at: item.location, path: item.path)
            }
            if let code, LintCode.named(code) == nil {
                diagnostics.error("unknown lint code '\(code)'", at: item.location, path: item.path + ".code")
            }
            guard let code, let entity, let version, let reason, LintCode.named(code) != nil else { continue }
            settings.acknowledgements.append(
                Acknowledgement(
                    code: code.uppercased(), entity: entity, property: property, version: version, reason: reason, location: item.location))
        }
        return settings
    }
}
