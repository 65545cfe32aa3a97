import Foundation
import Synchronization
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

/// A plugin sink runs apart from the recording's own encoder (its own thread and a bounded queue of frame
/// copies): a slow or stuck plugin costs its own frames, never the file's, and stopping waits for it only up to
/// the isolation's close timeout.
@Suite("A slow plugin sink does not hold up the recording", .enabled(if: TestDesktop.isAvailable), .serialized)
struct SlowPluginTests {
    /// A harness whose registry has `variant` built and loaded from a trusted folder, ended within `closeTimeout`.
    private func harness(_ variant: TestPlugin.Variant, closeTimeout: Duration, waiting: (@Sendable (String) -> Void)? = nil)
        throws -> (harness: RecorderHarness, plugin: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("slow-plugin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(dir, 0o755)
        let plugin = try TestPlugin.build(variant, name: "lib\(variant.id).so", in: dir, marker: dir + "/created")
        let isolation = SinkIsolation().closeTimeout(closeTimeout).onWaiting(waiting)
        var rejected: [SinkError] = []
        let h = try RecorderHarness { c in
            rejected = c.sinks.registerPlugins(from: PluginLoader(directories: [dir]).isolation(isolation))
        }
        #expect(rejected.isEmpty, "\(rejected)")
        return (h, plugin)
    }

    /// Video frames in the file, decoded.
    private func framesInFile(_ path: String) throws -> Int {
        try #require(try MediaTool.probe(path).first { $0.type == "video" }?.frames)
    }

    @Test("startRecording right behind a stopRecording still finalizing (a slow plugin draining) waits for it and starts: a toggle button")
    func startRightBehindAStop() async throws {
        var variant = TestPlugin.Variant(id: "ctoggle")
        variant.sleepMillisecondsPerFrame = 100
        let (h, _) = try harness(variant, closeTimeout: .seconds(5))
        let recorder = h.recorder
        try await recorder.startRecording(RecordingOptions().sinks(["ctoggle"]).cursor(.hidden))
        try await Task.sleep(for: .seconds(1))
        let stopping = Task { try await recorder.stopRecording() }
        #expect(await eventually { !recorder.isRecording })
        try await recorder.startRecording(RecordingOptions().cursor(.hidden))
        let first = try await stopping.value
        try await Task.sleep(for: .milliseconds(700))
        let second = try await recorder.stopRecording()
        #expect(first.file != second.file)
        #expect(try mediaDuration(second.file.path) > 0.3)
    }

    @Test("a plugin sleeping 100 ms per frame leaves the file with every captured frame, and stops in time")
    func slowPluginDoesNotStarveTheEncoder() async throws {
        var variant = TestPlugin.Variant(id: "cslow")
        variant.sleepMillisecondsPerFrame = 100
        let (h, _) = try harness(variant, closeTimeout: .seconds(5))
        try await h.recorder.startRecording(RecordingOptions().sinks(["cslow"]).cursor(.hidden))
        try await Task.sleep(for: .seconds(3))
        let stopping = ContinuousClock.now
        let recording = try await h.recorder.stopRecording()
        // The plugin's queue holds 4 frames: 0.4 s of its work at most; 3 s leaves room for a loaded machine (a
        // full parallel run once took 2.16 s), and is half of what an unbounded backlog of 3 s would take.
        #expect(ContinuousClock.now - stopping < .seconds(3), "stopping took \(ContinuousClock.now - stopping)")
        #expect(h.recorder.lastRecordingError == nil, "\(String(describing: h.recorder.lastRecordingError))")
        let captured = recording.info.videoFrames
        let inFile = try framesInFile(recording.file.path)
        // On the old path the encoder got what the plugin let through: about 10 frames per second.
        #expect(captured >= 60, "the producer sent \(captured) frames in 3 s")
        #expect(inFile >= captured - 3, "the file has \(inFile) of \(captured) captured frames")
        // The plugin took about 10 of the 60 frames a second: the user hears what it missed.
        let warning = try #require(recording.info.warnings?.first { $0.hasPrefix("sink 'cslow' fell behind and missed ") },
                                   "\(String(describing: recording.info.warnings))")
        let missed = Int(warning.dropFirst("sink 'cslow' fell behind and missed ".count).prefix { $0.isNumber }) ?? 0
        #expect(missed >= captured / 2, "\(warning); \(captured) frames captured")
    }

    @Test("a plugin stuck in write_video is abandoned after the close timeout, named with its file, and the file is whole")
    func stuckPluginIsAbandoned() async throws {
        var variant = TestPlugin.Variant(id: "cstuck")
        variant.stallAt = (sequence: 5, milliseconds: 30_000)
        let waited = WaitingNotes()
        let (h, plugin) = try harness(variant, closeTimeout: .seconds(2)) { id in waited.add(id) }
        try await h.recorder.startRecording(RecordingOptions().sinks(["cstuck"]).cursor(.hidden))
        try await Task.sleep(for: .seconds(3))
        let stopping = ContinuousClock.now
        let recording = try await h.recorder.stopRecording()
        let took = ContinuousClock.now - stopping
        #expect(took >= .seconds(2) && took < .seconds(4), "stopping took \(took)")
        #expect(waited.ids == ["cstuck"], "told about the wait once: \(waited.ids)")
        guard case .failed(let reason)? = h.recorder.lastRecordingError else {
            Issue.record("expected failed, got \(String(describing: h.recorder.lastRecordingError))")
            return
        }
        #expect(reason.hasPrefix("plugin sink 'cstuck' (\(plugin)) did not return within 2 s; it was abandoned"), "\(reason)")
        let captured = recording.info.videoFrames
        let inFile = try framesInFile(recording.file.path)
        #expect(captured >= 60 && inFile >= captured - 3, "the file has \(inFile) of \(captured) captured frames")
        #expect(try mediaDuration(recording.file.path) > 2.5)
    }
}

/// The sink ids `SinkIsolation.onWaiting` was called with.
final class WaitingNotes: Sendable {
    private let notes = Mutex<[String]>([])
    func add(_ id: String) { notes.withLock { $0.append(id) } }
    var ids: [String] { notes.withLock { $0 } }
}
