import Foundation
import PortalCapture
import Synchronization

/// Feeds captured frames to a `ScrollStitcher` on the delivery thread (the stitcher is not thread-safe; the
/// delivery thread is one thread), and tells how long ago the content last scrolled.
final class StitchSink: CaptureSink, @unchecked Sendable {
    let id = "stitch"
    // Invariant: `stitcher` is only touched on the delivery thread (consume/close) and after close.
    private let stitcher: ScrollStitcher
    private struct State {
        var lastScroll = ContinuousClock.Instant.now
        var maximum = false
        var error: ScreenshotError?
        var unaligned = 0
        var ambiguous = 0
        /// Frames not joined since the last one that was (0: the content is joined): it scrolled past the
        /// image's end, or changed.
        var lostFrames = 0
    }
    private let state = Mutex(State())

    init(options: StitchOptions) { stitcher = ScrollStitcher(options: options) }

    func open(_ context: SinkContext) throws(SinkError) {}

    func consume(_ sample: CaptureSample) throws(SinkError) {
        guard case .video(let frame) = sample, !state.withLock({ $0.maximum }) else { return }
        do {
            switch try stitcher.consume(frame) {
            case .started: state.withLock { $0.lastScroll = .now; $0.lostFrames = 0 }
            case .scrolled(_, let ambiguous):
                state.withLock { $0.lastScroll = .now; $0.lostFrames = 0; if ambiguous { $0.ambiguous += 1 } }
            case .reachedMaximumHeight: state.withLock { $0.maximum = true }
            // Content that moved too far to be placed (or changed) is still moving: it keeps the idle stop
            // away, and is counted. Frames are placed again once the content is back within reach of the last
            // one placed; until then what they show is not in the image.
            case .unaligned:
                state.withLock { $0.lastScroll = .now; $0.unaligned += 1; $0.lostFrames += 1 }
            case .unchanged: state.withLock { $0.lostFrames = 0 }   // the last frame placed, unmoved
            }
        } catch {
            state.withLock { $0.error = error }
            throw .failed(sink: id, reason: error.description)
        }
    }

    func close() throws(SinkError) -> SinkResult { SinkResult(videoFrames: stitcher.statistics.framesConsumed) }

    var idleFor: Duration { .now - state.withLock { $0.lastScroll } }
    var reachedMaximum: Bool { state.withLock { $0.maximum } }
    /// The content got away from the image: the last frame could not be joined to the last one placed (it
    /// scrolled too far, or the content changed), and frames are left out until it is back within reach.
    var isLost: Bool { state.withLock { $0.lostFrames > 0 } }
    /// Frames left out since the content was last joined (0 when it is joined).
    var lostFrames: Int { state.withLock { $0.lostFrames } }
    /// Frames placed by a guess: the rows they shared with the frame before were blank or repeating, so
    /// several movements fitted (`StitchStep.scrolled(rows:ambiguous:)`).
    var ambiguousFrames: Int { state.withLock { $0.ambiguous } }
    /// Frames that could not be placed against the image, in all (the content scrolled more than a view minus
    /// the overlap the aligner needs since the last frame placed, or changed).
    var unalignedFrames: Int { state.withLock { $0.unaligned } }
    /// Stitching stopped on an error: waiting longer changes nothing.
    var failed: Bool { state.withLock { $0.error != nil } }

    /// The stitched image; call after the pipeline finished. A source that changed size ends the capture but
    /// keeps what was stitched before it (`truncatedBy` says why); other errors throw.
    func result() throws(ScreenshotError) -> (image: StitchedImage, truncatedBy: ScreenshotError?) {
        let error = state.withLock { $0.error }
        if let error {
            guard case .frameSizeChanged = error, stitcher.statistics.framesConsumed > 1 else { throw error }
        }
        return (try stitcher.finish(), error)
    }
}
