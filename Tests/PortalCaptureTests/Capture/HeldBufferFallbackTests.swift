import Glibc
import Synchronization
import Testing
@testable import PortalCapture
import PortalTestSupport

/// A sink that keeps the last frame it was given until the next one arrives (as an encoder whose queue
/// still holds a frame), checking each frame's colours and counter.
final class KeepingSink: CaptureSink {
    let id = "keeping"
    private let state = Mutex<(kept: VideoFrame?, counters: [UInt32], sequences: [UInt64], mismatches: [String])>((nil, [], [], []))

    func open(_ context: SinkContext) throws(SinkError) {}
    func consume(_ sample: CaptureSample) throws(SinkError) {
        guard case .video(let frame) = sample else { return }
        let counter = TestPattern.decodeCounter(frame)
        let mismatch = TestPattern.checkColourAreas(frame, tolerance: 0)
        state.withLock { s in
            s.kept = frame
            s.counters.append(counter)
            s.sequences.append(frame.sequence)
            if let mismatch { s.mismatches.append(mismatch) }
        }
    }
    func close() throws(SinkError) -> SinkResult {
        state.withLock { s in
            s.kept = nil
            return SinkResult(videoFrames: s.counters.count)
        }
    }

    var counters: [UInt32] { state.withLock { $0.counters } }
    var sequences: [UInt64] { state.withLock { $0.sequences } }
    var mismatches: [String] { state.withLock { $0.mismatches } }
}

/// `CapturePipelineOptions.heldBufferFallback`: what becomes of a frame arriving while the sink still holds
/// the borrowed one before it.
@Suite("Held buffer fallback on PipeWire", .enabled(if: TestDesktop.isAvailable), .serialized)
struct HeldBufferFallbackTests {
    func capture(_ fallback: CapturePipelineOptions.HeldBufferFallback, name: String)
        async throws -> (stats: VideoCaptureStatistics, sink: KeepingSink, residentBuffers: Int) {
        let core = try PipeWireCore(name: "pwrecord-test-held")
        defer { core.close() }
        // An odd size, so that no other test's buffers have the same mapping length.
        let format = VideoFormat(pixelFormat: .bgrx, width: 336, height: 200, frameRate: FrameRate(60))
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mappingLength = (format.minimumStride * format.height + page - 1) / page * page
        let producer = try VideoProducerStream(core: core, options: VideoProducerOptions(format: format, nodeName: name),
                                               render: TestPattern.render)
        defer { producer.stop() }
        let node = try await producer.waitUntilReady()
        var options = CapturePipelineOptions(video: .node(id: node.id))
        options.cursorMetadata = false
        options.videoBufferMapping = .whileLent
        options.heldBufferFallback = fallback
        let sink = KeepingSink()
        let pipeline = CapturePipeline(videoCore: core, audioCore: nil, sinks: [sink], options: options, onEvent: { _ in })
        try pipeline.start()
        let got = await eventually(timeout: .seconds(10)) { sink.counters.count >= 30 }
        let stats = try #require(pipeline.videoStreamStatistics)
        // Between two cycles (loop lock held): the pipeline passed `.whileLent` on, so only the buffer the
        // held frame borrowed (if any) is resident, not every buffer read so far.
        let resident = core.withLock { ResidentMappings.consumerBuffers(length: mappingLength).filter { $0.residentKiB > 0 }.count }
        _ = await pipeline.finish()
        #expect(got, "the sink got \(sink.counters.count) frames; stream \(stats)")
        return (stats, sink, resident)
    }

    @Test("drop: a frame arriving while the sink holds the borrowed one is dropped, at most maximumInARow in a row")
    func dropsWhileHeld() async throws {
        let (stats, sink, resident) = try await capture(.drop(maximumInARow: 3), name: "test-held-drop")
        #expect(resident <= 1, "\(resident) buffers resident")
        #expect(stats.skippedNoStorage > 0, "frames were dropped instead of copied: \(stats)")
        #expect(stats.framesBorrowed > 0)
        // The sink never lets go on its own: after 3 drops a frame is copied, which frees the held one.
        #expect(stats.framesDelivered > stats.framesBorrowed, "the fourth in a row is copied: \(stats)")
        #expect(stats.skippedNoStorage <= 3 * (stats.framesDelivered - stats.framesBorrowed + 1), "\(stats)")
        #expect(sink.mismatches.isEmpty, "\(sink.mismatches.prefix(3))")
        let counters = sink.counters
        #expect(zip(counters, counters.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("copy: a frame arriving while the sink holds the borrowed one is copied, none dropped at the source")
    func copiesWhileHeld() async throws {
        let (stats, sink, resident) = try await capture(.copy, name: "test-held-copy")
        #expect(resident <= 1, "\(resident) buffers resident")
        #expect(stats.skippedNoStorage == 0, "\(stats)")
        #expect(stats.framesDelivered > stats.framesBorrowed, "copies were made: \(stats)")
        #expect(sink.mismatches.isEmpty, "\(sink.mismatches.prefix(3))")
    }
}
