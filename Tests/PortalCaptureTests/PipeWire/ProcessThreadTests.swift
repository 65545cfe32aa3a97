import CPipeWire
import Dispatch
import Synchronization
import Testing
@testable import PortalCapture
import PortalTestSupport

/// `VideoCaptureOptions.processThread`: which thread makes frames, and buffers going back to the producer
/// from that thread alone, without waking it (`BufferLender`).
@Suite("PipeWire video process thread", .enabled(if: TestDesktop.isAvailable), .serialized)
struct ProcessThreadTests {
    /// Where the frame handler ran, per frame.
    final class ThreadLog: Sendable {
        let entries = Mutex<[(onData: Bool, onLoop: Bool)]>([])
    }

    /// A producer in a connection of its own (as a compositor is another process) with 4 buffers, the
    /// fewest the stream lends with, and a consumer on `core` with `options`.
    private func withLoop(_ name: String, options: VideoCaptureOptions, fps: Int = 60,
                          handler: @escaping @Sendable (VideoFrame, PipeWireCore) -> Void,
                          body: (VideoProducerStream, VideoCaptureStream, FrameCollector) async throws -> Void) async throws {
        let format = VideoFormat(pixelFormat: .bgrx, width: 320, height: 240, frameRate: FrameRate(fps))
        var producerOptions = VideoProducerOptions(format: format, nodeName: name)
        producerOptions.bufferCount = 4
        let loop = try await SeparateProducer.start(name: name, options: producerOptions)
        defer { loop.close() }
        let (core, producer, node) = (loop.core, loop.producer, loop.node)
        let collector = FrameCollector()
        let collect = collector.frameHandler
        let consumer = try VideoCaptureStream(core: core, target: .node(id: node.id), options: options,
                                              eventHandler: collector.eventHandler) { frame in
            collect(frame)
            handler(frame, core)
        }
        defer { consumer.stop() }
        try await body(producer, consumer, collector)
    }

    @Test("by default frames are made on PipeWire's data thread, and every one borrows its buffer")
    func dataThreadByDefault() async throws {
        let log = ThreadLog()
        try await withLoop("pwrecord-test-rt", options: VideoCaptureOptions(), handler: { _, core in
            let onLoop = pw_thread_loop_in_thread(core.threadLoop)
            log.entries.withLock { $0.append((core.isOnDataThread, onLoop)) }
        }) { producer, consumer, collector in
            #expect(await collector.wait { $0.count >= 60 })
            let stats = consumer.statistics
            let entries = log.entries.withLock { $0 }
            #expect(entries.allSatisfy { $0.onData && !$0.onLoop }, "\(entries.filter { !$0.onData || $0.onLoop }.count) frames elsewhere")
            // Each frame's buffer went back at a later cycle, with no thread woken for it, in time for the next
            // frame to borrow it: were buffers not given back, only the first frame would borrow (one at a time).
            // A loaded machine may make a cycle take two buffers at once, and that frame is copied.
            #expect(stats.framesBorrowed * 10 >= stats.framesDelivered * 9, "stats \(stats)")
            // A buffer given back a cycle late would leave the producer without one on most ticks; a loaded
            // machine delays a few cycles (7 misses in 66 frames once in a full local run, where 3 was the bound).
            #expect(producer.framesMissed * 5 <= stats.framesDelivered,
                    "the producer lacked a buffer \(producer.framesMissed) times for \(stats.framesDelivered) frames")
            #expect(collector.summaries.allSatisfy { $0.colourMismatch == nil })
        }
    }

    @Test("with processThread loop, frames are made on the core's loop thread")
    func loopThreadOnRequest() async throws {
        let log = ThreadLog()
        var options = VideoCaptureOptions()
        options.processThread = .loop
        try await withLoop("pwrecord-test-loopthread", options: options, handler: { _, core in
            let onLoop = pw_thread_loop_in_thread(core.threadLoop)
            log.entries.withLock { $0.append((core.isOnDataThread, onLoop)) }
        }) { producer, consumer, collector in
            #expect(await collector.wait { $0.count >= 30 })
            let entries = log.entries.withLock { $0 }
            #expect(entries.allSatisfy { !$0.onData && $0.onLoop })
            let stats = consumer.statistics
            #expect(stats.framesBorrowed * 10 >= stats.framesDelivered * 9, "stats \(stats)")
            #expect(producer.framesMissed * 5 <= stats.framesDelivered,   // as above
                    "the producer lacked a buffer \(producer.framesMissed) times for \(stats.framesDelivered) frames")
        }
    }

    @Test("a frame a sink keeps past the next one goes back later, and the producer keeps its rate",
          arguments: VideoCaptureOptions.ProcessThread.allCases)
    func heldFramesGoBackAtALaterCycle(thread: VideoCaptureOptions.ProcessThread) async throws {
        // A sink that keeps each frame for 40 ms (2.4 frames at 60 fps) on a queue of its own: the next frames
        // cannot borrow (one at a time) and are copied, and each kept buffer is released off the data thread,
        // between cycles. It must reach the producer again without anyone waking the data thread for it.
        let sink = DispatchQueue(label: "pwrecord-test-slow-sink")
        var options = VideoCaptureOptions()
        options.processThread = thread
        try await withLoop("pwrecord-test-held-\(thread.rawValue)", options: options, handler: { frame, _ in
            sink.asyncAfter(deadline: .now() + .milliseconds(40)) { withExtendedLifetime(frame) {} }
        }) { producer, consumer, collector in
            #expect(await collector.wait { $0.count >= 10 })
            let produced = producer.framesProduced, delivered = collector.summaries.count
            let borrowed = consumer.statistics.framesBorrowed, stale = consumer.statistics.skippedStale
            try await Task.sleep(for: .seconds(1))
            let stats = consumer.statistics
            // Each kept frame's buffer is released between cycles and must come back to be lent again: about
            // one frame in three borrows (the others arrive while one is kept, and are copied). A buffer not
            // given back would stay lent for good, and no frame would borrow after the first.
            #expect(stats.framesBorrowed - borrowed >= 5, "stats \(stats)")
            #expect(stats.framesBorrowed < stats.framesDelivered, "frames arriving while one is kept are copied")
            // The producer keeps its rate: it always keeps 2 buffers (a loaded machine may make it miss a few ticks).
            let producedInWindow = producer.framesProduced - produced
            #expect(producedInWindow >= 45, "the producer kept (most of) its 60 fps")
            let handedOn = collector.summaries.count - delivered, passedOver = stats.skippedStale - stale
            if thread == .data {
                // Every frame sent reaches the stream (handed on, or passed over for a newer one), bar those in
                // flight at the window's edges, where the two counts are read a moment apart (CI once: 44 handed
                // on of at least 45 sent, none passed over; a full parallel run once: 52 of 57).
                #expect(handedOn + passedOver + 5 >= producedInWindow,
                        "\(handedOn) handed on, \(passedOver) passed over as stale, \(producedInWindow) sent")
            } else {
                // On the loop thread fewer reach the handler: 40-44 of 60 measured, with none counted stale. A C
                // consumer without our code shows the same (bench/capture/loop-hold.c; docs/pipewire.md).
                #expect(handedOn >= 30, "\(handedOn) handed on, \(passedOver) passed over as stale")
            }
            #expect(producer.framesMissed <= 6, "the producer lacked a buffer \(producer.framesMissed) times")
            #expect(collector.summaries.allSatisfy { $0.colourMismatch == nil })
        }
    }
}
