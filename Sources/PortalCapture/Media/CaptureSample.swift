/// What flows from capture to sinks and frame handlers: a video frame or an audio chunk, tagged by type
/// (ReplayKit's `RPSampleBufferType`).
public enum CaptureSample: Sendable {
    case video(VideoFrame)
    case audio(AudioBuffer)

    /// Presentation time on `CLOCK_MONOTONIC`, in nanoseconds.
    public var timestamp: UInt64 {
        switch self {
        case .video(let frame): frame.timestamp
        case .audio(let buffer): buffer.timestamp
        }
    }
}
