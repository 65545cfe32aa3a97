import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
@testable import PortalCapture
import PortalTestSupport

@Suite("Delivery queue")
struct DeliveryQueueTests {
    /// A queue whose sink is blocked in `consume` of frame v0 until the returned gate opens.
    static func blockedQueue(_ options: DeliveryOptions, extraSinks: [any CaptureSink] = [],
                             onEvent: @escaping @Sendable (DeliveryEvent) -> Void = { _ in })
        -> (DeliveryQueue, RecordingSink, Gate) {
        let entered = DispatchSemaphore(value: 0)
        let gate = Gate()
        let sink = RecordingSink(.init(entered: entered, gate: gate))
        let queue = DeliveryQueue(sinks: [sink] + extraSinks, options: options, onEvent: onEvent)
        queue.start(.test())
        queue.enqueue(Frames.tiny(0))
        entered.wait()
        return (queue, sink, gate)
    }

    /// Requests the end while the gate is still closed, then opens it.
    static func end(_ queue: DeliveryQueue, cancel: Bool = false, opening gate: Gate) async -> DeliveryReport {
        await withCheckedContinuation { continuation in
            if cancel {
                queue.cancel { continuation.resume(returning: $0) }
            } else {
                queue.finish { continuation.resume(returning: $0) }
            }
            gate.open()
        }
    }

    @Test("finish(endingAt:) tells every sink where the recording ended, after the last sample and before close")
    func finishTellsTheEnd() async {
        let first = RecordingSink(id: "first"), second = RecordingSink(id: "second")
        let queue = DeliveryQueue(sinks: [first, second])
        queue.start(.test())
        queue.enqueue(Frames.tiny(0))
        queue.enqueue(Frames.tiny(1))
        _ = await queue.finish(endingAt: 42)
        for sink in [first, second] {
            #expect(sink.calls == [.open, .consume("v0"), .consume("v1"), .ended(at: 42), .close], "\(sink.calls)")
        }
    }

    @Test("a cancel, or a finish without a time, says nothing about the end", arguments: [true, false])
    func noEndWithoutATime(cancel: Bool) async {
        let sink = RecordingSink()
        let queue = DeliveryQueue(sinks: [sink])
        queue.start(.test())
        queue.enqueue(Frames.tiny(0))
        _ = cancel ? await queue.cancel() : await queue.finish()
        #expect(!sink.calls.contains { if case .ended = $0 { true } else { false } }, "\(sink.calls)")
        #expect(sink.calls.last == .close)
    }

    @Test("sinks run on a SCHED_BATCH thread when asked, and by default under the policy the thread got",
          arguments: [DeliveryThreadScheduling.batch, .inherited])
    func deliveryThreadScheduling(_ scheduling: DeliveryThreadScheduling) async {
        let seen = Mutex<[Int32]>([])
        let sink = SampleHandlerSink { _ in seen.withLock { $0.append(sched_getscheduler(0)) } }
        let queue = DeliveryQueue(sinks: [sink], options: DeliveryOptions().threadScheduling(scheduling))
        queue.start(.test())
        queue.enqueue(Frames.tiny(0))
        _ = await queue.finish()
        let policies = seen.withLock { $0 }
        #expect(policies.count == 1)
        #expect(DeliveryOptions().threadScheduling == .inherited)
        // Nothing else here makes a thread SCHED_BATCH; the creating thread's own policy is not asserted (one
        // full run saw a test thread report SCHED_FIFO, not traced yet).
        #expect(policies.allSatisfy { ($0 == DeliveryThreadScheduling.batchPolicy) == (scheduling == .batch) },
                "\(policies)")
    }

    @Test("a slow sink never blocks enqueue: the oldest frames are dropped, counted, and the rest arrive in order")
    func slowSinkNeverBlocks() async {
        let sink = RecordingSink(.init(delayPerSample: .milliseconds(50)))
        let queue = DeliveryQueue(sinks: [sink], options: DeliveryOptions(videoCapacity: 8))
        queue.start(.test())
        let longest = await onThread { () -> Duration in
            let clock = ContinuousClock()
            var longest = Duration.zero
            for n in 0 ..< 300 {
                let frame = Frames.tiny(UInt64(n))
                longest = max(longest, clock.measure { queue.enqueue(frame) })
                usleep(1000)
            }
            return longest
        }
        let report = await queue.finish()
        let statistics = report.statistics
        #expect(longest < .milliseconds(5), "the longest enqueue took \(longest)")
        #expect(statistics.enqueued == 300)
        #expect(statistics.droppedVideo > 0)
        #expect(statistics.droppedVideo == statistics.enqueued - statistics.delivered)
        #expect(statistics.highWaterMark == 8)
        let delivered = sink.consumed.map { Int($0.dropFirst())! }
        #expect(delivered.count == statistics.delivered)
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $0 < $1 }, "delivered: \(delivered)")
        #expect(delivered.suffix(8) == Array(292 ..< 300), "the newest frames survive")
        #expect(report.outcomes.first?.result?.videoFrames == statistics.delivered)
    }

    @Test("audio is never dropped below its own limit, even while video is being dropped")
    func audioKeptUnderSoftLimit() async {
        let (queue, sink, gate) = Self.blockedQueue(DeliveryOptions(videoCapacity: 4, audioCapacity: 100))
        for n in 1 ... 20 {
            queue.enqueue(Frames.tiny(UInt64(n)))
            queue.enqueue(Frames.audio(UInt64(n)))
        }
        let report = await Self.end(queue, opening: gate)
        #expect(report.statistics.droppedAudio == 0)
        #expect(report.statistics.droppedVideo == 16)
        #expect(report.statistics.highWaterMark == 24)
        let expected = ["v0"] + (1 ... 16).map { "a\($0)" } + (17 ... 20).flatMap { ["v\($0)", "a\($0)"] }
        #expect(sink.consumed == expected)
    }

    @Test("audio beyond its hard limit drops the oldest chunks and counts them")
    func audioHardLimit() async {
        let (queue, sink, gate) = Self.blockedQueue(DeliveryOptions(videoCapacity: 4, audioCapacity: 10))
        for n in 1 ... 30 { queue.enqueue(Frames.audio(UInt64(n))) }
        let report = await Self.end(queue, opening: gate)
        #expect(report.statistics.droppedAudio == 20)
        #expect(sink.consumed == ["v0"] + (21 ... 30).map { "a\($0)" })
    }

    @Test("finish delivers everything queued before closing the sinks")
    func finishDrains() async {
        let (queue, sink, gate) = Self.blockedQueue(DeliveryOptions(videoCapacity: 8))
        for n in 1 ... 5 { queue.enqueue(Frames.tiny(UInt64(n))) }
        let report = await Self.end(queue, opening: gate)
        #expect(sink.calls.map(\.description) == ["open", "v0", "v1", "v2", "v3", "v4", "v5", "close"])
        #expect(report.statistics.delivered == 6 && report.statistics.dropped == 0 && !report.cancelled)
        #expect(queue.enqueue(Frames.tiny(6)) == false, "enqueue after finish is refused")
        #expect(await queue.finish() == report, "a second finish returns the same report")
    }

    @Test("cancel discards what is queued and still closes every sink once")
    func cancelDiscards() async {
        let (queue, sink, gate) = Self.blockedQueue(DeliveryOptions(videoCapacity: 8))
        for n in 1 ... 5 { queue.enqueue(Frames.tiny(UInt64(n))) }
        let report = await Self.end(queue, cancel: true, opening: gate)
        #expect(sink.calls.map(\.description) == ["open", "v0", "close"])
        #expect(report.cancelled && report.statistics.discarded == 5)
        let s = report.statistics
        #expect(s.enqueued == s.delivered + s.dropped + s.discarded)
    }

    @Test("a sink that throws is reported once, gets nothing more, and is still closed exactly once")
    func failingSinkCutOff() async {
        let failing = RecordingSink(id: "failing", .init(failOnConsume: 2))
        let healthy = RecordingSink(id: "healthy")
        let events = Collector<DeliveryEvent>()
        let queue = DeliveryQueue(sinks: [failing, healthy], onEvent: { events.append($0) })
        queue.start(.test())
        for n in 0 ..< 5 { queue.enqueue(Frames.tiny(UInt64(n))) }
        let report = await queue.finish()
        #expect(failing.calls.map(\.description) == ["open", "v0", "v1", "close"])
        #expect(healthy.calls.map(\.description) == ["open", "v0", "v1", "v2", "v3", "v4", "close"])
        #expect(events.all == [.sinkFailed(sink: "failing", error: .insufficientStorage(path: "/test/failing"))])
        #expect(report.outcomes.map(\.sink) == ["failing", "healthy"])
        #expect(report.outcomes[0].errors == [.insufficientStorage(path: "/test/failing")])
        #expect(report.outcomes[0].result != nil, "its close still finalized what it wrote")
        #expect(report.outcomes[1].succeeded && report.outcomes[1].result?.videoFrames == 5)
        #expect(report.errors.count == 1)
    }

    @Test("a sink that fails to open gets no samples but is closed; a failing close is reported")
    func failingOpenAndClose() async {
        let unopenable = RecordingSink(id: "unopenable", .init(failOnOpen: true))
        let unclosable = RecordingSink(id: "unclosable", .init(failOnClose: true))
        let events = Collector<DeliveryEvent>()
        let queue = DeliveryQueue(sinks: [unopenable, unclosable], onEvent: { events.append($0) })
        queue.start(.test())
        queue.enqueue(Frames.tiny(0))
        let report = await queue.finish()
        #expect(unopenable.calls == [.open, .close])
        #expect(unclosable.calls.map(\.description) == ["open", "v0", "close"])
        #expect(report.outcomes[1].result == nil && report.outcomes[1].errors.count == 1)
        #expect(events.all.count == 2)
    }

    @Test("formatChanged reaches every sink before the first frame in a new size")
    func formatChangeBeforeResizedFrame() async {
        let sink = RecordingSink()
        let events = Collector<DeliveryEvent>()
        let queue = DeliveryQueue(sinks: [sink], onEvent: { events.append($0) })
        queue.start(.test(video: VideoFormat(pixelFormat: .bgrx, width: 2, height: 2)))
        queue.enqueue(Frames.tiny(0))
        queue.enqueue(Frames.audio(0))
        queue.enqueue(Frames.tiny(1, width: 4, height: 3))
        queue.enqueue(Frames.tiny(2, width: 4, height: 3))
        queue.enqueue(Frames.tiny(3))
        _ = await queue.finish()
        #expect(sink.calls.map(\.description)
            == ["open", "v0", "a0", "format 4x3", "v1", "v2", "format 2x2", "v3", "close"])
        let small = VideoFormat(pixelFormat: .bgrx, width: 2, height: 2)
        let large = VideoFormat(pixelFormat: .bgrx, width: 4, height: 3)
        #expect(events.all == [.formatChanged(from: small, to: large), .formatChanged(from: large, to: small)])
    }

    @Test("samples enqueued before start wait for the sinks to open")
    func enqueueBeforeStart() async {
        let sink = RecordingSink()
        let queue = DeliveryQueue(sinks: [sink])
        for n in 0 ..< 3 { queue.enqueue(Frames.tiny(UInt64(n))) }
        #expect(sink.calls.isEmpty)
        queue.start(.test())
        #expect(queue.start(.test()) == false, "a second start is refused")
        _ = await queue.finish()
        #expect(sink.calls.map(\.description) == ["open", "v0", "v1", "v2", "close"])
    }

    @Test("finishing a queue that never started closes its sinks without opening them")
    func finishWithoutStart() async {
        let sink = RecordingSink()
        let queue = DeliveryQueue(sinks: [sink])
        queue.enqueue(Frames.tiny(0))
        let report = await queue.finish()
        #expect(sink.calls == [.close])
        #expect(report.statistics.discarded == 1)
    }

    @Test("a queue dropped without finishing still closes its sinks")
    func droppedQueueCloses() async throws {
        let sink = RecordingSink()
        do {
            let queue = DeliveryQueue(sinks: [sink])
            queue.start(.test())
            queue.enqueue(Frames.tiny(0))
        }
        _ = await eventually(timeout: .seconds(2)) { sink.calls.contains(.close) }
        #expect(sink.calls.filter { $0 == .close }.count == 1)
    }

    @Test("processing options transform frames on the delivery thread, and frames they cannot apply to are withheld")
    func processesFrames() async {
        let sink = RecordingSink()
        let events = Collector<DeliveryEvent>()
        let processing = FrameProcessingOptions()
            .masking([PixelRect(x: 3, y: 3, width: 1, height: 1)])
            .cropping(to: PixelRect(x: 2, y: 2, width: 4, height: 4))
        let queue = DeliveryQueue(sinks: [sink], options: DeliveryOptions(processing: processing),
                                  onEvent: { events.append($0) })
        queue.start(.test(video: VideoFormat(pixelFormat: .rgba, width: 8, height: 8)))
        let white = Pixel(255, 255, 255, 255)
        queue.enqueue(.video(Frames.solid(.rgba, width: 8, height: 8, white)))
        queue.enqueue(.video(Frames.make(.rgba, width: 2, height: 2, sequence: 1) { _, _ in white }))
        queue.enqueue(.video(Frames.make(.rgba, width: 2, height: 2, sequence: 2) { _, _ in white }))
        queue.enqueue(.video(Frames.make(.rgba, width: 8, height: 8, sequence: 3) { _, _ in white }))
        let report = await queue.finish()

        #expect(sink.context?.video == VideoFormat(pixelFormat: .rgba, width: 4, height: 4))
        #expect(sink.calls.map(\.description) == ["open", "v0", "v3", "close"])
        if let frame = sink.frame {
            #expect(Frames.mismatches(frame) { x, y in (x, y) == (1, 1) ? Pixel(0, 0, 0, 255) : white } == [])
        }
        #expect(report.statistics.rejectedVideo == 2 && report.statistics.delivered == 2)
        let region = PixelRect(x: 2, y: 2, width: 4, height: 4)
        #expect(events.all == [.frameRejected(.regionOutsideFrame(region: region,
                                                                   frame: PixelRect(x: 0, y: 0, width: 2, height: 2)))])
    }

    @Test("audio chunks enqueued with a mix source reach the sinks as one mixed stream, and finish hands out what the mix still holds")
    func mixesTaggedAudio() async {
        let sink = AudioChunkSink()
        let queue = DeliveryQueue(sinks: [sink], options: DeliveryOptions().audioMixing(AudioMixerOptions()))
        let t0: UInt64 = 1_000_000_000
        queue.start(SinkContext(video: nil, audio: AudioFormat(), output: nil, startTime: t0))
        let mono = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 1)
        func chunk(_ format: AudioFormat, _ value: Float, at n: Int) -> AudioBuffer {
            let samples = [Float](repeating: value, count: 480 * format.channels)
            return AudioBuffer(format: format, timestamp: t0 + UInt64(n) * 10_000_000, sequence: UInt64(n),
                               bytes: samples.withUnsafeBytes { Array($0) })
        }
        for n in 0..<10 {
            queue.enqueue(chunk(mono, 0.25, at: n), mixInput: 0)
            if n < 5 { queue.enqueue(chunk(AudioFormat(), 0.5, at: n), mixInput: 1) }   // source 1 stops after 50 ms
        }
        let report = await queue.finish()
        #expect(report.statistics.enqueued == 15)
        #expect(sink.chunks.allSatisfy { $0.format == AudioFormat() }, "mixed into stereo F32 48 kHz")
        #expect(sink.discontinuities().isEmpty, "\(sink.discontinuities())")
        #expect(sink.chunks.first?.timestamp == t0)
        let left = sink.samples(channel: 0), right = sink.samples(channel: 1)
        #expect(left.count == 4800, "all 100 ms, the end handed out by finish")
        #expect(left == right)
        #expect(left.prefix(2400).allSatisfy { $0 == 0.75 } && left.suffix(2400).allSatisfy { $0 == 0.25 })
    }
}
