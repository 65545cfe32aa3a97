import Testing
@testable import PortalCapture

@Suite("Sample queue drop policy")
struct SampleQueueTests {
    static func drain(_ queue: inout SampleQueue) -> [String] {
        var tags: [String] = []
        while let sample = queue.pop() { tags.append(sample.tag) }
        return tags
    }

    @Test("samples leave in the order they came, video and audio interleaved")
    func keepsOrder() {
        var queue = SampleQueue(videoCapacity: 8, audioCapacity: 8)
        for n in 0 ..< 3 {
            #expect(queue.push(Frames.tiny(UInt64(n))) == nil)
            #expect(queue.push(Frames.audio(UInt64(n))) == nil)
        }
        #expect(Self.drain(&queue) == ["v0", "a0", "v1", "a1", "v2", "a2"])
    }

    @Test("a full video queue drops its oldest frame, not the new one, and audio stays")
    func dropsOldestVideo() {
        var queue = SampleQueue(videoCapacity: 2, audioCapacity: 8)
        _ = queue.push(Frames.tiny(0))
        _ = queue.push(Frames.audio(0))
        _ = queue.push(Frames.tiny(1))
        let dropped = queue.push(Frames.tiny(2))
        #expect(dropped?.tag == "v0")
        #expect(Self.drain(&queue) == ["a0", "v1", "v2"])
        #expect(queue.statistics.droppedVideo == 1 && queue.statistics.droppedAudio == 0)
        #expect(queue.statistics.highWaterMark == 3)
    }

    @Test("audio is dropped, oldest first, only at its own hard limit")
    func audioHardLimit() {
        var queue = SampleQueue(videoCapacity: 1, audioCapacity: 3)
        for n in 0 ..< 5 { _ = queue.push(Frames.audio(UInt64(n))) }
        #expect(Self.drain(&queue) == ["a2", "a3", "a4"])
        #expect(queue.statistics.droppedAudio == 2 && queue.statistics.droppedVideo == 0)
    }

    @Test("discarding counts what was queued")
    func discards() {
        var queue = SampleQueue(videoCapacity: 4, audioCapacity: 4)
        for n in 0 ..< 3 { _ = queue.push(Frames.tiny(UInt64(n))) }
        queue.discardAll()
        #expect(queue.pop() == nil)
        #expect(queue.statistics.discarded == 3 && queue.statistics.enqueued == 3)
    }

    @Test("the typed pushes and pops keep the order too, and an audio chunk keeps its mix source")
    func typedPathKeepsOrder() {
        var queue = SampleQueue(videoCapacity: 2, audioCapacity: 4)
        guard case .video(let v0) = Frames.tiny(0), case .video(let v1) = Frames.tiny(1),
              case .video(let v2) = Frames.tiny(2), case .audio(let a0) = Frames.audio(0) else {
            Issue.record("test samples of the wrong kind")
            return
        }
        let noDrops = [queue.push(video: v0) == nil, queue.push(audio: a0, mixInput: 1) == nil,
                       queue.push(video: v1) == nil]
        let dropped = queue.push(video: v2)
        #expect(noDrops == [true, true, true] && dropped?.sequence == 0)
        #expect(queue.nextKind == .audio)
        let audio = queue.popAudio()
        #expect(audio?.buffer.sequence == 0 && audio?.mixInput == 1)
        #expect(queue.nextKind == .video)
        let frames = [queue.popVideo()?.sequence, queue.popVideo()?.sequence, queue.popVideo()?.sequence]
        #expect(frames == [1, 2, nil])
        let kind = queue.nextKind, noAudio = queue.popAudio() == nil
        #expect(kind == nil && noAudio)
        #expect(queue.statistics.delivered == 3 && queue.statistics.droppedVideo == 1)
    }
}
