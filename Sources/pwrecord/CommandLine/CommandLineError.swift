/// A usage error: the command line itself is wrong. Reported as one line `pwrecord: error: ...` plus a hint
/// naming the help to read, with exit status 2.
struct CommandLineError: Error, Equatable, CustomStringConvertible {
    enum Reason: Equatable {
        case unknownOption(String)
        case missingValue(option: String)
        /// `-ofile`: a short option's value written onto it, which is not accepted.
        case attachedValue(option: String, long: String, value: String)
        /// `-o -file`: the value would start with a dash, so it reads as an option.
        case valueLooksLikeOption(option: String, long: String, value: String)
        case unexpectedValue(option: String)
        case invalidValue(option: String, value: String, reason: String)
        case repeated(option: String)
        case unexpectedArgument(String)
        case missingArgument(String)
        case unknownCommand(String)
        case conflicting(String, String)
        /// Options that are each valid but not together, or with the config: the sentence says which.
        case invalidCombination(String)
    }

    var reason: Reason
    /// The command path (`["pwrecord", "record"]`) whose help the hint points to.
    var commandPath: [String]

    var description: String {
        switch reason {
        case .unknownOption(let o): "unknown option '\(o)'"
        case .missingValue(let o): "option '\(o)' needs a value"
        case .attachedValue(let o, let long, let v):
            "option '\(o)' takes its value as the next argument: write '\(o) \(v)' or '\(long)=\(v)'"
        case .valueLooksLikeOption(let o, let long, let v):
            "option '\(o)' needs a value, and '\(v)' reads as an option; to give it as the value write '\(long)=\(v)'"
        case .unexpectedValue(let o): "option '\(o)' takes no value"
        case .invalidValue(let o, let v, let why): "invalid value '\(v)' for '\(o)': \(why)"
        case .repeated(let o): "option '\(o)' given more than once"
        case .unexpectedArgument(let a): "unexpected argument '\(a)'"
        case .missingArgument(let a): "missing argument <\(a)>"
        case .unknownCommand(let c): "unknown command '\(c)'"
        case .conflicting(let a, let b): "'\(a)' and '\(b)' cannot be used together"
        case .invalidCombination(let why): why
        }
    }

    var hint: String { "see '\(commandPath.joined(separator: " ")) --help'" }
}
