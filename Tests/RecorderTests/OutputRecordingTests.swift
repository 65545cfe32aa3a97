import Foundation
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

/// A recording started with an output (`RecordingOptions.output`, `pwrecord record -o`) goes to that file and
/// nowhere else: written beside it under a private random name, put in place when it ends, and the app's
/// kept recording is left alone.
@Suite("A recording with an output", .enabled(if: TestDesktop.isAvailable), .serialized)
struct OutputRecordingTests {
    func partials(in dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.contains(".partial-") }
    }

    @Test("it is written beside the output while recording, put there at the end, and the kept recording stays")
    func keptRecordingStays() async throws {
        let h = try RecorderHarness()
        let kept = try await h.record(for: .milliseconds(500))
        let keptBytes = try Data(contentsOf: kept.file)

        let out = h.root.appendingPathComponent("out/talk.mkv")
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        try await h.recorder.startRecording(RecordingOptions().output(out))
        try await Task.sleep(for: .seconds(1))
        #expect(!FileManager.default.fileExists(atPath: out.path), "not at the output before it ends")
        let partial = try #require(partials(in: out.deletingLastPathComponent()).first)
        #expect(partial.hasPrefix("talk.partial-") && partial.hasSuffix(".mkv"), "\(partial)")
        let mode = try FileManager.default.attributesOfItem(atPath: out.deletingLastPathComponent().appendingPathComponent(partial).path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let saved = try await h.recorder.stopRecording()
        #expect(saved.file == out && !saved.isKept)
        #expect(h.recorder.lastRecording == saved && h.recorder.lastRecordingError == nil)
        #expect(try mediaDuration(out.path) > 0.5)
        #expect(try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int == 0o600)
        #expect(partials(in: out.deletingLastPathComponent()).isEmpty)
        #expect(h.recorder.keptRecording == kept)
        #expect(try Data(contentsOf: kept.file) == keptBytes)
        #expect(h.files(in: h.storeDir) == [kept.file.lastPathComponent, "info.json"].sorted(), "no second copy in the store")
    }

    @Test("a file that appears at the output meanwhile is not replaced: the recording stays beside it, and the error says where")
    func outputTakenMeanwhile() async throws {
        let h = try RecorderHarness()
        let out = h.root.appendingPathComponent("taken.mkv")
        try await h.recorder.startRecording(RecordingOptions().output(out))
        try await Task.sleep(for: .milliseconds(500))
        try Data("someone else's".utf8).write(to: out)
        let recording = try await h.recorder.stopRecording()
        #expect(try String(contentsOf: out, encoding: .utf8) == "someone else's")
        #expect(recording.file != out && recording.file.lastPathComponent.hasPrefix("taken.partial-"))
        #expect(try mediaDuration(recording.file.path) > 0.2)
        guard case .filePermissions(let path, let reason)? = h.recorder.lastRecordingError else {
            Issue.record("expected filePermissions, got \(String(describing: h.recorder.lastRecordingError))")
            return
        }
        #expect(path == out.path && reason.contains(recording.file.path), "\(reason)")
    }

    @Test("an output that is a folder, or in a folder anyone may write to without the sticky bit, is refused before consent")
    func unsafeOutputsRefused() async throws {
        let h = try RecorderHarness()
        let folder = h.root.appendingPathComponent("a-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        await #expect(throws: RecordingError.self) {
            try await h.recorder.startRecording(RecordingOptions().output(folder, overwrite: true))
        }
        let open = h.root.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
        chmod(open.path, 0o777)
        let error = await #expect(throws: RecordingError.self) {
            try await h.recorder.startRecording(RecordingOptions().output(open.appendingPathComponent("x.mkv")))
        }
        #expect(error?.description.contains("without the sticky bit") == true, "\(String(describing: error))")
        // A dangling symlink at the output is taken too, and said to be a link.
        let dangling = h.root.appendingPathComponent("dangling.mkv")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "/nonexistent/target")
        await #expect(throws: RecordingError.filePermissions(path: dangling.path, reason: "a symbolic link is there (to /nonexistent/target); "
            + "it is never written through: with `overwrite` (pwrecord's --force) the link itself is replaced by the file")) {
            try await h.recorder.startRecording(RecordingOptions().output(dangling))
        }
        #expect(h.provider.startCalls == 0)
    }

    @Test("a device or FIFO at the output is refused even with overwrite, before consent: a file put in place would replace it")
    func specialFileRefused() async throws {
        let h = try RecorderHarness()
        let fifo = h.root.appendingPathComponent("pipe.mkv")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        for target in [fifo, URL(fileURLWithPath: "/dev/null")] {
            let error = await #expect(throws: RecordingError.self) {
                try await h.recorder.startRecording(RecordingOptions().output(target, overwrite: true))
            }
            #expect(error?.description.contains("not a file") == true && error?.description.contains("--sink encoder:output=") == true,
                    "\(String(describing: error))")
        }
        #expect(h.provider.startCalls == 0)
        var st = stat()
        #expect(lstat(fifo.path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)
        #expect(lstat("/dev/null", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "/dev").filter { $0.contains("partial") }.isEmpty)
    }

    /// A harness whose consent "dialog" stays open for a second: time to swap names on the way meanwhile.
    static func harnessWithConsentDialog() throws -> RecorderHarness {
        var behaviour = LocalScreenCastProvider.Behaviour()
        behaviour.consentDelay = .seconds(1)
        return try RecorderHarness(behaviour: behaviour)
    }

    @Test("a partial name swapped for a symlink while the consent dialog is open is never written through; the output gets the recording")
    func partialNameSwappedDuringConsent() async throws {
        let h = try Self.harnessWithConsentDialog()
        let dir = h.root.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let victim = h.root.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        let out = dir.appendingPathComponent("talk.mkv")
        let recorder = h.recorder
        let starting = Task { try await recorder.startRecording(RecordingOptions().output(out)) }
        // The partial file exists before consent; swap its name for a symlink to the victim's file.
        #expect(await eventually { !partials(in: dir).isEmpty })
        let partial = dir.appendingPathComponent(try #require(partials(in: dir).first))
        #expect(rename(partial.path, dir.appendingPathComponent("moved-away").path) == 0)
        try FileManager.default.createSymbolicLink(atPath: partial.path, withDestinationPath: victim.path)
        try await starting.value
        try await Task.sleep(for: .milliseconds(700))
        let recording = try await h.recorder.stopRecording()
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious", "the victim's file was written through")
        #expect(recording.file == out)
        var st = stat()
        #expect(lstat(out.path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG, "the output is the recording, not a link")
        #expect(try mediaDuration(out.path) > 0.3)
    }

    @Test("a kept recording's folder swapped for a link elsewhere while the consent dialog is open is never written through")
    func keptFolderSwappedDuringConsent() async throws {
        let h = try Self.harnessWithConsentDialog()
        let elsewhere = h.root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let recorder = h.recorder
        let starting = Task { try await recorder.startRecording() }
        // The pending file exists before consent, in the app's folder of the store; swap that folder for a link.
        let appDir = h.root.appendingPathComponent("state/recordings/org.pwrecord.Test")
        #expect(await eventually { ((try? FileManager.default.contentsOfDirectory(atPath: appDir.path)) ?? []).contains { $0.hasSuffix(".mkv") } })
        let moved = h.root.appendingPathComponent("state/recordings/moved-away")
        #expect(rename(appDir.path, moved.path) == 0)
        try FileManager.default.createSymbolicLink(atPath: appDir.path, withDestinationPath: elsewhere.path)
        try await starting.value
        try await Task.sleep(for: .milliseconds(700))
        _ = try? await h.recorder.stopRecording()
        let media = try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).filter { $0.hasSuffix(".mkv") }
        #expect(media.isEmpty, "the recording was written through the link: \(media)")
        let written = try FileManager.default.contentsOfDirectory(atPath: moved.path).filter { $0.hasSuffix(".mkv") }
        let file = try #require(written.first, "the recording is in the folder that was moved")
        #expect(try mediaDuration(moved.appendingPathComponent(file).path) > 0.3)
    }
}
