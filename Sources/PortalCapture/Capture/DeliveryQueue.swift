import Foundation

/// The bounded hand-off between PipeWire's data thread and the sinks, and the thread that feeds them.
///
/// `enqueue` is called on the data thread for every frame and audio chunk. It never blocks and never waits
/// for a sink: it takes a lock for an O(1) push and returns. A dedicated delivery thread takes samples off in
/// the order they were enqueued and hands each to every sink (see `CaptureSink` for the sink contract).
///
/// **Drop policy.** Video and audio have separate limits (`DeliveryOptions`). When a frame arrives while
/// `videoCapacity` frames wait, the OLDEST waiting frame is dropped, so the sinks always get the freshest
/// picture and the producer is never held up. Audio is not dropped at the video limit: chunks are only
/// dropped (also oldest first) when `audioCapacity` chunks wait, a hard limit sinks reach only after
/// stalling for seconds. Every drop is counted per kind in `statistics` (and in the final report);
/// sequence numbers of delivered frames still increase, and their gaps show the drops.
///
/// **Processing.** When `options.processing` changes anything, each video frame is transformed
/// (`FrameProcessor`: cursor, masks, crop) on the delivery thread after it leaves the queue, into pooled
/// storage; sinks are opened with the processed format. A frame the options cannot be applied to is
/// withheld, never passed on unprocessed (`.frameRejected`, `rejectedVideo`).
///
/// **Formats.** Before the first frame whose `VideoFormat` differs from the one the sinks know (the context's
/// at `start`, then the last announced), every sink gets `formatChanged` and an event reports the change.
/// With processing, formats are those of the processed frames.
///
/// **Audio mixing.** With `options.audioMixing`, chunks enqueued with a mix source are mixed into one audio
/// stream (`AudioMixer`) on the delivery thread after they leave the queue; `finish()` delivers what the mix
/// still holds before the sinks are closed.
///
/// **Isolated sinks.** A sink whose `isolation` is set (a plugin's) is fed copies of the frames through a
/// bounded queue and a thread of its own (`IsolatedSink`), so it never holds up the other sinks or a lent
/// PipeWire buffer; its drops are counted in its own result. At the end it gets up to its close timeout to
/// take what is queued and close, then it is abandoned (`SinkError.abandoned`).
///
/// **Sink errors.** A sink that throws is reported once through `onEvent` (`.sinkFailed`) with its first
/// `SinkError` and receives nothing more but `close()`. Other sinks carry on.
///
/// **Lifecycle.** Samples enqueued before `start(_:)` wait (under the same limits) until the sinks are opened
/// with the context. `finish()` delivers everything queued, tells the sinks where the recording ended when it
/// was given that (`CaptureSink.ended(at:)`), closes every sink and returns the report;
/// `cancel()` discards what is queued and does the same. `close()` is called exactly once per sink in every
/// case, also for sinks that failed or were never opened. After `finish()` or `cancel()`, `enqueue` refuses
/// samples. Dropping the queue without ending it cancels it (sinks are still closed, on the delivery thread).
///
/// **Wake-ups.** By default every sample wakes the delivery thread. With `options.samplesPerWakeup` N above 1,
/// `enqueue` wakes it only once N samples wait, so it wakes about once for N frames (a wake-up is most of a
/// frame's cost: bench/README.md, capture); a lone sample waits at most `options.maximumHold`. A frame whose
/// stream could not lend the next buffer while it is held (`VideoFrame.mayBeHeld`) wakes the thread at once,
/// and so does the first sample after the thread found nothing for a whole hold. `statistics.wakeups` counts
/// the wake-ups.
///
/// Threading: sinks and `onEvent` are called on the delivery thread only (isolated sinks on their own thread),
/// one call at a time. `DeliveryOptions.threadScheduling` may make the delivery thread `SCHED_BATCH` (see
/// `DeliveryThreadScheduling`).
public final class DeliveryQueue: Sendable {
    private let core: DeliveryCore

    /// Starts the delivery thread; it waits for `start(_:)`.
    /// - Parameters:
    ///   - sinks: fed in this order for every sample.
    ///   - onEvent: called on the delivery thread; keep it short.
    public init(sinks: [any CaptureSink], options: DeliveryOptions = DeliveryOptions(),
                onEvent: @escaping @Sendable (DeliveryEvent) -> Void = { _ in }) {
        let core = DeliveryCore(sinks: sinks, options: options, onEvent: onEvent)
        self.core = core
        let scheduling = options.threadScheduling
        let thread = Thread {
            scheduling.apply()
            core.run()
        }
        thread.name = "pwrecord.delivery"
        thread.start()
    }

    deinit {
        core.end(.cancel) { _ in }
    }

    /// Opens the sinks with `context` on the delivery thread, then delivers. Returns false (and does nothing)
    /// when already started or ended.
    @discardableResult
    public func start(_ context: SinkContext) -> Bool {
        core.start(context)
    }

    /// `start(_:)` with `context.video` already in the processed format (computed by `CapturePipeline`
    /// from the first frame, its own crop metadata included), which is then not processed again.
    /// `onOpened` runs on the delivery thread once the sinks are open (after any `.sinkFailed` of theirs).
    @discardableResult
    func start(processed context: SinkContext, onOpened: (@Sendable () -> Void)? = nil) -> Bool {
        core.start(context, videoIsProcessed: true, onOpened: onOpened)
    }

    /// Hands a sample over; safe from any thread, O(1), never blocks. Returns false when the queue has
    /// ended (`finish()` or `cancel()` was called) and the sample was refused.
    @discardableResult
    public func enqueue(_ sample: consuming CaptureSample) -> Bool {
        core.enqueue(sample)
    }

    /// Lists what a frame's hand-off touches (the queue, its core, the sinks), to be prefetched when the data
    /// thread wakes (`CacheWarmer`).
    func warmCaches(_ warmer: CacheWarmer) {
        warmer.add(object: self)
        core.warmCaches(warmer)
    }

    /// `enqueue(_:)` of a frame, which is not wrapped in a `CaptureSample` on its way into the queue.
    @discardableResult
    func enqueue(video frame: consuming VideoFrame) -> Bool {
        core.enqueue(video: consume frame)
    }

    /// Hands over an audio chunk of mix source `mixInput` (`0..<options.audioMixing.inputs`), as `enqueue(_:)`
    /// does. On the delivery thread it goes into the queue's `AudioMixer`, and the sinks get the mixed stream
    /// instead (in `AudioMixerOptions.outputFormat`), up to `maximumWait` later; without `audioMixing` it is
    /// delivered as it is.
    @discardableResult
    public func enqueue(_ buffer: consuming AudioBuffer, mixInput: Int) -> Bool {
        core.enqueue(audio: buffer, mixInput: mixInput)
    }

    /// Delivers what is queued, then (given `time`, where the recording ended on the samples' timeline) calls
    /// every sink's `ended(at:)`, closes every sink, and returns their outcomes. Later calls return the same
    /// report. A sink that wants to end the delivery calls `finish(then:)` instead.
    public func finish(endingAt time: UInt64? = nil) async -> DeliveryReport {
        await withCheckedContinuation { continuation in
            core.end(.finish, at: time) { continuation.resume(returning: $0) }
        }
    }

    /// Like `finish(endingAt:)`, but calls `completion` (on the delivery thread, or at once when already ended).
    public func finish(endingAt time: UInt64? = nil, then completion: @escaping @Sendable (DeliveryReport) -> Void) {
        core.end(.finish, at: time, completion: completion)
    }

    /// Discards what is queued, closes every sink, and returns their outcomes.
    public func cancel() async -> DeliveryReport {
        await withCheckedContinuation { continuation in
            core.end(.cancel) { continuation.resume(returning: $0) }
        }
    }

    /// Like `cancel()`, but calls `completion` (on the delivery thread, or at once when already ended).
    public func cancel(then completion: @escaping @Sendable (DeliveryReport) -> Void) {
        core.end(.cancel, completion: completion)
    }

    /// The counts so far.
    public var statistics: DeliveryStatistics { core.statistics }
}
