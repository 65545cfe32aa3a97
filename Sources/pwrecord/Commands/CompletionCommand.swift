/// `pwrecord completion bash`: prints the shell completion script generated from the command tree.
enum CompletionCommand {
    static func run(_ parsed: ParsedCommand, console: Console) throws(CommandLineError) -> ExitCode {
        let shell = parsed.positionals[0]
        guard PwrecordCommands.shells.contains(shell) else {
            throw CommandLineError(reason: .invalidValue(option: "<shell>", value: shell,
                                                         reason: "expected one of \(PwrecordCommands.shells.joined(separator: ", "))"),
                                   commandPath: parsed.path)
        }
        console.out(BashCompletion(root: PwrecordCommands.root).script, terminator: "")
        return .success
    }
}
