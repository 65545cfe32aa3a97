import Testing
import PortalTestSupport
@testable import PortalCapture

@Suite("FrameRateCap: at most the cap, and as close to it as the source allows")
struct FrameRateCapTests {
    /// Frames kept per second from `source` fps over 20 s, each frame off its slot by up to ±2 ms.
    private func keptRate(source: Int, cap: Int) -> Double {
        var limiter = FrameRateCap()
        var rng = SplitMix64(seed: UInt64(source * 1000 + cap))
        var kept = 0
        for i in 0..<(source * 20) {
            let slot = UInt64(i) * 1_000_000_000 / UInt64(source) + 10_000_000
            let jitter = Int64(rng.next() % 4_000_001) - 2_000_000
            if limiter.keeps(UInt64(Int64(slot) + jitter), cap: cap) { kept += 1 }
        }
        return Double(kept) / 20
    }

    @Test("a cap below the source's rate gives the cap (30 to 24 is 24 fps, not 15), and one above keeps every frame",
          arguments: [(30, 24), (60, 25), (60, 45), (60, 30), (30, 15), (144, 60), (30, 1), (60, 1), (30, 30), (60, 60), (30, 60)])
    func capIsMet(source: Int, cap: Int) {
        let rate = keptRate(source: source, cap: cap)
        let expected = Double(min(source, cap))
        #expect(abs(rate - expected) <= max(0.02 * expected, 0.05), "\(source) fps capped at \(cap): \(rate) fps")
    }

    @Test("after a still screen the first frame is kept and the next waits at least half an interval (no burst)")
    func noBurstAfterGap() {
        var limiter = FrameRateCap()
        let ms: UInt64 = 1_000_000
        let kept = [0, 100, 5_000, 5_016, 5_050].map { limiter.keeps(UInt64($0) * ms, cap: 10) }
        // 5000: the first after 4.9 s with nothing; 5016: 16 ms later, too soon; 5050: half an interval on.
        #expect(kept == [true, true, true, false, true])
    }
}
