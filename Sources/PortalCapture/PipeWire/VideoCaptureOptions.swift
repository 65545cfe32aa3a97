/// How a `VideoCaptureStream` negotiates (options are values; defaults suit a screen cast).
public struct VideoCaptureOptions: Sendable, Equatable {
    /// Pixel formats to accept, most preferred first (the `SPA_FORMAT_VIDEO_format` enum choice).
    public var formats: [PixelFormat] = [.bgrx, .bgra, .rgbx, .rgba]
    /// Size range offered (`SPA_FORMAT_VIDEO_size`); the preferred size is the choice's default.
    public var preferredWidth = 1920
    public var preferredHeight = 1080
    public var maxWidth = 16384
    public var maxHeight = 16384
    /// Frame rate range offered (`SPA_FORMAT_VIDEO_framerate`, 0/1 up to `maxFrameRate`).
    public var preferredFrameRate = FrameRate(60)
    public var maxFrameRate = FrameRate(1000)
    /// Ask for `SPA_META_Cursor` (the portal's cursor mode "metadata") with bitmaps up to
    /// `maxCursorSize` pixels square.
    public var cursorMetadata = true
    public var maxCursorSize = 256
    /// End the stream with `.noFrames` when no buffer arrives for this long (nil: never). Note that
    /// compositors send nothing while the screen does not change, so pick a generous value.
    public var noFrameTimeout: Duration?
    /// Frame storages the stream's own pool keeps (when no storage provider is given). A frame is skipped
    /// (counted in `skippedNoStorage`) when all are still held downstream.
    public var storagePoolSize = 6
    /// Buffers to ask the producer for (`SPA_PARAM_BUFFERS_buffers`, the default of a 2...16 range; the
    /// producer may settle on another count). Each frame is copied out as soon as it is dequeued, so few
    /// suffice; every buffer is a memfd mapped in this process (8.3 MB at 1080p BGRx). More let a slow handler
    /// find several frames waiting (the newest is taken, the others skipped); a recording asks for 2
    /// (`CapturePipelineOptions.videoBufferCount`).
    public var bufferCount = 4
    /// `node.name` of the consumer node.
    public var nodeName = "pwrecord-video"
    /// Extra `pw_stream` properties (`PW_KEY_*`), applied last.
    public var properties: [String: String] = [:]

    public init() {}

    /// Validates the values; `invalidArgument` names the first bad one.
    func validate() throws(PipeWireError) {
        if formats.isEmpty { throw .invalidArgument("formats is empty") }
        if preferredWidth < 1 || preferredHeight < 1 || maxWidth < preferredWidth || maxHeight < preferredHeight {
            throw .invalidArgument("size \(preferredWidth)x\(preferredHeight) (max \(maxWidth)x\(maxHeight))")
        }
        if preferredFrameRate.denominator < 1 || maxFrameRate.denominator < 1 || maxFrameRate.numerator < 1 {
            throw .invalidArgument("frame rate \(preferredFrameRate) (max \(maxFrameRate))")
        }
        if maxCursorSize < 1 { throw .invalidArgument("maxCursorSize \(maxCursorSize)") }
        if let t = noFrameTimeout, t <= .zero { throw .invalidArgument("noFrameTimeout \(t)") }
        if storagePoolSize < 1 { throw .invalidArgument("storagePoolSize \(storagePoolSize)") }
        if !(2...16).contains(bufferCount) { throw .invalidArgument("bufferCount \(bufferCount) (2...16)") }
    }
}
