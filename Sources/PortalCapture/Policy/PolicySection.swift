/// Which subjects a policy section applies to: the text between `[` and `]`.
///
/// | header | applies to |
/// |---|---|
/// | `[defaults]` | everyone; used for a key only when no matching section below sets it |
/// | `[group:NAME]` | users in group NAME (from the group database, `getgrouplist(3)`) |
/// | `[user:NAME]` | the user NAME |
/// | `[app:ID]` | the app that declares the id ID (`pwrecord --app-id`, the recorder's app id) |
/// | `[exe:/PATH]` | the program whose executable is /PATH (symlinks resolved) |
public enum PolicySection: Sendable, Hashable, CustomStringConvertible {
    case defaults
    case group(String)
    case user(String)
    case app(String)
    case executable(String)

    /// The header text without brackets, as written: `defaults`, `user:alice`, `exe:/usr/bin/obs`.
    public var description: String {
        switch self {
        case .defaults: "defaults"
        case .group(let name): "group:\(name)"
        case .user(let name): "user:\(name)"
        case .app(let id): "app:\(id)"
        case .executable(let path): "exe:\(path)"
        }
    }

    /// Parses the text between the brackets; the error string is the reason shown after the header.
    static func parse(_ inner: String) -> Result<PolicySection, SectionHeaderProblem> {
        if inner == "defaults" { return .success(.defaults) }
        guard let colon = inner.firstIndex(of: ":") else { return .failure(.unknownForm) }
        let kind = String(inner[..<colon])
        let name = String(inner[inner.index(after: colon)...])
        guard ["user", "group", "app", "exe"].contains(kind) else { return .failure(.unknownForm) }
        if name.isEmpty { return .failure(.missingName(kind)) }
        if name.contains(where: \.isWhitespace) { return .failure(.whitespace) }
        switch kind {
        case "user": return .success(.user(name))
        case "group": return .success(.group(name))
        case "app": return .success(.app(name))
        default:
            guard name.hasPrefix("/") else { return .failure(.relativeExecutable) }
            return .success(.executable(name))
        }
    }

    enum SectionHeaderProblem: Error, CustomStringConvertible {
        case unknownForm, missingName(String), whitespace, relativeExecutable, unclosed, textAfterHeader

        var description: String {
            switch self {
            case .unknownForm: "expected [defaults], [user:NAME], [group:NAME], [app:ID] or [exe:/PATH]"
            case .missingName(let kind): "missing name after '\(kind):'"
            case .whitespace: "names cannot contain spaces"
            case .relativeExecutable: "the executable path must be absolute, e.g. [exe:/usr/bin/obs]"
            case .unclosed: "missing closing ']'"
            case .textAfterHeader: "text after ']'; put a comment after a space and '#'"
            }
        }
    }
}
