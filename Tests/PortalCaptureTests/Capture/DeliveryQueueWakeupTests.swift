import Dispatch
import Testing
@testable import PortalCapture
import PortalTestSupport

@Suite("Delivery queue wake-ups")
struct DeliveryQueueWakeupTests {
    /// A started queue whose sink has opened, and the semaphore its `consume` signals. After `settle` the
    /// delivery thread waits (for `maximumHold`, or without a limit once that ran out) when the test enqueues.
    static func openedQueue(_ options: DeliveryOptions,
                            settle: Duration = .milliseconds(250)) async -> (DeliveryQueue, RecordingSink, DispatchSemaphore) {
        let consumed = DispatchSemaphore(value: 0)
        let sink = RecordingSink(.init(entered: consumed))
        let queue = DeliveryQueue(sinks: [sink], options: options)
        queue.start(.test())
        _ = await eventually { sink.calls.contains(.open) }
        try? await Task.sleep(for: settle)
        return (queue, sink, consumed)
    }

    static func consumed(_ semaphore: DispatchSemaphore, within seconds: Double = 5) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }

    @Test("by default every frame wakes the delivery thread as it comes")
    func everyFrameWakesByDefault() async {
        #expect(DeliveryOptions().samplesPerWakeup == 1)
        let (queue, sink, consumed) = await Self.openedQueue(DeliveryOptions())
        for n in 0..<3 {
            queue.enqueue(Frames.tiny(UInt64(n)))
            #expect(Self.consumed(consumed))
            try? await Task.sleep(for: .milliseconds(100))
        }
        let report = await queue.finish()
        #expect(sink.consumed == ["v0", "v1", "v2"])
        #expect(report.statistics.wakeups == 3, "\(report.statistics)")
    }

    @Test("with two samples per wake-up a frame waits for the next one, and both arrive after one wake-up")
    func twoFramesShareAWakeup() async {
        let (queue, sink, consumed) = await Self.openedQueue(DeliveryOptions().samplesPerWakeup(2, maximumHold: .seconds(30)))
        queue.enqueue(Frames.tiny(0))
        #expect(!Self.consumed(consumed, within: 0.3), "the first frame waits for the second")
        #expect(sink.consumed.isEmpty)
        queue.enqueue(Frames.tiny(1))
        #expect(Self.consumed(consumed) && Self.consumed(consumed))
        #expect(sink.consumed == ["v0", "v1"])
        #expect(queue.statistics.wakeups == 1, "\(queue.statistics)")
        _ = await queue.finish()
    }

    @Test("a lone frame waits no longer than maximumHold: it is delivered without a wake-up")
    func loneFrameIsDeliveredAfterTheHold() async {
        // A hold far longer than the settle: on a loaded machine the frame can come hundreds of milliseconds
        // after the queue opened, and a frame after an idle spell longer than the hold wakes the thread at once.
        let (queue, sink, consumed) = await Self.openedQueue(
            DeliveryOptions().samplesPerWakeup(2, maximumHold: .seconds(2)), settle: .milliseconds(50))
        let enqueued = ContinuousClock.now
        queue.enqueue(Frames.tiny(0))
        #expect(!Self.consumed(consumed, within: 1), "delivered before the hold ran out")
        #expect(Self.consumed(consumed))
        #expect(ContinuousClock.now - enqueued < .seconds(4))
        #expect(sink.consumed == ["v0"])
        #expect(queue.statistics.wakeups == 0, "delivered when the hold ran out: \(queue.statistics)")
        _ = await queue.finish()
    }

    @Test("once a hold ran out with nothing queued, the next frame wakes the idle thread at once")
    func idleThreadIsWokenByTheFirstFrame() async {
        let (queue, sink, consumed) = await Self.openedQueue(
            DeliveryOptions().samplesPerWakeup(2, maximumHold: .milliseconds(100)), settle: .seconds(1))
        queue.enqueue(Frames.tiny(0))
        #expect(Self.consumed(consumed))
        #expect(sink.consumed == ["v0"])
        #expect(queue.statistics.wakeups == 1, "\(queue.statistics)")
        _ = await queue.finish()
    }

    @Test("a frame that may not be held (its stream could not lend the next buffer) wakes the thread at once")
    func unholdableFrameWakesAtOnce() async {
        let (queue, sink, consumed) = await Self.openedQueue(DeliveryOptions().samplesPerWakeup(2, maximumHold: .seconds(30)))
        var frame = Frames.make(.bgrx, width: 2, height: 2, sequence: 0) { _, _ in Pixel(0, 0, 0, 255) }
        frame.mayBeHeld = false
        queue.enqueue(.video(frame))
        #expect(Self.consumed(consumed))
        #expect(sink.consumed == ["v0"])
        #expect(queue.statistics.wakeups == 1, "\(queue.statistics)")
        _ = await queue.finish()
    }
}
