import Foundation
import LucidTestSupport
import Testing

/// The commands article (`Sources/LucidRuntime/LucidRuntime.docc/Commands.md`) and the `lucidgen` binary
/// stay in step: the article's synopsis names exactly the subcommands `lucidgen --help` lists, each has a
/// section (`### <command>`), every option `lucidgen <command> --help` prints appears in that section, and
/// no synopsis line names an option the command does not have. `--help` and `--version`, which every
/// command takes, are documented once for all.
@Suite struct CommandDocsTests {
    static let articlePath = "Sources/LucidRuntime/LucidRuntime.docc/Commands.md"

    /// Options every command has, documented once at the top of the article.
    static let universalOptions: Set<String> = ["--help", "--version"]

    @Test func theCommandsArticleMatchesEveryCommandsHelp() throws {
        let top = try run(lucidgenBinary, ["--help"])
        #expect(top.status == 0, "lucidgen --help: \(top.error)")
        let commands = Self.subcommands(inHelp: top.output)
        #expect(commands.count >= 8, "too few subcommands found in lucidgen --help (its format changed?): \(commands)\n\(top.output)")
        var help: [String: String] = [:]
        for command in commands {
            let result = try run(lucidgenBinary, [command, "--help"])
            #expect(result.status == 0, "lucidgen \(command) --help: \(result.error)")
            help[command] = result.output
            // A command with subcommands of its own (`import coredata`): its options are theirs.
            for subcommand in Self.subcommands(inHelp: result.output) {
                let nested = try run(lucidgenBinary, [command, subcommand, "--help"])
                #expect(nested.status == 0, "lucidgen \(command) \(subcommand) --help: \(nested.error)")
                help[command, default: ""] += "\n" + nested.output
            }
            #expect(!Self.options(inHelp: result.output).isEmpty, "no options found in lucidgen \(command) --help (its format changed?)")
        }
        let article = try String(contentsOf: repositoryRoot.appendingPathComponent(Self.articlePath), encoding: .utf8)
        let problems = Self.problems(article: article, commands: commands, help: help)
        #expect(
            problems.isEmpty,
            "\(Self.articlePath) is out of step with lucidgen's --help:\n\(problems.map { "  - " + $0 }.joined(separator: "\n"))")
    }

    /// The check can fail: an article that lost a command's section, an option, and a command from its
    /// synopsis, and that documents an option nobody has, is reported for each.
    @Test func aMissingCommandOrOptionIsReported() {
        let help = [
            "fixtures":
                "USAGE: lucidgen fixtures [--rows <rows>] [--unreleased]\n\nOPTIONS:\n  -c, --config <path>     The config file.\n  --rows <rows>           Rows.\n  --unreleased            Write it.\n  --version               Show the version.\n  -h, --help              Show help information.\n",
            "release":
                "USAGE: lucidgen release [--rows <rows>]\n\nOPTIONS:\n  --rows <rows>           Rows per entity.\n  -h, --help              Show help information.\n",
        ]
        let article = """
            # Commands

            ```
            lucidgen fixtures [--config PATH] [--rows N] [--rows-per-table N]
            ```

            ### fixtures

            ```
            lucidgen fixtures [--config PATH] [--rows N]
            ```

            Writes a store (`--rows N`). Unlike `generate --unreleased-ish`, nothing else.

            ````markdown
            ### release
            ````

            ### Exit codes
            """
        let problems = Self.problems(article: article, commands: ["fixtures", "release"], help: help)
        #expect(problems.contains { $0.contains("release") && $0.contains("synopsis") }, "\(problems)")
        #expect(problems.contains { $0.contains("release") && $0.contains("no section") }, "\(problems)")
        #expect(problems.contains { $0.contains("--unreleased") && $0.contains("fixtures") }, "\(problems)")
        #expect(problems.contains { $0.contains("--rows-per-table") }, "\(problems)")
        #expect(!problems.contains { $0.contains("'--config'") || $0.contains("'--rows'") }, "\(problems)")
        #expect(
            Self.problems(article: article + "\n### release\n\n`--rows N`\n", commands: ["fixtures"], help: help)
                .contains { $0.contains("release") && $0.contains("not a subcommand") })
    }

    // MARK: The check

    /// Every way `article` is out of step with the `commands` and their `help` texts (empty: in step).
    static func problems(article: String, commands: [String], help: [String: String]) -> [String] {
        var problems: [String] = []
        let synopsis = synopsisLines(in: article)
        let documented = Set(synopsis.map(\.command))
        for command in commands where !documented.contains(command) {
            problems.append("`lucidgen \(command)` is missing from the synopsis (the first code block)")
        }
        for command in documented.subtracting(commands).sorted() {
            problems.append("the synopsis names `lucidgen \(command)`, which is not a subcommand of lucidgen --help")
        }
        let sections = sections(of: article)
        for heading in sections.keys.sorted()
        where heading.range(of: "^[a-z][a-z0-9-]*$", options: .regularExpression) != nil && !commands.contains(heading) {
            problems.append("section '### \(heading)' is not a subcommand of lucidgen --help")
        }
        for command in commands {
            let options = Self.options(inHelp: help[command] ?? "")
            guard let section = sections[command] else {
                problems.append("`lucidgen \(command)` has no section '### \(command)'")
                continue
            }
            for option in options.subtracting(universalOptions).sorted() where !mentions(section, option) {
                problems.append("section '### \(command)' does not document '\(option)', which `lucidgen \(command) --help` prints")
            }
            let sectionSynopsis = synopsisLines(in: section, anyCodeBlock: true).filter { $0.command == command }
            if sectionSynopsis.isEmpty {
                problems.append("section '### \(command)' has no synopsis line (`lucidgen \(command) …` in a code block)")
            }
            for line in synopsis.filter({ $0.command == command }) + sectionSynopsis {
                for option in Set(line.options).subtracting(options).subtracting(universalOptions).sorted() {
                    problems.append("the synopsis line `\(line.text)` names '\(option)', which `lucidgen \(command) --help` does not print")
                }
            }
        }
        return problems
    }

    /// The subcommands under `SUBCOMMANDS:` in `lucidgen --help` (two-space indented names, up to the first
    /// blank line).
    static func subcommands(inHelp help: String) -> [String] {
        var commands: [String] = []
        var inSection = false
        for line in help.components(separatedBy: "\n") {
            if line.hasPrefix("SUBCOMMANDS:") { inSection = true; continue }
            guard inSection else { continue }
            if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            if let match = line.range(of: "^  [a-z][a-z0-9-]*( |$)", options: .regularExpression) {
                commands.append(line[match].trimmingCharacters(in: .whitespaces))
            }
        }
        return commands
    }

    /// The long options (`--name`) listed under `OPTIONS:` in a command's help (each such section, when
    /// subcommands' helps follow it): lines that start with two spaces, then `-x, --name` or `--name`.
    static func options(inHelp help: String) -> Set<String> {
        var options: Set<String> = []
        var inSection = false
        for line in help.components(separatedBy: "\n") {
            if line.hasPrefix("OPTIONS:") { inSection = true; continue }
            guard inSection else { continue }
            if !line.isEmpty, !line.hasPrefix(" ") { inSection = false; continue }
            guard let match = line.range(of: "^  (-[A-Za-z], )?--[a-z0-9][a-z0-9-]*", options: .regularExpression) else { continue }
            let text = line[match]
            options.insert(String(text[text.range(of: "--")!.lowerBound...]))
        }
        return options
    }

    /// Whether `text` names `option` as a whole word (`--module` is not found in `--module-output`).
    static func mentions(_ text: String, _ option: String) -> Bool {
        text.range(
            of: "(?<![A-Za-z0-9-])" + NSRegularExpression.escapedPattern(for: option) + "(?![A-Za-z0-9-])", options: .regularExpression)
            != nil
    }

    struct SynopsisLine {
        var text: String
        var command: String
        var options: [String]
    }

    /// The lines `lucidgen <command> …` of the article's first code block (or, with `anyCodeBlock`, of
    /// every code block), with the options each names.
    static func synopsisLines(in text: String, anyCodeBlock: Bool = false) -> [SynopsisLine] {
        var lines: [SynopsisLine] = []
        var fence: Int?
        var blocksSeen = 0
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let ticks = trimmed.prefix { $0 == "`" }.count
            if let open = fence {
                if ticks >= open, trimmed.dropFirst(ticks).trimmingCharacters(in: .whitespaces).isEmpty {
                    fence = nil
                    blocksSeen += 1
                    if !anyCodeBlock { break }
                    continue
                }
                guard trimmed.hasPrefix("lucidgen "), let command = trimmed.split(separator: " ").dropFirst().first, !command.hasPrefix("-")
                else { continue }
                let options = trimmed.matches(of: /--[a-z0-9][a-z0-9-]*/).map { String($0.output) }
                lines.append(SynopsisLine(text: trimmed, command: String(command), options: options))
            } else if ticks >= 3 {
                fence = ticks
            }
        }
        return lines
    }

    /// The article's `### ` sections by heading, each with its text up to the next `## ` or `### ` heading
    /// outside a code block (a fenced Markdown example may hold headings of its own).
    static func sections(of article: String) -> [String: String] {
        var sections: [String: String] = [:]
        var current: String?
        var fence: Int?
        for line in article.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let ticks = trimmed.prefix { $0 == "`" }.count
            if let open = fence {
                if ticks >= open, trimmed.dropFirst(ticks).trimmingCharacters(in: .whitespaces).isEmpty { fence = nil }
            } else if ticks >= 3 {
                fence = ticks
            } else if line.hasPrefix("### ") {
                current = String(line.dropFirst(4)).trimmingCharacters(in: .whitespaces)
                sections[current!] = ""
                continue
            } else if line.hasPrefix("## ") || line.hasPrefix("# ") {
                current = nil
            }
            if let current { sections[current, default: ""] += line + "\n" }
        }
        return sections
    }
}
