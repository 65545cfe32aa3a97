import Testing
@testable import PortalCapture

@Suite("In-process sample handlers")
struct SampleStreamSinkTests {
    @Test("the async sequence yields tagged samples in order and ends when delivery finishes")
    func streamsInOrder() async {
        let stream = SampleStreamSink(bufferLimit: 64)
        let queue = DeliveryQueue(sinks: [stream])
        let reader = Task {
            var tags: [String] = []
            for await sample in stream.samples { tags.append(sample.tag) }
            return tags
        }
        queue.start(.test())
        for n in 0 ..< 3 {
            queue.enqueue(Frames.tiny(UInt64(n)))
            queue.enqueue(Frames.audio(UInt64(n), frames: 480))
        }
        let report = await queue.finish()
        #expect(await reader.value == ["v0", "a0", "v1", "a1", "v2", "a2"])
        #expect(report.outcomes.first?.result == SinkResult(videoFrames: 3, audioFrames: 3 * 480))
    }

    @Test("a reader that falls behind gets the newest samples, and the drops are counted")
    func keepsNewest() async throws {
        let stream = SampleStreamSink(bufferLimit: 2)
        for n in 0 ..< 5 { try stream.consume(Frames.tiny(UInt64(n))) }
        try stream.consume(Frames.audio(0))
        _ = try stream.close()
        var tags: [String] = []
        for await sample in stream.samples { tags.append(sample.tag) }
        #expect(tags == ["v4", "a0"])
        #expect(stream.statistics.droppedVideo == 4 && stream.statistics.droppedAudio == 0)
        #expect(stream.statistics.videoFrames == 5 && stream.statistics.audioChunks == 1)
    }

    @Test("samples after the reading task was cancelled are ignored, not an error")
    func readerCancelled() async throws {
        let stream = SampleStreamSink()
        let first = Collector<String>()
        let reader = Task {
            for await sample in stream.samples { first.append(sample.tag) }
        }
        try stream.consume(Frames.tiny(0))
        while first.all.isEmpty { await Task.yield() }
        reader.cancel()
        await reader.value
        try stream.consume(Frames.tiny(1))
        #expect(first.all == ["v0"])
        #expect(stream.statistics.ignored == 1 && stream.statistics.videoFrames == 1)
    }

    @Test("the handler closure gets every sample in order, and throwing cuts it off")
    func handlerReceivesInOrder() async {
        let seen = Collector<String>()
        let handler = SampleHandlerSink { sample throws(SinkError) in
            seen.append(sample.tag)
            if sample.tag == "a1" { throw .failed(sink: "handler", reason: "enough") }
        }
        let events = Collector<DeliveryEvent>()
        let queue = DeliveryQueue(sinks: [handler], onEvent: { events.append($0) })
        queue.start(.test())
        for n in 0 ..< 3 {
            queue.enqueue(Frames.tiny(UInt64(n)))
            queue.enqueue(Frames.audio(UInt64(n)))
        }
        let report = await queue.finish()
        #expect(seen.all == ["v0", "a0", "v1", "a1"])
        #expect(events.all == [.sinkFailed(sink: "handler", error: .failed(sink: "handler", reason: "enough"))])
        #expect(report.outcomes.first?.result == SinkResult(videoFrames: 2, audioFrames: 480))
    }
}
