/// Decides when each captured frame is shown in the output: on a constant-rate grid (CFR: duplicate the
/// previous frame into skipped slots, drop a frame whose slot is taken) or at its own capture time (VFR).
///
/// Times are `CLOCK_MONOTONIC` nanoseconds, relative to `start`; presentation times are in ticks of the
/// encoder's time base (`1/fps` for CFR, `1/ticksPerSecond` for VFR).
struct FrameClock: Sendable {
    enum Mode: Sendable, Equatable {
        case constant(FrameRate)
        case variable(ticksPerSecond: Int64)
    }

    /// What to do with one frame.
    struct Placement: Sendable, Equatable {
        /// Slots to fill with the previous frame before this one (CFR only; empty for the first frame).
        var duplicates: Range<Int64>
        /// The frame's presentation time, or nil to drop it.
        var pts: Int64?
    }

    let mode: Mode
    let start: UInt64
    /// The next free slot (CFR) or the smallest allowed pts (VFR); nil before the first frame.
    private(set) var next: Int64?

    init(mode: Mode, start: UInt64) {
        self.mode = mode
        self.start = start
    }

    /// The time base as a fraction of a second: (numerator, denominator).
    var timeBase: (num: Int32, den: Int32) {
        switch mode {
        case .constant(let r): (Int32(r.denominator), Int32(r.numerator))
        case .variable(let t): (1, Int32(t))
        }
    }

    /// Where a frame captured at `timestamp` goes.
    mutating func place(_ timestamp: UInt64) -> Placement {
        let rel = timestamp > start ? Int64(clamping: timestamp - start) : 0
        switch mode {
        case .constant(let r):
            // Round to the nearest slot: slot = rel * num / (den * 1e9).
            let num = Int64(r.numerator), den = Int64(r.denominator) * 1_000_000_000
            let (product, overflow) = rel.multipliedReportingOverflow(by: num)
            let slot = overflow ? Int64((Double(rel) * Double(num) / Double(den)).rounded())
                                : (product + den / 2) / den
            guard let n = next else {
                next = slot + 1
                return Placement(duplicates: slot..<slot, pts: slot)
            }
            if slot < n { return Placement(duplicates: n..<n, pts: nil) }
            next = slot + 1
            return Placement(duplicates: n..<slot, pts: slot)
        case .variable(let ticks):
            let (product, overflow) = rel.multipliedReportingOverflow(by: ticks)
            var pts = overflow ? Int64((Double(rel) * Double(ticks) / 1e9).rounded())
                               : (product + 500_000_000) / 1_000_000_000
            // Presentation times must increase; two frames within one tick move the later one on.
            if let n = next, pts < n { pts = n }
            next = pts + 1
            return Placement(duplicates: pts..<pts, pts: pts)
        }
    }
}
