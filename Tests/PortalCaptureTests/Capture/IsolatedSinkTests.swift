import Dispatch
import Foundation
import Synchronization
import Testing
@testable import PortalCapture
import PortalTestSupport

/// A sink with an `isolation` (a plugin's) runs on a thread of its own behind a bounded queue of frame copies.
@Suite("Isolated sinks")
struct IsolatedSinkTests {
    /// A 2x2 frame lent like a PipeWire buffer: `lent` counts the frames whose buffer was not given back yet.
    static func lentFrame(_ sequence: UInt64, lent: LentBuffers) -> CaptureSample {
        let format = VideoFormat(pixelFormat: .bgrx, width: 2, height: 2)
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 64)
        bytes.initializeMemory(as: UInt8.self, repeating: UInt8(truncatingIfNeeded: sequence), count: 16)
        let address = UInt(bitPattern: bytes)
        lent.count.add(1, ordering: .relaxed)
        let storage = FrameStorage(borrowing: bytes, capacity: 16) {
            UnsafeMutableRawPointer(bitPattern: address)?.deallocate()
            lent.count.subtract(1, ordering: .relaxed)
        }
        return .video(VideoFrame(format: format, stride: 8, timestamp: sequence, sequence: sequence, storage: storage))
    }

    @Test("a stuck isolated sink holds no lent buffer, holds up no other sink, and is abandoned at its close timeout")
    func stuckSinkIsAbandoned() async throws {
        let gate = Gate()
        defer { gate.open() }
        let stuck = RecordingSink(id: "stuck", .init(gate: gate, isolation: SinkIsolation().closeTimeout(.milliseconds(300)).videoCapacity(2)))
        let other = RecordingSink(id: "other")
        let lent = LentBuffers()
        let queue = DeliveryQueue(sinks: [stuck, other])
        queue.start(.test())
        for n in 0..<20 { queue.enqueue(Self.lentFrame(UInt64(n), lent: lent)); usleep(2000) }
        #expect(await eventually(timeout: .seconds(2)) { other.consumed.count == 20 }, "\(other.consumed)")
        // The other sink keeps its last frame; the stuck one holds copies only.
        #expect(lent.count.load(ordering: .relaxed) <= 1, "\(lent.count.load(ordering: .relaxed)) lent buffers still held")
        // Timed where the delivery thread hands out the report: resuming this task afterwards waits for a thread
        // of the shared pool, which the other tests running meanwhile may keep busy.
        let ending = ContinuousClock.now
        let (report, took) = await withCheckedContinuation { continuation in
            queue.finish { continuation.resume(returning: ($0, ContinuousClock.now - ending)) }
        }
        #expect(took < .seconds(1), "the end took \(took)")
        #expect(report.outcomes.map(\.sink) == ["stuck", "other"])
        #expect(report.outcomes[0].errors == [.abandoned(sink: "stuck", pluginPath: nil, after: .milliseconds(300))])
        #expect(report.outcomes[0].errors.first?.description == "sink 'stuck' did not return within 0.3 s; it was abandoned (what the other sinks recorded is kept)")
        #expect(report.outcomes[1].succeeded && report.outcomes[1].result?.videoFrames == 20)
    }

    @Test("an isolated sink that falls behind drops its own oldest frames, counted in its result, and gets the rest in order")
    func slowSinkCountsItsDrops() async {
        let slow = RecordingSink(id: "slow", .init(delayPerSample: .milliseconds(20), isolation: SinkIsolation().videoCapacity(2)))
        let other = RecordingSink(id: "other")
        let queue = DeliveryQueue(sinks: [slow, other])
        queue.start(.test())
        for n in 0..<30 { queue.enqueue(Frames.tiny(UInt64(n))); usleep(1000) }
        let report = await queue.finish(endingAt: 99)
        let result = report.outcomes[0].result
        #expect(report.statistics.droppedVideo == 0 && report.outcomes[1].result?.videoFrames == 30)
        #expect((result?.droppedFrames ?? 0) > 0 && (result?.videoFrames ?? 0) + (result?.droppedFrames ?? 0) == 30, "\(String(describing: result))")
        let numbers = slow.consumed.compactMap { Int($0.dropFirst()) }
        #expect(numbers == numbers.sorted() && numbers.last == 29, "\(slow.consumed)")
        #expect(slow.calls.suffix(2) == [.ended(at: 99), .close])
    }

    @Test("an error an isolated sink throws on its thread is reported once, and the sink is still closed")
    func errorOnItsThreadIsReported() async {
        let failing = RecordingSink(id: "failing", .init(failOnConsume: 2, isolation: SinkIsolation()))
        let events = Collector<DeliveryEvent>()
        let queue = DeliveryQueue(sinks: [failing]) { events.append($0) }
        queue.start(.test())
        for n in 0..<10 { queue.enqueue(Frames.tiny(UInt64(n))); usleep(5000) }
        let report = await queue.finish()
        let failures = events.all.filter { if case .sinkFailed = $0 { true } else { false } }
        #expect(failures == [.sinkFailed(sink: "failing", error: .insufficientStorage(path: "/test/failing"))])
        #expect(report.outcomes[0].errors == [.insufficientStorage(path: "/test/failing")])
        #expect(failing.consumed == ["v0", "v1"] && failing.calls.last == .close)
    }
}

/// How many lent buffers have not been given back.
final class LentBuffers: Sendable {
    let count = Atomic<Int>(0)
}
