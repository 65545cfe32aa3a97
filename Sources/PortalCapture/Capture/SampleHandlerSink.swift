import Synchronization

/// Samples into a closure, for code that captures in-process (ReplayKit's `startCapture(handler:)`):
/// `handler` gets every video frame and audio chunk, tagged by type, in order.
///
/// Threading: `handler` runs on the recording's delivery thread, one call at a time. It may take its time,
/// but then frames wait in the delivery queue and are dropped by its policy; to stop receiving samples it
/// throws a `SinkError`, which cuts this sink off (and is reported as a sink failure).
public final class SampleHandlerSink: CaptureSink {
    public let id: String
    private let handler: @Sendable (CaptureSample) throws(SinkError) -> Void
    private let counts = Mutex((video: 0, audio: 0))

    public init(id: String = "handler", handler: @escaping @Sendable (CaptureSample) throws(SinkError) -> Void) {
        self.id = id
        self.handler = handler
    }

    public func open(_ context: SinkContext) throws(SinkError) {}

    public func consume(_ sample: CaptureSample) throws(SinkError) {
        try handler(sample)
        counts.withLock { counts in
            switch sample {
            case .video: counts.video += 1
            case .audio(let buffer): counts.audio += buffer.frameCount
            }
        }
    }

    /// The result counts the video frames and audio sample frames the handler took.
    public func close() throws(SinkError) -> SinkResult {
        let counts = counts.withLock { $0 }
        return SinkResult(videoFrames: counts.video, audioFrames: counts.audio)
    }
}
