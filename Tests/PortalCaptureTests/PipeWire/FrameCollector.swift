import Synchronization
@testable import PortalCapture
import PortalTestSupport

/// What the tests keep of a frame (frames themselves go back to the stream's pool at once).
struct FrameSummary: Sendable {
    var format: VideoFormat
    var stride: Int
    var counter: UInt32
    var colourMismatch: String?
    var timestamp: UInt64
    var receivedAt: UInt64
    var sequence: UInt64
    var crop: PixelRect?
    var cursor: CursorState?
}

/// Collects frame summaries and events from a capture stream's handlers (called on the loop thread).
final class FrameCollector: Sendable {
    private let frames = Mutex<[FrameSummary]>([])
    private let events = Mutex<[VideoCaptureEvent]>([])

    var frameHandler: @Sendable (VideoFrame) -> Void {
        { [self] frame in
            let received = monotonicNanoseconds()
            let summary = FrameSummary(format: frame.format, stride: frame.stride,
                                       counter: TestPattern.decodeCounter(frame),
                                       colourMismatch: TestPattern.checkColourAreas(frame, tolerance: 0),
                                       timestamp: frame.timestamp, receivedAt: received, sequence: frame.sequence,
                                       crop: frame.crop, cursor: frame.cursor)
            frames.withLock { $0.append(summary) }
        }
    }

    var eventHandler: @Sendable (VideoCaptureEvent) -> Void {
        { [self] event in events.withLock { $0.append(event) } }
    }

    var summaries: [FrameSummary] { frames.withLock { $0 } }
    var receivedEvents: [VideoCaptureEvent] { events.withLock { $0 } }

    /// Waits until `condition` holds for the frames collected, or `timeout` passes; returns whether it held.
    func wait(timeout: Duration = .seconds(5), until condition: ([FrameSummary]) -> Bool) async -> Bool {
        await eventually(timeout: timeout) { condition(self.summaries) }
    }

    func waitForEvent(timeout: Duration = .seconds(5), _ matches: (VideoCaptureEvent) -> Bool) async -> Bool {
        await eventually(timeout: timeout) { self.receivedEvents.contains(where: matches) }
    }
}
