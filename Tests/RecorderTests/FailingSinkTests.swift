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

    /// Fails in `open`, before the first frame reaches any file.
    final class RefusingSink: CaptureSink, @unchecked Sendable {
        let id = "refusing"
        func open(_ context: SinkContext) throws(SinkError) { throw .failed(sink: id, reason: "refused to open") }
        func consume(_ sample: CaptureSample) throws(SinkError) {}
        func close() throws(SinkError) -> SinkResult { SinkResult() }
    }

    /// Takes `delay` over each video frame, so the delivery queue drops frames behind it.
    final class SlowSink: CaptureSink, @unchecked Sendable {
        let id = "slow"
        func open(_ context: SinkContext) throws(SinkError) {}
        func consume(_ sample: CaptureSample) throws(SinkError) {
            if case .video = sample { usleep(100_000) }
        }
        func close() throws(SinkError) -> SinkResult { SinkResult() }
    }

    @Test("an extra sink failing in open ends the recording as not started, and nothing is said to be kept")
    func sinkFailingInOpen() async throws {
        let h = try RecorderHarness { c in
            try? c.sinks.register(SinkFactory(id: "refusing", summary: "fails in open") { _ throws(SinkError) in RefusingSink() })
        }
        let spy = DelegateSpy()
        h.recorder.delegate = spy
        var startError: RecordingError?
        do { try await h.recorder.startRecording(RecordingOptions().sinks(["refusing"]).maxDuration(10)) } catch { startError = error }
        if startError == nil {
            #expect(await eventually(timeout: .seconds(5)) { spy.stopErrors.count == 1 }, "still recording")
            startError = spy.stopErrors.first ?? nil
        }
        guard case .failedToStart(let reason)? = startError else {
            Issue.record("expected failedToStart, got \(String(describing: startError))")
            return
        }
        #expect(reason.contains("refused to open"), "\(reason)")
        #expect(!(startError?.description.contains("kept") ?? true), "\(startError!.description)")
        #expect(h.recorder.keptRecording == nil)
    }

    @Test("behind a slow sink, dropped frames are counted once and the frames reported are the file's")
    func slowSinkCounts() async throws {
        let h = try RecorderHarness { c in
            try? c.sinks.register(SinkFactory(id: "slow", summary: "100 ms a frame") { _ throws(SinkError) in SlowSink() })
        }
        try await h.recorder.startRecording(RecordingOptions().sinks(["slow"]))
        try await Task.sleep(for: .seconds(2))
        _ = try await h.recorder.stopRecording()
        let kept = try #require(h.recorder.keptRecording)
        let inFile = try MediaTool.videoFrameTimes(kept.file.path).count
        #expect(abs(kept.info.videoFrames - inFile) <= 1, "info says \(kept.info.videoFrames) frames, the file has \(inFile)")
        #expect(kept.info.droppedFrames > 0, "a sink taking 100 ms a frame kept up with 30 fps?")
        // The test source sends 30 fps: frames kept and lost together cannot exceed what 2 s (and the stop) sent.
        let sent = kept.info.videoFrames + kept.info.droppedFrames
        #expect(sent <= Int(kept.info.duration * 30) + 10, "\(kept.info.videoFrames) kept + \(kept.info.droppedFrames) dropped in \(kept.info.duration) s")
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
