/// A command in the `pwrecord` tree: its name, abstract, options, positionals and subcommands.
struct CommandSpec: Sendable {
    var name: String
    var abstract: String
    var discussion: String = ""
    var options: [OptionSpec] = []
    var positionals: [PositionalSpec] = []
    var subcommands: [CommandSpec] = []

    func option(long: String) -> OptionSpec? { options.first { $0.long == long } }
    func option(short: Character) -> OptionSpec? { options.first { $0.short == short } }
    func subcommand(_ name: String) -> CommandSpec? { subcommands.first { $0.name == name } }
}
