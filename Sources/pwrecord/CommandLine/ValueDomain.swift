/// What a value of an option or positional may be. The command-line tree declares it once; the commands
/// validate against it, the man page test checks each choice is documented, and the shell completion
/// offers it.
enum ValueDomain: Sendable, Equatable {
    /// Free text (a number, a time, a rectangle, a name): nothing to offer.
    case text
    /// A path: completion offers files.
    case file
    /// Exactly one of these words.
    case oneOf([String])

    /// The words of `.oneOf`, empty otherwise.
    var choices: [String] {
        if case .oneOf(let words) = self { return words }
        return []
    }
}
