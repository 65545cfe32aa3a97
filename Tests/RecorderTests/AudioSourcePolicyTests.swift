import Foundation
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

/// The policy's microphone and system-audio rules hold for the node really read, whichever option names it:
/// the desktop's `test-mic` is an Audio/Source, its `test-speaker` an Audio/Sink.
@Suite("Named audio nodes are checked against the policy", .enabled(if: TestDesktop.isAvailable), .serialized)
struct AudioSourcePolicyTests {
    private func startError(_ h: RecorderHarness, _ options: RecordingOptions) async -> RecordingError? {
        do {
            try await h.recorder.startRecording(options)
            _ = try? await h.recorder.stopRecording()
            return nil
        } catch {
            return error
        }
    }

    @Test("a microphone named by its node records that node's sound")
    func namedMicrophoneRecords() async throws {
        let h = try RecorderHarness()
        try await h.recorder.startRecording(RecordingOptions().microphone(true, node: "test-mic"))
        try await Task.sleep(for: .milliseconds(1500))
        let recording = try await h.recorder.stopRecording()
        #expect(recording.info.warnings == nil, "\(recording.info.warnings ?? [])")
        #expect(try MediaTool.probe(recording.file.path).contains { $0.type == "audio" })
    }

    @Test("an output named as the microphone is refused with disabled when system audio is denied, before consent")
    func outputAsMicrophoneWithSystemAudioDenied() async throws {
        let h = try RecorderHarness(systemPolicy: "[defaults]\nsystem-audio = deny\n")
        let error = await startError(h, RecordingOptions().microphone(true, node: "test-speaker"))
        guard case .disabled(let reason)? = error else { Issue.record("expected disabled, got \(String(describing: error))"); return }
        #expect(reason.contains("test-speaker") && reason.contains("system-audio = deny"), "\(reason)")
        #expect(h.provider.startCalls == 0)
    }

    @Test("a microphone named as system audio is refused with disabled when the microphone is denied, before consent")
    func microphoneAsSystemAudioWithMicrophoneDenied() async throws {
        let h = try RecorderHarness(systemPolicy: "[defaults]\nmicrophone = deny\n")
        let error = await startError(h, RecordingOptions().systemAudio(true, node: "test-mic"))
        guard case .disabled(let reason)? = error else { Issue.record("expected disabled, got \(String(describing: error))"); return }
        #expect(reason.contains("test-mic") && reason.contains("microphone = deny"), "\(reason)")
        #expect(h.provider.startCalls == 0)
    }

    @Test("a node of the wrong kind, or none by that name, is invalidParameter naming it, before consent")
    func wrongKindOrMissing() async throws {
        let h = try RecorderHarness()
        let wrong = await startError(h, RecordingOptions().microphone(true, node: "test-speaker"))
        guard case .invalidParameter(let what)? = wrong else { Issue.record("expected invalidParameter, got \(String(describing: wrong))"); return }
        #expect(what.contains("'test-speaker' is media.class Audio/Sink") && what.contains("system audio node"), "\(what)")
        let missing = await startError(h, RecordingOptions().microphone(true, node: "no-such-microphone"))
        guard case .invalidParameter(let what2)? = missing else { Issue.record("expected invalidParameter, got \(String(describing: missing))"); return }
        #expect(what2.contains("'no-such-microphone'") && what2.contains("no PipeWire node"), "\(what2)")
        #expect(h.provider.startCalls == 0)
    }
}
