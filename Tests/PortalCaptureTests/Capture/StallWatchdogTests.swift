import Foundation
import Testing
@testable import PortalCapture

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

    @Test("frames arriving within the timeout keep it quiet; it reports once they stop")
    func framesKeepItQuiet() async throws {
        let reports = Collector<CaptureEnd>()
        // The frames span 2.5 timeouts, so only refreshing keeps it quiet; the wide timeout keeps a loaded
        // machine's scheduling gaps (tens of ms) from looking like a stall.
        let watchdog = StallWatchdog(timeout: .milliseconds(400)) { reports.append($0) }
        watchdog.start()
        await onThread {
            for _ in 0 ..< 100 {
                watchdog.frameArrived()
                usleep(10_000)
            }
        }
        #expect(reports.all.isEmpty, "frames came every 10 ms for about 1 s")
        try await Task.sleep(for: .milliseconds(1000))
        #expect(reports.all.count == 1)
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
