import Glibc
import Synchronization
import Testing
@testable import PortalCapture
import PortalTestSupport

@Suite("PipeWire video loopback", .enabled(if: TestDesktop.isAvailable), .serialized)
struct VideoLoopbackTests {
    func makeLoop(format: VideoFormat, cursor: Bool = false, name: String, timeout: Duration? = nil) async throws -> VideoLoop {
        var producerOptions = VideoProducerOptions(format: format, nodeName: name)
        producerOptions.cursorMetadata = cursor
        var options = VideoCaptureOptions()
        options.noFrameTimeout = timeout
        return try await VideoLoop.start(coreName: "pwrecord-test", producer: producerOptions,
                                         cursor: cursor ? TestCursor.provider : nil, consumer: options)
    }

    @Test("frames arrive with the right size, format, colours and an increasing counter",
          arguments: PixelFormat.allCases)
    func framesArriveInEveryFormat(pixelFormat: PixelFormat) async throws {
        let format = VideoFormat(pixelFormat: pixelFormat, width: 320, height: 240, frameRate: FrameRate(60))
        let loop = try await makeLoop(format: format, name: "test-loop-\(pixelFormat.rawValue)")
        defer { loop.stop() }
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
        defer { loop.stop() }
        #expect(await loop.collector.wait { $0.count >= 5 })
        let buffersBefore = loop.producer.allocatedBufferCount
        #expect(buffersBefore >= 2)
        var large = small
        large.width = 640
        large.height = 360
        try loop.producer.resize(width: 640, height: 360)
        // Under heavy load the link sometimes ignored the new EnumFormat; the producer now offers it again
        // after 0.5 s without a renegotiation (VideoProducerStream.retryRenegotiationIfStuck).
        #expect(await loop.collector.waitForEvent(timeout: .seconds(10)) { $0 == .formatChanged(large) })
        #expect(await loop.collector.wait { $0.filter { $0.format == large }.count >= 5 },
                "stats \(loop.consumer.statistics)")
        let frames = loop.collector.summaries
        let firstLarge = try #require(frames.firstIndex { $0.format == large })
        #expect(frames[..<firstLarge].allSatisfy { $0.format == small })
        #expect(frames[firstLarge...].allSatisfy { $0.format == large && $0.stride == 640 * 4 })
        #expect(frames.allSatisfy { $0.colourMismatch == nil })
        #expect(loop.consumer.currentFormat == large)
        #expect(loop.producer.allocatedBufferCount == buffersBefore, "the old buffers were released")
        loop.producer.stop()
        #expect(loop.producer.allocatedBufferCount == 0)
        let formatEvents = loop.collector.receivedEvents.filter { if case .formatChanged = $0 { true } else { false } }
        #expect(formatEvents == [.formatChanged(small), .formatChanged(large)])
    }

    @Test("after a resize, cursor-only buffers hand on no frame of the old size")
    func cursorOnlyBuffersAfterAResize() async throws {
        let small = VideoFormat(pixelFormat: .bgrx, width: 320, height: 240, frameRate: FrameRate(60))
        var large = small
        large.width = 640
        large.height = 360
        let loop = try await makeLoop(format: small, cursor: true, name: "test-loop-resize-cursor")
        defer { loop.stop() }
        #expect(await loop.collector.wait { $0.count >= 5 })
        loop.producer.setPixelsFrozen(true)   // from now on only the cursor moves
        try loop.producer.resize(width: 640, height: 360)
        #expect(await loop.collector.waitForEvent(timeout: .seconds(10)) { $0 == .formatChanged(large) })
        try await Task.sleep(for: .milliseconds(50))
        let afterChange = loop.collector.summaries.count
        try await Task.sleep(for: .milliseconds(300))
        let stale = loop.collector.summaries[afterChange...].filter { $0.format != large }
        #expect(stale.isEmpty, "\(stale.count) frames of the old size after the change")
        loop.producer.setPixelsFrozen(false)
        #expect(await loop.collector.wait { $0.filter { $0.format == large }.count >= 3 }, "stats \(loop.consumer.statistics)")
    }

    @Test("a cursor hidden for a while comes back with its hotspot and bitmap, though its meta then carries only the position")
    func cursorBackAfterHidden() async throws {
        let format = VideoFormat(pixelFormat: .bgrx, width: 320, height: 240, frameRate: FrameRate(60))
        var producerOptions = VideoProducerOptions(format: format, nodeName: "test-loop-cursor-hidden")
        producerOptions.cursorMetadata = true
        // Hidden for frames 20..<40; the producer sends the bitmap again only when it changes, so the meta of
        // frame 40 holds the position alone.
        let loop = try await VideoLoop.start(coreName: "pwrecord-test", producer: producerOptions, cursor: { n, w, h in
            (20..<40).contains(n) ? nil : TestCursor.provider(n, w, h)
        }, consumer: VideoCaptureOptions())
        defer { loop.stop() }
        #expect(await loop.collector.wait { $0.contains { $0.counter >= 50 } })
        let back = loop.collector.summaries.filter { $0.counter >= 41 }
        #expect(!back.isEmpty)
        #expect(back.allSatisfy { $0.cursor?.hotspotX == TestCursor.hotspotX && $0.cursor?.hotspotY == TestCursor.hotspotY },
                "\(back.prefix(3).map { String(describing: $0.cursor) })")
        #expect(back.allSatisfy { $0.cursor?.bitmap == TestCursor.bitmap })
    }

    @Test("cursor metadata arrives with the producer's position, hotspot and bitmap")
    func cursorMetadataArrives() async throws {
        let format = VideoFormat(pixelFormat: .bgra, width: 320, height: 240, frameRate: FrameRate(60))
        let loop = try await makeLoop(format: format, cursor: true, name: "test-loop-cursor")
        defer { loop.stop() }
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
        defer { loop.stop() }
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

    @Test("a slow frame handler on the loop thread gets the newest frame; the older ones are requeued and counted as skipped")
    func slowHandlerDrainsToNewest() async throws {
        // Two connections, so the producer's loop thread keeps running while the consumer's is held up.
        let format = VideoFormat(pixelFormat: .bgrx, width: 160, height: 120, frameRate: FrameRate(100))
        var producerOptions = VideoProducerOptions(format: format, nodeName: "test-loop-slow")
        producerOptions.bufferCount = 8
        let loop = try await SeparateProducer.start(name: "pwrecord-test-slow", options: producerOptions)
        defer { loop.close() }
        let (core, node) = (loop.core, loop.node)
        let collector = FrameCollector()
        let handler = collector.frameHandler
        // On the loop thread, buffers arriving while the handler runs wait in the stream (on the data thread
        // the graph cycle itself would wait, and the producer's frames queue up on its side, oldest first).
        var options = VideoCaptureOptions()
        options.processThread = .loop
        // The handler holds the loop thread (and its lock) nearly all the time: stop() would wait for the lock
        // as long as the scheduler pleases (minutes in loaded full runs), so it stops sleeping first.
        let slow = Atomic<Bool>(true)
        let consumer = try VideoCaptureStream(core: core, target: .node(id: node.id), options: options, frameHandler: { frame in
            handler(frame)
            if slow.load(ordering: .relaxed) { usleep(45_000) }   // a handler breaking the contract: ~4 frames' time
        })
        defer {
            slow.store(false, ordering: .relaxed)
            consumer.stop()
        }
        #expect(await collector.wait(timeout: .seconds(5)) { $0.count >= 12 })
        let stats = consumer.statistics
        #expect(stats.skippedStale > 0, "stats \(stats)")
        #expect(stats.buffersReceived == stats.framesDelivered + stats.framesSkipped + stats.cursorUpdates)
        let frames = collector.summaries
        let counters = frames.map(\.counter)
        #expect(zip(counters, counters.dropFirst()).allSatisfy { $0 < $1 })
        let gaps = zip(frames, frames.dropFirst()).filter { $1.sequence - $0.sequence > 1 }
        #expect(!gaps.isEmpty, "sequence numbers show the skipped frames")
        #expect(frames.allSatisfy { $0.colourMismatch == nil })
    }

    @Test("stopping a stream from inside its own frame handler ends it once, without deadlock")
    func stopFromHandler() async throws {
        let format = VideoFormat(pixelFormat: .rgbx, width: 160, height: 120, frameRate: FrameRate(60))
        let core = try PipeWireCore(name: "pwrecord-test-stop-inside")
        defer { core.close() }
        let producer = try VideoProducerStream(core: core, options: VideoProducerOptions(format: format, nodeName: "test-loop-stop"),
                                               render: TestPattern.render)
        defer { producer.stop() }
        let node = try await producer.waitUntilReady()
        let box = Mutex<VideoCaptureStream?>(nil)
        let collector = FrameCollector()
        let handler = collector.frameHandler
        let consumer = try VideoCaptureStream(core: core, target: .node(id: node.id), eventHandler: collector.eventHandler,
                                              frameHandler: { frame in
            handler(frame)
            box.withLock { $0 }?.stop()
        })
        box.withLock { $0 = consumer }
        #expect(await collector.waitForEvent { $0 == .ended(.stopped) })
        try await Task.sleep(for: .milliseconds(200))
        #expect(collector.summaries.count == 1)
        #expect(producer.endCause == nil, "the producer keeps running")
        box.withLock { $0 = nil }
    }

    @Test("buffers flagged corrupted are skipped and counted")
    func corruptedBuffersAreSkipped() async throws {
        let format = VideoFormat(pixelFormat: .bgrx, width: 160, height: 120, frameRate: FrameRate(60))
        let loop = try await makeLoop(format: format, name: "test-loop-corrupt")
        defer { loop.stop() }
        #expect(await loop.collector.wait { $0.count >= 3 })
        loop.producer.markNextFramesCorrupted(5)
        let before = loop.collector.summaries.count
        #expect(await loop.collector.wait { $0.count >= before + 10 })
        // All 5 are counted when all reach the consumer; under heavy load the graph itself may drop some
        // buffers before they reach it (a late consumer's io slot is overwritten), which no one can count.
        #expect((1...5).contains(loop.consumer.statistics.skippedCorrupted), "stats \(loop.consumer.statistics)")
        let counters = loop.collector.summaries.map(\.counter)
        #expect(zip(counters, counters.dropFirst()).contains { $1 - $0 > 5 }, "a gap where the corrupted frames were: \(counters)")
        #expect(loop.collector.summaries.allSatisfy { $0.colourMismatch == nil })
    }

    @Test("metadata-only buffers hand the last frame on with the moved cursor")
    func metadataOnlyBuffersMoveTheCursor() async throws {
        try await cursorOnlyBuffersMoveTheCursor(flaggedCorrupted: false)
    }

    @Test("metadata-only buffers flagged corrupted, as mutter sends a cursor move, still move the cursor and are not counted corrupted")
    func corruptedMetadataOnlyBuffersMoveTheCursor() async throws {
        try await cursorOnlyBuffersMoveTheCursor(flaggedCorrupted: true)
    }

    private func cursorOnlyBuffersMoveTheCursor(flaggedCorrupted: Bool) async throws {
        let format = VideoFormat(pixelFormat: .rgba, width: 320, height: 240, frameRate: FrameRate(60))
        let loop = try await makeLoop(format: format, cursor: true, name: "test-loop-cursor-only")
        defer { loop.stop() }
        #expect(await loop.collector.wait { $0.count >= 3 })
        loop.producer.setPixelsFrozen(true)
        if flaggedCorrupted { loop.producer.markNextFramesCorrupted(1_000_000) }
        let corruptedBefore = loop.consumer.statistics.skippedCorrupted
        let frozenAt = loop.collector.summaries.count
        #expect(await loop.collector.wait { $0.count >= frozenAt + 15 })
        let stats = loop.consumer.statistics
        #expect(stats.cursorUpdates >= 10, "stats \(stats)")
        #expect(stats.skippedCorrupted - corruptedBefore <= 1, "a buffer without pixels is not a corrupted frame: \(stats)")
        let frozen = loop.collector.summaries.suffix(10)
        #expect(Set(frozen.map(\.counter)).count == 1, "the pixels stay those of the last real frame")
        #expect(Set(frozen.compactMap { $0.cursor?.x }).count > 1, "while the cursor moves")
        #expect(frozen.allSatisfy { $0.cursor?.bitmap == TestCursor.bitmap })
        let sequences = frozen.map(\.sequence)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("cursor-only frames are stamped like pixel frames (the buffer's pts): with a producer stamping 200 ms early, timestamps never step back when pixels resume")
    func cursorOnlyTimestampsFollowThePts() async throws {
        let format = VideoFormat(pixelFormat: .bgrx, width: 320, height: 240, frameRate: FrameRate(60))
        var producerOptions = VideoProducerOptions(format: format, nodeName: "test-loop-cursor-pts")
        producerOptions.cursorMetadata = true
        producerOptions.presentationLead = 200_000_000
        let loop = try await VideoLoop.start(coreName: "pwrecord-test", producer: producerOptions,
                                             cursor: TestCursor.provider, consumer: VideoCaptureOptions())
        defer { loop.stop() }
        #expect(await loop.collector.wait { $0.count >= 5 })
        loop.producer.setPixelsFrozen(true)
        let frozenAt = loop.collector.summaries.count
        #expect(await loop.collector.wait { $0.count >= frozenAt + 10 })
        loop.producer.setPixelsFrozen(false)
        let resumedAt = loop.collector.summaries.count
        #expect(await loop.collector.wait { $0.count >= resumedAt + 10 })
        let stamps = loop.collector.summaries.map(\.timestamp)
        let backwards = zip(stamps, stamps.dropFirst()).enumerated().filter { $0.element.1 < $0.element.0 }
        #expect(backwards.isEmpty, "steps back at \(backwards.map(\.offset)); stats \(loop.consumer.statistics)")
        #expect(loop.consumer.statistics.cursorUpdates >= 5)
    }
}
