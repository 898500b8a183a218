import PackagePlugin

/// Runs `lucidgen` during `swift build` (see ``GenerateCommand``), the `lucidgen` tool built from source in
/// the consumer's configuration: the development path. `lucidgen-plugins/` has the same plugin running a
/// prebuilt release binary instead (`LucidGenPrebuiltPlugin`).
@main
struct LucidGenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        [try GenerateCommand.make(context: context, target: target, tool: try context.tool(named: "lucidgen").url)]
    }
}
