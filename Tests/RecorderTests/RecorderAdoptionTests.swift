import Dispatch
import Foundation
import Synchronization
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

/// What an app adopting `ScreenRecorder` meets beyond start and stop (found by acting as one): old values,
/// several recorders, a recorder let go, option overrides, the two kinds of session, the main actor.
@Suite("ScreenRecorder as an app adopts it (local cast on PipeWire)", .enabled(if: TestDesktop.isAvailable), .serialized)
struct RecorderAdoptionTests {
    @Test("discarding an old Recording value leaves the recording that replaced it")
    func oldRecordingValueDiscardsNothingNewer() async throws {
        let h = try RecorderHarness()
        try await h.recorder.startRecording()
        let old = try await h.recorder.stopRecording()
        try await h.recorder.startRecording()
        let current = try await h.recorder.stopRecording()
        #expect(old.discard() == false)
        #expect(h.recorder.keptRecording == current)
        #expect(FileManager.default.fileExists(atPath: current.file.path))
        #expect(current.discard())
        #expect(h.recorder.keptRecording == nil)
    }

    @Test("discardRecording while recording does nothing, and the recording still ends kept and playable")
    func discardWhileRecordingDoesNothing() async throws {
        let h = try RecorderHarness()
        try await h.recorder.startRecording()
        try await Task.sleep(for: .milliseconds(800))
        #expect(h.recorder.discardRecording() == false)
        let recording = try await h.recorder.stopRecording()
        #expect(FileManager.default.fileExists(atPath: recording.file.path))
        #expect(try mediaDuration(recording.file.path) > 0.5)
        #expect(h.recorder.keptRecording == recording)
        #expect(h.recorder.discardRecording())
        #expect(!FileManager.default.fileExists(atPath: recording.file.path))
    }

    @Test("a second recorder with the same app id cannot start while the first records, and the first's recording is intact")
    func sameAppIDRecordsOnceAtATime() async throws {
        let h = try RecorderHarness()
        let other = ScreenRecorder(appID: h.recorder.appID, configuration: h.recorder.configuration)
        try await h.recorder.startRecording()
        await #expect(throws: RecordingError.attemptToStartInRecordingState) { try await other.startRecording() }
        try await Task.sleep(for: .milliseconds(800))
        let first = try await h.recorder.stopRecording()
        #expect(try mediaDuration(first.file.path) > 0.5)
        #expect(other.keptRecording == first)
        // Once the first has ended, the other may record (and replaces the kept recording, as one recorder would).
        try await other.startRecording()
        let second = try await other.stopRecording()
        #expect(h.recorder.keptRecording == second)
        #expect(!FileManager.default.fileExists(atPath: first.file.path))
    }

    @Test("a recording with its own output takes no app lock: it runs beside a kept recording of the same app")
    func outputRecordingRunsBesideKeptOne() async throws {
        let h = try RecorderHarness()
        let other = ScreenRecorder(appID: h.recorder.appID, configuration: h.recorder.configuration)
        let output = h.root.appendingPathComponent("own.mkv")
        try await h.recorder.startRecording()
        try await other.startRecording(RecordingOptions().output(output))
        try await Task.sleep(for: .milliseconds(600))
        let own = try await other.stopRecording()
        let kept = try await h.recorder.stopRecording()
        #expect(own.file.path == output.path && !own.isKept)
        #expect(try mediaDuration(own.file.path) > 0.3)
        #expect(try mediaDuration(kept.file.path) > 0.3)
    }

    @Test("a recorder let go while it records finalizes the recording (playable, its length) and finishes its events streams")
    func recorderLetGoFinalizesItsRecording() async throws {
        let h = try RecorderHarness()
        var recorder: ScreenRecorder? = ScreenRecorder(appID: h.recorder.appID, configuration: h.recorder.configuration)
        let events = recorder!.events
        let streamFinished = Mutex(false)
        Task {
            for await _ in events {}
            streamFinished.withLock { $0 = true }
        }
        try await recorder!.startRecording()
        try await Task.sleep(for: .seconds(1))
        recorder = nil
        let finished = await eventually(timeout: .seconds(10)) {
            guard let kept = h.recorder.keptRecording else { return false }
            return kept.info.duration > 0.7 && ((try? mediaDuration(kept.file.path)) ?? 0) > 0.7
        }
        #expect(finished, "the kept recording was finalized with its duration")
        let kept = try #require(h.recorder.keptRecording)
        #expect(await eventually { h.recorder.keptRecording?.info.inProgress == nil }, "finalized, not only followed every 2 s")
        #expect(try MediaTool.decodeVideo(kept.file.path, width: 320, height: 240).frames.count > 5)
        #expect(await eventually { streamFinished.withLock { $0 } }, "the events stream finished")
        // Nothing is recording any more: the same app can record again.
        try await h.recorder.startRecording()
        _ = try await h.recorder.stopRecording()
    }

    @Test("RecordingOptions.microphone(false) overrides a recorder's isMicrophoneEnabled, and leaving it unset follows it")
    func microphoneOptionOverridesRecorderSetting() async throws {
        let h = try RecorderHarness()
        h.recorder.isMicrophoneEnabled = true
        try await h.recorder.startRecording(RecordingOptions().microphone(false))
        try await Task.sleep(for: .milliseconds(800))
        let silent = try await h.recorder.stopRecording()
        #expect(try !MediaTool.probe(silent.file.path).contains { $0.type == "audio" })
        let withMic = try await h.record(for: .milliseconds(800))
        #expect(try MediaTool.probe(withMic.file.path).contains { $0.type == "audio" })
    }

    @Test("stopRecording leaves a capture running and stopCapture leaves a recording running (attemptToStopNonRecording)")
    func captureAndRecordingStopSeparately() async throws {
        let h = try RecorderHarness()
        let spy = DelegateSpy()
        h.recorder.delegate = spy
        try await h.recorder.startCapture { _ in }
        await #expect(throws: RecordingError.attemptToStopNonRecording) { try await h.recorder.stopRecording() }
        #expect(h.recorder.isRecording)
        try await h.recorder.stopCapture()
        try await h.recorder.startRecording()
        await #expect(throws: RecordingError.attemptToStopNonRecording) { try await h.recorder.stopCapture() }
        #expect(h.recorder.isRecording)
        let recording = try await h.recorder.stopRecording()
        #expect(h.recorder.lastRecording == recording)
        #expect(await eventually { spy.stopErrors.count == 2 })
        #expect(spy.stopErrors == [nil, nil])
    }

    @Test("startCapture as an AsyncSequence yields tagged frames and ends after stopCapture")
    func captureAsAsyncSequence() async throws {
        let h = try RecorderHarness()
        let samples = try await h.recorder.startCapture(RecordingOptions(), bufferLimit: 8)
        let reader = Task { () -> (video: Int, last: UInt64) in
            var video = 0, last: UInt64 = 0
            for await sample in samples {
                if case .video(let frame) = sample {
                    #expect(frame.timestamp >= last)
                    last = frame.timestamp
                    video += 1
                }
            }
            return (video, last)
        }
        try await Task.sleep(for: .seconds(1))
        try await h.recorder.stopCapture()
        let result = await reader.value   // returns only because the sequence ended
        #expect(result.video >= 5)
        #expect(h.recorder.keptRecording == nil)
    }

    @Test("a @MainActor delegate on the main event queue hears started, paused, resumed and stopped, in order, on the main actor")
    func mainActorDelegate() async throws {
        let h = try RecorderHarness(configure: { $0.eventQueue = .main })
        let model = MainActorModel()
        h.recorder.delegate = model
        try await h.recorder.startRecording()
        try h.recorder.pauseRecording()
        try h.recorder.resumeRecording()
        _ = try await h.recorder.stopRecording()
        #expect(await eventually { await model.log == ["started", "paused", "resumed", "stopped"] })
    }
}

@Suite("RecordingOptions: the container and the output's extension")
struct RecordingOptionsContainerTests {
    @Test("without a container the output's extension names it; with another one validation names both")
    func containerFollowsOutputExtension() throws {
        #expect(RecordingOptions().container == "mkv")
        #expect(RecordingOptions().output(URL(fileURLWithPath: "/tmp/a.MP4")).container == "mp4")
        #expect(RecordingOptions().output(URL(fileURLWithPath: "/tmp/a.recording")).container == "mkv")
        let mismatch = RecordingOptions().container("mkv").output(URL(fileURLWithPath: "/tmp/a.webm"))
        #expect(throws: RecordingError.self) { try mismatch.validate() }
        do { try mismatch.validate() } catch { #expect(error.description.contains("a.webm") && error.description.contains("mkv")) }
        try RecordingOptions().output(URL(fileURLWithPath: "/tmp/a.webm")).validate()
    }
}

@MainActor
final class MainActorModel: @preconcurrency ScreenRecorderDelegate {
    private(set) var log: [String] = []
    func screenRecorderDidStartRecording(_ recorder: ScreenRecorder) {
        MainActor.assertIsolated()
        log.append("started")
    }
    func screenRecorder(_ recorder: ScreenRecorder, didStopRecordingWith error: RecordingError?) {
        MainActor.assertIsolated()
        log.append("stopped")
    }
    func screenRecorderDidPauseRecording(_ recorder: ScreenRecorder) { log.append("paused") }
    func screenRecorderDidResumeRecording(_ recorder: ScreenRecorder) { log.append("resumed") }
}

@Suite("A recording whose microphone sends nothing", .enabled(if: TestDesktop.isAvailable), .serialized)
struct SilentMicrophoneTests {
    @Test("a microphone that sends nothing leaves a warning with the recording (and in its info), not a silent success")
    func silentMicrophoneIsReported() async throws {
        let h = try RecorderHarness()
        // A microphone that is there and linked but has stopped delivering (paused).
        let core = try PipeWireCore(name: "pwrecord-test-silent-mic")
        defer { core.close() }
        let name = "pwrecord-silent-mic-\(UInt32.random(in: 0...UInt32.max))"
        let mic = try AudioProducerStream(core: core, nodeName: name)
        defer { mic.stop() }
        _ = try await mic.waitUntilReady()
        mic.setActive(false)
        try await h.recorder.startRecording(RecordingOptions().microphone(true, node: name))
        try await Task.sleep(for: .milliseconds(1500))
        let recording = try await h.recorder.stopRecording()
        let warnings = recording.info.warnings ?? []
        #expect(warnings.contains { $0.contains("the microphone sent no sound") }, "\(warnings)")
        #expect(h.recorder.keptRecording?.info.warnings == recording.info.warnings)
        #expect(try mediaDuration(recording.file.path) > 1)
    }

    @Test("a working microphone leaves no warning, and the info names the format the file holds")
    func workingMicrophoneHasNoWarning() async throws {
        let h = try RecorderHarness()
        try await h.recorder.startRecording(RecordingOptions().microphone(true))
        try await Task.sleep(for: .milliseconds(1500))
        let recording = try await h.recorder.stopRecording()
        #expect(recording.info.warnings == nil)
        let audio = try #require(try MediaTool.probe(recording.file.path).first { $0.type == "audio" })
        #expect(recording.info.audioFormat?.channels == audio.channels, "info \(String(describing: recording.info.audioFormat)), file \(audio)")
    }
}
