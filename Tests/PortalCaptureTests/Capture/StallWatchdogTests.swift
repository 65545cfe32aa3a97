import Synchronization
import Foundation
import Testing
@testable import PortalCapture
import PortalTestSupport

@Suite("Stall watchdog")
struct StallWatchdogTests {
    @Test("no frame for the timeout is reported once, as noFrames with that timeout")
    func reportsOnce() async throws {
        let reports = Collector<(CaptureEnd, Duration)>()
        let started = ContinuousClock.now
        let watchdog = StallWatchdog(timeout: .milliseconds(100)) { reports.append(($0, ContinuousClock.now - started)) }
        watchdog.start()
        try await Task.sleep(for: .milliseconds(400))
        #expect(reports.all.count == 1)
        #expect(reports.all.first?.0 == .noFrames(for: .milliseconds(100)))
        #expect((reports.all.first?.1 ?? .zero) >= .milliseconds(100))
        #expect(watchdog.hasFired)
    }

    @Test("frames arriving within the timeout keep it quiet (read on its clock or handed in); it reports once they stop")
    func framesKeepItQuiet() async throws {
        // A hand-driven clock: frames 10 ms apart for 1 s (ten timeouts) must never look like a stall, however
        // the machine schedules the test; then 300 ms of silence must. Every other frame hands its arrival
        // time in, as the capture pipeline does (one clock read per frame for the watchdog and itself).
        let clock = ManualClock()
        let reports = Collector<CaptureEnd>()
        let watchdog = StallWatchdog(timeout: .milliseconds(100), clock: clock.now) { reports.append($0) }
        watchdog.start()
        for i in 0 ..< 100 {
            clock.advance(milliseconds: 10)
            if i.isMultiple(of: 2) { watchdog.frameArrived() } else { watchdog.frameArrived(at: clock.now()) }
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(reports.all.isEmpty, "frames came every 10 ms (clock time) for 1 s")
        clock.advance(milliseconds: 300)
        _ = await eventually(timeout: .seconds(5)) { !reports.all.isEmpty }
        #expect(reports.all == [.noFrames(for: .milliseconds(100))])
    }

    @Test("a cancelled watchdog never reports")
    func cancelStops() async throws {
        let reports = Collector<CaptureEnd>()
        let watchdog = StallWatchdog(timeout: .milliseconds(50)) { reports.append($0) }
        watchdog.start()
        watchdog.cancel()
        try await Task.sleep(for: .milliseconds(200))
        #expect(reports.all.isEmpty)
        #expect(!watchdog.hasFired)
    }
}

/// A monotonic clock the test advances by hand.
final class ManualClock: Sendable {
    private let nanoseconds = Mutex<UInt64>(1_000_000_000)
    var now: @Sendable () -> UInt64 { { [self] in nanoseconds.withLock { $0 } } }
    func advance(milliseconds: UInt64) { nanoseconds.withLock { $0 += milliseconds * 1_000_000 } }
}
