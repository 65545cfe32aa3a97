/// Counters of an `AudioCaptureStream` (a snapshot).
public struct AudioCaptureStatistics: Sendable, Equatable {
    /// Buffers dequeued (every one is requeued).
    public var buffersReceived = 0
    /// Chunks handed to the handler.
    public var chunksDelivered = 0
    /// Chunks whose timestamp came from the graph clock (`pw_time.now`); the others were timed from their
    /// arrival (the driver left the clock empty; see `AudioChunkClock`).
    public var chunksTimedByGraphClock = 0
    /// Sample frames handed to the handler.
    public var sampleFramesDelivered = 0
    /// Buffers flagged corrupted.
    public var skippedCorrupted = 0
    /// Buffers that were empty, unmapped, or came before a format.
    public var skippedInvalid = 0

    public init() {}
}
