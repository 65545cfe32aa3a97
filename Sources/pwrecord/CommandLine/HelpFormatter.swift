/// Renders `--help` for a command: abstract, usage, arguments, options with their defaults, subcommands.
struct HelpFormatter {
    var width = 80

    func help(for command: CommandSpec, path: [String], footer: String = "") -> String {
        var lines: [String] = ["OVERVIEW: \(command.abstract)"]
        if !command.discussion.isEmpty { lines += ["", command.discussion] }
        var usage = "USAGE: " + path.joined(separator: " ")
        if !command.subcommands.isEmpty { usage += " <subcommand>" }
        if !command.options.isEmpty { usage += " [<options>]" }
        for p in command.positionals { usage += p.optional ? " [<\(p.name)>]" : " <\(p.name)>" }
        lines += ["", usage]
        if !command.positionals.isEmpty {
            lines += ["", "ARGUMENTS:"]
            for p in command.positionals { lines.append(row("<\(p.name)>", p.help)) }
        }
        lines += ["", "OPTIONS:"]
        for o in command.options {
            var text = o.help
            if let d = o.defaultValue { text += " (default: \(d))" }
            if o.repeatable { text += " (may be repeated)" }
            lines.append(row(o.synopsis, text))
        }
        if path.count == 1 { lines.append(row("    --version", "Show the version.")) }
        lines.append(row("-h, --help", "Show help information."))
        if !command.subcommands.isEmpty {
            lines += ["", "SUBCOMMANDS:"]
            for s in command.subcommands { lines.append(row(s.name, s.abstract)) }
            let more = path.count == 1 ? "\(path[0]) \(ArgumentParser.helpCommand) <subcommand>" : "\(path.joined(separator: " ")) <subcommand> --help"
            lines += ["", "  See '\(more)' for detailed help."]
        }
        if !footer.isEmpty { lines += ["", footer] }
        return lines.joined(separator: "\n") + "\n"
    }

    private func row(_ left: String, _ right: String) -> String {
        let pad = 28
        let l = "  " + left
        if l.count >= pad { return l + "\n" + String(repeating: " ", count: pad) + right }
        return l + String(repeating: " ", count: pad - l.count) + right
    }
}
