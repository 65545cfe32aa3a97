/// Where a stream connects: the session manager's default, a node by global id (what the portal's
/// `Start` response names), or a node by `node.name` / `object.serial` (`PW_KEY_TARGET_OBJECT`).
public enum PipeWireTarget: Sendable, Equatable, CustomStringConvertible {
    case `default`
    /// `pw_stream_connect(..., target_id: id, ...)`; the node id from the portal's `streams`.
    case node(id: UInt32)
    /// `target.object` = a `node.name` or an `object.serial`.
    case object(String)

    public var description: String {
        switch self {
        case .default: "default"
        case .node(let id): "node \(id)"
        case .object(let name): "\(name)"
        }
    }
}
