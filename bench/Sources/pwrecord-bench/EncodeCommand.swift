import Foundation
import Plugins
import Synchronization

/// `pwrecord-bench encode`: the recorder's encoding path on a node, measured from inside. A `CapturePipeline`
/// (the `VideoCaptureStream` copying each frame into pooled storage, the `DeliveryQueue` and its delivery
/// thread) into an `EncoderSink`: libyuv BGRx to I420, libx264 `--preset` (ultrafast) at `--crf` (23), CFR at
/// the producer's rate, 1 s GOP, Matroska, written to `--output`.
///
/// After the first frame and `--warmup` seconds, it reads the process's CPU time (`getrusage`, every thread)
/// and the frames handed to the encoder; after `--seconds` more it stops capturing, lets the encoder finish
/// what is queued (`close`: flush, trailer) and reads the CPU time again. So the window's CPU pays for every
/// frame counted in it. The encoder's queue blocks instead of dropping (`overflow=block`), so every frame
/// handed to it is encoded; frames the capture side could not hand on in time are dropped there and
/// reported.
///
/// `--buffer-mapping` sets `CapturePipelineOptions.videoBufferMapping` (default: the pipeline's, `persistent`);
/// `--no-huge-pages` turns transparent huge pages off first, as `pwrecord record` does.
///
/// Prints one line `encode frames F cpu_s C video_s V dropped D duplicated U threads T` (V = F / fps), then
/// a readable summary.
struct EncodeCommand {
    static let usage = "encode --node ID [--seconds 10] [--warmup 2] [--fps 60] [--preset ultrafast] [--crf 23] [--threads 0] [--output FILE] [--buffer-mapping persistent|whileLent] [--no-huge-pages]"

    let node: UInt32
    let seconds: Double
    let warmup: Double
    let fps: Int
    let preset: String
    let crf: Int
    let threads: Int
    let output: String
    let bufferMapping: VideoCaptureOptions.BufferMapping
    let hugePages: Bool

    init(_ arguments: [String]) throws(BenchError) {
        let a = try BenchArguments(arguments, valued: ["node", "seconds", "warmup", "fps", "preset", "crf", "threads", "output", "buffer-mapping"],
                                   flags: ["no-huge-pages"])
        guard let text = a.string("node"), let node = UInt32(text) else { throw .usage("--node ID is required (a PipeWire node id)") }
        self.node = node
        seconds = try a.double("seconds", default: 10, in: 1...3600)
        warmup = try a.double("warmup", default: 2, in: 0...60)
        fps = try a.int("fps", default: 60, in: 1...240)
        preset = a.string("preset") ?? "ultrafast"
        crf = try a.int("crf", default: 23, in: 0...51)
        threads = try a.int("threads", default: 0, in: 0...64)
        let mapping = a.string("buffer-mapping") ?? VideoCaptureOptions.BufferMapping.persistent.rawValue
        guard let bufferMapping = VideoCaptureOptions.BufferMapping(rawValue: mapping) else {
            throw .usage("--buffer-mapping \(mapping) (persistent or whileLent)")
        }
        self.bufferMapping = bufferMapping
        hugePages = !a.flag("no-huge-pages")
        output = a.string("output") ?? FileManager.default.temporaryDirectory.appendingPathComponent("pwrecord-bench-encode-\(getpid()).mkv").path
    }

    func run() async throws(BenchError) {
        EncoderSink.setLibraryLogLevel(.error)
        if !hugePages && !EncoderSink.disableTransparentHugePages() { throw .failed("prctl(PR_SET_THP_DISABLE) failed") }
        let signals = SignalWaiter()
        var options = EncoderSink.Options()
        options.output = output
        options.container = .mkv
        options.videoCodec = .h264
        options.preset = preset
        options.crf = crf
        options.pixelFormat = .yuv420p
        options.rate = .cfr
        options.frameRate = FrameRate(fps)
        options.keyframeInterval = 1
        options.threads = threads
        options.overflow = .block
        let encoder: EncoderSink
        do { encoder = try EncoderSink(options: options) } catch { throw .setup("the encoder options: \(error)") }
        let counter = CountingSink(encoder)
        let core: PipeWireCore
        do { core = try PipeWireCore(name: "pwrecord-bench-encoder") } catch {
            throw .setup("cannot connect to PipeWire: \(error)")
        }
        var pipelineOptions = CapturePipelineOptions(video: .node(id: node))
        pipelineOptions.preferredFrameRate = FrameRate(fps)
        pipelineOptions.cursorMetadata = false
        pipelineOptions.videoBufferMapping = bufferMapping
        let pipeline = CapturePipeline(videoCore: core, audioCore: nil, sinks: [counter], options: pipelineOptions) { _ in }
        do { try pipeline.start() } catch { throw .setup("cannot capture node \(node): \(error)") }

        let deadline = ProcessMeasures.monotonicSeconds() + 10
        while counter.frames == 0 {
            if ProcessMeasures.monotonicSeconds() > deadline { throw .failed("no frame from node \(node) within 10 s") }
            if await signals.wait(upTo: 0.01) { return }
        }
        if await signals.wait(upTo: warmup) { return }
        let (f0, c0, d0, t0) = (counter.frames, ProcessMeasures.cpuSeconds(), pipeline.statistics.droppedFrames,
                                ProcessMeasures.monotonicSeconds())
        _ = await signals.wait(upTo: seconds)
        pipeline.stopAccepting()
        let (f1, d1, t1) = (counter.frames, pipeline.statistics.droppedFrames, ProcessMeasures.monotonicSeconds())
        let report = await pipeline.finish()
        let c1 = ProcessMeasures.cpuSeconds()
        core.close()
        if let failure = report.errors.first { throw .failed("the encoder failed: \(failure.error)") }
        let result = report.results.first
        let frames = f1 - f0, cpu = c1 - c0, video = Double(frames) / Double(fps)
        Output.line(String(format: "encode frames %d cpu_s %.3f video_s %.3f dropped %d duplicated %d threads %d",
                           frames, cpu, video, d1 - d0, result?.duplicatedFrames ?? 0, threads))
        Output.line(String(format: "ours: %d frames (%.2f s of video) handed to the encoder in %.2f s (%.1f fps), %d dropped by capture; CPU %.2f s incl. the flush = %.3f CPU s per video s, %.2f ms per frame; %d frames in %@",
                           frames, video, t1 - t0, Double(frames) / (t1 - t0), d1 - d0, cpu, cpu / max(video, 1e-9),
                           cpu * 1000 / Double(max(frames, 1)), result?.videoFrames ?? 0, output))
    }
}

/// Hands every sample to `inner` and counts the video frames (on the delivery thread).
private final class CountingSink: CaptureSink {
    let inner: EncoderSink
    private let count = Atomic<Int>(0)
    var id: String { inner.id }

    init(_ inner: EncoderSink) { self.inner = inner }

    var frames: Int { count.load(ordering: .relaxed) }

    func open(_ context: SinkContext) throws(SinkError) { try inner.open(context) }

    func consume(_ sample: CaptureSample) throws(SinkError) {
        try inner.consume(sample)
        if case .video = sample { count.add(1, ordering: .relaxed) }
    }

    func formatChanged(_ format: VideoFormat) throws(SinkError) { try inner.formatChanged(format) }

    func close() throws(SinkError) -> SinkResult { try inner.close() }
}
