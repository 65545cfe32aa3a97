/// Hands each sample to every sink, on the delivery thread: transforms video frames (when the processing
/// options change anything), opens the sinks, calls `formatChanged` before the first frame in a new video
/// format, cuts off a sink at its first error (reporting it once), and closes every sink exactly once.
struct SinkFanOut {
    private struct Slot {
        let sink: any CaptureSink
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
        slots = sinks.map { Slot(sink: $0) }
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
        forEachLiveSink { sink throws(SinkError) in try sink.open(context) }
    }

    /// Returns false when the processor refused the frame (nothing was delivered).
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
            forEachLiveSink { sink throws(SinkError) in try sink.formatChanged(frame.format) }
            onEvent(.formatChanged(from: previous, to: frame.format))
        }
        forEachLiveSink { sink throws(SinkError) in try sink.consume(sample) }
        return true
    }

    /// Tells the live sinks where the recording ended (before `close`).
    mutating func ended(at time: UInt64) {
        forEachLiveSink { sink throws(SinkError) in try sink.ended(at: time) }
    }

    /// Closes every sink, failed or not, once; later calls return the same outcomes.
    mutating func close() -> [SinkOutcome] {
        if let outcomes { return outcomes }
        var outcomes: [SinkOutcome] = []
        for index in slots.indices {
            var result: SinkResult?
            do throws(SinkError) {
                result = try slots[index].sink.close()
            } catch {
                fail(index, error)
            }
            outcomes.append(SinkOutcome(sink: slots[index].sink.id, result: result, errors: slots[index].errors))
        }
        self.outcomes = outcomes
        return outcomes
    }

    private mutating func forEachLiveSink(_ call: (any CaptureSink) throws(SinkError) -> Void) {
        for index in slots.indices where slots[index].live {
            do throws(SinkError) {
                try call(slots[index].sink)
            } catch {
                fail(index, error)
            }
        }
    }

    private mutating func fail(_ index: Int, _ error: SinkError) {
        let first = slots[index].live
        slots[index].errors.append(error)
        if first { onEvent(.sinkFailed(sink: slots[index].sink.id, error: error)) }
    }
}
