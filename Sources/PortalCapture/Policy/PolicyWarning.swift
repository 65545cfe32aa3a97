/// Something in a valid policy that probably is not what the administrator meant: a name that matches nothing on
/// this machine (a typo, or a user not created yet). Warnings do not change the decision: the section applies to
/// nobody, the sink name allows nothing extra. `pwrecord policy check` prints them as `file:line: warning: ...`.
public enum PolicyWarning: Equatable, Sendable, CustomStringConvertible {
    /// A `[user:NAME]` section for a user the passwd database does not know (`getpwnam`).
    case unknownUser(file: String, line: Int, name: String)
    /// A `[group:NAME]` section for a group the group database does not know (`getgrnam`).
    case unknownGroup(file: String, line: Int, name: String)
    /// An `[exe:/PATH]` section for a path where there is nothing.
    case missingExecutable(file: String, line: Int, path: String)
    /// A sink id in `sinks` that is neither a built-in sink nor a plugin found; `known` are the ones there are.
    case unknownSink(file: String, line: Int, sink: String, known: [String])

    public var description: String {
        switch self {
        case .unknownUser(let file, let line, let name):
            "\(file):\(line): warning: no user '\(name)' exists, so [user:\(name)] applies to nobody; check the name "
                + "('getent passwd \(name)')"
        case .unknownGroup(let file, let line, let name):
            "\(file):\(line): warning: no group '\(name)' exists, so [group:\(name)] applies to nobody; check the name "
                + "('getent group \(name)')"
        case .missingExecutable(let file, let line, let path):
            "\(file):\(line): warning: \(path) does not exist, so [exe:\(path)] applies to no program; check the path"
        case .unknownSink(let file, let line, let sink, let known):
            "\(file):\(line): warning: unknown sink '\(sink)' in 'sinks', so it allows nothing; known sinks: "
                + known.joined(separator: ", ")
        }
    }
}
