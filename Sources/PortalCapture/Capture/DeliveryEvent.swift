/// What a `DeliveryQueue` reports while it runs, on its delivery thread.
public enum DeliveryEvent: Sendable, Equatable {
    /// A sink threw from `open`, `formatChanged`, `consume` or `close`. Reported once per sink, with its first
    /// error; the sink receives nothing more except its `close()`.
    case sinkFailed(sink: String, error: SinkError)
    /// Video frames in a new format reached the sinks (a resize); sent after the sinks' `formatChanged`.
    case formatChanged(from: VideoFormat?, to: VideoFormat)
    /// The processing options could not be applied to a frame (a crop region outside a resized stream), so
    /// frames are withheld, never passed on unprocessed. Sent for the first such frame, and again only after
    /// a frame was processed or the error changed; every withheld frame counts in `rejectedVideo`.
    case frameRejected(FrameTransformError)
}
