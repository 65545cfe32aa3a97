/// What a `VideoProducerStream` reports, ending with exactly one `.ended`.
public enum VideoProducerEvent: Sendable, Equatable {
    case stateChanged(PipeWireStreamState)
    /// A consumer linked and the format was fixed (again after each resize).
    case formatChanged(VideoFormat)
    case ended(PipeWireStreamEndCause)
}
