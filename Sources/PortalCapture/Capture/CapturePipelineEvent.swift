/// What a running `CapturePipeline` reports. Delivered on the pipeline's event queue, in order.
public enum CapturePipelineEvent: Sendable, Equatable {
    /// The first video frame arrived; the sinks were opened with this format.
    case started(VideoFormat)
    /// The video stream changed format (a window resized).
    case formatChanged(VideoFormat)
    /// A sink failed; it gets nothing more but `close()`. The others go on.
    case sinkFailed(sink: String, error: SinkError)
    /// The microphone stream ended; the recording goes on without audio.
    case microphoneLost(CaptureEnd)
    /// Capture ended on its own (not by `finish`); reported once.
    case ended(CaptureEnd)
}
