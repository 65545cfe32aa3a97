import CFFmpeg
import Synchronization

/// Encodes video and audio into a file with FFmpeg's libraries: Matroska (default), fragmented MP4 or WebM;
/// H.264 (libx264), VP9 (libvpx-vp9), AV1 (libsvtav1) or lossless FFV1; Opus, AAC or FLAC. Frames are
/// converted with libyuv. See `Options` for what can be chosen and `EncoderSink.factory` for the spec.
///
/// `consume` only queues the sample: conversion, encoding and writing run on the sink's own thread behind
/// a bounded queue (`Options.queueCapacity`, `Options.overflow`), so the delivery thread stays free.
/// An error on that thread is reported by the next `consume` and by `close`. `close` drains the queue,
/// flushes the encoders, writes the container's trailer and closes the file (mode 0600). Audio and video end
/// together where the recording ended (`ended(at:)`): the last frame stays on screen until then and the sound
/// is padded with silence to it; without it, where the samples suggest (see `EncodingPipeline.finish`).
///
/// A full disk: the file keeps `Options.reserveBytes` (and room for the muxer's largest write so far)
/// allocated past its end, so when the disk fills up the sink stops encoding, finalizes the file into that
/// reserve, and reports `insufficientStorage`. A crash
/// (or `kill -9`) leaves a playable file: Matroska clusters and MP4 fragments of at most half a second, and
/// a keyframe every `keyframeInterval`.
public final class EncoderSink: CaptureSink, @unchecked Sendable {
    public let id = "encoder"
    public let options: Options

    private struct Shared {
        var error: SinkError?
        var result: SinkResult?
        /// Where the recording ended (`ended(at:)`), read by the encoding thread when it finishes.
        var end: UInt64?
    }

    private let shared = Mutex(Shared())
    // Set by open, used by consume and close: all on the delivery thread, never concurrently.
    private var worker: SampleWorker<CaptureSample>?

    /// Checks the options that do not depend on the stream (so a bad spec fails at creation).
    public init(options: Options = Options()) throws(SinkError) {
        let container = options.container ?? options.output.flatMap(Options.Container.init(extensionOf:)) ?? .mkv
        try options.validate(container: container)
        self.options = options
    }

    /// The output is given and can be written (`OutputFile.checkDestination`), before consent.
    public func preflight(_ plan: SinkPreflight) throws(SinkError) {
        guard let output = options.output ?? plan.output, !output.isEmpty else {
            throw .invalidOption(sink: id, option: "output", reason: "no output file; give output=FILE or a recording output")
        }
        try OutputFile.checkDestination(output, sink: id)
    }

    public func open(_ context: SinkContext) throws(SinkError) {
        guard worker == nil else { throw .failed(sink: id, reason: "open was called twice") }
        let settings = try options.resolve(context)
        let pipeline = try EncodingPipeline(settings: settings, start: context.startTime, reserve: options.reserveBytes)
        let overflow: SampleWorker<CaptureSample>.Overflow = options.overflow == .drop ? .drop : .block
        worker = SampleWorker(
            name: "pwrecord.encoder", capacity: EncoderTuning.queueCapacity(options.queueCapacity, for: context.video), overflow: overflow,
            handle: { [self] sample in
                guard shared.withLock({ $0.error == nil }) else { return }
                do throws(SinkError) {
                    try pipeline.consume(sample)
                } catch {
                    shared.withLock { $0.error = $0.error ?? error }
                }
            },
            finish: { [self] in
                let (failed, end) = shared.withLock { ($0.error, $0.end) }
                do throws(SinkError) {
                    // After a failure, keep what the encoders hold out of the file: finalize what is there.
                    let result = try pipeline.finish(flush: failed == nil, endingAt: end)
                    shared.withLock { $0.result = result }
                } catch {
                    shared.withLock { s in
                        s.error = s.error ?? error
                        s.result = pipeline.result()
                    }
                }
            })
    }

    public func consume(_ sample: CaptureSample) throws(SinkError) {
        guard let worker else { throw .failed(sink: id, reason: "consume before open") }
        if let error = shared.withLock({ $0.error }) { throw error }
        if case .video = sample {
            worker.submit(sample, droppable: true)
        } else {
            worker.submit(sample, droppable: false)
        }
    }

    /// Frames are scaled to the size the file was opened with (a Matroska or MP4 stream keeps one size).
    public func formatChanged(_ format: VideoFormat) throws(SinkError) {}

    /// The file ends at `time`: read when the encoding thread finishes, after every sample queued before.
    public func ended(at time: UInt64) throws(SinkError) {
        shared.withLock { $0.end = $0.end ?? time }
    }

    public func close() throws(SinkError) -> SinkResult {
        guard let worker else {
            // open failed or was never called: nothing was written.
            return SinkResult()
        }
        worker.finishAndWait()
        self.worker = nil
        let s = shared.withLock { $0 }
        if let error = s.error { throw error }
        var result = s.result ?? SinkResult()
        result.droppedFrames += worker.dropped
        return result
    }

    /// The result so far after a failed `close` (what was finalized), for callers that report both.
    public var partialResult: SinkResult? { shared.withLock { $0.result } }

    /// FFmpeg's process-wide log level (`av_log_set_level`). FFmpeg logs to standard error; a CLI or a test
    /// quiets it with `.error`.
    public enum LibraryLogLevel: Int32, Sendable {
        case quiet = -8, error = 16, warning = 24, info = 32
    }

    /// SVT-AV1 (the av1 encoder) logs on its own, read from `SVT_LOG` when an encoder opens (1 errors, 2
    /// warnings, 3 its banner and settings): it is set to match unless the environment already sets it.
    public static func setLibraryLogLevel(_ level: LibraryLogLevel) {
        av_log_set_level(level.rawValue)
        let svt = switch level { case .quiet: "0"; case .error: "1"; case .warning: "2"; case .info: "3" }
        setenv("SVT_LOG", svt, 0)
    }
}
