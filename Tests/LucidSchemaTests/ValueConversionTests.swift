import Testing

@_spi(Generated) @testable import LucidSchema

/// Which value type changes the planner infers: only those exact for every value, or those whose loss
/// the description accepts, decided per version along the lineage.
@Suite struct ValueConversionTests {
    static let storage: [String: SchemaColumn.StorageType] = [
        "int": .integer, "bool": .integer, "double": .real, "float": .real, "seconds": .real, "milliseconds": .real,
        "string": .text, "date": .text, "url": .text, "color": .text, "enum Kind": .text, "data": .blob, "uuid": .blob,
    ]

    /// A column `v` whose value type is spelled `valueType`, as registries write it.
    static func column(_ valueType: String, lossy: String? = nil) -> SchemaColumn {
        SchemaColumn(
            name: "v", type: storage[valueType]!, notNull: false, valueType: ValueType(valueType),
            lossyConversionFrom: lossy.map(ValueType.init))
    }

    /// Versions 1.0, 1.1, … of one table `t` whose column `v` has the given value types.
    static func versions(_ types: [(String, lossy: Bool)]) -> [Schema] {
        types.enumerated().map { index, type in
            let column = column(type.0, lossy: type.lossy && index > 0 ? types[index - 1].0 : nil)
            return Schema(version: try! SchemaVersion(parsing: "1.\(index)"), tables: [PlannerTests.table("t", [column])])
        }
    }

    static let exact: [(String, String, ValueConversion)] = [
        ("int", "string", .cast(.text)), ("bool", "int", .unchanged), ("float", "double", .unchanged),
        ("url", "string", .unchanged), ("color", "string", .unchanged), ("string", "color", .unchanged), ("date", "date", .unchanged),
        ("seconds", "double", .unchanged), ("double", "seconds", .unchanged), ("milliseconds", "double", .unchanged),
        ("double", "milliseconds", .unchanged), ("uuid", "data", .unchanged), ("uuid", "uuid", .unchanged),
    ]

    @Test(arguments: exact) func exactConversionsAreInferred(old: String, new: String, conversion: ValueConversion) throws {
        #expect(try ValueConversion.between(Self.column(old), Self.column(new), label: "t.v").get() == conversion)
    }

    static let needCode: [(String, String)] = [
        ("int", "double"), ("int", "float"), ("int", "seconds"), ("double", "string"), ("double", "float"), ("double", "int"),
        ("seconds", "milliseconds"), ("milliseconds", "seconds"), ("string", "date"), ("string", "url"), ("string", "enum Kind"),
        ("enum Kind", "string"), ("string", "int"), ("int", "bool"), ("data", "string"),
        ("string", "uuid"), ("uuid", "string"), ("data", "uuid"), ("uuid", "int"),
    ]

    @Test(arguments: needCode) func otherConversionsNeedTheAppsCode(old: String, new: String) {
        let versions = Self.versions([(old, false), (new, false)])
        guard case .failure(let reason) = StepInference(versions: versions).operations(from: 0, to: 1) else {
            Issue.record("\(old) → \(new) was inferred")
            return
        }
        #expect(reason.tables == ["t"])
        #expect(reason.reasons.count == 1)
        #expect(reason.reasons[0].hasPrefix("t.v: \(old) → \(new) cannot convert every value exactly"), "\(reason.reasons)")
    }

    @Test func theReasonSaysWhyAndHowToAcceptTheLoss() {
        let versions = Self.versions([("int", false), ("double", false)])
        guard case .failure(let reason) = StepInference(versions: versions).operations(from: 0, to: 1) else {
            Issue.record("int → double was inferred")
            return
        }
        #expect(
            reason.reasons == [
                #"t.v: int → double cannot convert every value exactly: integers beyond 2^53 have no exact floating-point value; add "lossy_conversion": true to its type_history item to accept SQLite's CAST"#
            ])
    }

    @Test func anAcceptedLossIsSQLitesCast() throws {
        let toDouble = Self.versions([("int", false), ("double", true)])
        let operations = try StepInference(versions: toDouble).operations(from: 0, to: 1).get()
        guard case .rebuildTable(let rebuild)? = operations.first else {
            Issue.record("expected a rebuild, got \(operations)")
            return
        }
        #expect(rebuild.sources == [#"src."id""#, #"CAST(src."v" AS REAL)"#])
        // Same storage class: nothing to do in SQL (a REAL read as a Float rounds).
        #expect(try StepInference(versions: Self.versions([("double", false), ("float", true)])).operations(from: 0, to: 1).get() == [])
        // The loss of a change SQLite cannot make stays unaccepted.
        guard
            case .failure(let reason) = StepInference(versions: Self.versions([("string", false), ("date", true)])).operations(
                from: 0, to: 1)
        else {
            Issue.record("string → date was inferred")
            return
        }
        #expect(
            reason.reasons == ["t.v: string → date is no conversion SQLite's CAST can make, even with its loss accepted (lossy_conversion)"]
        )
    }

    /// 1.0 int → 1.1 double (loss accepted) → 1.2 string (loss accepted) is not int → string: the CASTs compose in order.
    @Test func aJumpComposesEachVersionsConversion() throws {
        let versions = Self.versions([("int", false), ("double", true), ("string", true)])
        let steps = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        #expect(steps.map(\.label) == ["1.0 → 1.2 (inferred)"])
        guard case .rebuildTable(let rebuild)? = steps.first?.operations.first else {
            Issue.record("expected a rebuild, got \(steps)")
            return
        }
        #expect(rebuild.sources == [#"src."id""#, #"CAST(CAST(src."v" AS REAL) AS TEXT)"#])
        #expect(rebuild.reasons == ["t.v converts int to string (CAST AS REAL, then CAST AS TEXT)"])
    }

    /// int → string is exact, but not through a double whose loss nobody accepted: the jump is refused too.
    @Test func aJumpIsRefusedWhenAnIntermediateVersionNeedsCode() {
        let versions = Self.versions([("int", false), ("double", false), ("string", true)])
        guard case .failure(let reason) = StepInference(versions: versions).operations(from: 0, to: 2) else {
            Issue.record("1.0 → 1.2 was inferred")
            return
        }
        #expect(reason.reasons.count == 1)
        #expect(reason.reasons[0].hasPrefix("t.v: int → double cannot convert every value exactly"))
        #expect(reason.reasons[0].hasSuffix("(at 1.1)"))
    }

    /// A `uuid` is its 16 bytes (a BLOB): only `uuid` → `data` keeps every value as it is; the reasons say why
    /// the others need the app's code.
    @Test func uuidChangesSayWhy() {
        func reason(_ old: String, _ new: String) -> String? {
            guard case .failure(let refusal) = ValueConversion.between(Self.column(old), Self.column(new), label: "t.v") else { return nil }
            return refusal.description
        }
        #expect(reason("string", "uuid") == "t.v: string → uuid cannot convert every value exactly: not every text is a valid uuid")
        #expect(
            reason("uuid", "string")
                == "t.v: uuid → string cannot convert every value exactly: a uuid is stored as its 16 bytes, which are no string value")
        #expect(reason("data", "uuid") == "t.v: data → uuid cannot convert every value exactly: not every blob is the 16 bytes of a UUID")
        #expect(reason("uuid", "data") == nil)
        // Not even with the loss accepted: SQLite's CAST makes no UUID.
        let lossy = ValueConversion.between(Self.column("string"), Self.column("uuid", lossy: "string"), label: "t.v")
        #expect(
            lossy
                == .failure(
                    ConversionRefusal(
                        "t.v: string → uuid is no conversion SQLite's CAST can make, even with its loss accepted (lossy_conversion)")))
    }

    /// Registries written before value types: only the storage class is known, and only INTEGER → TEXT is exact.
    @Test func withoutValueTypesOnlyExactStorageChangesAreInferred() {
        func change(_ old: SchemaColumn.StorageType, _ new: SchemaColumn.StorageType) -> Bool {
            let versions = [old, new].enumerated().map { index, type in
                Schema(
                    version: try! SchemaVersion(parsing: "1.\(index)"),
                    tables: [PlannerTests.table("t", [SchemaColumn(name: "v", type: type, notNull: false)])])
            }
            if case .success = StepInference(versions: versions).operations(from: 0, to: 1) { return true }
            return false
        }
        #expect(change(.integer, .text))
        #expect(!change(.integer, .real))
        #expect(!change(.real, .text))
        #expect(!change(.text, .integer))
    }
}
