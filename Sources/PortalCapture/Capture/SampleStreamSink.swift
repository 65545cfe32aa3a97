import Synchronization

/// Samples as an `AsyncSequence`, for code that captures in-process (ReplayKit's `startCapture(handler:)`):
/// give it to a `DeliveryQueue` or `CapturePipeline` like any sink (a `ScreenRecorder` makes one for you:
/// `let samples = try await recorder.startCapture(options)`) and iterate `samples`, which yields every video
/// frame and audio chunk tagged by type (`CaptureSample`), in order, and ends when the delivery finishes.
///
///     let stream = SampleStreamSink()
///     let pipeline = CapturePipeline(videoCore: core, audioCore: nil, sinks: [stream], options: options) { _ in }
///     try pipeline.start()
///     for await sample in stream.samples {
///         if case .video(let frame) = sample { show(frame) }
///     }
///
/// The sequence buffers at most `bufferLimit` samples; when the reader falls behind, the oldest buffered
/// sample is dropped so the newest are kept, and the drop is counted in `statistics`. Buffered frames keep
/// their pooled storage busy, so keep the limit small. When the reading task is cancelled the sequence
/// ends and later samples are ignored (counted); a reader that just stops iterating leaves the newest
/// `bufferLimit` samples buffered until the sink is released. One reader only (`AsyncStream`).
public final class SampleStreamSink: CaptureSink {
    /// What the sink passed on and dropped.
    public struct Statistics: Sendable, Equatable {
        public var videoFrames = 0
        public var audioChunks = 0
        /// Sample frames (one sample per channel) in the audio chunks passed on and not dropped.
        public var audioFrames = 0
        public var droppedVideo = 0
        public var droppedAudio = 0
        /// Samples that arrived after the reading task was cancelled.
        public var ignored = 0
    }

    public let id: String
    /// The samples, ending after the recording's last one.
    public let samples: AsyncStream<CaptureSample>
    private let continuation: AsyncStream<CaptureSample>.Continuation
    private let counts = Mutex(Statistics())

    public init(id: String = "samples", bufferLimit: Int = 4) {
        self.id = id
        (samples, continuation) = AsyncStream.makeStream(of: CaptureSample.self,
                                                         bufferingPolicy: .bufferingNewest(max(1, bufferLimit)))
    }

    public var statistics: Statistics { counts.withLock { $0 } }

    public func open(_ context: SinkContext) throws(SinkError) {}

    public func consume(_ sample: CaptureSample) throws(SinkError) {
        let result = continuation.yield(sample)
        counts.withLock { counts in
            switch result {
            case .terminated:
                counts.ignored += 1
                return
            case .dropped(.video):
                counts.droppedVideo += 1
            case .dropped(.audio(let buffer)):
                counts.droppedAudio += 1
                counts.audioFrames -= buffer.frameCount
            case .enqueued:
                break
            @unknown default:
                break
            }
            switch sample {
            case .video: counts.videoFrames += 1
            case .audio(let buffer):
                counts.audioChunks += 1
                counts.audioFrames += buffer.frameCount
            }
        }
    }

    /// Ends `samples` (after the buffered ones). The result counts video frames and audio sample frames
    /// passed on and not dropped.
    public func close() throws(SinkError) -> SinkResult {
        continuation.finish()
        let counts = statistics
        return SinkResult(videoFrames: counts.videoFrames - counts.droppedVideo, audioFrames: counts.audioFrames)
    }
}
