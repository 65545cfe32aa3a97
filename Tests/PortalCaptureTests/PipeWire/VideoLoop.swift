@testable import PortalCapture
import PortalTestSupport

/// A `VideoProducerStream` and a `VideoCaptureStream` reading it, in one process on one core (WirePlumber
/// links them), the consumer's frames and events going to a `FrameCollector`. The loopback suites build
/// theirs with their own producer and consumer options.
struct VideoLoop {
    let core: PipeWireCore
    let producer: VideoProducerStream
    let consumer: VideoCaptureStream
    let collector: FrameCollector
    let node: PipeWireNodeInfo

    /// - Parameter alsoHandle: called with each frame after the collector (e.g. to keep frames held).
    static func start(coreName: String, producer producerOptions: VideoProducerOptions,
                      cursor: CursorProvider? = nil,
                      consumer options: VideoCaptureOptions,
                      alsoHandle: (@Sendable (VideoFrame) -> Void)? = nil) async throws -> VideoLoop {
        let core = try PipeWireCore(name: coreName)
        let producer = try VideoProducerStream(core: core, options: producerOptions, cursor: cursor,
                                               render: TestPattern.render)
        let node = try await producer.waitUntilReady()
        let collector = FrameCollector()
        let collect = collector.frameHandler
        var handler: @Sendable (VideoFrame) -> Void = collect
        if let alsoHandle { handler = { frame in collect(frame); alsoHandle(frame) } }
        let consumer = try VideoCaptureStream(core: core, target: .node(id: node.id), options: options,
                                              eventHandler: collector.eventHandler, frameHandler: handler)
        return VideoLoop(core: core, producer: producer, consumer: consumer, collector: collector, node: node)
    }

    func stop() {
        consumer.stop()
        producer.stop()
        core.close()
    }
}

/// A `VideoProducerStream` on a PipeWire connection of its own (as a compositor is another process), and a
/// second connection for consumers, which already knows the producer's node. `close()` stops the producer,
/// then both connections.
struct SeparateProducer {
    let producerCore: PipeWireCore
    let core: PipeWireCore
    let producer: VideoProducerStream
    let node: PipeWireNodeInfo

    static func start(name: String, options: VideoProducerOptions) async throws -> SeparateProducer {
        let producerCore = try PipeWireCore(name: "\(name)-src")
        do {
            let core = try PipeWireCore(name: name)
            do {
                let producer = try VideoProducerStream(core: producerCore, options: options, render: TestPattern.render)
                do {
                    let node = try await producer.waitUntilReady()
                    _ = try await core.waitForNode { $0.id == node.id }
                    return SeparateProducer(producerCore: producerCore, core: core, producer: producer, node: node)
                } catch { producer.stop(); throw error }
            } catch { core.close(); throw error }
        } catch { producerCore.close(); throw error }
    }

    func close() {
        producer.stop()
        core.close()
        producerCore.close()
    }
}
