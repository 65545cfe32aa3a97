import Synchronization
import Testing
@testable import PortalCapture
import PortalTestSupport

/// A capture stream whose last reference goes inside its own `process` (on PipeWire's data thread): its
/// teardown cannot wait for the loop lock there, nor destroy the stream under its own callback, and hands the
/// rest to another thread (`StreamHandle.destroyElsewhere`).
@Suite("Capture streams released inside their own process", .enabled(if: TestDesktop.isAvailable), .serialized)
struct ReleasedInsideProcessTests {
    /// Holds the only reference to a stream until a handler lets go of it.
    final class Holder<Stream: AnyObject & Sendable>: Sendable {
        let stream = Mutex<Stream?>(nil)
        let handled = Atomic<Int>(0)
    }

    @Test("a video stream released last in its frame handler ends once, as stopped, and the core carries on")
    func videoReleasedInHandler() async throws {
        let format = VideoFormat(pixelFormat: .bgrx, width: 160, height: 120, frameRate: FrameRate(60))
        let loop = try await SeparateProducer.start(name: "pwrecord-test-release",
                                                    options: VideoProducerOptions(format: format, nodeName: "test-release"))
        defer { loop.close() }
        let (core, producer, node) = (loop.core, loop.producer, loop.node)
        let holder = Holder<VideoCaptureStream>()
        let collector = FrameCollector()
        holder.stream.withLock {
            $0 = try? VideoCaptureStream(core: core, target: .node(id: node.id), eventHandler: collector.eventHandler) { _ in
                holder.handled.add(1, ordering: .relaxed)
                holder.stream.withLock { $0 = nil }   // the callback's own reference is now the last
            }
        }
        #expect(holder.stream.withLock { $0 != nil })
        #expect(await collector.waitForEvent { $0 == .ended(.stopped) }, "events \(collector.receivedEvents)")
        try await Task.sleep(for: .milliseconds(200))
        #expect(collector.receivedEvents.filter { if case .ended = $0 { true } else { false } }.count == 1)
        #expect(holder.handled.load(ordering: .relaxed) == 1, "no frame after the release")
        // The core's loop is not stuck: a second consumer on it gets frames.
        let second = FrameCollector()
        let again = try VideoCaptureStream(core: core, target: .node(id: node.id), frameHandler: second.frameHandler)
        defer { again.stop() }
        #expect(await second.wait { $0.count >= 5 })
        #expect(producer.endCause == nil)
    }

    @Test("a microphone stream released last in its handler ends once, as stopped, and the core carries on")
    func audioReleasedInHandler() async throws {
        let core = try PipeWireCore(name: "pwrecord-test-release-mic")
        defer { core.close() }
        let (source, mic) = try await TestMicrophone.start(on: core, channels: 1)
        defer { source.stop() }
        let ends = Mutex<[PipeWireStreamEndCause]>([])
        let holder = Holder<AudioCaptureStream>()
        let name = try #require(mic.name)
        holder.stream.withLock {
            $0 = try? AudioCaptureStream(core: core, target: .object(name), eventHandler: { event in
                if case .ended(let cause) = event { ends.withLock { $0.append(cause) } }
            }, handler: { _ in
                holder.handled.add(1, ordering: .relaxed)
                holder.stream.withLock { $0 = nil }
            })
        }
        #expect(holder.stream.withLock { $0 != nil })
        #expect(await eventually(timeout: .seconds(5)) { !ends.withLock { $0 }.isEmpty })
        try await Task.sleep(for: .milliseconds(200))
        #expect(ends.withLock { $0 } == [.stopped])
        let collector = AudioCollector()
        let again = try AudioCaptureStream(core: core, target: .object(name), handler: collector.handler)
        defer { again.stop() }
        #expect(await eventually(timeout: .seconds(5)) { collector.sampleFrames >= 4_800 })
    }
}
