import Synchronization

/// Hands every sample to a closure: the `startCapture(handler:)` API, ReplayKit's
/// `startCapture(handler:completionHandler:)`.
///
/// The handler runs on the recorder's delivery thread, one sample at a time, in order; it must return
/// quickly (copy or hand off what it keeps: frames are pooled and their storage is reused once released).
/// A handler that throws stops the recording with that error.
public final class CallbackSink: CaptureSink {
    public let id = "callback"

    public typealias Handler = @Sendable (CaptureSample) throws(SinkError) -> Void

    private let handler: Handler
    private let onFormatChange: (@Sendable (VideoFormat) -> Void)?
    private let onClose: (@Sendable () -> Void)?
    private let counts = Mutex((video: 0, audio: 0))

    /// `onFormatChange` hears about resizes; `onClose` runs once when the recording ends.
    public init(onFormatChange: (@Sendable (VideoFormat) -> Void)? = nil, onClose: (@Sendable () -> Void)? = nil,
                handler: @escaping Handler) {
        self.handler = handler
        self.onFormatChange = onFormatChange
        self.onClose = onClose
    }

    public func open(_ context: SinkContext) throws(SinkError) {}

    public func consume(_ sample: CaptureSample) throws(SinkError) {
        try handler(sample)
        counts.withLock { c in
            switch sample {
            case .video: c.video += 1
            case .audio(let b): c.audio += b.frameCount
            }
        }
    }

    public func formatChanged(_ format: VideoFormat) throws(SinkError) {
        onFormatChange?(format)
    }

    public func close() throws(SinkError) -> SinkResult {
        onClose?()
        let c = counts.withLock { $0 }
        return SinkResult(videoFrames: c.video, audioFrames: c.audio)
    }

    /// A sink plus an `AsyncStream` of its samples, for Swift concurrency users. The stream keeps the newest
    /// `bufferingNewest` samples when its reader falls behind, and finishes when the sink is closed.
    public static func stream(bufferingNewest limit: Int = 8) -> (sink: CallbackSink, samples: AsyncStream<CaptureSample>) {
        let (stream, continuation) = AsyncStream.makeStream(of: CaptureSample.self,
                                                            bufferingPolicy: .bufferingNewest(limit))
        let sink = CallbackSink(onClose: { continuation.finish() }) { (sample) throws(SinkError) in
            continuation.yield(sample)
        }
        return (sink, stream)
    }

    /// A registry entry for `callback` that feeds `handler`, for apps that create sinks through a registry
    /// (and so through the policy's allow list).
    public static func factory(handler: @escaping Handler) -> SinkFactory {
        SinkFactory(id: "callback", summary: "frames and audio to a closure in this process (startCapture)") {
            (_) throws(SinkError) in CallbackSink(handler: handler)
        }
    }
}
