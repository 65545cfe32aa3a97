import CPipeWire

/// The state of a PipeWire stream (`enum pw_stream_state`).
public enum PipeWireStreamState: String, Sendable, Equatable, CustomStringConvertible {
    /// `PW_STREAM_STATE_ERROR`
    case error
    /// `PW_STREAM_STATE_UNCONNECTED`
    case unconnected
    /// `PW_STREAM_STATE_CONNECTING`
    case connecting
    /// `PW_STREAM_STATE_PAUSED`: connected, not (yet) moving data.
    case paused
    /// `PW_STREAM_STATE_STREAMING`
    case streaming

    init(_ state: pw_stream_state) {
        switch state {
        case PW_STREAM_STATE_ERROR: self = .error
        case PW_STREAM_STATE_CONNECTING: self = .connecting
        case PW_STREAM_STATE_PAUSED: self = .paused
        case PW_STREAM_STATE_STREAMING: self = .streaming
        default: self = .unconnected
        }
    }

    public var description: String { rawValue }
}

/// Why a capture stream ended. Each stream reports exactly one end.
public enum PipeWireStreamEndCause: Sendable, Equatable, CustomStringConvertible {
    /// The stream went to `PW_STREAM_STATE_UNCONNECTED` without being asked to (the source node went away,
    /// or the session manager unlinked it).
    case unconnected
    /// The stream went to `PW_STREAM_STATE_ERROR` with this message.
    case streamError(String)
    /// The core reported an error for the whole connection (`pw_core_events.error` on `PW_ID_CORE`),
    /// e.g. `res` -32 "Broken pipe" when the daemon dies.
    case coreError(res: Int32, message: String)
    /// No buffer arrived for this long (the watchdog, `noFrameTimeout`).
    case noFrames(timeout: Duration)
    /// `stop()` was called (or the stream was released).
    case stopped

    public var description: String {
        switch self {
        case .unconnected: "the stream was disconnected (source gone)"
        case .streamError(let m): "stream error: \(m)"
        case .coreError(let res, let m): "core error \(res): \(m)"
        case .noFrames(let t): "no frames for \(t)"
        case .stopped: "stopped"
        }
    }
}

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
