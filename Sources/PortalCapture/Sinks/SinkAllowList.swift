/// Which sink ids may be created: the policy's allowed-sinks list (`sinks = encoder, raw`), or everything.
public enum SinkAllowList: Sendable, Hashable, CustomStringConvertible {
    case all
    case only(Set<String>)

    /// Whether a sink with `id` may be created.
    public func permits(_ id: String) -> Bool {
        switch self {
        case .all: true
        case .only(let ids): ids.contains(id)
        }
    }

    public var description: String {
        switch self {
        case .all: "all sinks"
        case .only(let ids): ids.isEmpty ? "no sinks" : ids.sorted().joined(separator: ", ")
        }
    }
}
