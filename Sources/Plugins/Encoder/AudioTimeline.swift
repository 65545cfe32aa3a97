/// Where captured audio goes in the output, sample-accurately: every chunk is placed at its timestamp, so the
/// audio track stays on the video's timeline whatever the source delivers.
///
/// Positions count sample frames at the input rate from the recording's start (the first video frame's
/// timestamp, position 0). The first chunk is placed exactly: samples from before the start are dropped, and a
/// chunk that starts after it is preceded by silence. Later chunks continue where the previous one ended while
/// their timestamp agrees within `tolerance`; beyond it, a chunk that comes late is preceded by silence (samples
/// were lost, or the source paused) and a chunk that comes early loses the samples that overlap what was
/// already placed (the source delivered more samples than time passed). `end(at:)` gives the silence that
/// brings the track to a given end.
struct AudioTimeline: Sendable, Equatable {
    /// What to do with one chunk: `silence` sample frames first, then the chunk without its first `skip`
    /// frames (`keep` frames remain; 0 drops it).
    struct Placement: Sendable, Equatable {
        var silence: Int64
        var skip: Int
        var keep: Int
    }

    let start: UInt64
    let rate: Int
    /// Disagreement between a chunk's timestamp and the running position that is left alone (clock jitter),
    /// in sample frames.
    let tolerance: Int64
    /// The position of the next sample frame.
    private(set) var position: Int64 = 0
    /// Whether a sample was placed yet.
    private(set) var started = false

    /// - Parameters:
    ///   - start: the recording's start on CLOCK_MONOTONIC (ns), position 0.
    ///   - toleranceNanoseconds: see `tolerance` (default 10 ms).
    init(start: UInt64, rate: Int, toleranceNanoseconds: UInt64 = 10_000_000) {
        self.start = start
        self.rate = max(rate, 1)
        tolerance = Int64(toleranceNanoseconds * UInt64(max(rate, 1)) / 1_000_000_000)
    }

    /// The position of a sample captured at `timestamp` (rounded to the nearest frame; negative before the start).
    func position(of timestamp: UInt64) -> Int64 {
        let late = timestamp >= start
        let distance = late ? timestamp - start : start - timestamp
        let (product, overflow) = distance.multipliedReportingOverflow(by: UInt64(rate))
        let frames = overflow ? Int64((Double(distance) * Double(rate) / 1e9).rounded())
                              : Int64(clamping: (product + 500_000_000) / 1_000_000_000)
        return late ? frames : -frames
    }

    /// Places a chunk of `frames` sample frames whose first one was captured at `timestamp`.
    mutating func place(timestamp: UInt64, frames: Int) -> Placement {
        guard frames > 0 else { return Placement(silence: 0, skip: 0, keep: 0) }
        let at = position(of: timestamp)
        let slack = started ? tolerance : 0
        var placement = Placement(silence: 0, skip: 0, keep: frames)
        if at > position + slack {
            placement.silence = at - position
        } else if at < position - slack {
            placement.skip = Int(min(position - at, Int64(frames)))
            placement.keep = frames - placement.skip
        }
        position += placement.silence + Int64(placement.keep)
        if placement.keep > 0 { started = true }
        return placement
    }

    /// The silence that brings the track to `endPosition` (0 when it is already there or past it).
    mutating func end(at endPosition: Int64) -> Int64 {
        let missing = max(0, endPosition - position)
        position += missing
        return missing
    }

    /// The position of `nanoseconds` after the start.
    func frames(in nanoseconds: UInt64) -> Int64 {
        position(of: start &+ nanoseconds)
    }

    /// The time of `position` after the start, in nanoseconds.
    var elapsed: UInt64 { UInt64(max(position, 0)) * 1_000_000_000 / UInt64(rate) }
}
