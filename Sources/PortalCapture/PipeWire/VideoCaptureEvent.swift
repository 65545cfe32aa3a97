/// What a `VideoCaptureStream` reports, in order, ending with exactly one `.ended`.
public enum VideoCaptureEvent: Sendable, Equatable {
    case stateChanged(PipeWireStreamState)
    /// A format was negotiated (first, or after a resize); frames after this one carry it.
    case formatChanged(VideoFormat)
    /// The stream ended; nothing follows.
    case ended(PipeWireStreamEndCause)
}
