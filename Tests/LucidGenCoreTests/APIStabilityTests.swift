import Foundation
import LucidTestSupport
import Testing

/// The public API of lucidgen's libraries keeps everything the baseline commit had: an app that built against it still builds.
///
/// The baseline is the commit named in `.api-baseline` (a commit, not a tag: CI clones may lack tags). Its
/// source is taken with `git archive` and its libraries built once under `.build-api/` (kept between runs);
/// this tree's are the ones this test run was built with. The modules compared are those an app or its tests
/// import: `LucidRuntime`, `LucidFleet`, `LucidCoreData`, `LucidTesting`, and the public part of `LucidSchema` (the types generated code
/// and the runtime's signatures name). Declarations under `@_spi(Generated)` are not compared: generated code
/// is regenerated with each release (`lucidgen check` fails on generated files out of date). `package`
/// declarations, which the digester dumps too (marked internal), are left out of both sides, so a public
/// declaration made `package` counts as removed.
///
/// This is `swift package diagnose-api-breaking-changes <commit>` (swift-api-digester's `-dump-sdk`, then
/// `-diagnose-sdk`) run by hand. On this package SwiftPM's command loads each module with the module maps of
/// both the target and its host-tool build of the C target `LucidSQLiteShims` (built twice because the
/// plugins run the `lucidgen` executable) and stops with `redefinition of module 'LucidSQLiteShims'`
/// before comparing anything.
///
/// A break needs a new minor version (0.x), a `CHANGELOG.md` entry, and `.api-baseline` moved to the
/// commit that makes it.
@Suite(.serialized) struct APIStabilityTests {
    static let modules = ["LucidSchema", "LucidRuntime", "LucidFleet", "LucidCoreData", "LucidTesting"]
    static let work = repositoryRoot.appendingPathComponent(".build-api")

    @Test func thePublicAPIKeepsEverythingTheBaselineHad() throws {
        let commit = try Self.baselineCommit()
        let baseline = try Self.buildBaseline(commit)
        for module in Self.modules {
            let old = try Self.dump(
                module, built: baseline.appendingPathComponent("debug"), checkouts: baseline.appendingPathComponent("checkouts"),
                into: "baseline-\(commit)")
            let new = try Self.dump(
                module, built: productsDirectory, checkouts: repositoryRoot.appendingPathComponent(".build/checkouts"), into: "current")
            let breakages = try Self.breakages(old: old, new: new)
            #expect(
                breakages.isEmpty,
                """
                \(module)'s public API changed incompatibly since \(commit) (.api-baseline):
                \(breakages.map { "  " + $0 }.joined(separator: "\n"))
                A break needs a new minor version (0.x), a CHANGELOG.md entry, and .api-baseline moved to the commit that makes it.
                """)
        }
    }

    /// The app's API is what the DocC topics list, and nothing else: every public declaration of
    /// `LucidRuntime` and `LucidTesting` (outside `@_spi(Generated)`) is linked from its catalog's Topics,
    /// and every link there is a public declaration.
    @Test(arguments: ["LucidRuntime", "LucidTesting", "LucidFleet", "LucidCoreData"])
    func thePublicAPIIsWhatTheDocCTopicsList(_ module: String) throws {
        let dump = try Self.dump(
            module, built: productsDirectory, checkouts: repositoryRoot.appendingPathComponent(".build/checkouts"), into: "current")
        let public_ = try Self.publicDeclarations(in: dump, module: module)
        let page = repositoryRoot.appendingPathComponent("Sources/\(module)/\(module).docc/\(module).md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let topics = text.components(separatedBy: "## Topics").dropFirst().joined()
        let linked = Set(topics.matches(of: /``([A-Za-z_][A-Za-z0-9_]*)``/).map { String($0.output.1) })
        #expect(
            public_.subtracting(linked).isEmpty,
            "public in \(module) but not in the Topics of \(page.lastPathComponent): \(public_.subtracting(linked).sorted())")
        #expect(
            linked.subtracting(public_).isEmpty,
            "in the Topics of \(page.lastPathComponent) but not public in \(module): \(linked.subtracting(public_).sorted())")
        #expect(!public_.isEmpty)
    }

    /// The top-level declarations a module itself makes public (not extensions of other modules' types,
    /// not `@_spi`).
    static func publicDeclarations(in dump: URL, module: String) throws -> Set<String> {
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: dump)) as? [String: Any]
        let children = (root?["ABIRoot"] as? [String: Any])?["children"] as? [[String: Any]] ?? []
        return Set(
            children.compactMap { node in
                guard node["kind"] as? String != "Import", node["moduleName"] as? String == module, node["isExternal"] as? Bool != true,
                    node["spi_group_names"] == nil
                else { return nil }
                return node["name"] as? String
            })
    }

    /// The check can fail: a module whose second version removes a function, makes a type `package`, and
    /// changes a parameter is reported for each, while an `@_spi(Generated)` change and a `package` one are not.
    @Test func aRemovedHiddenOrChangedDeclarationIsABreak() throws {
        let folder = Self.work.appendingPathComponent("probe")
        try? FileManager.default.removeItem(at: folder)
        let before = """
            public struct Kept { public init() {} }
            public struct Hidden { public init() {} }
            public func removed() {}
            public func changed(_ value: Int) {}
            @_spi(Generated) public func generatedOnly() {}
            package func packageOnly() {}
            """
        let after = """
            public struct Kept { public init() {}; public func added() {} }
            package struct Hidden { package init() {} }
            public func changed(_ value: String) {}
            package func packageOnly(_ changed: Int) {}
            """
        let old = try Self.compileProbe(before, in: folder.appendingPathComponent("before"))
        let new = try Self.compileProbe(after, in: folder.appendingPathComponent("after"))
        let breakages = try Self.breakages(old: old, new: new)
        #expect(breakages.contains { $0.contains("removed()") && $0.contains("removed") }, "\(breakages)")
        #expect(breakages.contains { $0.contains("Struct Hidden") && $0.contains("removed") }, "\(breakages)")
        #expect(breakages.contains { $0.contains("changed(_:)") }, "\(breakages)")
        #expect(!breakages.contains { $0.contains("Kept") || $0.contains("packageOnly") }, "\(breakages)")
    }

    // MARK: - The baseline

    static func baselineCommit() throws -> String {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent(".api-baseline"), encoding: .utf8)
        let lines = text.split(separator: "\n").map {
            $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        }
        guard let commit = lines.map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: { !$0.isEmpty }) else {
            throw CheckError(".api-baseline names no commit")
        }
        let exists = try run("/usr/bin/env", ["git", "cat-file", "-e", "\(commit)^{commit}"], in: repositoryRoot)
        guard exists.status == 0 else {
            throw CheckError(
                "the baseline commit \(commit) (.api-baseline) is not in this clone: fetch the history (git fetch --unshallow)")
        }
        return commit
    }

    /// The scratch folder of the baseline's libraries, built once per commit: every module compared but
    /// LucidSchema and LucidRuntime, which those depend on.
    static func buildBaseline(_ commit: String) throws -> URL {
        let folder = work.appendingPathComponent("baseline-\(commit)")
        let source = folder.appendingPathComponent("source"), build = folder.appendingPathComponent("build")
        let targets = modules.filter { $0 != "LucidSchema" && $0 != "LucidRuntime" }
        // The marker names the targets, so a folder built for fewer modules is built again.
        let done = folder.appendingPathComponent(".built-" + targets.joined(separator: "-"))
        if FileManager.default.fileExists(atPath: done.path) { return build }
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        let archive = try run("/bin/sh", ["-c", "git archive \(commit) | tar -x -C '\(source.path)'"], in: repositoryRoot)
        guard archive.status == 0 else { throw CheckError("git archive \(commit) failed: \(archive.error)") }
        for target in targets {
            let built = try run(
                swiftExecutable, ["build", "--package-path", source.path, "--scratch-path", build.path, "--target", target])
            guard built.status == 0 else {
                throw CheckError("the baseline \(commit) does not build \(target):\n\((built.output + built.error).suffix(3000))")
            }
        }
        _ = FileManager.default.createFile(atPath: done.path, contents: nil)
        return build
    }

    // MARK: - swift-api-digester

    static var digester: String {
        URL(fileURLWithPath: swiftExecutable).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(
            "swift-api-digester"
        ).path
    }

    static var triple: String {
        get throws {
            let info = try run(swiftExecutable, ["-print-target-info"])
            let object = try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any]
            guard let target = object?["target"] as? [String: Any], let triple = target["unversionedTriple"] as? String else {
                throw CheckError("swift -print-target-info gave no target: \(info.output)")
            }
            return triple
        }
    }

    /// `module`'s API as the digester dumps it, without `package` declarations.
    static func dump(_ module: String, built: URL, checkouts: URL, into name: String) throws -> URL {
        let folder = work.appendingPathComponent("dumps/\(name)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let output = folder.appendingPathComponent("\(module).json")
        guard FileManager.default.fileExists(atPath: built.appendingPathComponent("Modules/\(module).swiftmodule").path) else {
            throw CheckError("\(built.path)/Modules/\(module).swiftmodule is missing: build the libraries first")
        }
        // The C targets' module maps (a baseline older than a C target has none of it).
        let moduleMaps = ["LucidSQLiteShims", "LucidSHA256"].map { built.appendingPathComponent("\($0).build/module.modulemap").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        let result = try run(
            digester,
            [
                "-dump-sdk", "-module", module, "-o", output.path, "-I", built.appendingPathComponent("Modules").path,
            ] + moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] } + [
                "-Xcc", "-fmodule-map-file=\(checkouts.appendingPathComponent("GRDB.swift/Sources/GRDBSQLite/module.modulemap").path)",
                "-target", try triple, "-module-cache-path", work.appendingPathComponent("module-cache").path, "-avoid-location",
            ])
        guard result.status == 0 else {
            throw CheckError("could not read the API of \(module) from \(built.path): \(result.error.suffix(2000))")
        }
        try withoutPackageDeclarations(output)
        return output
    }

    /// Removes the nodes the digester marks internal (`package` declarations) from a dump.
    static func withoutPackageDeclarations(_ file: URL) throws {
        guard var root = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any],
            let abi = root["ABIRoot"] as? [String: Any]
        else { throw CheckError("\(file.path) is not an API dump") }
        func prune(_ node: [String: Any]) -> [String: Any]? {
            if node["isInternal"] as? Bool == true { return nil }
            var node = node
            if let children = node["children"] as? [[String: Any]] { node["children"] = children.compactMap(prune) }
            return node
        }
        root["ABIRoot"] = prune(abi)
        guard let children = (root["ABIRoot"] as? [String: Any])?["children"] as? [[String: Any]],
            children.contains(where: { $0["kind"] as? String != "Import" })
        else {
            throw CheckError("the API dump \(file.path) declares nothing: the module did not load")
        }
        try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys]).write(to: file)
    }

    /// One line per breakage of `new` against `old` (`Func removed() has been removed`, …).
    static func breakages(old: URL, new: URL) throws -> [String] {
        let result = try run(
            digester, ["-diagnose-sdk", "-input-paths", old.path, "-input-paths", new.path, "-ignore-spi-group", "Generated"])
        guard result.status == 0 else {
            throw CheckError("swift-api-digester could not compare \(old.path) and \(new.path): \(result.error)")
        }
        return (result.output + result.error).split(separator: "\n").map(String.init).filter {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return !line.isEmpty && !(line.hasPrefix("/*") && line.hasSuffix("*/"))
        }
    }

    /// Compiles a one-file module `Probe` and dumps its API.
    static func compileProbe(_ source: String, in folder: URL) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("Probe.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let swiftc = URL(fileURLWithPath: digester).deletingLastPathComponent().appendingPathComponent("swiftc").path
        let compiled = try run(
            swiftc,
            [
                "-emit-module", "-module-name", "Probe", "-package-name", "probe", "-parse-as-library", file.path,
                "-emit-module-path", folder.appendingPathComponent("Modules/Probe.swiftmodule").path,
            ], in: folder)
        guard compiled.status == 0 else { throw CheckError("the probe does not compile: \(compiled.error)") }
        let output = folder.appendingPathComponent("Probe.json")
        let dumped = try run(
            digester,
            [
                "-dump-sdk", "-module", "Probe", "-o", output.path, "-I", folder.appendingPathComponent("Modules").path,
                "-target", try triple, "-module-cache-path", work.appendingPathComponent("module-cache").path, "-avoid-location",
            ])
        guard dumped.status == 0 else { throw CheckError("could not dump the probe: \(dumped.error)") }
        try withoutPackageDeclarations(output)
        return output
    }

    struct CheckError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
