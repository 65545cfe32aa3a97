import Testing
@testable import PortalCapture
import PortalTestSupport

@Suite("PipeWire video loopback", .enabled(if: TestDesktop.isAvailable), .serialized)
struct VideoLoopbackTests {
    /// A producer and a consumer linked in one process (WirePlumber links them).
    struct Loop {
        let core: PipeWireCore
        let producer: VideoProducerStream
        let consumer: VideoCaptureStream
        let collector: FrameCollector
        let node: PipeWireNodeInfo
    }

    func makeLoop(format: VideoFormat, cursor: Bool = false, name: String, timeout: Duration? = nil) async throws -> Loop {
        let core = try PipeWireCore(name: "pwrecord-test")
        var producerOptions = VideoProducerOptions(format: format, nodeName: name)
        producerOptions.cursorMetadata = cursor
        let producer = try VideoProducerStream(core: core, options: producerOptions,
                                               cursor: cursor ? TestCursor.provider : nil,
                                               render: TestPattern.render)
        let node = try await producer.waitUntilReady()
        let collector = FrameCollector()
        var options = VideoCaptureOptions()
        options.noFrameTimeout = timeout
        let consumer = try VideoCaptureStream(core: core, target: .node(id: node.id), options: options,
                                              eventHandler: collector.eventHandler,
                                              frameHandler: collector.frameHandler)
        return Loop(core: core, producer: producer, consumer: consumer, collector: collector, node: node)
    }

    @Test("frames arrive with the right size, format, colours and an increasing counter",
          arguments: PixelFormat.allCases)
    func framesArriveInEveryFormat(pixelFormat: PixelFormat) async throws {
        let format = VideoFormat(pixelFormat: pixelFormat, width: 320, height: 240, frameRate: FrameRate(60))
        let loop = try await makeLoop(format: format, name: "test-loop-\(pixelFormat.rawValue)")
        defer { loop.consumer.stop(); loop.producer.stop(); loop.core.close() }
        let got = await loop.collector.wait { $0.count >= 20 }
        let frames = loop.collector.summaries
        #expect(got, "only \(frames.count) frames arrived; stats \(loop.consumer.statistics)")
        #expect(loop.node.serial != nil)
        #expect(loop.collector.receivedEvents.contains(.formatChanged(format)))
        for frame in frames {
            #expect(frame.format == format)
            #expect(frame.stride == 320 * 4)
            #expect(frame.colourMismatch == nil)
        }
        let counters = frames.map(\.counter)
        #expect(zip(counters, counters.dropFirst()).allSatisfy { $0 < $1 }, "counters \(counters)")
        let sequences = frames.map(\.sequence)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 })
    }
}
