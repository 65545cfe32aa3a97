/// Counters of a `VideoCaptureStream` (a snapshot).
public struct VideoCaptureStatistics: Sendable, Equatable {
    /// Buffers dequeued from PipeWire (every one is requeued: at once, or when its frame is released).
    public var buffersReceived = 0
    /// Frames with new pixels handed to the frame handler.
    public var framesDelivered = 0
    /// Of `framesDelivered`, those handed on in PipeWire's buffer without a copy.
    public var framesBorrowed = 0
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
    /// Of `framesDelivered`, those read from `SPA_DATA_DmaBuf` buffers (by mmap: linear modifier only).
    public var framesFromDmaBuf = 0
    /// The DRM format modifier of the current format, nil while buffers are shared memory (no modifier).
    public var modifier: DRMFormatModifier?
    /// Modifiers a producer fixated that could not be read by mmap (not linear), in order; each made the
    /// stream renegotiate to shared memory (also reported as `VideoCaptureEvent.dmaBufRefused`).
    public var refusedModifiers: [DRMFormatModifier] = []

    public init() {}

    /// Every buffer with pixels that did not reach the handler.
    public var framesSkipped: Int { skippedStale + skippedCorrupted + skippedInvalid + skippedNoStorage }
}
