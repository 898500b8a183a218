import Foundation
import Testing

/// Histories the explorer (or a stranger) found failing, kept as regression tests: each is played exactly
/// as the explorer plays a random one (generate per release, fixtures, every store migrated and checked).
@Suite("HistoryExplorer regressions", .serialized)
struct RegressionHistories {
    func play(_ releases: [History.Release], objectSeed: UInt64 = 0, sourceLocation: SourceLocation = #_sourceLocation) {
        let outcome = Explorer(history: History(releases: releases), objectSeed: objectSeed).run()
        #expect(outcome.failures.isEmpty, "\(outcome.failures.joined(separator: "\n"))", sourceLocation: sourceLocation)
        #expect(outcome.releases == releases.count, sourceLocation: sourceLocation)
        #expect(
            outcome.stores >= releases.count * 2, "every version seeded and every release's fixture checked", sourceLocation: sourceLocation
        )
    }

    /// Plays the releases after checking that every edit of them applies (none is skipped as no longer applying).
    func playEveryEdit(_ releases: [History.Release], sourceLocation: SourceLocation = #_sourceLocation) {
        var workspace = Workspace()
        for release in releases {
            workspace.apply(release)
            #expect(
                workspace.applied[release.version]?.count == release.edits.count,
                "\(release.version): applied \(workspace.applied[release.version] ?? [])", sourceLocation: sourceLocation)
        }
        play(releases, sourceLocation: sourceLocation)
    }

    static func property(_ key: Int, _ name: String, _ kind: PropertyKind, nullable: Bool = false, default value: String? = nil)
        -> PropertySpec
    {
        PropertySpec(key: key, name: name, kind: kind, nullable: nullable, defaultJSON: value)
    }

    /// A renamed entity as a relationship target (to-one and to-many), over a chain of renames.
    @Test func relationshipsFollowARenamedTargetThroughAChain() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(key: 1, name: "writer", identifier: .int, properties: [Self.property(2, "name", .scalar("string"))])),
                    .addEntity(
                        EntitySpec(
                            key: 3, name: "book", identifier: .string,
                            properties: [
                                Self.property(4, "author", .toOne(entity: 1)), Self.property(5, "editors", .toMany(entity: 1)),
                                Self.property(6, "sequel", .toOne(entity: 3), nullable: true),
                            ])),
                ]),
            .init(version: "2.0", configSpelling: "2.0", edits: [.renameEntity(1, to: "author")]),
            .init(version: "3.0", configSpelling: "3.0", edits: [.renameEntity(1, to: "creator"), .renameEntity(3, to: "volume")]),
            .init(version: "3.1", configSpelling: "3.1", edits: [.renameEntity(1, to: "writer")]),
        ])
    }

    /// Found by the explorer: an entity renamed at a version while a new entity takes its old name (and its
    /// to-many link table's name) at the same version; a property renamed while a new one takes its name.
    @Test func aNameFreedByARenameIsTakenByANewEntityAndProperty() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "writer", identifier: .int,
                            properties: [
                                Self.property(2, "name", .scalar("string")), Self.property(3, "friends", .toMany(entity: 1)),
                            ]))
                ]),
            .init(
                version: "2.0", configSpelling: "2.0",
                edits: [
                    .renameEntity(1, to: "author"),
                    .renameProperty(entity: 1, property: 2, to: "title", explicitVersion: false),
                    .addProperty(entity: 1, Self.property(4, "name", .scalar("int"), nullable: true)),
                    .addEntity(
                        EntitySpec(
                            key: 5, name: "writer", identifier: .string,
                            properties: [
                                Self.property(6, "friends", .toMany(entity: 5)),
                                Self.property(7, "mentor", .toOne(entity: 1), nullable: true),
                            ])),
                ]),
        ])
    }

    /// Found by the explorer (seed 52253): a property renamed without renamed_at_version while a new property
    /// takes its old name at the same version; at the next release the rename was "ambiguous" (the frozen
    /// snapshot still held a property of the old name: the new one).
    @Test func aRenameWhoseOldNameIsTakenIsInferredAtItsVersion() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "team", identifier: .int, properties: [Self.property(5, "key", .scalar("bool"), default: "false")]
                        ))
                ]),
            .init(
                version: "2.0.1", configSpelling: "2.0.1",
                edits: [
                    .renameProperty(entity: 1, property: 5, to: "order", explicitVersion: false),
                    .addProperty(entity: 1, Self.property(7, "key", .scalar("data"), nullable: true)),
                ]),
            .init(version: "2.0.2", configSpelling: "2.0.2", edits: []),
        ])
    }

    /// Found by the explorer: a type_history written by hand for one change (nullability) while an earlier
    /// change (the default) was made by editing: what the item leaves out comes from the snapshots.
    @Test func aHandWrittenTypeHistoryItemNeedNotRepeatEarlierEdits() {
        var third = History.Release(
            version: "3.0", configSpelling: "3.0",
            edits: [
                .setNullable(entity: 1, property: 2, nullable: false, defaultJSON: "9223372036854775807")
            ])
        third.typeHistoryByHand = true
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "team", identifier: .string,
                            properties: [Self.property(2, "label", .scalar("int"), nullable: true, default: "-7")]))
                ]),
            .init(version: "2.0", configSpelling: "2.0", edits: [.setDefault(entity: 1, property: 2, defaultJSON: nil)]),
            third,
        ])
    }

    /// Found by the explorer: a type edited in place (seconds → double, inferred), then changed again with a
    /// hand-written type_history item that describes only the state just before its version.
    @Test func aHandWrittenItemDescribesTheStateJustBeforeItsVersion() {
        var third = History.Release(version: "1.2", configSpelling: "1.2", edits: [.changeType(entity: 1, property: 2, to: .scalar("int"))])
        third.typeHistoryByHand = true
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "author", identifier: .local,
                            properties: [Self.property(2, "type", .scalar("seconds"), default: "\"30s\"")]))
                ]),
            .init(version: "1.1", configSpelling: "1.1", edits: [.changeType(entity: 1, property: 2, to: .scalar("double"))]),
            third,
        ])
    }

    /// Found by the explorer: a property renamed (its version inferred) and removed at a later release: the
    /// snapshots after the removal do not make the rename ambiguous.
    @Test func aRenamedPropertyCanBeRemovedLater() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(key: 1, name: "node", identifier: .string, properties: [Self.property(2, "select", .subtype("status"))]))
                ]),
            .init(
                version: "1.1", configSpelling: "1.1", edits: [.renameProperty(entity: 1, property: 2, to: "key", explicitVersion: false)]),
            .init(version: "2.0", configSpelling: "2.0", edits: [.removeProperty(entity: 1, property: 2)]),
            .init(version: "2.1", configSpelling: "2.1", edits: [.touch(1)]),
        ])
    }

    /// Found by the explorer (seed 131051): a table and its column share a name (`default`), the table is
    /// renamed and the column removed later; a store jumps over both with an FTS5 index (and its triggers)
    /// on that column. Following the table's rename had renamed the column's mentions in the app's objects
    /// too, so the removed column went unnoticed: only the rename was reported.
    @Test func aTableRenamedThenItsColumnOfTheSameNameRemovedUnderAnFTSIndex() {
        play(
            [
                .init(
                    version: "9.0", configSpelling: "9.0",
                    edits: [
                        .addEntity(
                            EntitySpec(
                                key: 6, name: "default", identifier: .property, properties: [Self.property(8, "default", .scalar("color"))])
                        )
                    ]),
                .init(version: "9.0.2", configSpelling: "9.0.2", edits: [.renameEntity(6, to: "order")]),
                .init(version: "10.0", configSpelling: "10.0", edits: [.removeProperty(entity: 6, property: 8)]),
            ], objectSeed: 131051)
    }

    /// Found by the explorer: a store jumps over versions in which a table was renamed away and removed while
    /// another entity took its name; the old table goes before the new one is created.
    @Test func aJumpOverAFreedAndRetakenTableName() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "default", identifier: .int,
                            properties: [
                                Self.property(2, "key", .scalar("double")), Self.property(3, "where", .toMany(entity: 1)),
                            ])),
                    .addEntity(
                        EntitySpec(key: 4, name: "team", identifier: .local, properties: [Self.property(5, "name", .scalar("string"))])),
                ]),
            .init(version: "1.1", configSpelling: "1.1", edits: [.renameEntity(1, to: "order")]),
            .init(
                version: "1.2", configSpelling: "1.2",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 6, name: "group", identifier: .string,
                            properties: [Self.property(7, "init", .scalar("url"), nullable: true)])),
                    .renameEntity(4, to: "node"),
                ]),
            .init(version: "1.3", configSpelling: "1.3", edits: [.renameEntity(6, to: "default"), .renameEntity(4, to: "team")]),
            .init(version: "1.4", configSpelling: "1.4", edits: [.removeEntity(1)]),
            .init(version: "2.0", configSpelling: "2.0", edits: [.touch(6)]),
        ])
    }

    /// `uuid` (a BLOB of 16 bytes) through every kind of step: a column added with a UUID default (`ALTER TABLE …
    /// ADD COLUMN … DEFAULT X'…'`) and one indexed, a default edited, nullable → required (a rebuild, NULLs take
    /// the default), uuid → data (the same bytes), a uuid column and its table renamed, beside a `[uuid]` array.
    @Test func uuidColumnsThroughEveryKindOfStep() {
        playEveryEdit([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "item", identifier: .int,
                            properties: [
                                Self.property(2, "key", .scalar("uuid")), Self.property(3, "keys", .array("uuid")),
                                Self.property(4, "title", .scalar("string")),
                            ]))
                ]),
            .init(
                version: "1.1", configSpelling: "1.1",
                edits: [
                    .addProperty(
                        entity: 1,
                        Self.property(5, "spare", .scalar("uuid"), nullable: true, default: "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"")),
                    .setIndexed(entity: 1, property: 2, indexed: true),
                ]),
            .init(
                version: "1.2", configSpelling: "1.2",
                edits: [
                    .setDefault(entity: 1, property: 5, defaultJSON: "\"00000000-0000-0000-0000-000000000000\"")
                ]),
            .init(
                version: "1.3", configSpelling: "1.3",
                edits: [
                    .changeType(entity: 1, property: 2, to: .scalar("data")),
                    .setNullable(entity: 1, property: 5, nullable: false, defaultJSON: nil),
                ]),
            .init(
                version: "2.0", configSpelling: "2.0",
                edits: [
                    .renameProperty(entity: 1, property: 5, to: "backup", explicitVersion: false),
                    .renameEntity(1, to: "card"),
                ]),
        ])
    }

    /// Found by the explorer: a column added with the current date as default, then its table rebuilt by
    /// the app's row transform: the value the oracle cannot know stays "checked non-NULL" through the transform.
    @Test func aCurrentDateDefaultFlowsThroughTheAppsTransform() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "class", identifier: .string,
                            properties: [Self.property(2, "type", .scalar("double"), default: "0.1")]))
                ]),
            .init(
                version: "1.1", configSpelling: "1.1",
                edits: [
                    .addProperty(entity: 1, Self.property(3, "class", .scalar("date"), nullable: true, default: "\"current_date\""))
                ]),
            .init(version: "1.2", configSpelling: "1.2", edits: [.changeType(entity: 1, property: 2, to: .scalar("int"))]),
        ])
    }

    /// Found by the explorer: nullable columns that become required take their default for existing NULLs,
    /// also a non-constant one (the current date), in the oracle as in the store.
    @Test func nullableColumnsBecomeRequiredWithTheirDefaults() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "log", identifier: .local,
                            properties: [
                                Self.property(2, "owner", .scalar("date"), nullable: true, default: "\"current_date\""),
                                Self.property(3, "count", .scalar("int"), nullable: true),
                            ]))
                ]),
            .init(
                version: "1.1", configSpelling: "1.1",
                edits: [
                    .setNullable(entity: 1, property: 2, nullable: false, defaultJSON: nil),
                    .setNullable(entity: 1, property: 3, nullable: false, defaultJSON: "9"),
                ]),
        ])
    }

    /// Type changes by editing: exact ones inferred, lossy ones through the app's row transform; a
    /// to-one that becomes to-many keeps its links; versions spelled two ways.
    @Test func typesEditedInPlaceAndVersionsSpelledTwoWays() {
        var second = History.Release(
            version: "1.9", configSpelling: "1.9.0",
            edits: [
                .changeType(entity: 1, property: 2, to: .scalar("string")),
                .changeType(entity: 1, property: 4, to: .toMany(entity: 1)),
            ])
        second.respelledBy = [1]
        play([
            .init(
                version: "1.8", configSpelling: "1.8",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "select", identifier: .int,
                            properties: [
                                Self.property(2, "count", .scalar("int")), Self.property(3, "order", .scalar("string"), nullable: true),
                                Self.property(4, "parent", .toOne(entity: 1), nullable: true),
                                Self.property(5, "default", .scalar("double"), default: "0.1"),
                            ]))
                ]),
            second,
            .init(version: "1.10", configSpelling: "1.10", edits: [.changeType(entity: 1, property: 3, to: .scalar("int"))]),
            .init(version: "1.11", configSpelling: "1.11", edits: [.changeType(entity: 1, property: 5, to: .scalar("string"))]),
        ])
    }

    /// Indexes edited in place: added, kept through a rename of the column and a type change that
    /// rebuilds the table (and through the entity's rename), removed, added again, and gone with the
    /// property removed.
    @Test func indexesEditedInPlace() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "writer", identifier: .int,
                            properties: [
                                Self.property(2, "name", .scalar("string")), Self.property(3, "count", .scalar("int"), nullable: true),
                                Self.property(4, "level", .scalar("bool"), default: "true"),
                            ]))
                ]),
            .init(
                version: "1.1", configSpelling: "1.1",
                edits: [.setIndexed(entity: 1, property: 2, indexed: true), .setIndexed(entity: 1, property: 3, indexed: true)]),
            .init(
                version: "1.2", configSpelling: "1.2",
                edits: [
                    .renameProperty(entity: 1, property: 2, to: "title", explicitVersion: false),
                    .changeType(entity: 1, property: 3, to: .scalar("string")),
                ]),
            .init(
                version: "2.0", configSpelling: "2.0",
                edits: [.renameEntity(1, to: "author"), .setIndexed(entity: 1, property: 4, indexed: true)]),
            .init(version: "2.1", configSpelling: "2.1", edits: [.setIndexed(entity: 1, property: 2, indexed: false)]),
            .init(
                version: "2.2", configSpelling: "2.2",
                edits: [.setIndexed(entity: 1, property: 2, indexed: true), .removeProperty(entity: 1, property: 3)]),
        ])
    }

    /// Composites added (a required point at first, an optional nested frame later), their elements indexed,
    /// renamed (every column and its index), made optional, and removed.
    @Test func compositesAddedIndexedRenamedAndRemoved() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "node", identifier: .int,
                            properties: [
                                Self.property(2, "where", .composite("point")), Self.property(3, "name", .scalar("string")),
                            ]))
                ]),
            .init(
                version: "1.1", configSpelling: "1.1",
                edits: [
                    .addProperty(entity: 1, Self.property(4, "frame", .composite("frame"), nullable: true)),
                    .setElementIndexed(entity: 1, property: 4, element: "origin.x", indexed: true),
                ]),
            .init(
                version: "1.2", configSpelling: "1.2",
                edits: [
                    .setElementIndexed(entity: 1, property: 2, element: "x", indexed: true),
                    .renameProperty(entity: 1, property: 4, to: "bounds", explicitVersion: false),
                ]),
            .init(
                version: "2.0", configSpelling: "2.0",
                edits: [
                    .setNullable(entity: 1, property: 2, nullable: true, defaultJSON: nil),
                    .setElementIndexed(entity: 1, property: 4, element: "tag", indexed: true),
                ]),
            .init(version: "2.1", configSpelling: "2.1", edits: [.removeProperty(entity: 1, property: 4)]),
        ])
    }

    /// Structs stored as JSON made composite by editing (a required point, an optional nested frame): every
    /// member's value is kept (json_extract), also by stores that jump over the conversion and a later rename.
    @Test func jsonStructsBecomeCompositesInPlace() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "order", identifier: .string,
                            properties: [
                                Self.property(2, "value", .subtype("point")), Self.property(3, "size", .subtype("frame"), nullable: true),
                            ]))
                ]),
            .init(
                version: "1.1", configSpelling: "1.1",
                edits: [.makeComposite(entity: 1, property: 2), .makeComposite(entity: 1, property: 3)]),
            .init(
                version: "1.2", configSpelling: "1.2",
                edits: [
                    .setElementIndexed(entity: 1, property: 3, element: "size", indexed: true),
                    .renameProperty(entity: 1, property: 2, to: "key", explicitVersion: false),
                ]),
        ])
    }

    /// Found by the explorer (seed 8229): a JSON struct made composite at the version one of its members becomes
    /// required with a default, then the property and its entity renamed. The member's NULLs take the default
    /// (LucidRuntime.docc, "Enums and structs": "a member that becomes required takes its default where it was NULL"), in a required composite
    /// everywhere and in an optional one only where the composite is present (a nil one stays all NULL).
    @Test func aJSONStructMadeCompositeWhileAMemberBecomesRequired() {
        playEveryEdit([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "values", identifier: .local,
                            properties: [
                                Self.property(3, "init", .subtype("point")), Self.property(4, "spot", .subtype("point"), nullable: true),
                            ]))
                ]),
            .init(
                version: "1.2", configSpelling: "1.2",
                edits: [
                    .makeComposite(entity: 1, property: 3), .makeComposite(entity: 1, property: 4),
                    .setMemberNullable(structName: "point", key: -12, nullable: false, defaultJSON: "\"it's\""),
                ]),
            .init(
                version: "1.3", configSpelling: "1.3",
                edits: [
                    .renameProperty(entity: 1, property: 3, to: "title", explicitVersion: false), .renameEntity(1, to: "team"),
                ]),
        ])
    }

    /// The cases of status change: one added, one renamed, one removed with a fallback (the added one), the
    /// added one removed through the app's code; the entities holding status get history items.
    @Test func statusCasesAddedRenamedAndRemoved() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "team", identifier: .int,
                            properties: [
                                Self.property(2, "kind", .subtype("status"), default: "\".active\""),
                                Self.property(3, "level", .subtype("status"), nullable: true),
                            ])),
                    .addEntity(
                        EntitySpec(key: 4, name: "item", identifier: .local, properties: [Self.property(5, "class", .subtype("status"))])),
                ]),
            .init(version: "1.1", configSpelling: "1.1", edits: [.addCase(key: 50, name: "pending")]),
            .init(
                version: "1.2", configSpelling: "1.2",
                edits: [.renameCase(key: -3, to: "case"), .renameProperty(entity: 1, property: 3, to: "order", explicitVersion: false)]),
            .init(version: "2.0", configSpelling: "2.0", edits: [.removeCase(key: -4, fallback: .toCase(50))]),
            .init(version: "2.1", configSpelling: "2.1", edits: [.removeCase(key: 50, fallback: .appCode)]),
        ])
    }

    /// A case removed with `"fallback": null` where every status column is nullable, beside a rename at the same version.
    @Test func statusCaseRemovedWithANullFallback() {
        play([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "select", identifier: .string,
                            properties: [Self.property(2, "default", .subtype("status"), nullable: true)]))
                ]),
            .init(
                version: "1.1", configSpelling: "1.1", edits: [.removeCase(key: -4, fallback: .null), .renameCase(key: -3, to: "on_hold")]),
            .init(
                version: "1.2", configSpelling: "1.2",
                edits: [.addProperty(entity: 1, Self.property(3, "type", .subtype("status"), nullable: true))]),
        ])
    }

    /// Struct member history in composites (a required point, an optional nested frame): members added
    /// (optional, required with a default), renamed, made required with a default and optional (the nested
    /// `origin` too), removed; every column follows, a default fills only present composites.
    @Test func structMembersOfCompositesChange() {
        playEveryEdit([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "node", identifier: .int,
                            properties: [
                                Self.property(2, "where", .composite("point")),
                                Self.property(3, "frame", .composite("frame"), nullable: true),
                            ]))
                ]),
            .init(
                version: "1.1", configSpelling: "1.1",
                edits: [
                    .addMember(structName: "point", key: 50, name: "y", type: "int", nullable: true, defaultJSON: nil),
                    .addMember(structName: "frame", key: 51, name: "weight", type: "double", nullable: false, defaultJSON: "2.5"),
                ]),
            .init(
                version: "1.2", configSpelling: "1.2",
                edits: [
                    .renameMember(structName: "point", key: -12, to: "note"),
                    .setMemberNullable(structName: "point", key: 50, nullable: false, defaultJSON: "-7"),
                ]),
            .init(
                version: "1.3", configSpelling: "1.3",
                edits: [
                    .setMemberNullable(structName: "frame", key: -21, nullable: true, defaultJSON: nil),
                    .setMemberNullable(structName: "point", key: -12, nullable: false, defaultJSON: "\"it's\""),
                    .renameMember(structName: "point", key: -11, to: "default"),
                ]),
            .init(
                version: "2.0", configSpelling: "2.0",
                edits: [
                    .removeMember(structName: "frame", key: -22), .removeMember(structName: "point", key: 50),
                    .setMemberNullable(structName: "point", key: -11, nullable: true, defaultJSON: nil),
                ]),
        ])
    }

    /// Structs stored as JSON whose members change: the app's code converts each value (members renamed,
    /// removed, filled with their default, point converted inside frame); a JSON point made composite at the
    /// version its members change reads each member by the name the JSON was written with.
    @Test func jsonStructMembersAreConvertedByTheApp() {
        playEveryEdit([
            .init(
                version: "1.0", configSpelling: "1.0",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "order", identifier: .string,
                            properties: [
                                Self.property(2, "value", .subtype("point")), Self.property(3, "size", .subtype("frame"), nullable: true),
                            ])),
                    .addEntity(
                        EntitySpec(
                            key: 4, name: "item", identifier: .local,
                            properties: [Self.property(5, "where", .subtype("point"), nullable: true)])),
                ]),
            .init(
                version: "1.1", configSpelling: "1.1",
                edits: [
                    .addMember(structName: "point", key: 50, name: "hint", type: "bool", nullable: false, defaultJSON: "true"),
                    .renameMember(structName: "frame", key: -22, to: "depth"),
                ]),
            .init(
                version: "1.2", configSpelling: "1.2",
                edits: [
                    .makeComposite(entity: 4, property: 5),
                    .renameMember(structName: "point", key: -11, to: "kind"),
                    .setMemberNullable(structName: "point", key: -12, nullable: false, defaultJSON: "\"it's\""),
                ]),
            .init(
                version: "2.0", configSpelling: "2.0",
                edits: [.removeMember(structName: "point", key: 50), .removeMember(structName: "frame", key: -23)]),
        ])
    }

    /// Found by a soak (seed 27525): a relationship's target renamed in a release where the owner has no
    /// version, then another entity takes the target's old name. The owner's released snapshot still spells
    /// the target by its old name; that name means the target at that version, not whoever bears it now.
    @Test func aRelationshipTargetsOldNameTakenByAnotherEntityLater() {
        playEveryEdit([
            .init(
                version: "0.9", configSpelling: "0.9",
                edits: [
                    .addEntity(
                        EntitySpec(
                            key: 1, name: "where", identifier: .local,
                            properties: [Self.property(2, "lead", .scalar("url"), nullable: true)])),
                    .addEntity(
                        EntitySpec(
                            key: 6, name: "node", identifier: .int, properties: [Self.property(7, "count", .scalar("url"), nullable: true)])
                    ),
                    .addEntity(
                        EntitySpec(key: 10, name: "order", identifier: .local, properties: [Self.property(13, "order", .toOne(entity: 1))])),
                ], typeHistoryByHand: true),
            .init(version: "0.9.1", configSpelling: "0.9.1", edits: [.renameEntity(1, to: "default")]),
            .init(version: "2.0", configSpelling: "2.0", edits: [.renameEntity(6, to: "where")]),
        ])
    }

    /// Found by a soak (seed 27890): a column renamed, a new column taking its old name, then the renamed one
    /// removed. The app's view, triggers and FTS5 index read the old column by name; migrated in one go, the
    /// rebuild drops it and adds the new one under the same name, so the objects must be refused (they would
    /// silently read the new column's values), not kept.
    @Test func aColumnsNameTakenByANewColumnBeforeItIsRemoved() {
        play(
            [
                .init(
                    version: "1.8", configSpelling: "1.8",
                    edits: [
                        .addEntity(
                            EntitySpec(
                                key: 1, name: "default", identifier: .int,
                                properties: [
                                    Self.property(2, "key", .scalar("url")), Self.property(3, "columns", .composite("frame")),
                                ]))
                    ], typeHistoryByHand: true),
                .init(
                    version: "2.0.1", configSpelling: "2.0.1",
                    edits: [.renameProperty(entity: 1, property: 2, to: "title", explicitVersion: false)],
                    respelledBy: [1], typeHistoryByHand: true),
                .init(
                    version: "2.1", configSpelling: "2.1",
                    edits: [.addProperty(entity: 1, Self.property(12, "key", .toOne(entity: 1), nullable: true))],
                    respelledBy: [1], typeHistoryByHand: true),
                .init(version: "4.0.1", configSpelling: "4.0.1", edits: [.removeProperty(entity: 1, property: 2)]),
            ], objectSeed: 27890)
    }
}
