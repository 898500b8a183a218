import PackagePlugin

/// `swift package lucidgen-prebuilt <command> [options]`: the lucidgen package's `swift package lucidgen`
/// with the prebuilt binary, run in the package's folder with permission to write into it (generated files,
/// snapshots, fixture stores). Nothing is built first. Refuses a binary of another version than the package's
/// LucidRuntime (``PrebuiltTool``).
///
///     swift package lucidgen-prebuilt generate            # freeze released versions, write generated files
///     swift package lucidgen-prebuilt check               # the CI gate (lucidgen check)
///     swift package lucidgen-prebuilt fixtures --schema-version 1.0
///
/// (A distinct verb: the consumer's graph always holds the lucidgen package, whose `lucidgen` verb would make
/// `swift package lucidgen` ambiguous.)
@main
struct LucidGenPrebuiltCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try RunTool.run(try PrebuiltTool.checked(context: context), arguments: arguments, context: context)
    }
}
