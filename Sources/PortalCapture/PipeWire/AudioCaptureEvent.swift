/// What an `AudioCaptureStream` reports, ending with exactly one `.ended`.
public enum AudioCaptureEvent: Sendable, Equatable {
    case stateChanged(PipeWireStreamState)
    case formatChanged(AudioFormat)
    case ended(PipeWireStreamEndCause)
}
