import Foundation
import PortalCapture
import Synchronization

/// Feeds captured frames to a `ScrollStitcher` on the delivery thread (the stitcher is not thread-safe; the
/// delivery thread is one thread), and tells how long ago the content last scrolled.
final class StitchSink: CaptureSink, @unchecked Sendable {
    let id = "stitch"
    // Invariant: `stitcher` is only touched on the delivery thread (consume/close) and after close.
    private let stitcher: ScrollStitcher
    private let state = Mutex<(lastScroll: ContinuousClock.Instant, maximum: Bool, error: ScreenshotError?, unaligned: Int)>((.now, false, nil, 0))

    init(options: StitchOptions) { stitcher = ScrollStitcher(options: options) }

    func open(_ context: SinkContext) throws(SinkError) {}

    func consume(_ sample: CaptureSample) throws(SinkError) {
        guard case .video(let frame) = sample, !state.withLock({ $0.maximum }) else { return }
        do {
            switch try stitcher.consume(frame) {
            case .started, .scrolled: state.withLock { $0.lastScroll = .now }
            case .reachedMaximumHeight: state.withLock { $0.maximum = true }
            // Content that moved too far to be placed is still moving: it keeps the idle stop away, and is
            // counted, since what it showed is not in the image.
            case .unaligned: state.withLock { $0.lastScroll = .now; $0.unaligned += 1 }
            case .unchanged: break
            }
        } catch {
            state.withLock { $0.error = error }
            throw .failed(sink: id, reason: error.description)
        }
    }

    func close() throws(SinkError) -> SinkResult { SinkResult(videoFrames: stitcher.statistics.framesConsumed) }

    var idleFor: Duration { .now - state.withLock { $0.lastScroll } }
    var reachedMaximum: Bool { state.withLock { $0.maximum } }
    /// Frames that could not be placed against the image (scrolled more than a view minus the overlap the
    /// aligner needs since the frame before): parts of the page may be missing from the image.
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
