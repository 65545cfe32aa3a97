/// Gives the audio chunks of one `process` call the `CLOCK_MONOTONIC` time of their first sample.
///
/// **With a graph clock** (the driver fills `spa_io_clock.nsec`, as ALSA devices and PipeWire's Dummy-Driver
/// do; read through `pw_stream_get_time_n`): the call's last chunk ends at `pw_time.now - delay`, and each chunk
/// before it (a backlog dequeued in the same call) ends where the next one starts.
///
/// **Without one** (`pw_time.now` is 0: the driver leaves the clock empty. This happens when PipeWire 0.3.65
/// lets an active *video* producer drive an audio source that has no driver of its own; the graph then runs
/// at the frame rate, one quantum per frame, so the source delivers more or fewer samples than time passes):
/// a running sample clock, bounded by the arrival time. A chunk cannot have been captured after it arrived,
/// so the clock never runs past `arrival - duration` (samples beyond real time are pulled back, and the
/// encoder drops what then overlaps); when it falls more than `lossTolerance` behind that bound, samples were
/// lost and it restarts there (the encoder fills the gap with silence). Smaller lags are delivery jitter.
///
/// Used on the stream's data thread only.
struct AudioChunkClock: Sendable, Equatable {
    /// Where a call's timestamps came from.
    enum Source: Sendable, Equatable {
        case graph
        case arrival
    }

    /// How far the running sample clock may fall behind the arrival bound before it restarts there.
    static let lossTolerance: UInt64 = 100_000_000
    /// A graph time further than this from the arrival is not trusted (a stale clock or another clock domain).
    static let graphTolerance: UInt64 = 1_000_000_000

    /// The time of the sample after the last one stamped (nil before the first call).
    private(set) var next: UInt64?

    init() {}

    /// Timestamps for chunks of `frameCounts` sample frames at `rate`, dequeued together, in order.
    /// - Parameters:
    ///   - graphEnd: `pw_time.now - delay` in nanoseconds (the capture time just after the last sample), or nil
    ///     when the stream has no graph time (`pw_time.now` is 0).
    ///   - arrival: `CLOCK_MONOTONIC` now, in the `process` call.
    mutating func stamp(frameCounts: [Int], rate: Int, graphEnd: UInt64?, arrival: UInt64) -> (timestamps: [UInt64], source: Source) {
        guard rate > 0, !frameCounts.isEmpty else { return ([], .arrival) }
        let total = frameCounts.reduce(0, +)
        let duration = Self.nanoseconds(frames: total, rate: rate)
        let latestStart = arrival > duration ? arrival - duration : 0
        let start: UInt64
        let source: Source
        if let graphEnd, graphEnd > duration, Self.distance(graphEnd, arrival) <= Self.graphTolerance {
            start = min(graphEnd - duration, latestStart)
            source = .graph
        } else {
            var s = next ?? latestStart
            if s > latestStart || latestStart - s > Self.lossTolerance { s = latestStart }
            start = s
            source = .arrival
        }
        var timestamps: [UInt64] = []
        timestamps.reserveCapacity(frameCounts.count)
        var before = 0
        for count in frameCounts {
            timestamps.append(start + Self.nanoseconds(frames: before, rate: rate))
            before += count
        }
        next = start + duration
        return (timestamps, source)
    }

    static func nanoseconds(frames: Int, rate: Int) -> UInt64 {
        UInt64(max(frames, 0)) * 1_000_000_000 / UInt64(rate)
    }

    private static func distance(_ a: UInt64, _ b: UInt64) -> UInt64 { a > b ? a - b : b - a }
}
