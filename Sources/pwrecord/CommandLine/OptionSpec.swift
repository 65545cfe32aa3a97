/// One option or flag a command accepts, in swift-argument-parser's spirit: long name, optional short name,
/// a value name when it takes a value, help text and the default shown in `--help`.
struct OptionSpec: Sendable {
    enum Kind: Sendable {
        /// `--mic`: present or not.
        case flag
        /// `--fps 30`, `--fps=30`, `-o x.mkv`.
        case value(name: String)
    }

    var long: String
    var short: Character?
    var kind: Kind
    var help: String
    var defaultValue: String?
    /// May be given more than once (`--mask` ..., `--sink` ...).
    var repeatable: Bool
    /// What the value may be (`.text` for flags).
    var domain: ValueDomain

    static func flag(_ long: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, kind: .flag, help: help, defaultValue: nil, repeatable: false, domain: .text)
    }

    static func value(_ long: String, short: Character? = nil, valueName: String, help: String,
                      default defaultValue: String? = nil, repeatable: Bool = false,
                      domain: ValueDomain = .text) -> OptionSpec {
        OptionSpec(long: long, short: short, kind: .value(name: valueName), help: help,
                   defaultValue: defaultValue, repeatable: repeatable, domain: domain)
    }

    var takesValue: Bool {
        if case .value = kind { return true }
        return false
    }

    /// `-o, --output <file>` as shown in help.
    var synopsis: String {
        var s = short.map { "-\($0), " } ?? "    "
        s += "--\(long)"
        if case .value(let name) = kind { s += " <\(name)>" }
        return s
    }
}

/// A positional argument.
struct PositionalSpec: Sendable {
    var name: String
    var help: String
    var optional: Bool
    var domain: ValueDomain = .text
}
