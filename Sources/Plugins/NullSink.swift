import Synchronization

/// Counts what it receives and writes nothing: for benchmarks, and to measure the capture path alone.
public final class NullSink: CaptureSink {
    public let id = "null"

    /// What the sink has seen so far.
    public struct Counts: Sendable, Equatable {
        public var videoFrames = 0
        public var audioFrames = 0
        public var audioChunks = 0
        /// Pixel bytes of the frames (stride × height) and audio bytes.
        public var bytes: Int64 = 0
        public var formatChanges = 0
        public var firstTimestamp: UInt64?
        public var lastTimestamp: UInt64?
    }

    private let state = Mutex(Counts())
    private let opened = Mutex(false)

    public init() {}

    /// The counts so far (readable from any thread, also while recording).
    public var counts: Counts { state.withLock { $0 } }

    public func open(_ context: SinkContext) throws(SinkError) {
        opened.withLock { $0 = true }
    }

    public func consume(_ sample: CaptureSample) throws(SinkError) {
        state.withLock { c in
            switch sample {
            case .video(let frame):
                c.videoFrames += 1
                c.bytes += Int64(frame.stride * frame.format.height)
            case .audio(let buffer):
                c.audioChunks += 1
                c.audioFrames += buffer.frameCount
                c.bytes += Int64(buffer.bytes.count)
            }
            if c.firstTimestamp == nil { c.firstTimestamp = sample.timestamp }
            c.lastTimestamp = sample.timestamp
        }
    }

    public func formatChanged(_ format: VideoFormat) throws(SinkError) {
        state.withLock { $0.formatChanges += 1 }
    }

    public func close() throws(SinkError) -> SinkResult {
        let c = counts
        return SinkResult(files: [], videoFrames: c.videoFrames, audioFrames: c.audioFrames, bytesWritten: 0)
    }

    /// The registry entry: `null` takes no options.
    public static let factory = SinkFactory(
        id: "null", summary: "counts frames and audio, writes nothing (benchmarks)") { (_) throws(SinkError) in
            NullSink()
        }
}
