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

    @Test("a resize mid-stream is followed, reported, and later frames have the new size")
    func resizeIsFollowed() async throws {
        let small = VideoFormat(pixelFormat: .bgrx, width: 320, height: 240, frameRate: FrameRate(60))
        let loop = try await makeLoop(format: small, name: "test-loop-resize")
        defer { loop.consumer.stop(); loop.producer.stop(); loop.core.close() }
        #expect(await loop.collector.wait { $0.count >= 5 })
        var large = small
        large.width = 640
        large.height = 360
        try loop.producer.resize(width: 640, height: 360)
        #expect(await loop.collector.waitForEvent { $0 == .formatChanged(large) })
        #expect(await loop.collector.wait { $0.filter { $0.format == large }.count >= 5 },
                "stats \(loop.consumer.statistics)")
        let frames = loop.collector.summaries
        let firstLarge = try #require(frames.firstIndex { $0.format == large })
        #expect(frames[..<firstLarge].allSatisfy { $0.format == small })
        #expect(frames[firstLarge...].allSatisfy { $0.format == large && $0.stride == 640 * 4 })
        #expect(frames.allSatisfy { $0.colourMismatch == nil })
        #expect(loop.consumer.currentFormat == large)
        let formatEvents = loop.collector.receivedEvents.filter { if case .formatChanged = $0 { true } else { false } }
        #expect(formatEvents == [.formatChanged(small), .formatChanged(large)])
    }

    @Test("cursor metadata arrives with the producer's position, hotspot and bitmap")
    func cursorMetadataArrives() async throws {
        let format = VideoFormat(pixelFormat: .bgra, width: 320, height: 240, frameRate: FrameRate(60))
        let loop = try await makeLoop(format: format, cursor: true, name: "test-loop-cursor")
        defer { loop.consumer.stop(); loop.producer.stop(); loop.core.close() }
        #expect(await loop.collector.wait { $0.count >= 20 })
        let frames = loop.collector.summaries
        for frame in frames {
            let cursor = try #require(frame.cursor)
            let expected = TestCursor.state(frameNumber: frame.counter, width: 320, height: 240)
            #expect(cursor.x == expected.x && cursor.y == expected.y, "frame \(frame.counter)")
            #expect(cursor.hotspotX == TestCursor.hotspotX && cursor.hotspotY == TestCursor.hotspotY)
            #expect(cursor.bitmap == TestCursor.bitmap)
        }
        #expect(Set(frames.compactMap { $0.cursor?.x }).count > 1, "the cursor moves")
    }

    @Test("a destroyed producer ends the consumer's stream exactly once")
    func producerGoneEndsStreamOnce() async throws {
        let format = VideoFormat(pixelFormat: .bgrx, width: 160, height: 120, frameRate: FrameRate(30))
        let loop = try await makeLoop(format: format, name: "test-loop-eos")
        defer { loop.consumer.stop(); loop.core.close() }
        #expect(await loop.collector.wait { $0.count >= 3 })
        loop.producer.stop()
        #expect(await loop.collector.waitForEvent(timeout: .seconds(2)) { if case .ended = $0 { true } else { false } })
        try await Task.sleep(for: .milliseconds(300))
        loop.consumer.stop()   // must not add a second end
        let ends = loop.collector.receivedEvents.filter { if case .ended = $0 { true } else { false } }
        #expect(ends.count == 1, "events \(loop.collector.receivedEvents)")
        #expect(ends.first != .ended(.stopped))
        #expect(loop.consumer.endCause == ends.first.flatMap { if case .ended(let c) = $0 { c } else { nil } })
    }

    @Test("the watchdog ends the stream when the producer pauses")
    func watchdogFiresWhenProducerPauses() async throws {
        let format = VideoFormat(pixelFormat: .bgrx, width: 160, height: 120, frameRate: FrameRate(30))
        let loop = try await makeLoop(format: format, name: "test-loop-watchdog", timeout: .milliseconds(400))
        defer { loop.consumer.stop(); loop.producer.stop(); loop.core.close() }
        #expect(await loop.collector.wait { $0.count >= 10 })
        #expect(loop.consumer.endCause == nil, "frames at 30 fps keep a 400 ms watchdog quiet")
        let pausedAt = ContinuousClock.now
        loop.producer.pause()
        #expect(await loop.collector.waitForEvent(timeout: .seconds(2)) { $0 == .ended(.noFrames(timeout: .milliseconds(400))) })
        let elapsed = ContinuousClock.now - pausedAt
        #expect(elapsed >= .milliseconds(300) && elapsed < .milliseconds(1500), "fired after \(elapsed)")
        let ends = loop.collector.receivedEvents.filter { if case .ended = $0 { true } else { false } }
        #expect(ends.count == 1)
    }
}
