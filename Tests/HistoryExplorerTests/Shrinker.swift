import Foundation

/// Shrinks a failing history to a small one that still fails: whole releases first, then single edits,
/// then properties of added entities, then version spellings. Edits name entities and properties by key,
/// so a candidate is always a playable history (edits that no longer apply are skipped).
///
/// The shrinking is the history's own (releases and edits) rather than swift-property-based's generic
/// shrinkers: those shrink the drawn numbers, which would give histories that no longer resemble the
/// failing one, and they run only inside `propertyCheck`, whose seeds cannot come from the environment.
struct Shrinker {
    var history: History
    /// Candidate runs at most (each plays a whole history).
    var budget = 80
    /// The failures of a history (empty: it passes). By default, the explorer's.
    var failures: (History) -> [String] = { Explorer(history: $0).run().failures }

    struct Result {
        var history: History
        var failures: [String]
        var runs: Int
    }

    func shrink() -> Result {
        var current = history
        var failures = self.failures(current)
        // A candidate must fail the same way (not, say, by having no entity left).
        let kinds = Set(failures.map(Self.kind))
        var runs = 1
        var improved = true
        while improved && runs < budget {
            improved = false
            for candidate in candidates(of: current) {
                guard runs < budget else { break }
                runs += 1
                let found = self.failures(candidate)
                if found.contains(where: { kinds.contains(Self.kind(of: $0)) }) {
                    current = candidate
                    failures = found
                    improved = true
                    break
                }
            }
        }
        return Result(history: current, failures: failures, runs: runs)
    }

    /// A failure without its particulars (paths, names, versions, values), to tell failures of one kind.
    static func kind(of failure: String) -> String {
        var text = failure
        for pattern in ["/[^ :]+", "'[^']*'", "\"[^\"]*\"", "`[^`]*`", "[0-9][0-9.]*", "\\([^)]*\\)"] {
            text = text.replacingOccurrences(of: pattern, with: "_", options: .regularExpression)
        }
        return String(text.prefix(90))
    }

    func candidates(of history: History) -> [History] {
        var result: [History] = []
        // Drop a release (never the first: it adds the first entities).
        for index in history.releases.indices.dropFirst().reversed() {
            var candidate = history
            candidate.releases.remove(at: index)
            result.append(candidate)
        }
        // Drop an edit.
        for (releaseIndex, release) in history.releases.enumerated() {
            for editIndex in release.edits.indices.reversed() {
                var candidate = history
                candidate.releases[releaseIndex].edits.remove(at: editIndex)
                result.append(candidate)
            }
        }
        // Drop a property of an added entity.
        for (releaseIndex, release) in history.releases.enumerated() {
            for (editIndex, edit) in release.edits.enumerated() {
                guard case .addEntity(let spec) = edit, spec.properties.count > 1 else { continue }
                for propertyIndex in spec.properties.indices.reversed() {
                    var smaller = spec
                    smaller.properties.remove(at: propertyIndex)
                    var candidate = history
                    candidate.releases[releaseIndex].edits[editIndex] = .addEntity(smaller)
                    result.append(candidate)
                }
            }
        }
        // Type changes inferred rather than written.
        for (index, release) in history.releases.enumerated() where release.typeHistoryByHand {
            var candidate = history
            candidate.releases[index].typeHistoryByHand = false
            result.append(candidate)
        }
        // Plain spellings.
        for (index, release) in history.releases.enumerated()
        where release.configSpelling != release.version || !release.respelledBy.isEmpty {
            var candidate = history
            candidate.releases[index].configSpelling = release.version
            candidate.releases[index].respelledBy = []
            result.append(candidate)
        }
        return result
    }

    /// The failure report: seed, failures, and the shrunk history as edits and as description files per release.
    static func report(seed: UInt64, original: History, originalFailures: [String], shrunk: Result) -> String {
        var text =
            "History explorer seed \(seed) fails (reproduce: LUCIDGEN_EXPLORE_SEED=\(seed) LUCIDGEN_EXPLORE_COUNT=1 swift test --filter HistoryExplorer).\n"
        text +=
            "Shrunk in \(shrunk.runs) runs from \(original.releases.count) releases / \(original.releases.map(\.edits.count).reduce(0, +)) edits "
        text += "to \(shrunk.history.releases.count) releases / \(shrunk.history.releases.map(\.edits.count).reduce(0, +)) edits.\n\n"
        text += "Failures of the shrunk history (\(shrunk.failures.count)):\n" + shrunk.failures.prefix(12).map { "  • \($0)\n" }.joined()
        text += "\nShrunk history:\n\(shrunk.history)\n"
        var workspace = Workspace()
        for release in shrunk.history.releases {
            workspace.apply(release)
            text += "── release \(release.version): .lucid.yaml current_version \"\(release.configSpelling)\"; .entities/:\n"
            // The subtypes never change, except the cases of status.
            for (path, contents) in workspace.descriptionFiles().sorted(by: { $0.key < $1.key })
            where !path.hasPrefix("Subtypes/") || path == "Subtypes/status.json" {
                text += "\(path):\n\(contents)"
            }
        }
        text +=
            "\nFirst failures of the original history (\(originalFailures.count)):\n"
            + originalFailures.prefix(5).map { "  • \($0)\n" }.joined()
        return text
    }
}
