import Foundation
import Plugins
import Synchronization

/// `pwrecord-bench consume`: our capture path on a node, into a `NullSink`.
///
/// `--path pipeline` (the default) is the recorder's path: `CapturePipeline` (a `VideoCaptureStream` copying
/// each frame into pooled storage, the `DeliveryQueue` and its delivery thread) into a `NullSink`.
/// `--path stream` is the `VideoCaptureStream` alone, its frames dropped in the handler: the cost of the
/// PipeWire side and the copy, without the delivery thread. `--process-thread loop` makes the stream take
/// its buffers on the core's loop thread instead of PipeWire's data thread (`VideoCaptureOptions.processThread`).
/// `--samples-per-wakeup N` sets the pipeline's `DeliveryOptions.samplesPerWakeup` (default 1: the delivery
/// thread is woken for every frame; 2: once for two frames, with one more buffer borrowed).
///
/// With `--seconds S` it measures itself: after the first frame and `--warmup` seconds, the process's CPU
/// time (`getrusage`) and the frames delivered over `S` seconds. With `--seconds 0` it runs until SIGTERM
/// (the benchmark script measures it from outside, as it does gst-launch) and then prints its totals.
struct ConsumeCommand {
    static let usage = "consume --node ID [--path pipeline|stream] [--process-thread data|loop] [--samples-per-wakeup 1] [--seconds 0] [--warmup 2]"

    enum Path: String { case pipeline, stream }

    let node: UInt32
    let path: Path
    let processThread: VideoCaptureOptions.ProcessThread
    let samplesPerWakeup: Int
    let seconds: Double
    let warmup: Double

    init(_ arguments: [String]) throws(BenchError) {
        let a = try BenchArguments(arguments, valued: ["node", "path", "process-thread", "samples-per-wakeup", "seconds", "warmup"])
        guard let text = a.string("node"), let node = UInt32(text) else { throw .usage("--node ID is required (a PipeWire node id)") }
        self.node = node
        guard let path = Path(rawValue: a.string("path") ?? "pipeline") else { throw .usage("--path must be pipeline or stream") }
        self.path = path
        guard let thread = VideoCaptureOptions.ProcessThread(rawValue: a.string("process-thread") ?? "data") else {
            throw .usage("--process-thread must be data or loop")
        }
        processThread = thread
        samplesPerWakeup = try a.int("samples-per-wakeup", default: 1, in: 1...4)
        seconds = try a.double("seconds", default: 0, in: 0...3600)
        warmup = try a.double("warmup", default: 2, in: 0...60)
    }

    func run() async throws(BenchError) {
        let signals = SignalWaiter()
        let cpuAtStart = ProcessMeasures.cpuSeconds()
        let core: PipeWireCore
        do { core = try PipeWireCore(name: "pwrecord-bench-consumer") } catch {
            throw .setup("cannot connect to PipeWire: \(error)")
        }
        let capture: Capture
        do { capture = try Capture(path: path, processThread: processThread, samplesPerWakeup: samplesPerWakeup, core: core, node: node) } catch {
            throw .setup("cannot start capturing node \(node): \(error)")
        }
        // The first frame (10 s at most).
        let deadline = ProcessMeasures.monotonicSeconds() + 10
        while capture.frames == 0 {
            if ProcessMeasures.monotonicSeconds() > deadline { throw .failed("no frame from node \(node) within 10 s") }
            if await signals.wait(upTo: 0.01) { break }
        }
        if seconds > 0 {
            if await signals.wait(upTo: warmup) { return }
            let (f0, c0, t0) = (capture.frames, ProcessMeasures.cpuSeconds(), ProcessMeasures.monotonicSeconds())
            _ = await signals.wait(upTo: seconds)
            let (f1, c1, t1) = (capture.frames, ProcessMeasures.cpuSeconds(), ProcessMeasures.monotonicSeconds())
            let frames = f1 - f0, cpuMs = (c1 - c0) * 1000
            Output.line(String(format: "ours (%@): %d frames in %.2f s (%.2f fps), cpu %.0f ms, %.3f ms per frame, dropped %d",
                         "\(path.rawValue), \(processThread.rawValue) thread", frames, t1 - t0, Double(frames) / (t1 - t0), cpuMs,
                         cpuMs / Double(max(frames, 1)), capture.dropped))
        } else {
            await signals.wait()
            await capture.finish()
            Output.line(String(format: "ours (%@): %d frames delivered in all (%d without a copy), %d dropped, %d delivery wake-ups, cpu %.0f ms in all (startup included)",
                         "\(path.rawValue), \(processThread.rawValue) thread", capture.frames, capture.borrowed, capture.dropped, capture.wakeups,
                         (ProcessMeasures.cpuSeconds() - cpuAtStart) * 1000))
        }
        await capture.finish()
        core.close()
    }

    /// One of the two paths, counting frames.
    private final class Capture: Sendable {
        private let pipeline: CapturePipeline?
        private let sink: NullSink?
        private let stream: VideoCaptureStream?
        private let streamFrames = Counter()

        /// Frames seen by the stream-only path's handler.
        private final class Counter: Sendable {
            let value = Atomic<Int>(0)
        }

        init(path: Path, processThread: VideoCaptureOptions.ProcessThread, samplesPerWakeup: Int, core: PipeWireCore,
             node: UInt32) throws(PipeWireError) {
            switch path {
            case .pipeline:
                let sink = NullSink()
                var options = CapturePipelineOptions(video: .node(id: node))
                options.videoProcessThread = processThread
                options.delivery = options.delivery.samplesPerWakeup(samplesPerWakeup)
                let pipeline = CapturePipeline(videoCore: core, audioCore: nil, sinks: [sink], options: options) { _ in }
                self.pipeline = pipeline
                self.sink = sink
                stream = nil
                try pipeline.start()
            case .stream:
                pipeline = nil
                sink = nil
                let counter = streamFrames
                var options = VideoCaptureOptions()
                options.processThread = processThread
                stream = try VideoCaptureStream(core: core, target: .node(id: node), options: options) { _ in
                    counter.value.add(1, ordering: .relaxed)
                }
            }
        }

        var frames: Int { sink?.counts.videoFrames ?? streamFrames.value.load(ordering: .relaxed) }

        var wakeups: Int { pipeline?.deliveryStatistics.wakeups ?? 0 }
        var dropped: Int { pipeline?.statistics.droppedFrames ?? stream?.statistics.framesSkipped ?? 0 }

        /// Frames handed on in PipeWire's buffer, without a copy.
        var borrowed: Int { (pipeline?.videoStreamStatistics ?? stream?.statistics)?.framesBorrowed ?? 0 }

        func finish() async {
            _ = await pipeline?.finish()
            stream?.stop()
        }
    }
}
