import LucidSchema

/// A place in an input file.
package struct SourceLocation: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    package var file: String
    /// 1-based; 0 when unknown.
    package var line: Int
    /// 1-based; 0 when unknown.
    package var column: Int

    package init(file: String, line: Int = 0, column: Int = 0) {
        self.file = file
        self.line = line
        self.column = column
    }

    package var description: String {
        line > 0 ? "\(file):\(line):\(column)" : file
    }

    package static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}

/// A message about the input, in the `file:line:column: error: message` form compilers use.
package struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    package enum Severity: String, Sendable, Comparable, Codable {
        case note, warning, error

        package static func < (lhs: Severity, rhs: Severity) -> Bool {
            let order: [Severity] = [.note, .warning, .error]
            return order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
        }
    }

    package var severity: Severity
    package var message: String
    package var location: SourceLocation?
    /// The JSON (or YAML) path of the value concerned, e.g. `$.properties[2].property_type`.
    package var path: String?

    package init(_ severity: Severity, _ message: String, at location: SourceLocation? = nil, path: String? = nil) {
        self.severity = severity
        self.message = message
        self.location = location
        self.path = path
    }

    /// `file:line:column: error: message (at path)`, on one line: a line break or control character that a
    /// message quotes from the input is shown escaped (`\n`), so editors and CI read one diagnostic per line.
    package var description: String {
        var text = ""
        if let location { text += "\(location): " }
        text += "\(severity.rawValue): \(swiftCommentText(message))"
        if let path { text += " (at \(swiftCommentText(path)))" }
        return text
    }
}

/// Collects diagnostics while a stage runs, so that one run reports every problem it can find.
package struct DiagnosticCollector: Sendable {
    package private(set) var diagnostics: [Diagnostic] = []
    /// What was reported: the same finding reached again (a description checked at every version that has
    /// it) is reported once.
    private var reported: Set<Diagnostic> = []

    package init() {}

    package var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    private mutating func add(_ diagnostic: Diagnostic) {
        if reported.insert(diagnostic).inserted { diagnostics.append(diagnostic) }
    }

    package mutating func error(_ message: String, at location: SourceLocation? = nil, path: String? = nil) {
        add(Diagnostic(.error, message, at: location, path: path))
    }

    package mutating func warning(_ message: String, at location: SourceLocation? = nil, path: String? = nil) {
        add(Diagnostic(.warning, message, at: location, path: path))
    }

    package mutating func note(_ message: String, at location: SourceLocation? = nil, path: String? = nil) {
        add(Diagnostic(.note, message, at: location, path: path))
    }

    package mutating func append(contentsOf other: [Diagnostic]) {
        for diagnostic in other { add(diagnostic) }
    }

    /// Throws the collected diagnostics if any of them is an error.
    package func throwIfErrors() throws(GenerationFailed) {
        if hasErrors { throw GenerationFailed(diagnostics: diagnostics) }
    }
}

/// A stage found errors; `diagnostics` holds them along with any warnings found before.
package struct GenerationFailed: Error, CustomStringConvertible, Sendable {
    package var diagnostics: [Diagnostic]

    package init(diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    package init(_ message: String, at location: SourceLocation? = nil, path: String? = nil) {
        self.diagnostics = [Diagnostic(.error, message, at: location, path: path)]
    }

    package var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }

    package var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
