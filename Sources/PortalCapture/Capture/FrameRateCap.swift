/// Keeps a frame stream to at most `cap` frames per second on average, as evenly as the frames allow.
///
/// Each kept frame makes the next one due one interval (1/cap s) after *this one was due*, not after it
/// arrived: a rule "at least an interval since the last kept frame" drops every frame that comes a little
/// early, which turns a 30 fps source capped at 24 into 15 fps and 60 capped at 45 into 30 (measured). A
/// frame is kept when it arrives no earlier than half the source's last frame gap before it is due (at most
/// half an interval): jitter neither loses frames nor lets them bunch. After a gap (a still screen, a pause)
/// the schedule restarts from the frame that ends it, so no burst follows.
struct FrameRateCap: Sendable, Equatable {
    private var due: UInt64?
    private var lastArrival: UInt64?

    /// Whether the frame at `timestamp` (ns, increasing) is kept under `cap` frames per second.
    mutating func keeps(_ timestamp: UInt64, cap: Int) -> Bool {
        let interval = 1_000_000_000 / UInt64(max(cap, 1))
        let gap = lastArrival.map { timestamp > $0 ? timestamp - $0 : 0 } ?? 0
        lastArrival = timestamp
        let slack = min(interval / 2, gap / 2)
        if let due, timestamp &+ slack < due { return false }
        if let due {
            self.due = max(due &+ interval, timestamp &+ interval / 2)
        } else {
            due = timestamp &+ interval
        }
        return true
    }
}
