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
    }
}

/// What a `VideoCaptureStream` reports, in order, ending with exactly one `.ended`.
public enum VideoCaptureEvent: Sendable, Equatable {
    case stateChanged(PipeWireStreamState)
    /// A format was negotiated (first, or after a resize); frames after this one carry it.
    case formatChanged(VideoFormat)
    /// The stream ended; nothing follows.
    case ended(PipeWireStreamEndCause)
}

/// Counters of a `VideoCaptureStream` (a snapshot).
public struct VideoCaptureStatistics: Sendable, Equatable {
    /// Buffers dequeued from PipeWire (every one is requeued).
    public var buffersReceived = 0
    /// Frames with new pixels handed to the frame handler.
    public var framesDelivered = 0
    /// Metadata-only buffers (zero-size chunk: the cursor moved) handed on as the last frame with the new cursor.
    public var cursorUpdates = 0
    /// Older buffers passed over when several were waiting (draining to the newest).
    public var skippedStale = 0
    /// Buffers flagged corrupted (`SPA_CHUNK_FLAG_CORRUPTED` or `SPA_META_HEADER_FLAG_CORRUPTED`).
    public var skippedCorrupted = 0
    /// Buffers that did not match the negotiated format (too small, bad stride, unmapped) or came before one.
    public var skippedInvalid = 0
    /// Frames dropped because no frame storage was free.
    public var skippedNoStorage = 0

    public init() {}

    /// Every buffer with pixels that did not reach the handler.
    public var framesSkipped: Int { skippedStale + skippedCorrupted + skippedInvalid + skippedNoStorage }
}
