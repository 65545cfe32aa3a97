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

    /// When the last frame placed is shown, in nanoseconds after `start`; nil before the first frame.
    var lastPresented: UInt64? {
        guard let n = next else { return nil }
        switch mode {
        case .constant(let r): return UInt64(n - 1) * UInt64(r.denominator) * 1_000_000_000 / UInt64(r.numerator)
        case .variable(let ticks): return UInt64(n - 1) * 1_000_000_000 / UInt64(ticks)
        }
    }

    /// Where the output ends so far, in nanoseconds after `start`: CFR, the end of the last filled slot; VFR,
    /// the last frame's time plus `frameDuration`. Nil before the first frame.
    func end(frameDuration: UInt64) -> UInt64? {
        guard let n = next else { return nil }
        switch mode {
        case .constant(let r):
            return UInt64(n) * UInt64(r.denominator) * 1_000_000_000 / UInt64(r.numerator)
        case .variable(let ticks):
            return UInt64(n - 1) * 1_000_000_000 / UInt64(ticks) + frameDuration
        }
    }

    /// Presentation times that show the last frame again so the output lasts until `timestamp`: CFR, the slots
    /// from the next free one up to the last one that starts before `timestamp`; VFR, one more presentation at
    /// `timestamp - frameDuration` (when that is after the last frame). Empty before the first frame or when
    /// the output already lasts that long.
    mutating func extend(to timestamp: UInt64, frameDuration: UInt64) -> [Int64] {
        guard let n = next, timestamp > start else { return [] }
        let rel = timestamp - start
        switch mode {
        case .constant(let r):
            // Slots needed to cover rel: ceil(rel * num / (den * 1e9)).
            let num = UInt64(r.numerator), den = UInt64(r.denominator) * 1_000_000_000
            let (product, overflow) = rel.multipliedReportingOverflow(by: num)
            let slots = overflow ? Int64((Double(rel) * Double(num) / Double(den)).rounded(.up))
                                 : Int64(clamping: (product + den - 1) / den)
            guard slots > n else { return [] }
            next = slots
            return Array(n..<slots)
        case .variable(let ticks):
            guard rel > frameDuration else { return [] }
            let at = rel - frameDuration
            let (product, overflow) = at.multipliedReportingOverflow(by: UInt64(ticks))
            let pts = overflow ? Int64((Double(at) * Double(ticks) / 1e9).rounded())
                               : Int64(clamping: (product + 500_000_000) / 1_000_000_000)
            guard pts >= n else { return [] }
            next = pts + 1
            return [pts]
        }
    }
}
