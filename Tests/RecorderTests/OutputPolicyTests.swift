import Foundation
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

/// The policy's `output-dirs` governs every place a recording is written: `-o`, the files sinks are told to
/// write, the kept recordings' folder, and `save`.
@Suite("output-dirs covers every file a recording writes", .enabled(if: TestDesktop.isAvailable), .serialized)
struct OutputPolicyTests {
    /// A harness whose policy allows recordings only in `<root>/allowed` (the user file can only tighten).
    func harness() async throws -> (RecorderHarness, URL) {
        let h = try RecorderHarness()
        let allowed = h.root.appendingPathComponent("allowed")
        try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
        try h.writeUserPolicy("[defaults]\noutput-dirs = \(allowed.path)\n")
        // The recorder's policy watcher picks the edit up.
        #expect(await eventually { h.recorder.policyDecision.allowedOutputDirs == [allowed.path] })
        return (h, allowed)
    }

    func disabledReason(_ body: () async throws -> Void) async -> String? {
        do { try await body() } catch let error as RecordingError {
            if case .disabled(let reason) = error { return reason }
            Issue.record("expected disabled, got \(error)")
        } catch { Issue.record("unexpected \(error)") }
        return nil
    }

    @Test("a sink told to write outside the allowed folders is refused before consent, naming the option")
    func sinkOutputOutside() async throws {
        let (h, allowed) = try await harness()
        let outside = h.root.appendingPathComponent("elsewhere/b.y4m").path
        let options = RecordingOptions().output(allowed.appendingPathComponent("b.mkv")).sinks(["raw:output=\(outside)"])
        let reason = await disabledReason { try await h.recorder.startRecording(options) }
        #expect(reason?.contains("raw:output=\(outside)") == true, "\(reason ?? "")")
        #expect(h.provider.startCalls == 0)
    }

    @Test("an option that is no path (the encoder's audio codec) is not taken for one; the raw sink's audio= file is")
    func nonPathOptionIgnored() async throws {
        let (h, allowed) = try await harness()
        let inside = allowed.appendingPathComponent("side.mkv").path
        try await h.recorder.startRecording(RecordingOptions().output(allowed.appendingPathComponent("d.mkv"))
            .sinks(["encoder:output=\(inside),audio=opus"]))
        try await Task.sleep(for: .milliseconds(500))
        _ = try await h.recorder.stopRecording()
        #expect(try MediaTool.probe(inside).contains { $0.type == "video" })

        let outside = h.root.appendingPathComponent("elsewhere.wav").path
        let options = RecordingOptions().output(allowed.appendingPathComponent("e.mkv"))
            .sinks(["raw:output=\(allowed.path)/e.y4m,audio=\(outside)"])
        let reason = await disabledReason { try await h.recorder.startRecording(options) }
        #expect(reason?.contains("raw:audio=\(outside)") == true, "\(reason ?? "")")
    }

    @Test("a sink writing to standard output is refused under output-dirs: the shell could send it anywhere")
    func sinkStandardOutput() async throws {
        let (h, allowed) = try await harness()
        let options = RecordingOptions().output(allowed.appendingPathComponent("c.mkv")).sinks(["raw:output=-"])
        let reason = await disabledReason { try await h.recorder.startRecording(options) }
        #expect(reason?.contains("standard output") == true, "\(reason ?? "")")
        #expect(h.provider.startCalls == 0)
    }

    @Test("a kept recording whose folder was moved outside the allowed ones (XDG_STATE_HOME) is refused before consent")
    func keptFolderOutside() async throws {
        let (h, _) = try await harness()   // the harness's store lies in <root>/state, not in <root>/allowed
        let reason = await disabledReason { try await h.recorder.startRecording(RecordingOptions()) }
        #expect(reason?.contains("XDG_STATE_HOME") == true, "\(reason ?? "")")
        #expect(h.provider.startCalls == 0)
        #expect(h.files(in: h.storeDir).isEmpty)
    }

    @Test("a kept recording in an allowed folder records, and saving it outside the allowed folders is refused")
    func saveOutside() async throws {
        let (h, allowed) = try await harness()
        // The same policy and provider, with the store inside the allowed folder.
        let recorder = ScreenRecorder.standard(appID: "org.pwrecord.Test", provider: h.provider) { c in
            c.store = RecordingStore(root: allowed.appendingPathComponent("state"))
            c.policy = PolicyLocations(systemDirectory: h.policyDir.path, userFile: h.userPolicy.path, trustedOwner: getuid())
        }
        #expect(await eventually { recorder.policyDecision.allowedOutputDirs == [allowed.path] })
        try await recorder.startRecording(RecordingOptions().maxDuration(10))
        try await Task.sleep(for: .milliseconds(500))
        let recording = try await recorder.stopRecording()
        let outside = h.root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let refused = outside.appendingPathComponent("x.mkv")
        #expect(throws: RecordingError.self) { try recording.save(to: refused, allowedBy: recorder.policyDecision) }
        #expect(!FileManager.default.fileExists(atPath: refused.path))
        let accepted = allowed.appendingPathComponent("x.mkv")
        try recording.save(to: accepted, allowedBy: recorder.policyDecision)
        #expect(try mediaDuration(accepted.path) > 0.2)
    }

    @Test("an output folder swapped for a link elsewhere while recording is caught at the end: nothing is put there")
    func folderSwappedWhileRecording() async throws {
        let (h, allowed) = try await harness()
        let sub = allowed.appendingPathComponent("sub"), elsewhere = h.root.appendingPathComponent("elsewhere")
        for dir in [sub, elsewhere] { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) }
        let out = sub.appendingPathComponent("race.mkv")
        try await h.recorder.startRecording(RecordingOptions().output(out))
        try await Task.sleep(for: .milliseconds(500))
        #expect(rename(sub.path, allowed.appendingPathComponent("sub-old").path) == 0)
        try FileManager.default.createSymbolicLink(atPath: sub.path, withDestinationPath: elsewhere.path)
        _ = try await h.recorder.stopRecording()
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty, "nothing was put outside")
        guard case .disabled(let reason)? = h.recorder.lastRecordingError else {
            Issue.record("expected disabled, got \(String(describing: h.recorder.lastRecordingError))")
            return
        }
        #expect(reason.contains("does not allow saving recordings or screenshots"), "\(reason)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: allowed.appendingPathComponent("sub-old").path)
        let partial = try #require(kept.first { $0.hasPrefix("race.partial-") }, "\(kept)")
        // The file went with its folder: the error names where it is now, not where it was made.
        #expect(reason.contains("the recording is in \(allowed.path)/sub-old/\(partial)"), "\(reason)")
    }

    @Test("a policy broken mid-recording stops a recording bound for an output with disabled, naming where the file is")
    func policyBrokenWithOutput() async throws {
        let (h, allowed) = try await harness()
        let spy = DelegateSpy()
        h.recorder.delegate = spy
        try await h.recorder.startRecording(RecordingOptions().output(allowed.appendingPathComponent("live.mkv")))
        try await Task.sleep(for: .seconds(1))
        try h.writeUserPolicy("[defaults]\noutput-dirs = \(allowed.path)\ngarbage line\n")
        guard let reason = await spy.disabledStop() else { return }
        let partial = try #require(try FileManager.default.contentsOfDirectory(atPath: allowed.path).first { $0.hasPrefix("live.partial-") })
        #expect(reason.contains("garbage line") && reason.contains("the recording is in \(allowed.path)/\(partial)"), "\(reason)")
        #expect(try mediaDuration(allowed.appendingPathComponent(partial).path) > 0.5)
    }
}
