import Foundation
import Glibc
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

/// What the recorder's state says around the edges of a recording, as an app reads it (found by an app
/// developer's review: each of these said something else before).
@Suite("ScreenRecorder state at the edges (local cast on PipeWire)", .enabled(if: TestDesktop.isAvailable), .serialized)
struct RecorderStateTests {
    @Test("policyRefusal takes the recorder's microphone setting, as startRecording does")
    func policyRefusalHearsTheMicrophoneSetting() throws {
        let h = try RecorderHarness(systemPolicy: "[defaults]\nmicrophone = deny\n")
        #expect(h.recorder.policyRefusal() == nil)
        h.recorder.isMicrophoneEnabled = true
        guard case .disabled(let reason)? = h.recorder.policyRefusal() else {
            Issue.record("expected disabled, got \(String(describing: h.recorder.policyRefusal()))")
            return
        }
        #expect(reason.contains("microphone"))
        // Options that say so themselves still win.
        #expect(h.recorder.policyRefusal(for: RecordingOptions().microphone(false)) == nil)
    }

    @Test("discardRecording clears lastRecording once it deleted that file")
    func discardClearsLastRecording() async throws {
        let h = try RecorderHarness()
        let recording = try await h.record(for: .milliseconds(500))
        #expect(h.recorder.lastRecording == recording)
        #expect(h.recorder.discardRecording())
        #expect(!FileManager.default.fileExists(atPath: recording.file.path))
        #expect(h.recorder.lastRecording == nil)
        #expect(!h.recorder.discardRecording())
    }

    @Test("stopRecording(output:) refuses an existing destination before stopping: the recording goes on and stops later")
    func existingDestinationIsRefusedBeforeTheStop() async throws {
        let h = try RecorderHarness()
        let spy = DelegateSpy()
        h.recorder.delegate = spy
        let existing = h.root.appendingPathComponent("exists.mkv")
        try Data("mine".utf8).write(to: existing)
        try await h.recorder.startRecording()
        try await Task.sleep(for: .milliseconds(500))
        await #expect {
            try await h.recorder.stopRecording(output: existing)
        } throws: { error in
            guard case .filePermissions(let path, _) = error as? RecordingError else { return false }
            return path == existing.path
        }
        #expect(h.recorder.isRecording)
        #expect(try String(contentsOf: existing, encoding: .utf8) == "mine")
        let saved = h.root.appendingPathComponent("saved.mkv")
        _ = try await h.recorder.stopRecording(output: saved)
        #expect(try mediaDuration(saved.path) > 0.3)
        // One stop, the one asked for, and without an error.
        #expect(await eventually { spy.stopErrors.count == 1 })
        try await Task.sleep(for: .milliseconds(200))
        #expect(spy.stopErrors == [nil])
    }

    @Test("a capture that ends on its own leaves lastRecording and its error as the last recording left them, and stopRecording does not take its end")
    func captureEndingLeavesTheLastRecording() async throws {
        let h = try RecorderHarness()
        let spy = DelegateSpy()
        h.recorder.delegate = spy
        let recording = try await h.record(for: .milliseconds(500))
        let counter = SampleCounter()
        try await h.recorder.startCapture { counter.add($0) }
        #expect(await eventually { counter.video >= 5 })
        h.provider.closeSessions(signal: true)
        // Right after the end, while the capture may still be finishing: a recording's stop is not a capture's.
        await #expect(throws: RecordingError.attemptToStopNonRecording) { try await h.recorder.stopRecording() }
        // The capture's stop is reported once its end has been written down (where the old code wrote it into
        // the last recording's state).
        #expect(await eventually(timeout: .seconds(10)) { spy.stopErrors.count == 2 })
        guard case .interrupted? = spy.stopErrors.last ?? nil else { Issue.record("\(spy.stopErrors)"); return }
        #expect(h.recorder.lastRecording == recording)
        #expect(h.recorder.lastRecordingError == nil)
        #expect(h.recorder.keptRecording == recording)
    }
}
