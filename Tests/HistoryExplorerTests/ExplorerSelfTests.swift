import Foundation
@_spi(Generated) import LucidSchema
import Testing

/// The explorer's own parts: drawing is deterministic, descriptions are written as a user writes them,
/// and the shrinker finds the edit a failure needs.
@Suite("HistoryExplorer parts")
struct ExplorerSelfTests {
    @Test func aSeedAlwaysDrawsTheSameHistory() {
        var first = HistoryGenerator(seed: 42)
        var second = HistoryGenerator(seed: 42)
        var other = HistoryGenerator(seed: 43)
        let a = first.history().description
        #expect(a == second.history().description)
        #expect(a != other.history().description)
    }

    @Test func theGeneratorDrawsIndexEditsThatApply() {
        var added = 0
        var removed = 0
        var unique = 0
        for seed in UInt64(70000)..<70200 {
            var generator = HistoryGenerator(seed: seed)
            var workspace = Workspace()
            for release in generator.history().releases { workspace.apply(release) }
            for case .setIndexed(_, _, let indexed, let isUnique) in workspace.applied.values.joined() {
                if indexed { added += 1 } else { removed += 1 }
                if indexed && isUnique { unique += 1 }
            }
        }
        #expect(added > 0 && removed > 0 && unique > 0, "seeds 70000..<70200 add \(added) (\(unique) unique) and remove \(removed) indexes")
        print("index edits over seeds 70000..<70200: \(added) added (\(unique) unique), \(removed) removed")
    }

    @Test func theGeneratorDrawsCompositeAndCaseEditsThatApply() {
        var counts: [String: Int] = [:]
        for seed in UInt64(70000)..<70200 {
            var generator = HistoryGenerator(seed: seed)
            var workspace = Workspace()
            for release in generator.history().releases { workspace.apply(release) }
            for edit in workspace.applied.values.joined() {
                switch edit {
                case .addProperty(_, let spec) where spec.kind == .composite("point") || spec.kind == .composite("frame"):
                    counts["composite added", default: 0] += 1
                case .makeComposite: counts["made composite", default: 0] += 1
                case .setElementIndexed: counts["element index", default: 0] += 1
                case .addCase: counts["case added", default: 0] += 1
                case .renameCase: counts["case renamed", default: 0] += 1
                case .removeCase(_, .toCase): counts["case removed with fallback", default: 0] += 1
                case .removeCase(_, .null): counts["case removed, null fallback", default: 0] += 1
                case .removeCase(_, .appCode): counts["case removed by the app", default: 0] += 1
                default: break
                }
            }
        }
        let kinds = [
            "composite added", "made composite", "element index", "case added", "case renamed", "case removed with fallback",
            "case removed, null fallback", "case removed by the app",
        ]
        #expect(kinds.allSatisfy { counts[$0, default: 0] > 0 }, "seeds 70000..<70600 apply \(counts)")
        print(
            "composite and case edits over seeds 70000..<70200: \(kinds.map { "\($0): \(counts[$0, default: 0])" }.joined(separator: ", "))"
        )
    }

    @Test func theGeneratorDrawsStructMemberEditsThatApply() {
        var counts: [String: Int] = [:]
        for seed in UInt64(70000)..<70600 {
            var generator = HistoryGenerator(seed: seed)
            var workspace = Workspace()
            for release in generator.history().releases { workspace.apply(release) }
            for edit in workspace.applied.values.joined() {
                switch edit {
                case .addMember(let name, _, _, _, true, _):
                    counts["optional member added", default: 0] += 1; counts["\(name): optional member added", default: 0] += 1
                case .addMember(let name, _, _, _, false, _):
                    counts["required member added with a default", default: 0] += 1;
                    counts["\(name): required member added with a default", default: 0] += 1
                case .removeMember(let name, _):
                    counts["member removed", default: 0] += 1; counts["\(name): member removed", default: 0] += 1
                case .renameMember(let name, _, _):
                    counts["member renamed", default: 0] += 1; counts["\(name): member renamed", default: 0] += 1
                case .setMemberNullable(let name, _, false, _):
                    counts["member made required", default: 0] += 1; counts["\(name): member made required", default: 0] += 1
                case .setMemberNullable(let name, _, true, _):
                    counts["member made optional", default: 0] += 1; counts["\(name): member made optional", default: 0] += 1
                default: break
                }
            }
            // Changes of point inside frame (nested), and of structs held as JSON (the app's code).
            for changes in workspace.typeChanges.values.joined() {
                if case .structMembers(let root, let diffs) = changes.conversion {
                    counts["JSON struct converted by the app", default: 0] += 1
                    if root == "frame" && !diffs["frame", default: StructDiff()].nested.isEmpty {
                        counts["nested JSON struct converted", default: 0] += 1
                    }
                }
            }
            for (version, structs) in workspace.structsAt {
                let before = workspace.structsAt.keys.filter {
                    (try? SchemaVersion(parsing: $0)).map { v in (try? SchemaVersion(parsing: version)).map { v < $0 } ?? false } ?? false
                }
                .max { (try! SchemaVersion(parsing: $0)) < (try! SchemaVersion(parsing: $1)) }
                guard let before, workspace.structsAt[before]?["point"] != structs["point"],
                    workspace.entitiesAt[version]?.contains(where: {
                        $0.removedAt == nil && $0.properties.contains { $0.removedAt == nil && $0.kind == .composite("frame") }
                    }) == true
                else { continue }
                counts["point changed inside a frame composite", default: 0] += 1
            }
        }
        let kinds = [
            "optional member added", "required member added with a default", "member removed", "member renamed", "member made required",
            "member made optional",
            "point: member renamed", "frame: member renamed", "JSON struct converted by the app", "nested JSON struct converted",
            "point changed inside a frame composite",
        ]
        #expect(kinds.allSatisfy { counts[$0, default: 0] > 0 }, "seeds 70000..<70600 apply \(counts)")
        print("struct member edits over seeds 70000..<70600: \(kinds.map { "\($0): \(counts[$0, default: 0])" }.joined(separator: ", "))")
    }

    @Test func descriptionsFollowTheEdits() throws {
        let history = History(releases: [
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "writer", identifier: .int,
                            properties: [
                                PropertySpec(key: 2, name: "name", kind: .scalar("string"), nullable: false, defaultJSON: nil)
                            ])),
                    .addEntity(
                        EntitySpec(
                            key: 3, name: "book", identifier: .string,
                            properties: [
                                PropertySpec(key: 4, name: "author", kind: .toOne(entity: 1), nullable: true, defaultJSON: nil)
                            ])),
                ]),
            .init(
                version: "2.0", configSpelling: "2.0.0",
                edits: [.renameEntity(1, to: "author"), .renameProperty(entity: 1, property: 2, to: "title", explicitVersion: false)]),
        ])
        var workspace = Workspace()
        for release in history.releases { workspace.apply(release) }
        let files = workspace.descriptionFiles()
        let writer = try #require(files["entity_1.json"])
        #expect(writer.contains(#""name": "author""#))
        #expect(writer.contains(#"{ "version": "2.0", "previous_name": "writer" }"#))
        #expect(writer.contains(#"{ "name": "title", "property_type": "string", "previous_name": "name" }"#))
        // The relationship names its target by the target's current name.
        #expect(try #require(files["entity_3.json"]).contains(#""entity_name": "author", "association": "to_one""#))
    }

    @Test func editsThatNoLongerApplyAreSkipped() {
        // Removing the entity's addition leaves the later edits of it without an entity: they are skipped.
        var workspace = Workspace()
        workspace.apply(
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(EntitySpec(key: 1, name: "node", identifier: .local, properties: []))
                ]))
        workspace.apply(
            .init(version: "1.1", configSpelling: "1.1", edits: [.renameEntity(7, to: "other"), .removeProperty(entity: 1, property: 9)]))
        #expect(workspace.applied["1.1"]?.map(\.description) == ["history item for #1 without change"])
    }

    @Test func theShrinkerKeepsOnlyWhatTheFailureNeeds() {
        var generator = HistoryGenerator(seed: 5)
        var history = generator.history()
        // A made-up failure: any history in which some release renames an entity.
        var played = Workspace()
        for release in history.releases { played.apply(release) }
        let live = played.liveEntities[0].key
        history.releases.append(.init(version: "99.0", configSpelling: "99.0", edits: [.touch(live), .renameEntity(live, to: "renamed")]))
        let failing: (History) -> [String] = { candidate in
            var workspace = Workspace()
            for release in candidate.releases { workspace.apply(release) }
            let renamed = workspace.applied.values.contains { $0.contains { if case .renameEntity = $0 { true } else { false } } }
            return renamed ? ["release 99.0: an entity was renamed"] : []
        }
        #expect(!failing(history).isEmpty)
        var shrinker = Shrinker(history: history)
        shrinker.failures = failing
        shrinker.budget = 400
        let result = shrinker.shrink()
        #expect(!failing(result.history).isEmpty)
        // The first release (which adds the entities) and one release with one edit: the rename.
        #expect(result.history.releases.count <= 2)
        #expect(result.history.releases.dropFirst().flatMap(\.edits).count == 1)
    }
}
