/// How an `AudioCaptureStream` negotiates (options are values).
public struct AudioCaptureOptions: Sendable, Equatable {
    /// F32 (default) or S16, interleaved.
    public var sampleFormat: AudioFormat.SampleFormat = .f32
    public var sampleRate = 48_000
    /// Channel count; nil takes the target node's `audio.channels` (from its info: ALSA sources and
    /// `AudioProducerStream` announce it), else PipeWire's converter picks (stereo). With the `.default`
    /// target the source is not known in advance, so it is stereo unless set.
    public var channels: Int?
    /// The latency asked for, in sample frames (`node.latency` = frames/rate); nil leaves the graph's
    /// (1024 frames by default). PipeWire rounds it down to a power of two and applies the smallest
    /// request to the whole graph.
    public var latencyFrames: Int?
    /// Capture the default output's monitor ("system audio", `stream.capture.sink`) instead of a source.
    public var captureSinkMonitor = false
    /// End the stream with `.noFrames` when no buffer arrives for this long (nil: never).
    public var noFrameTimeout: Duration?
    /// `node.name` of the capture node.
    public var nodeName = "pwrecord-audio"
    /// Extra `pw_stream` properties, applied last.
    public var properties: [String: String] = [:]

    public init() {}

    func validate() throws(PipeWireError) {
        if sampleRate < 1 || sampleRate > 768_000 { throw .invalidArgument("sampleRate \(sampleRate)") }
        if let channels, channels < 1 || channels > 64 { throw .invalidArgument("channels \(channels) (1...64)") }
        if let latencyFrames, latencyFrames < 1 { throw .invalidArgument("latencyFrames \(latencyFrames)") }
        if let t = noFrameTimeout, t <= .zero { throw .invalidArgument("noFrameTimeout \(t)") }
    }
}
