import Testing
@testable import PortalCapture
import PortalTestSupport

/// A long-lived producer node read by one consumer after another (as the test backend's streams and the
/// capture benchmark's producer are) must keep its rate for each of them.
@Suite("PipeWire producer relinking", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized)
struct ProducerRelinkTests {
    /// One consumer on its own connection (like a separate client process): reads frames until stopped.
    struct Reader {
        let core: PipeWireCore
        let stream: VideoCaptureStream
        let collector: FrameCollector

        init(node: UInt32, name: String) async throws {
            core = try PipeWireCore(name: name)
            _ = try await core.waitForNode { $0.id == node }
            collector = FrameCollector()
            stream = try VideoCaptureStream(core: core, target: .node(id: node), eventHandler: collector.eventHandler,
                                            frameHandler: collector.frameHandler)
        }

        /// Disconnects as a client going away does: the stream, then the connection.
        func leave() {
            stream.stop()
            core.close()
        }
    }

    /// Ticks and misses of `producer` over `window`, counted from the producer's own counters.
    func rate(of producer: VideoProducerStream, over window: Duration) async throws -> (produced: UInt64, missed: UInt64) {
        let (p0, m0) = (producer.framesProduced, producer.framesMissed)
        try await Task.sleep(for: window)
        return (producer.framesProduced - p0, producer.framesMissed - m0)
    }

    @Test("a producer keeps every buffer when consumers leave: the fourth consumer gets the full rate")
    func consumersLeavingDoNotCostBuffers() async throws {
        let producerCore = try PipeWireCore(name: "pwrecord-test-relink-src")
        defer { producerCore.close() }
        let format = VideoFormat(pixelFormat: .bgrx, width: 320, height: 240, frameRate: FrameRate(30))
        let producer = try VideoProducerStream(core: producerCore,
                                               options: VideoProducerOptions(format: format, nodeName: "test-relink"),
                                               render: TestPattern.render)
        defer { producer.stop() }
        let node = try await producer.waitUntilReady()
        // Before the fix each departure cost the producer the buffers the consumer still held (measured at
        // 60 fps: 60 -> 45 -> 20 -> 0-15 fps): by the fourth consumer almost every tick found no free buffer.
        for round in 0..<3 {
            let reader = try await Reader(node: node.id, name: "pwrecord-test-relink-\(round)")
            let got = await reader.collector.wait { $0.count >= 10 }
            #expect(got, "consumer \(round) got \(reader.collector.summaries.count) frames; \(reader.stream.statistics)")
            reader.leave()
            try await Task.sleep(for: .milliseconds(200))
        }
        let last = try await Reader(node: node.id, name: "pwrecord-test-relink-3")
        defer { last.leave() }
        #expect(await last.collector.wait { $0.count >= 10 }, "stats \(last.stream.statistics)")
        let (produced, missed) = try await rate(of: producer, over: .milliseconds(1500))
        let ticks = produced + missed
        // 45 ticks in 1.5 s; with the buffers lost by three departures nearly all would be missed.
        // A loaded machine may delay some cycles, so the bound is generous but far from that.
        #expect(ticks >= 20, "the timer ticked \(ticks) times")
        #expect(Double(missed) <= Double(ticks) * 0.2, "missed \(missed) of \(ticks) ticks")
        #expect(last.collector.summaries.allSatisfy { $0.colourMismatch == nil })
        let counters = last.collector.summaries.map(\.counter)
        #expect(zip(counters, counters.dropFirst()).allSatisfy { $0 < $1 }, "no stale buffer is sent again: \(counters)")
    }
}
