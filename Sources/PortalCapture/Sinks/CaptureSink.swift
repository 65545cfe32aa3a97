/// A destination for captured samples: an encoder writing a file, raw files, a closure, a plugin.
///
/// Lifecycle: `open` once with the negotiated formats, then `consume` for every sample in timestamp order
/// per stream, then `close` exactly once, also after an error (so a file is always finalized and playable).
/// A video format change mid-stream arrives as `formatChanged` before the first frame in the new format.
/// When the recording's end is known, `ended(at:)` comes after the last sample and before `close`.
///
/// Threading: every method is called on the recorder's delivery thread, never on PipeWire's data thread, and
/// never concurrently. A sink may block (encode, write) but then frames queue up and are dropped by the
/// delivery policy; heavy sinks should run their own bounded queue. A sink whose `isolation` is set is called
/// on a thread of its own instead (still one call at a time, in the same order), so it holds up no other.
public protocol CaptureSink: AnyObject, Sendable {
    /// A short id such as `encoder`, `raw`, `callback`.
    var id: String { get }
    /// Whether the delivery runs this sink on a thread of its own behind a bounded queue of frame copies
    /// (`SinkIsolation`), for code that may block for long: a plugin. Default nil: on the delivery thread, in
    /// turn with the other sinks.
    var isolation: SinkIsolation? { get }
    /// The plugin file the sink's code comes from, named in its errors; nil (the default) for code built in.
    var pluginPath: String? { get }
    /// Checks, before anyone is asked for consent, what can be checked without the stream: the options the
    /// recording will need (an output path), and whether the files can be written there (`SinkPreflight`).
    /// Writes nothing. Default: nothing to check.
    func preflight(_ plan: SinkPreflight) throws(SinkError)
    /// Called once, before the first sample, with the formats known at that point.
    func open(_ context: SinkContext) throws(SinkError)
    /// A video frame or audio chunk, in order.
    func consume(_ sample: CaptureSample) throws(SinkError)
    /// The video format changed (a resize); the next frames use `format`.
    func formatChanged(_ format: VideoFormat) throws(SinkError)
    /// The recording ended at `time` (`CLOCK_MONOTONIC` ns on the samples' timeline: time spent paused is
    /// taken out, as from their timestamps). No sample follows; `close` comes next. A sink that writes a
    /// timeline ends it there, so its file lasts as long as the recording: the last frame is shown until
    /// then, however long ago it was captured. Not called when the delivery is cancelled, or when its end
    /// is not known (a `DeliveryQueue` finished without one). Default: nothing.
    func ended(at time: UInt64) throws(SinkError)
    /// Flush and finalize. Always called exactly once, whether or not `open` or `consume` threw.
    func close() throws(SinkError) -> SinkResult
}

extension CaptureSink {
    public var isolation: SinkIsolation? { nil }
    public var pluginPath: String? { nil }
    public func preflight(_ plan: SinkPreflight) throws(SinkError) {}
    public func formatChanged(_ format: VideoFormat) throws(SinkError) {}
    public func ended(at time: UInt64) throws(SinkError) {}
}

/// What a recording will give a sink, known before it starts (for `CaptureSink.preflight`).
public struct SinkPreflight: Sendable {
    /// Whether audio will come (a microphone or system audio), as well as video.
    public var audio: Bool
    /// The output `open` will be given (`SinkContext.output`); nil in recordings, where sinks take their own.
    public var output: String?

    public init(audio: Bool, output: String? = nil) {
        self.audio = audio
        self.output = output
    }
}

/// What a sink is opened with.
public struct SinkContext: Sendable {
    /// The video format, when the recording has video.
    public var video: VideoFormat?
    /// The audio format, when the recording has a microphone (or system audio) stream.
    public var audio: AudioFormat?
    /// Where file sinks write: a file path, or a directory for sinks that write several files.
    public var output: String?
    /// `CLOCK_MONOTONIC` time (ns) that counts as zero in the output's timeline.
    public var startTime: UInt64

    public init(video: VideoFormat?, audio: AudioFormat?, output: String?, startTime: UInt64) {
        self.video = video
        self.audio = audio
        self.output = output
        self.startTime = startTime
    }
}

/// What a sink wrote. `videoFrames` counts frames written to the output (for CFR, including duplicates);
/// `audioFrames` counts audio sample frames (one sample per channel).
public struct SinkResult: Sendable, Equatable {
    /// Files written, in the order a user should look at them.
    public var files: [String]
    public var videoFrames: Int
    public var audioFrames: Int
    public var bytesWritten: Int64
    /// Video frames the sink received but did not write (its own queue was full, or CFR dropped a frame
    /// that fell into an already filled slot).
    public var droppedFrames: Int
    /// Frames written more than once to keep a constant frame rate (CFR).
    public var duplicatedFrames: Int
    /// The picture size written, when the sink changed it (an encoder with 4:2:0 chroma cuts an odd size to even).
    public var encodedSize: EncodedSize?

    /// A picture size in pixels.
    public struct EncodedSize: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) { self.width = width; self.height = height }
    }

    public init(files: [String] = [], videoFrames: Int = 0, audioFrames: Int = 0, bytesWritten: Int64 = 0,
                droppedFrames: Int = 0, duplicatedFrames: Int = 0, encodedSize: EncodedSize? = nil) {
        self.files = files
        self.videoFrames = videoFrames
        self.audioFrames = audioFrames
        self.bytesWritten = bytesWritten
        self.droppedFrames = droppedFrames
        self.duplicatedFrames = duplicatedFrames
        self.encodedSize = encodedSize
    }
}
