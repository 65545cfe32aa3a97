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

    @Test("a node passed off as the other kind is refused with disabled when the policy denies that kind, before consent",
          arguments: [
              // (policy key, the node, whether it is named as the microphone)
              ("system-audio", "test-speaker", true),   // an output's monitor as the microphone
              ("microphone", "test-mic", false),        // a microphone as system audio
          ])
    func otherKindDenied(key: String, node: String, asMicrophone: Bool) async throws {
        let h = try RecorderHarness(systemPolicy: "[defaults]\n\(key) = deny\n")
        let options = asMicrophone ? RecordingOptions().microphone(true, node: node) : RecordingOptions().systemAudio(true, node: node)
        let error = await startError(h, options)
        guard case .disabled(let reason)? = error else { Issue.record("expected disabled, got \(String(describing: error))"); return }
        #expect(reason.contains(node) && reason.contains("\(key) = deny"), "\(reason)")
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
