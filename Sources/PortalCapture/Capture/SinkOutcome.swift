/// How one sink ended: what it wrote, and what went wrong, if anything.
public struct SinkOutcome: Sendable, Equatable {
    public var sink: String
    /// What `close()` returned; nil when it threw.
    public var result: SinkResult?
    /// Errors in the order they happened: at most one from `open`/`formatChanged`/`consume` (the sink was
    /// then cut off) and one from `close`.
    public var errors: [SinkError]
    /// Frames an isolated sink (a plugin's, `CaptureSink.isolation`) never got because it fell behind: its own
    /// queue was full and dropped the oldest. Also counted in `result.droppedFrames`, which adds the frames the
    /// sink itself let go (its queue, CFR). 0 for sinks that are not isolated.
    public var missedBehind: Int

    public init(sink: String, result: SinkResult?, errors: [SinkError], missedBehind: Int = 0) {
        self.sink = sink
        self.result = result
        self.errors = errors
        self.missedBehind = missedBehind
    }

    public var succeeded: Bool { errors.isEmpty }
}
