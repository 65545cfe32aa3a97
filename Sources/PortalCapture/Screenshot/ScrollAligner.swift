/// Finds how far the content moved between two frames from their row fingerprints (no pixel search).
///
/// 1. Fixed bands: the rows equal at the same place in both frames, counted from the top (`fixedTop`) and
///    from the bottom (`fixedBottom`). All rows equal means no motion.
/// 2. Votes: each non-blank row between the bands votes for `previousRow - currentRow` for every row of the
///    previous frame with its hash (rows whose hash repeats more than `maximumRepeats` times abstain). The
///    three offsets with most votes are checked over all rows the two frames then share; of those where
///    at most a share `mismatchTolerance` of the shared rows differ, the one with most matching non-blank
///    rows wins.
/// 3. Blank-overlap rule: when no voted offset holds (the shared rows are blank or repeat), the smallest
///    movement whose shared rows (at least `minimumOverlap`) all match exactly is taken, in the direction
///    of the last movement first; the result is marked ambiguous. Blank rows at the inner edges of the
///    bands count as movable here when their colour is also blank between the bands (a blank stretch of
///    page looks fixed when it fills the same rows in both frames). Otherwise the frame is unaligned.
///
/// The scratch tables are kept between calls.
struct ScrollAligner {
    enum Outcome: Equatable {
        case unchanged
        /// Positive: the content moved up (scrolled down); `current[r] == previous[r + offset]`.
        case moved(offset: Int, ambiguous: Bool)
        case unaligned
    }

    struct Alignment: Equatable {
        var outcome: Outcome
        var fixedTop: Int
        var fixedBottom: Int
    }

    private var keys: [UInt64] = []
    private var heads: [Int32] = []
    private var counts: [Int32] = []
    private var next: [Int32] = []
    private var votes: [Int32] = []
    /// Per current row: whether it cast votes (non-blank, its hash rare enough in the previous frame).
    private var voters: [Bool] = []
    private static let empty: Int32 = -1
    /// A row hash found more often than this in the previous frame casts no votes.
    static let maximumRepeats: Int32 = 4

    mutating func align(previous a: RowSignatures, current b: RowSignatures, preferDown: Bool,
                        minimumOverlap: Int, mismatchTolerance: Double) -> Alignment {
        let n = min(a.count, b.count)
        return a.hashes.withUnsafeBufferPointer { ah in
            b.hashes.withUnsafeBufferPointer { bh in
                b.blank.withUnsafeBufferPointer { bb in
                    a.blank.withUnsafeBufferPointer { ab in
                        align(ah, ab, bh, bb, n: n, preferDown: preferDown, minimumOverlap: minimumOverlap,
                              tolerance: min(max(mismatchTolerance, 0), 0.5))
                    }
                }
            }
        }
    }

    private mutating func align(_ a: UnsafeBufferPointer<UInt64>, _ aBlank: UnsafeBufferPointer<Bool>,
                                _ b: UnsafeBufferPointer<UInt64>, _ bBlank: UnsafeBufferPointer<Bool>,
                                n: Int, preferDown: Bool, minimumOverlap: Int, tolerance: Double) -> Alignment {
        var top = 0
        while top < n && a[top] == b[top] { top += 1 }
        if top == n { return Alignment(outcome: .unchanged, fixedTop: n, fixedBottom: 0) }
        var bottom = 0
        while bottom < n - top && a[n - 1 - bottom] == b[n - 1 - bottom] { bottom += 1 }
        let lo = top, hi = n - bottom, span = hi - lo

        // Index the previous frame's non-blank rows by hash (open addressing, power-of-two table); rows
        // with the same hash are chained through `next`.
        var capacity = 16
        while capacity < span * 2 { capacity <<= 1 }
        if keys.count < capacity {
            keys = [UInt64](repeating: 0, count: capacity)
            heads = [Int32](repeating: Self.empty, count: capacity)
            counts = [Int32](repeating: 0, count: capacity)
        }
        if next.count < n { next = [Int32](repeating: Self.empty, count: n) }
        if votes.count < 2 * span + 1 { votes = [Int32](repeating: 0, count: 2 * span + 1) }
        if voters.count < n { voters = [Bool](repeating: false, count: n) }
        let mask = capacity - 1
        var best = [(offset: Int, votes: Int32)](repeating: (0, 0), count: 3)
        voters.withUnsafeMutableBufferPointer { voters in
        keys.withUnsafeMutableBufferPointer { keys in
        heads.withUnsafeMutableBufferPointer { heads in
        counts.withUnsafeMutableBufferPointer { counts in
        next.withUnsafeMutableBufferPointer { next in
        votes.withUnsafeMutableBufferPointer { votes in
            for i in 0..<capacity { heads[i] = Self.empty; counts[i] = 0 }
            for i in 0..<(2 * span + 1) { votes[i] = 0 }
            for r in lo..<hi where !aBlank[r] {
                var slot = Int(truncatingIfNeeded: a[r] >> 20) & mask
                while heads[slot] != Self.empty && keys[slot] != a[r] { slot = (slot + 1) & mask }
                keys[slot] = a[r]
                next[r] = heads[slot]
                heads[slot] = Int32(r)
                counts[slot] += 1
            }
            // Each current row votes for every place its hash has in the previous frame, unless that hash
            // is too common there to say anything (a table's identical rows).
            for r in 0..<n { voters[r] = false }
            for r in lo..<hi where !bBlank[r] {
                var slot = Int(truncatingIfNeeded: b[r] >> 20) & mask
                while heads[slot] != Self.empty && keys[slot] != b[r] { slot = (slot + 1) & mask }
                guard heads[slot] != Self.empty, counts[slot] <= Self.maximumRepeats else { continue }
                voters[r] = true
                var p = heads[slot]
                while p >= 0 {
                    votes[Int(p) - r + span] += 1
                    p = next[Int(p)]
                }
            }
            // The three offsets with most votes, most first.
            for i in 0..<(2 * span + 1) where votes[i] > best[2].votes {
                best[2] = (i - span, votes[i])
                if best[2].votes > best[1].votes { best.swapAt(1, 2) }
                if best[1].votes > best[0].votes { best.swapAt(0, 1) }
            }
        }
        }
        }
        }
        }
        }
        // Of the candidates within tolerance, the one under which most voting rows match wins (then the fewest
        // mismatches). Blank rows, and rows whose hash repeats (the inside of a box, a table), match under
        // many offsets, so counting them would let a near-miss that shares more rows beat the true offset.
        var chosen: (offset: Int, informative: Int, wrong: Int)?
        for candidate in best where candidate.votes > 0 {
            let overlap = Self.overlap(candidate.offset, lo: lo, hi: hi)
            guard overlap.count > 0 else { continue }
            let allowed = Int(Double(overlap.count) * tolerance)
            let (wrong, informative) = voters.withUnsafeBufferPointer { voters in
                Self.compare(a, b, voters, offset: candidate.offset, rows: overlap, limit: allowed)
            }
            guard wrong <= allowed else { continue }
            if let c = chosen, informative < c.informative || (informative == c.informative && wrong >= c.wrong) { continue }
            chosen = (candidate.offset, informative, wrong)
        }
        if let chosen {
            let outcome: Outcome = chosen.offset == 0 ? .unchanged : .moved(offset: chosen.offset, ambiguous: false)
            return Alignment(outcome: outcome, fixedTop: top, fixedBottom: bottom)
        }
        // The blank-overlap rule: the smallest movement whose shared rows all match. Blank rows at the inner
        // edges of the bands, of a colour also blank between them, may be scrolling content that only looked
        // fixed, so the search extends over them.
        let (flo, fhi) = Self.widened(lo: lo, hi: hi, n: n, a, aBlank, b, bBlank)
        let searchSpan = fhi - flo
        let needed = max(1, minimumOverlap)
        if searchSpan - needed >= 1 {
            for distance in 1...(searchSpan - needed) {
                for sign in 0..<2 {
                    let offset = (sign == 0) == preferDown ? distance : -distance
                    let overlap = Self.overlap(offset, lo: flo, hi: fhi)
                    if Self.mismatches(a, b, offset: offset, rows: overlap, limit: 0) == 0 {
                        return Alignment(outcome: .moved(offset: offset, ambiguous: true), fixedTop: top, fixedBottom: bottom)
                    }
                }
            }
        }
        return Alignment(outcome: .unaligned, fixedTop: top, fixedBottom: bottom)
    }

    /// `lo ..< hi` grown over the blank rows just outside it whose colour (hash) is also blank inside it in
    /// either frame.
    private static func widened(lo: Int, hi: Int, n: Int,
                                _ a: UnsafeBufferPointer<UInt64>, _ aBlank: UnsafeBufferPointer<Bool>,
                                _ b: UnsafeBufferPointer<UInt64>, _ bBlank: UnsafeBufferPointer<Bool>) -> (Int, Int) {
        var colours: [UInt64] = []
        for r in lo..<hi where colours.count < 4 {
            if aBlank[r] && !colours.contains(a[r]) { colours.append(a[r]) }
            if bBlank[r] && !colours.contains(b[r]) { colours.append(b[r]) }
        }
        guard !colours.isEmpty else { return (lo, hi) }
        var start = lo, end = hi
        while start > 0 && bBlank[start - 1] && colours.contains(b[start - 1]) { start -= 1 }
        while end < n && bBlank[end] && colours.contains(b[end]) { end += 1 }
        return (start, end)
    }

    /// The current frame's rows that the previous frame also shows, at `offset`, between the bands.
    @inline(__always)
    private static func overlap(_ offset: Int, lo: Int, hi: Int) -> Range<Int> {
        let start = max(lo, lo - offset), end = min(hi, hi - offset)
        return start < end ? start..<end : start..<start
    }

    /// How many rows of `rows` differ between `b[r]` and `a[r + offset]` (counting up to `limit + 1`), and how
    /// many of the rows that voted match.
    @inline(__always)
    private static func compare(_ a: UnsafeBufferPointer<UInt64>, _ b: UnsafeBufferPointer<UInt64>,
                                _ voters: UnsafeBufferPointer<Bool>, offset: Int, rows: Range<Int>,
                                limit: Int) -> (wrong: Int, informative: Int) {
        var wrong = 0, informative = 0
        for r in rows {
            if b[r] != a[r + offset] {
                wrong += 1
                if wrong > limit { break }
            } else if voters[r] {
                informative += 1
            }
        }
        return (wrong, informative)
    }

    /// How many rows of `rows` differ between `b[r]` and `a[r + offset]`, counting up to `limit + 1`.
    @inline(__always)
    private static func mismatches(_ a: UnsafeBufferPointer<UInt64>, _ b: UnsafeBufferPointer<UInt64>,
                                   offset: Int, rows: Range<Int>, limit: Int) -> Int {
        var count = 0
        for r in rows where b[r] != a[r + offset] {
            count += 1
            if count > limit { break }
        }
        return count
    }
}
