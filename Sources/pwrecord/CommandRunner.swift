import Foundation
import PortalCapture

/// Parses the command line and runs the chosen command. Usage errors print one line and a hint (exit 2);
/// `--help` and `--version` print and exit 0. Every command validates its options before any side effect.
struct CommandRunner {
    var console = Console()

    func run(_ arguments: [String]) async -> ExitCode {
        let parser = ArgumentParser(root: PwrecordCommands.root)
        let parsed: ParsedCommand
        do {
            parsed = try parser.parse(arguments)
        } catch {
            console.error(error.description, hint: error.hint)
            return .usage
        }
        if parsed.versionRequested {
            console.out("pwrecord \(PwrecordCommands.version)")
            return .success
        }
        if parsed.helpRequested {
            let footer = parsed.path.count <= 2 ? ExitCode.helpText : ""
            console.out(HelpFormatter().help(for: parser.spec(at: parsed.path), path: parsed.path, footer: footer), terminator: "")
            return .success
        }
        let command = parsed.path.dropFirst().joined(separator: " ")
        // The commands that take defaults from the user's config read it first; a wrong line is a usage error.
        var config = UserConfig()
        if ["record", "screenshot", "last save"].contains(command) {
            config = UserConfig.load()
            for (i, problem) in config.problems.enumerated() {
                console.error(problem.description, hint: i == config.problems.count - 1 ? problem.hint : nil)
            }
            if !config.problems.isEmpty { return .usage }
        }
        do {
            switch command {
            case "policy check": return try PolicyCommands.check(parsed, console: console)
            case "policy explain": return try PolicyCommands.explain(parsed, console: console)
            case "sinks": return SinksCommand.run(parsed, console: console)
            case "record": return try await RecordCommand.run(parsed, config: config, console: console)
            case "status": return try await StatusCommand.run(parsed, console: console)
            case "screenshot": return try await ScreenshotCommand.run(parsed, config: config, console: console)
            case "last", "last info", "last save", "last discard", "last open":
                return LastCommand.run(parsed, config: config, console: console,
                                       appID: try parsed.value("app-id", ValueParsers.appID) ?? "pwrecord")
            case "completion": return try CompletionCommand.run(parsed, console: console)
            case "policy":
                console.error("'policy' needs a subcommand: check or explain", hint: "see 'pwrecord policy --help'")
                return .usage
            default:
                console.error("'\(command)' is not available in this build yet",
                              hint: "see 'pwrecord --help'")
                return .failure
            }
        } catch {
            console.error(error.description, hint: error.hint)
            return .usage
        }
    }
}

/// Where output goes: results to stdout, errors as one line `pwrecord: error: ...` on stderr.
struct Console: Sendable {
    /// Results go to stderr too: set while a sink writes its stream to stdout (`output=-`), which they would
    /// corrupt.
    var resultsToStandardError = false

    func out(_ text: String, terminator: String = "\n") {
        (resultsToStandardError ? StandardStream.error : .output).write(text + terminator)
    }

    func error(_ message: String, hint: String? = nil) {
        var text = "pwrecord: error: \(message)\n"
        if let hint { text += "pwrecord: hint: \(hint)\n" }
        StandardStream.error.write(text)
    }

    func note(_ message: String) {
        StandardStream.error.write("pwrecord: \(message)\n")
    }
}
