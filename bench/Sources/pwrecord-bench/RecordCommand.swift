import Foundation
import Plugins
import PortalTestSupport
import Synchronization

/// `pwrecord-bench record`: a recording through `ScreenRecorder` (the standard sinks, the default encoder
/// sink: H.264 veryfast crf 23 in Matroska) for `--minutes`, sampling this process's memory
/// (`/proc/self/status`) every `--interval` seconds from the moment the recording started, then stopping it.
///
/// The frames come from `--node ID` (a `produce` process, as from a compositor: another process) or, with
/// `--in-process`, from `LocalScreenCastProvider` (the producer and its memfd buffers then live in this
/// process and count in its RSS). A private state and policy directory is used and removed afterwards.
///
/// Like `pwrecord record`, it turns transparent huge pages off for its process first
/// (`EncoderSink.disableTransparentHugePages`); `--huge-pages` leaves them on. `--buffer-mapping` overrides the
/// recorder's `videoBufferMapping` (default: the recorder's own, `whileLent`).
struct RecordCommand {
    static let usage = "record (--node ID | --in-process) [--minutes 5] [--width 1920] [--height 1080] [--fps 30] [--interval 10] [--baseline 30] [--keep] [--capture-only [--sink SPEC]] [--buffer-mapping persistent|whileLent] [--held-frames copy|drop:N] [--huge-pages]"

    let node: UInt32?
    let minutes: Double
    let format: VideoFormat
    let interval: Double
    let baseline: Double
    let keep: Bool
    /// Diagnosis: `ScreenRecorder.startCapture` (no kept file, no default encoder sink), into `sink` if given.
    let captureOnly: Bool
    let sink: String?
    let bufferMapping: VideoCaptureOptions.BufferMapping?
    let hugePages: Bool
    let heldFallback: CapturePipelineOptions.HeldBufferFallback?

    init(_ arguments: [String]) throws(BenchError) {
        let a = try BenchArguments(arguments, valued: ["node", "minutes", "width", "height", "fps", "interval", "baseline", "sink", "buffer-mapping", "held-frames"],
                                   flags: ["in-process", "keep", "capture-only", "huge-pages"])
        if let text = a.string("node") {
            guard let id = UInt32(text) else { throw .usage("--node \(text) (a PipeWire node id)") }
            node = id
        } else {
            node = nil
        }
        guard (node != nil) != a.flag("in-process") else { throw .usage("give exactly one of --node ID and --in-process") }
        minutes = try a.double("minutes", default: 5, in: 0.05...600)
        format = VideoFormat(pixelFormat: .bgrx,
                             width: try a.int("width", default: 1920, in: 16...8192),
                             height: try a.int("height", default: 1080, in: 16...8192),
                             frameRate: FrameRate(try a.int("fps", default: 30, in: 1...240)))
        interval = try a.double("interval", default: 10, in: 0.1...600)
        baseline = try a.double("baseline", default: 30, in: 0...36_000)
        keep = a.flag("keep")
        captureOnly = a.flag("capture-only")
        sink = a.string("sink")
        if let text = a.string("buffer-mapping") {
            guard let mapping = VideoCaptureOptions.BufferMapping(rawValue: text) else {
                throw .usage("--buffer-mapping \(text) (persistent or whileLent)")
            }
            bufferMapping = mapping
        } else {
            bufferMapping = nil
        }
        hugePages = a.flag("huge-pages")
        switch a.string("held-frames") {
        case nil: heldFallback = nil
        case "copy": heldFallback = .copy
        case let text?:
            guard text.hasPrefix("drop:"), let n = Int(text.dropFirst(5)), n >= 0 else {
                throw .usage("--held-frames \(text) (copy or drop:N)")
            }
            heldFallback = .drop(maximumInARow: n)
        }
        if sink != nil && !captureOnly { throw .usage("--sink goes with --capture-only (a recording always has the default encoder sink)") }
    }

    struct Sample {
        var time: Double
        var memory: ProcessMeasures.Memory
        var progress: RecordingProgress?
    }

    func run() async throws(BenchError) {
        EncoderSink.setLibraryLogLevel(.error)
        if !hugePages && !EncoderSink.disableTransparentHugePages() {
            throw .failed("prctl(PR_SET_THP_DISABLE) failed (give --huge-pages to measure with them)")
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pwrecord-bench-\(getpid())")
        let policyDir = root.appendingPathComponent("etc-pwrecord")
        do {
            try FileManager.default.createDirectory(at: policyDir, withIntermediateDirectories: true)
        } catch {
            throw .failed("cannot create \(policyDir.path): \(error)")
        }
        chmod(policyDir.path, 0o755)
        defer { if !keep { try? FileManager.default.removeItem(at: root) } }

        let provider: any ScreenCastProvider
        if let node {
            provider = NodeScreenCastProvider(nodeID: node, size: (format.width, format.height))
        } else {
            var behaviour = LocalScreenCastProvider.Behaviour()
            behaviour.format = format
            provider = LocalScreenCastProvider(behaviour)
        }
        let recorder = ScreenRecorder.standard(appID: "org.pwrecord.Bench", provider: provider) { c in
            c.store = RecordingStore(root: root.appendingPathComponent("state/recordings"))
            c.policy = PolicyLocations(systemDirectory: policyDir.path, userFile: nil, trustedOwner: getuid())
            if let bufferMapping { c.videoBufferMapping = bufferMapping }
            if let heldFallback { c.heldBufferFallback = heldFallback }
        }
        let latest = Mutex<RecordingProgress?>(nil)
        let events = recorder.events
        let listener = Task {
            for await event in events { if case .progress(let p) = event { latest.withLock { $0 = p } } }
        }
        defer { listener.cancel() }

        let before = ProcessMeasures.memory()
        let fps = format.frameRate.numerator / max(format.frameRate.denominator, 1)
        do {
            let options = RecordingOptions().fps(fps)
            if captureOnly {
                try await recorder.startCapture(options.sinks(sink.map { [$0] } ?? [])) { _ in }
            } else {
                try await recorder.startRecording(options)
            }
        } catch {
            throw .failed("the recording did not start: \(error)")
        }
        let start = ProcessMeasures.monotonicSeconds()
        Output.line(String(format: "%@ %dx%d@%d for %.2f min from %@; RSS before start %.1f MB",
                     captureOnly ? "capturing (startCapture\(sink.map { " into " + $0 } ?? ""))" : "recording",
                     format.width, format.height, fps, minutes, node.map { "node \($0) (another process)" } ?? "an in-process producer",
                     Double(before.rss) / 1024))
        printHeader()
        var samples: [Sample] = []
        let total = minutes * 60
        var k = 0
        while true {
            // Every `interval` from the start, and a last sample at the end.
            var due = start + Double(k) * interval
            if due > start + total + 1e-6 {
                guard let last = samples.last, last.time < total - 0.5 else { break }
                due = start + total
            }
            let wait = due - ProcessMeasures.monotonicSeconds()
            if wait > 0 { try? await Task.sleep(for: .milliseconds(Int64(wait * 1000))) }
            let sample = Sample(time: ProcessMeasures.monotonicSeconds() - start, memory: ProcessMeasures.memory(),
                                progress: latest.withLock { $0 })
            samples.append(sample)
            printSample(sample)
            k += 1
        }
        let peakWhileRecording = ProcessMeasures.memory().peak
        Output.line("where the memory is at the end (/proc/self/smaps, resident):")
        for m in ProcessMeasures.mappings() where m.kib >= 512 {
            Output.line(String(format: "  %8.1f MB  %@ (%d mappings)", Double(m.kib) / 1024, m.kind, m.count))
        }
        if captureOnly {
            do { try await recorder.stopCapture() } catch { throw .failed("stopping the capture failed: \(error)") }
        } else {
            let recording: Recording
            do { recording = try await recorder.stopRecording() } catch {
                throw .failed("stopping the recording failed: \(error)")
            }
            let info = recording.info
            Output.line(String(format: "recorded %.1f s, %d frames kept, %d dropped (%.1f%%), %.1f MB file",
                               info.duration, info.videoFrames, info.droppedFrames,
                               100 * Double(info.droppedFrames) / Double(max(info.videoFrames + info.droppedFrames, 1)),
                               Double(recording.size) / 1e6))
            if keep { Output.line("kept: \(recording.file.path)") }
        }
        let after = ProcessMeasures.memory()
        report(samples, peakWhileRecording: peakWhileRecording, afterStop: after)
    }

    private func mb(_ kib: Int) -> String { String(format: "%.1f", Double(kib) / 1024) }

    private func printHeader() {
        Output.line("    t(s)   RSS(MB)  anon(MB)  shmem(MB)  file(MB)   frames  dropped")
    }

    private func printSample(_ s: Sample) {
        func column(_ n: Int?, _ width: Int) -> String {
            let text = n.map(String.init) ?? "-"
            return String(repeating: " ", count: max(0, width - text.count)) + text
        }
        let m = s.memory
        Output.line(String(format: "%8.1f  %8.1f  %8.1f  %9.1f  %8.1f  ", s.time, Double(m.rss) / 1024, Double(m.anonymous) / 1024,
                           Double(m.shmem) / 1024, Double(m.file) / 1024)
                    + column(s.progress?.frames, 7) + "  " + column(s.progress?.droppedFrames, 7))
    }

    private func report(_ samples: [Sample], peakWhileRecording: Int, afterStop: ProcessMeasures.Memory) {
        guard let base = samples.first(where: { $0.time >= baseline - 0.5 }), let last = samples.last else {
            Output.line("too short for a growth figure (no sample at or after \(Int(baseline)) s)")
            Output.line("peak (VmHWM) while recording: \(mb(peakWhileRecording)) MB (target <= 120)")
            return
        }
        let after = samples.filter { $0.time >= base.time }
        let maxAfter = after.map(\.memory.rss).max() ?? base.memory.rss
        let growth = last.memory.rss - base.memory.rss
        let anonGrowth = last.memory.anonymous - base.memory.anonymous
        Output.line(String(format: "growth after %.0f s: %@ MB (last %.0f s sample minus the %.0f s one; anon %@ MB); highest sample after it: +%@ MB -> %@ (target <= 2 MB)",
                     base.time, mb(growth), last.time, base.time, mb(anonGrowth), mb(maxAfter - base.memory.rss),
                     growth <= 2048 ? "met" : "MISSED"))
        Output.line(String(format: "peak (VmHWM) while recording: %@ MB; highest sample %@ MB -> %@ (target <= 120 MB)",
                     mb(peakWhileRecording), mb(samples.map(\.memory.rss).max() ?? 0),
                     peakWhileRecording <= 120 * 1024 ? "met" : "MISSED"))
        Output.line("after stop: RSS \(mb(afterStop.rss)) MB, peak \(mb(afterStop.peak)) MB")
    }
}
