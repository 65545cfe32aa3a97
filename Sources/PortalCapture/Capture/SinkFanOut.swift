/// Hands each sample to every sink, on the delivery thread: transforms video frames (when the processing
/// options change anything), opens the sinks, calls `formatChanged` before the first frame in a new video
/// format, cuts off a sink at its first error (reporting it once), and closes every sink exactly once.
///
/// A sink with an `isolation` is fed through an `IsolatedSink` (its own queue and thread); at the end every
/// isolated sink is let go first, the others are closed meanwhile, and then each isolated one is waited for,
/// up to its close timeout.
struct SinkFanOut {
    private enum Target {
        case direct(any CaptureSink)
        case isolated(IsolatedSink)

        var id: String {
            switch self {
            case .direct(let sink): sink.id
            case .isolated(let isolated): isolated.id
            }
        }
    }

    private enum Call {
        case open(SinkContext)
        case formatChanged(VideoFormat)
        case consume(CaptureSample)
        case ended(UInt64)
    }

    private struct Slot {
        let target: Target
        var errors: [SinkError] = []
        var live: Bool { errors.isEmpty }
    }

    private var slots: [Slot]
    private let onEvent: @Sendable (DeliveryEvent) -> Void
    /// The video format the sinks know: the one they were opened with, then the last one announced.
    private(set) var videoFormat: VideoFormat?
    private var outcomes: [SinkOutcome]?
    private var processor: FrameProcessor?
    /// The error of the last frame the processor refused, while it keeps refusing.
    private var rejection: FrameTransformError?

    init(sinks: [any CaptureSink], processor: FrameProcessor?,
         onEvent: @escaping @Sendable (DeliveryEvent) -> Void) {
        slots = sinks.map { sink in
            Slot(target: sink.isolation.map { .isolated(IsolatedSink(sink, options: $0)) } ?? .direct(sink))
        }
        self.processor = processor
        self.onEvent = onEvent
    }

    /// Opens the sinks; a context video format is replaced by the processed one when it can be computed,
    /// unless `videoIsProcessed` says it already is (processing it again would crop twice).
    mutating func open(_ context: SinkContext, videoIsProcessed: Bool = false) {
        var context = context
        if !videoIsProcessed, let processor, let video = context.video, let processed = try? processor.outputFormat(for: video) {
            context.video = processed
        }
        videoFormat = context.video
        forEachLiveSink(.open(context))
    }

    /// A frame, as `deliver(_:)`. The common case (no processing, the format the sinks know) goes straight to
    /// the sinks; anything else takes `deliver(_:)`, kept out of line so that a frame's code stays short. The loop
    /// is written out rather than calling `forEachLiveSink(.consume(...))`: wrapping the frame in a `Call` cost the
    /// delivery thread 50 more instructions and 8 more hot cache lines a frame (bench/capture/footprint).
    mutating func deliver(video frame: VideoFrame) -> Bool {
        guard processor == nil, frame.format == videoFormat else { return deliver(.video(frame)) }
        for index in slots.indices where slots[index].live {
            do throws(SinkError) {
                switch slots[index].target {
                case .direct(let sink): try sink.consume(.video(frame))
                case .isolated(let sink): try sink.consume(.video(frame))
                }
            } catch {
                fail(index, error)
            }
        }
        return true
    }

    /// Returns false when the processor refused the frame (nothing was delivered).
    @inline(never)
    mutating func deliver(_ sample: CaptureSample) -> Bool {
        var sample = sample
        if case .video(let frame) = sample {
            do throws(FrameTransformError) {
                if let processed = try processor?.process(frame) {
                    sample = .video(processed)
                    rejection = nil
                }
            } catch {
                if rejection != error { onEvent(.frameRejected(error)) }
                rejection = error
                return false
            }
        }
        if case .video(let frame) = sample, frame.format != videoFormat {
            let previous = videoFormat
            videoFormat = frame.format
            forEachLiveSink(.formatChanged(frame.format))
            onEvent(.formatChanged(from: previous, to: frame.format))
        }
        forEachLiveSink(.consume(sample))
        return true
    }

    /// Tells the live sinks where the recording ended (before `close`).
    mutating func ended(at time: UInt64) {
        forEachLiveSink(.ended(time))
    }

    /// Closes every sink, failed or not, once; later calls return the same outcomes.
    mutating func close() -> [SinkOutcome] {
        if let outcomes { return outcomes }
        for slot in slots { if case .isolated(let isolated) = slot.target { isolated.beginClose() } }
        var outcomes: [SinkOutcome] = []
        for index in slots.indices {
            var result: SinkResult?
            var missed = 0
            switch slots[index].target {
            case .direct(let sink):
                do throws(SinkError) {
                    result = try sink.close()
                } catch {
                    fail(index, error)
                }
            case .isolated(let isolated):
                let closed = isolated.awaitClose()
                result = closed.result
                missed = closed.missed
                for error in closed.errors { fail(index, error) }
            }
            outcomes.append(SinkOutcome(sink: slots[index].target.id, result: result, errors: slots[index].errors,
                                        missedBehind: missed))
        }
        self.outcomes = outcomes
        return outcomes
    }

    private mutating func forEachLiveSink(_ call: Call) {
        for index in slots.indices where slots[index].live {
            do throws(SinkError) {
                // Nested switches, not one over a (target, call) tuple: the tuple of an existential and an
                // enum was copied per call through the runtime's generic tuple witnesses (bench/README.md,
                // capture).
                switch slots[index].target {
                case .direct(let sink):
                    switch call {
                    case .open(let context): try sink.open(context)
                    case .formatChanged(let format): try sink.formatChanged(format)
                    case .consume(let sample): try sink.consume(sample)
                    case .ended(let time): try sink.ended(at: time)
                    }
                case .isolated(let sink):
                    switch call {
                    case .open(let context): sink.open(context)
                    case .formatChanged: try sink.formatChanged()
                    case .consume(let sample): try sink.consume(sample)
                    case .ended(let time): try sink.ended(at: time)
                    }
                }
            } catch {
                fail(index, error)
            }
        }
    }

    @inline(never)
    private mutating func fail(_ index: Int, _ error: SinkError) {
        let first = slots[index].live
        slots[index].errors.append(error)
        if first { onEvent(.sinkFailed(sink: slots[index].target.id, error: error)) }
    }
}
