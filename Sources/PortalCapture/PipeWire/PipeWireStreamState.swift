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
