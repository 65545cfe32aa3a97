/// How one sink ended: what it wrote, and what went wrong, if anything.
public struct SinkOutcome: Sendable, Equatable {
    public var sink: String
    /// What `close()` returned; nil when it threw.
    public var result: SinkResult?
    /// Errors in the order they happened: at most one from `open`/`formatChanged`/`consume` (the sink was
    /// then cut off) and one from `close`.
    public var errors: [SinkError]

    public init(sink: String, result: SinkResult?, errors: [SinkError]) {
        self.sink = sink
        self.result = result
        self.errors = errors
    }

    public var succeeded: Bool { errors.isEmpty }
}
