/// How a sink that may block runs apart from the others: on a thread of its own behind a bounded queue, fed
/// copies of the frames (`IsolatedSink`). A sink asks for it through `CaptureSink.isolation`; plugin sinks do
/// (`PluginLoader.isolation`), so a plugin stuck in `write_video` holds up neither the recording's other sinks
/// nor the capture, and cannot keep a recording from stopping.
///
///     PluginLoader().isolation(SinkIsolation().closeTimeout(.seconds(2)).onWaiting { id in print("waiting for \(id)") })
public struct SinkIsolation: Sendable {
    /// Video frames that may wait for the sink; a frame beyond this drops the oldest waiting one (counted in
    /// the sink's `SinkResult.droppedFrames`). Each waiting frame is a copy (8.3 MB at 1080p). Default 4.
    public var videoCapacity = 4
    /// Audio chunks that may wait (oldest dropped beyond). Default 1024 (about 10 s).
    public var audioCapacity = 1024
    /// How long the end of a recording waits for the sink to take what is queued and close. Past it the sink
    /// is abandoned (its thread may stay blocked), reported as `SinkError.abandoned`, and the recording ends
    /// without it. Default 5 s.
    public var closeTimeout: Duration = .seconds(5)
    /// When the end has waited this long for the sink, `onWaiting` is called. Default 1 s.
    public var noticeAfter: Duration = .seconds(1)
    /// Called (once, on the delivery thread) with the sink's id when the end has been waiting `noticeAfter`
    /// for it, so a user can be told why stopping takes a while. Keep it short.
    public var onWaiting: (@Sendable (_ sink: String) -> Void)?

    public init() {}

    public func videoCapacity(_ count: Int) -> Self { var c = self; c.videoCapacity = max(1, count); return c }
    public func audioCapacity(_ count: Int) -> Self { var c = self; c.audioCapacity = max(1, count); return c }
    public func closeTimeout(_ value: Duration) -> Self { var c = self; c.closeTimeout = value; return c }
    public func noticeAfter(_ value: Duration) -> Self { var c = self; c.noticeAfter = value; return c }
    public func onWaiting(_ value: (@Sendable (_ sink: String) -> Void)?) -> Self { var c = self; c.onWaiting = value; return c }
}
