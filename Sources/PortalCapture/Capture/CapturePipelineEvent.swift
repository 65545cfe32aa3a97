/// What a running `CapturePipeline` reports. Delivered on the pipeline's event queue, in order.
public enum CapturePipelineEvent: Sendable, Equatable {
    /// The first video frame arrived and the sinks were opened with this format (a sink that failed to open
    /// was reported before).
    case started(VideoFormat)
    /// The video stream changed format (a window resized).
    case formatChanged(VideoFormat)
    /// A sink failed; it gets nothing more but `close()`. The others go on.
    case sinkFailed(sink: String, error: SinkError)
    /// Video frames cannot be processed as the options ask (a crop that leaves nothing of the frame): reported
    /// once. Before the first frame the sinks are then not opened; later, each such frame is withheld.
    case framesRejected(FrameTransformError)
    /// The microphone stream ended; the recording goes on without it.
    case microphoneLost(CaptureEnd)
    /// The system audio stream (the output's monitor) ended; the recording goes on without it.
    case systemAudioLost(CaptureEnd)
    /// Capture ended on its own (not by `finish`); reported once.
    case ended(CaptureEnd)
}
