/// A small parser following swift-argument-parser's conventions: `--name value`, `--name=value`, `-n value`,
/// combined short flags (`-hv`), `--` ending options, `-h`/`--help` anywhere, `help <command>` first and
/// `--version` right after the program name. It only splits and checks the command line against the specs;
/// it never performs a side effect.
struct ArgumentParser {
    var root: CommandSpec

    /// The word that asks for help as a command: `pwrecord help record`.
    static let helpCommand = "help"

    func parse(_ arguments: [String]) throws(CommandLineError) -> ParsedCommand {
        var command = root
        var parsed = ParsedCommand(path: [root.name])
        var index = 0
        var onlyPositionals = false

        func fail(_ reason: CommandLineError.Reason) -> CommandLineError {
            CommandLineError(reason: reason, commandPath: parsed.path)
        }

        while index < arguments.count {
            let arg = arguments[index]
            index += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                // The first bare word picks a subcommand while no positional has been taken yet.
                if !onlyPositionals, parsed.positionals.isEmpty, !command.subcommands.isEmpty {
                    // `pwrecord help [command...]` is `pwrecord [command...] --help`, as in swift-argument-parser.
                    if arg == Self.helpCommand, parsed.path.count == 1, !parsed.helpRequested, command.subcommand(arg) == nil {
                        parsed.helpRequested = true
                        continue
                    }
                    guard let sub = command.subcommand(arg) else { throw fail(.unknownCommand(arg)) }
                    command = sub
                    parsed.path.append(sub.name)
                    continue
                }
                parsed.positionals.append(arg)
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            if arg == "--help" || arg == "-h" { parsed.helpRequested = true; continue }
            if arg == "--version", parsed.path.count == 1 { parsed.versionRequested = true; continue }

            if arg.hasPrefix("--") {
                let body = arg.dropFirst(2)
                let name: String, inline: String?
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq]); inline = String(body[body.index(after: eq)...])
                } else {
                    name = String(body); inline = nil
                }
                guard let spec = command.option(long: name) else { throw fail(.unknownOption("--\(name)")) }
                try take(spec, display: "--\(name)", inline: inline)
            } else {
                // Short options: `-o file`, `-ofile` is not accepted (ambiguous); `-abc` for flags.
                let letters = Array(arg.dropFirst())
                for (i, letter) in letters.enumerated() {
                    if letter == "h" { parsed.helpRequested = true; continue }
                    guard let spec = command.option(short: letter) else { throw fail(.unknownOption("-\(letter)")) }
                    if spec.takesValue && i != letters.count - 1 {
                        throw fail(.attachedValue(option: "-\(letter)", long: "--\(spec.long)", value: String(letters[(i + 1)...])))
                    }
                    try take(spec, display: "-\(letter)", inline: nil)
                }
            }
        }

        func take(_ spec: OptionSpec, display: String, inline: String?) throws(CommandLineError) {
            if spec.takesValue {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard index < arguments.count, !isOptionLike(arguments[index]) else {
                        if index < arguments.count, !names(arguments[index], anOptionOf: command) {
                            throw fail(.valueLooksLikeOption(option: display, long: "--\(spec.long)", value: arguments[index]))
                        }
                        throw fail(.missingValue(option: display))
                    }
                    value = arguments[index]
                    index += 1
                }
                if !spec.repeatable, parsed.values[spec.long] != nil { throw fail(.repeated(option: display)) }
                parsed.values[spec.long, default: []].append(value)
            } else {
                if inline != nil { throw fail(.unexpectedValue(option: display)) }
                parsed.flags.insert(spec.long)
            }
        }

        if parsed.helpRequested || parsed.versionRequested { return parsed }
        if !command.subcommands.isEmpty && parsed.path.count == 1 && parsed.positionals.isEmpty && command.positionals.isEmpty {
            // `pwrecord` alone: show help rather than fail.
            parsed.helpRequested = true
            return parsed
        }
        let required = command.positionals.filter { !$0.optional }.count
        if parsed.positionals.count < required {
            throw fail(.missingArgument(command.positionals[parsed.positionals.count].name))
        }
        if parsed.positionals.count > command.positionals.count {
            throw fail(.unexpectedArgument(parsed.positionals[command.positionals.count]))
        }
        return parsed
    }

    /// A following word is taken as a value unless it looks like an option (negative numbers are values).
    /// Whether `s` is an option `command` has (`--name`, `--name=value`, `-x` or a run of its short flags).
    private func names(_ s: String, anOptionOf command: CommandSpec) -> Bool {
        if ["--", "-h", "--help", "--version"].contains(s) { return true }
        if s.hasPrefix("--") {
            let name = s.dropFirst(2).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return command.option(long: String(name)) != nil
        }
        return s.dropFirst().allSatisfy { $0 == "h" || command.option(short: $0) != nil }
    }

    private func isOptionLike(_ s: String) -> Bool {
        guard s.hasPrefix("-"), s.count > 1 else { return false }
        return !(s.dropFirst().first?.isNumber ?? false)
    }

    /// The spec reached by following `path` from the root.
    func spec(at path: [String]) -> CommandSpec {
        var command = root
        for name in path.dropFirst() { if let sub = command.subcommand(name) { command = sub } }
        return command
    }
}
