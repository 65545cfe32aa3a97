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
