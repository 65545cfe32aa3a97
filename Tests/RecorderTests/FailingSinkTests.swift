import Foundation
import Synchronization
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

/// A sink a recording was asked to feed that fails stops the recording at once, keeping what was recorded,
/// as docs/plugins.md says; it is not found out only at the end.
@Suite("A failing sink stops the recording", .enabled(if: TestDesktop.isAvailable), .serialized)
struct FailingSinkTests {
    /// Fails on its `after`-th frame.
    final class FailingSink: CaptureSink, @unchecked Sendable {
        let id = "failing"
        let after: Int
        private let frames = Mutex(0)
        init(after: Int) { self.after = after }
        func open(_ context: SinkContext) throws(SinkError) {}
        func consume(_ sample: CaptureSample) throws(SinkError) {
            guard case .video = sample else { return }
            let n = frames.withLock { $0 += 1; return $0 }
            if n >= after { throw .failed(sink: id, reason: "gave up at frame \(n)") }
        }
        func close() throws(SinkError) -> SinkResult { SinkResult() }
    }

    @Test("an extra sink failing mid-recording stops it within a second, and the kept file plays")
    func extraSinkFailureStops() async throws {
        let h = try RecorderHarness { c in
            try? c.sinks.register(SinkFactory(id: "failing", summary: "fails on its 15th frame") { _ throws(SinkError) in
                FailingSink(after: 15)
            })
        }
        let spy = DelegateSpy()
        h.recorder.delegate = spy
        try await h.recorder.startRecording(RecordingOptions().sinks(["failing"]).maxDuration(10))
        let started = ContinuousClock.now
        #expect(await eventually(timeout: .seconds(5)) { spy.stopErrors.count == 1 }, "still recording")
        let stopped = try #require(spy.firstTime(of: "stopped"))
        #expect(stopped - started < .seconds(3), "stopped after \(stopped - started)")
        guard case .failed(let reason)?? = spy.stopErrors.first else {
            Issue.record("expected failed, got \(spy.stopErrors)")
            return
        }
        #expect(reason.contains("gave up at frame 15"), "\(reason)")
        let kept = try #require(h.recorder.keptRecording)
        #expect(try mediaDuration(kept.file.path) > 0.2)
    }
}
