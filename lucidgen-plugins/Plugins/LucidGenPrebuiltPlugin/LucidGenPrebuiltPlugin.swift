import PackagePlugin

/// Runs the prebuilt `lucidgen` during `swift build` (see ``GenerateCommand``): what the lucidgen package's
/// LucidGenPlugin does, without building the generator from source. Refuses a binary of another version than
/// the package's LucidRuntime (``PrebuiltTool``).
@main
struct LucidGenPrebuiltPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        [try GenerateCommand.make(context: context, target: target, tool: try PrebuiltTool.checked(context: context))]
    }
}
