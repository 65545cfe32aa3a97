/// Finds how far the content moved between two frames from their row fingerprints (no pixel search).
///
/// 1. Fixed bands: the rows equal at the same place in both frames, counted from the top (`fixedTop`) and
///    from the bottom (`fixedBottom`). All rows equal means no motion.
/// 2. Votes: each non-blank row between the bands votes for `previousRow - currentRow` for every row of the
///    previous frame with its hash (rows whose hash repeats more than `maximumRepeats` times abstain). The
///    `candidates` offsets with most votes are checked over all rows the two frames then share (at least
///    `minimumOverlap`); an offset holds when at most a share `mismatchTolerance` of the shared rows differ,
///    and at most half of those not blank in both frames. Of those that hold, the one
///    that misplaces fewest *unique* rows wins (rows whose hash the previous frame has once: under the true
///    offset they all match, bar an animation, whose rows are new), then the one with most matching voting
///    rows, then the fewest mismatches.
/// 3. Repeats: when no unique row backs the winner, or another voted offset that unique rows back matches
///    exactly too, the shared rows repeat and movements by whole repeats fit as well. Every offset whose
///    shared rows (at least `minimumOverlap`) all match exactly and include a non-blank row is then a
///    candidate, and the one nearest the last movement is taken (scrolling is smooth; before
///    any movement, the smallest, downwards first); it is marked ambiguous when more than one fits.
/// 4. Blank-overlap rule: when no voted offset holds, the smallest movement whose shared rows (at least
///    `minimumOverlap`) all match exactly is taken, in the direction of the last movement first; if those
///    shared rows include non-blank ones (so they repeat), the exact fit nearest the last movement is taken
///    instead, as in 3. The result is marked ambiguous. Blank rows at the inner edges of the bands count as
///    movable here when their colour is also blank between the bands (a blank stretch of page looks fixed
///    when it fills the same rows in both frames). Otherwise the frame is unaligned.
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

    /// One checked offset: its mismatches, the mismatches of unique rows, and the voting rows that match.
    private struct Check {
        var offset: Int
        var wrong: Int
        var misplacedUnique: Int
        var informative: Int
        var unique: Int

        /// Whether this check beats `other`: fewer unique rows misplaced, then more voting rows matched, then
        /// fewer mismatches.
        func beats(_ other: Check) -> Bool {
            if misplacedUnique != other.misplacedUnique { return misplacedUnique < other.misplacedUnique }
            if informative != other.informative { return informative > other.informative }
            return wrong < other.wrong
        }
    }

    private var keys: [UInt64] = []
    private var heads: [Int32] = []
    private var counts: [Int32] = []
    private var next: [Int32] = []
    private var votes: [Int32] = []
    /// Per current row: 0 when it cast no votes (blank, or its hash absent or too common in the previous
    /// frame), 1 when its hash is in the previous frame once (a unique row), 2 when 2 to `maximumRepeats`
    /// times.
    private var voters: [UInt8] = []
    private static let empty: Int32 = -1
    /// A row hash found more often than this in the previous frame casts no votes.
    static let maximumRepeats: Int32 = 4
    /// How many of the most-voted offsets are checked. Where rows repeat, the true offset can get fewer votes
    /// than movements by whole repeats (three was too few for the repeated-row sweep's lists).
    static let candidates = 8

    /// `lastMovement` is the previous step's offset (0 before the first movement).
    mutating func align(previous a: RowSignatures, current b: RowSignatures, lastMovement: Int,
                        minimumOverlap: Int, mismatchTolerance: Double) -> Alignment {
        let n = min(a.count, b.count)
        return a.hashes.withUnsafeBufferPointer { ah in
            b.hashes.withUnsafeBufferPointer { bh in
                b.blank.withUnsafeBufferPointer { bb in
                    a.blank.withUnsafeBufferPointer { ab in
                        align(ah, ab, bh, bb, n: n, lastMovement: lastMovement, minimumOverlap: minimumOverlap,
                              tolerance: min(max(mismatchTolerance, 0), 0.5))
                    }
                }
            }
        }
    }

    private mutating func align(_ a: UnsafeBufferPointer<UInt64>, _ aBlank: UnsafeBufferPointer<Bool>,
                                _ b: UnsafeBufferPointer<UInt64>, _ bBlank: UnsafeBufferPointer<Bool>,
                                n: Int, lastMovement: Int, minimumOverlap: Int, tolerance: Double) -> Alignment {
        var top = 0
        while top < n && a[top] == b[top] { top += 1 }
        if top == n { return Alignment(outcome: .unchanged, fixedTop: n, fixedBottom: 0) }
        var bottom = 0
        while bottom < n - top && a[n - 1 - bottom] == b[n - 1 - bottom] { bottom += 1 }
        // Rows that repeat can look fixed (content that moved by whole repeats is equal in place), but the
        // bands are taken per pair of frames: searching between the narrowest bands of the whole capture
        // (tried) made one blink of a caret in a sticky header put the header's rows in every later search,
        // where they differ under the true offset, and most later frames were lost.
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
        if voters.count < n { voters = [UInt8](repeating: 0, count: n) }
        let mask = capacity - 1
        var best = [(offset: Int, votes: Int32)](repeating: (0, 0), count: Self.candidates)
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
            for r in 0..<n { voters[r] = 0 }
            for r in lo..<hi where !bBlank[r] {
                var slot = Int(truncatingIfNeeded: b[r] >> 20) & mask
                while heads[slot] != Self.empty && keys[slot] != b[r] { slot = (slot + 1) & mask }
                guard heads[slot] != Self.empty, counts[slot] <= Self.maximumRepeats else { continue }
                voters[r] = counts[slot] == 1 ? 1 : 2
                var p = heads[slot]
                while p >= 0 {
                    votes[Int(p) - r + span] += 1
                    p = next[Int(p)]
                }
            }
            // The offsets with most votes, most first (insertion into a short sorted list).
            let last = Self.candidates - 1
            for i in 0..<(2 * span + 1) where votes[i] > best[last].votes {
                var j = last
                while j > 0 && votes[i] > best[j - 1].votes { best[j] = best[j - 1]; j -= 1 }
                best[j] = (i - span, votes[i])
            }
        }
        }
        }
        }
        }
        }
        // Of the candidates within tolerance, the one that misplaces fewest unique rows wins, then the one under
        // which most voting rows match (then the fewest mismatches). Blank rows, and rows whose hash repeats (the
        // inside of a box, a table), match under many offsets, so counting them would let a near-miss that
        // shares more rows beat the true offset; a movement by whole repeats matches every repeated row too,
        // and only the unique rows it misplaces tell it from the true offset.
        var chosen: Check?
        var exactFits: [Check] = []
        let needed = max(1, minimumOverlap)
        for candidate in best where candidate.votes > 0 {
            // Fewer shared rows than `minimumOverlap` prove nothing: a few rows (a rule line, blank rows) match
            // by chance under offsets far from the true one, which then tore the image (a frame that moved by
            // 230 rows of a 240-row view was placed 219, -180 and 154 rows on; see StitchOverlapTests).
            let overlap = Self.overlap(candidate.offset, lo: lo, hi: hi)
            guard overlap.count >= needed else { continue }
            let allowed = Int(Double(overlap.count) * tolerance)
            let check = voters.withUnsafeBufferPointer { voters in
                Self.compare(a, b, voters, offset: candidate.offset, rows: overlap, limit: allowed)
            }
            // Nor may most of the shared rows that are not blank in both frames differ: a blank row matches a
            // blank row under any offset, and a wrong offset whose shared rows were mostly blank held with its
            // content rows wrong (171 rows for a movement of 230).
            guard check.wrong <= allowed,
                  check.wrong * 2 <= Self.contentRows(aBlank, bBlank, offset: candidate.offset, rows: overlap) else { continue }
            if check.wrong == 0 { exactFits.append(check) }
            if let c = chosen, !check.beats(c) { continue }
            chosen = check
        }
        if let chosen {
            if chosen.offset == 0 { return Alignment(outcome: .unchanged, fixedTop: top, fixedBottom: bottom) }
            // A winner no unique row backs, or one of several exact fits that unique rows back: the shared rows
            // repeat, and movements by whole repeats fit as well.
            if chosen.unique == 0 || exactFits.contains(where: { $0.offset != chosen.offset && $0.unique > 0 }) {
                let (offset, fits) = Self.nearestFit(to: lastMovement, a, b, bBlank, lo: lo, hi: hi, needed: needed)
                if let offset {
                    return Alignment(outcome: .moved(offset: offset, ambiguous: fits > 1), fixedTop: top, fixedBottom: bottom)
                }
            }
            return Alignment(outcome: .moved(offset: chosen.offset, ambiguous: false), fixedTop: top, fixedBottom: bottom)
        }
        // The blank-overlap rule: the smallest movement whose shared rows all match. Blank rows at the inner
        // edges of the bands, of a colour also blank between them, may be scrolling content that only looked
        // fixed, so the search extends over them, and a movement found so says the bands are the narrower
        // ones: the stitcher copies those rows as content (left out, they were never written).
        let (flo, fhi) = Self.widened(lo: lo, hi: hi, n: n, a, aBlank, b, bBlank)
        let (contentTop, contentBottom) = (flo, n - fhi)
        let searchSpan = fhi - flo
        let preferDown = lastMovement >= 0
        if searchSpan - needed >= 1 {
            for distance in 1...(searchSpan - needed) {
                for sign in 0..<2 {
                    let offset = (sign == 0) == preferDown ? distance : -distance
                    let overlap = Self.overlap(offset, lo: flo, hi: fhi)
                    guard Self.mismatches(a, b, offset: offset, rows: overlap, limit: 0) == 0 else { continue }
                    // Non-blank rows that fit under a movement this small repeat: the fit nearest the last
                    // movement is more likely (the smallest keeps a blank run from growing).
                    if lastMovement != 0 && Self.hasContent(bBlank, overlap) {
                        let nearest = Self.nearestFit(to: lastMovement, a, b, bBlank, lo: flo, hi: fhi, needed: needed)
                        return Alignment(outcome: .moved(offset: nearest.offset ?? offset, ambiguous: true),
                                         fixedTop: contentTop, fixedBottom: contentBottom)
                    }
                    return Alignment(outcome: .moved(offset: offset, ambiguous: true), fixedTop: contentTop, fixedBottom: contentBottom)
                }
            }
        }
        // A change confined to fewer rows than a movement must share (a caret blinking, a spinner) cannot be
        // a movement: the content changed in place. Reported unaligned, it kept a still page looking busy.
        if span < needed { return Alignment(outcome: .unchanged, fixedTop: top, fixedBottom: bottom) }
        return Alignment(outcome: .unaligned, fixedTop: top, fixedBottom: bottom)
    }

    /// Of the movements under which every shared row between `lo` and `hi` matches and some shared row is
    /// not blank, the one nearest `target` (see `key`), and how many there are. At least `needed` rows must
    /// be shared (as for the voted offsets, which are among them when they fit exactly).
    private static func nearestFit(to target: Int, _ a: UnsafeBufferPointer<UInt64>, _ b: UnsafeBufferPointer<UInt64>,
                                   _ bBlank: UnsafeBufferPointer<Bool>, lo: Int, hi: Int,
                                   needed: Int) -> (offset: Int?, fits: Int) {
        var found: Int?, fits = 0
        let span = hi - lo
        for offset in (1 - span)..<span where offset != 0 {
            let shared = overlap(offset, lo: lo, hi: hi)
            guard shared.count >= needed,
                  mismatches(a, b, offset: offset, rows: shared, limit: 0) == 0, hasContent(bBlank, shared) else { continue }
            fits += 1
            if let f = found, key(offset, target) >= key(f, target) { continue }
            found = offset
        }
        return (found, fits)
    }

    /// Nearest `target` first, then in its direction (down when there is none), then the smaller movement.
    @inline(__always)
    private static func key(_ offset: Int, _ target: Int) -> (Int, Int, Int) {
        (abs(offset - target), (offset > 0) == (target >= 0) ? 0 : 1, abs(offset))
    }

    /// Whether any of `rows` is not blank.
    @inline(__always)
    private static func hasContent(_ blank: UnsafeBufferPointer<Bool>, _ rows: Range<Int>) -> Bool {
        rows.contains { !blank[$0] }
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

    /// How `rows` compare between `b[r]` and `a[r + offset]`: the rows that differ (counting up to
    /// `limit + 1`), the unique rows among them, and the voting and unique rows that match.
    @inline(__always)
    private static func compare(_ a: UnsafeBufferPointer<UInt64>, _ b: UnsafeBufferPointer<UInt64>,
                                _ voters: UnsafeBufferPointer<UInt8>, offset: Int, rows: Range<Int>,
                                limit: Int) -> Check {
        var check = Check(offset: offset, wrong: 0, misplacedUnique: 0, informative: 0, unique: 0)
        for r in rows {
            if b[r] != a[r + offset] {
                check.wrong += 1
                if voters[r] == 1 { check.misplacedUnique += 1 }
                if check.wrong > limit { break }
            } else if voters[r] != 0 {
                check.informative += 1
                if voters[r] == 1 { check.unique += 1 }
            }
        }
        return check
    }

    /// How many rows of `rows` are not blank in `b` or, `offset` rows on, in `a`.
    @inline(__always)
    private static func contentRows(_ aBlank: UnsafeBufferPointer<Bool>, _ bBlank: UnsafeBufferPointer<Bool>,
                                    offset: Int, rows: Range<Int>) -> Int {
        var count = 0
        for r in rows where !(bBlank[r] && aBlank[r + offset]) { count += 1 }
        return count
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
