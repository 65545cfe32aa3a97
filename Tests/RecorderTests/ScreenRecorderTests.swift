import Foundation
import Glibc
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

@Suite("ScreenRecorder (local cast on PipeWire)", .enabled(if: TestDesktop.isAvailable), .serialized)
struct ScreenRecorderTests {
    @Test("start, frames, stop: the kept recording is a private, playable file of the right size")
    func recordsAKeptRecording() async throws {
        let h = try RecorderHarness()
        let spy = DelegateSpy()
        h.recorder.delegate = spy
        // The recording starts at the first frame, before startRecording returns (which a loaded machine may
        // delay by seconds), so the time is measured from the call.
        let started = ContinuousClock.now
        try await h.recorder.startRecording()
        #expect(h.recorder.isRecording)
        try await Task.sleep(for: .seconds(2))
        // A loaded machine may oversleep: compare with the time that really passed until stop was asked.
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        let recording = try await h.recorder.stopRecording()
        #expect(!h.recorder.isRecording)
        let mode = try FileManager.default.attributesOfItem(atPath: recording.file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let streams = try MediaTool.probe(recording.file.path)
        let video = try #require(streams.first { $0.type == "video" })
        #expect(video.width == 320 && video.height == 240)
        #expect(video.codec == "h264")
        let duration = try mediaDuration(recording.file.path)
        // The file's duration is the span of the frames captured; a starved producer on a loaded machine may
        // send fewer, so it is bounded by the time recorded rather than equal to it.
        #expect(abs(duration - recording.info.duration) < 0.3, "file \(duration) s, recorder says \(recording.info.duration) s")
        #expect(duration > 1 && duration < elapsed + 0.5, "duration \(duration), recorded for \(elapsed) s")
        let decoded = try MediaTool.decodeVideo(recording.file.path, width: 320, height: 240)
        let first = try #require(decoded.frames.first)
        #expect(TestPattern.checkColourAreas(first) == nil)
        #expect(recording.info.duration > 1.5)
        #expect(await eventually { spy.stopErrors.count == 1 })
        #expect(spy.stopErrors == [nil])
        #expect(h.recorder.keptRecording == recording)
    }

    @Test("save writes a copy and discard deletes the kept recording")
    func saveAndDiscard() async throws {
        let h = try RecorderHarness()
        let recording = try await h.record(for: .seconds(1))
        let dest = h.root.appendingPathComponent("saved.mkv")
        try recording.save(to: dest)
        #expect(try MediaTool.probe(dest.path).contains { $0.type == "video" })
        h.recorder.discardRecording()
        #expect(h.recorder.keptRecording == nil)
        #expect(FileManager.default.fileExists(atPath: dest.path))
    }

    @Test("a second recording replaces the first only once it has started")
    func secondRecordingReplacesFirstOnlyAfterStart() async throws {
        let h = try RecorderHarness()
        let first = try await h.record(for: .milliseconds(500))
        var b = h.provider.behaviour
        b.failNext = .failedToStart(reason: "test")
        h.provider.behaviour = b
        await #expect(throws: RecordingError.failedToStart(reason: "test")) { try await h.recorder.startRecording() }
        #expect(h.recorder.keptRecording == first)
        #expect(FileManager.default.fileExists(atPath: first.file.path))
        #expect(h.files(in: h.storeDir) == [first.file.lastPathComponent, "info.json"].sorted(), "no pending file left")
        try await h.recorder.startRecording()
        #expect(!FileManager.default.fileExists(atPath: first.file.path), "replaced once started")
        let second = try await h.recorder.stopRecording()
        #expect(second.file != first.file)
    }

    @Test("starting while recording and stopping while idle give their codes")
    func stateErrors() async throws {
        let h = try RecorderHarness()
        await #expect(throws: RecordingError.attemptToStopNonRecording) { try await h.recorder.stopRecording() }
        try await h.recorder.startRecording()
        await #expect(throws: RecordingError.attemptToStartInRecordingState) { try await h.recorder.startRecording() }
        _ = try await h.recorder.stopRecording()
    }

    @Test("a cast that never sends a frame fails the start after firstFrameTimeout, saying the stream was linked and got no buffer, and keeps the previous recording")
    func silentCastSaysHowFarItGot() async throws {
        let h = try RecorderHarness { $0.firstFrameTimeout = .seconds(2) }
        try await h.recorder.startRecording()
        let first = try await h.recorder.stopRecording()
        var b = h.provider.behaviour
        b.silent = true
        h.provider.behaviour = b
        let begun = ContinuousClock.now
        var failure: RecordingError?
        do {
            try await h.recorder.startRecording()
        } catch {
            failure = error
        }
        guard case .failedToStart(let reason)? = failure else {
            Issue.record("expected failedToStart, got \(String(describing: failure))")
            return
        }
        #expect(reason.contains("no frame arrived within 2.0 seconds"), "\(reason)")
        #expect(reason.contains("0 buffers received, 0 frames"), "\(reason)")
        #expect(["is paused", "is streaming", "is connecting"].contains { reason.contains($0) }, "the stream's state: \(reason)")
        #expect(ContinuousClock.now - begun < .seconds(20), "the 2 s set, not the harness's 30 s")
        #expect(h.recorder.keptRecording == first)
        #expect(!h.recorder.isRecording)
    }

    @Test("declined consent gives userDeclined, creates nothing and keeps the previous recording")
    func declinedCreatesNothing() async throws {
        let h = try RecorderHarness()
        try await h.recorder.startRecording()
        let first = try await h.recorder.stopRecording()
        let before = h.files(in: h.storeDir)
        var b = h.provider.behaviour
        b.failNext = .userDeclined
        h.provider.behaviour = b
        await #expect(throws: RecordingError.userDeclined) { try await h.recorder.startRecording() }
        #expect(h.files(in: h.storeDir) == before)
        #expect(h.recorder.keptRecording == first)
        #expect(!h.recorder.isRecording)
    }

    @Test("a policy deny gives disabled before any portal call")
    func policyDenyIsDisabledBeforePortal() async throws {
        let h = try RecorderHarness(systemPolicy: "[defaults]\nrecording = deny\n")
        do {
            try await h.recorder.startRecording()
            Issue.record("expected disabled")
        } catch {
            guard case .disabled(let reason) = error else { Issue.record("got \(error)"); return }
            #expect(reason.contains("policy.conf:2"))
        }
        #expect(h.provider.startCalls == 0)
        #expect(!h.recorder.isAvailable)
    }

    @Test("a microphone the policy forbids is refused before any portal call")
    func microphoneDenied() async throws {
        let h = try RecorderHarness(systemPolicy: "[defaults]\nmicrophone = deny\n")
        await #expect(throws: RecordingError.self) { try await h.recorder.startRecording(RecordingOptions().microphone(true)) }
        #expect(h.provider.startCalls == 0)
    }

    @Test("system audio the policy forbids is refused with disabled, naming the key, before any portal call; without it recording starts")
    func systemAudioDenied() async throws {
        let h = try RecorderHarness(systemPolicy: "[defaults]\nsystem-audio = deny\n")
        do {
            try await h.recorder.startRecording(RecordingOptions().systemAudio(true))
            Issue.record("expected disabled")
        } catch {
            guard case .disabled(let reason) = error else { Issue.record("got \(error)"); return }
            #expect(reason.contains("system-audio = deny"), "\(reason)")
        }
        #expect(h.provider.startCalls == 0)
        #expect(await h.recorder.refreshAvailability().isAvailable, "only system audio is denied")
        #expect(h.recorder.policyDecision.microphoneAllowed && !h.recorder.policyDecision.systemAudioAllowed)
    }

    @Test("a capture to the app's handler is the policy's 'callback' sink: refused before any portal call when the sinks leave it out")
    func captureHandlerIsCallbackSink() async throws {
        let h = try RecorderHarness(systemPolicy: "[defaults]\nsinks = encoder, raw\n")
        do {
            try await h.recorder.startCapture { _ in }
            Issue.record("expected disabled")
        } catch {
            guard case .disabled(let reason) = error else { Issue.record("got \(error)"); return }
            #expect(reason.contains("'callback'"), "\(reason)")
        }
        do {
            _ = try await h.recorder.startCapture(bufferLimit: 2)
            Issue.record("expected disabled for the AsyncSequence form too")
        } catch {
            guard case .disabled = error else { Issue.record("got \(error)"); return }
        }
        #expect(h.provider.startCalls == 0)

        let allowed = try RecorderHarness(systemPolicy: "[defaults]\nsinks = callback\n")
        let counter = SampleCounter()
        try await allowed.recorder.startCapture { sample in counter.add(sample) }
        #expect(await eventually { counter.video >= 3 })
        try await allowed.recorder.stopCapture()
    }

    @Test("an unwritable output is refused before consent is asked")
    func unwritableOutputBeforeConsent() async throws {
        let h = try RecorderHarness()
        let out = URL(fileURLWithPath: "/nonexistent-dir-\(UUID().uuidString)/x.mkv")
        await #expect(throws: RecordingError.self) { try await h.recorder.startRecording(RecordingOptions().output(out)) }
        #expect(h.provider.startCalls == 0)
    }

    @Test("editing the policy file while a delegate listens fires availability-changed within 1 s")
    func policyEditFiresAvailability() async throws {
        let h = try RecorderHarness()
        let spy = DelegateSpy()
        h.recorder.delegate = spy
        #expect(await eventually { h.recorder.isAvailable }, "\(h.recorder.availability)")
        try await Task.sleep(for: .milliseconds(200))   // let the event queue deliver the change to available
        let before = spy.availabilityChanges.count
        let editedAt = ContinuousClock.now
        try h.writeUserPolicy("[defaults]\nrecording = deny\n")
        #expect(await eventually(timeout: .seconds(2)) { spy.availabilityChanges.count > before })
        let at = try #require(spy.lastTime(of: "availability"))
        #expect(at - editedAt < .seconds(1), "took \(at - editedAt)")
        #expect(spy.availabilityChanges.last?.isAvailable == false)
    }

    @Test("max-duration ends a recording at the limit within 0.5 s, as a normal stop")
    func maxDurationStops() async throws {
        let h = try RecorderHarness()
        let spy = DelegateSpy()
        h.recorder.delegate = spy
        let called = ContinuousClock.now
        try await h.recorder.startRecording(RecordingOptions().maxDuration(2))
        let startup = ContinuousClock.now - called
        #expect(await eventually(timeout: .seconds(8)) { spy.stopErrors.count == 1 })
        let stoppedAt = try #require(spy.firstTime(of: "stopped"))
        // The limit counts media time from the first frame, which arrives between the call and its return.
        let wall = (stoppedAt - called) / .seconds(1)
        #expect(wall >= 1.5 && wall <= 2.5 + startup / .seconds(1), "stopped \(wall) s after the call (startup \(startup))")
        #expect(spy.stopErrors == [nil])
        let kept = try #require(h.recorder.keptRecording)
        let duration = try mediaDuration(kept.file.path)
        #expect(abs(duration - 2) < 0.5, "duration \(duration)")
    }

    @Test("the session closed with a signal: interrupted once within 1 s, and the recording is kept and playable",
          arguments: [true, false])
    func sessionClosedInterrupts(signal: Bool) async throws {
        let h = try RecorderHarness()
        let spy = DelegateSpy()
        h.recorder.delegate = spy
        try await h.recorder.startRecording()
        try await Task.sleep(for: .seconds(1))
        let closedAt = ContinuousClock.now
        h.provider.closeSessions(signal: signal)
        #expect(await eventually(timeout: .seconds(3)) { !spy.stopErrors.isEmpty })
        let at = try #require(spy.firstTime(of: "stopped"))
        #expect(at - closedAt < .seconds(1), "took \(at - closedAt)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(spy.stopErrors.count == 1)
        guard case .interrupted? = spy.stopErrors.first ?? nil else { Issue.record("\(spy.stopErrors)"); return }
        let kept = try #require(h.recorder.keptRecording)
        #expect(try mediaDuration(kept.file.path) > 0.5)
        #expect(!h.recorder.isRecording)
    }

    @Test("startCapture hands tagged samples to the handler")
    func startCaptureHandsSamples() async throws {
        let h = try RecorderHarness()
        let counter = SampleCounter()
        try await h.recorder.startCapture { sample in counter.add(sample) }
        #expect(await eventually { counter.video >= 10 })
        try await h.recorder.stopCapture()
        #expect(h.recorder.keptRecording == nil)
    }
}

final class SampleCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var v = 0, a = 0
    func add(_ s: CaptureSample) { lock.lock(); if case .video = s { v += 1 } else { a += 1 }; lock.unlock() }
    var video: Int { lock.lock(); defer { lock.unlock() }; return v }
}
