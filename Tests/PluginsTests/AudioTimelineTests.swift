import Testing
@testable import Plugins

/// `AudioTimeline` (where captured audio goes in the output, to the sample) and `FrameClock.extend` (the last
/// frame shown until the audio ends). 48 kHz: 1 ms is 48 frames.
@Suite("Audio timeline")
struct AudioTimelineTests {
    static let start: UInt64 = 5_000_000_000_000
    static func ms(_ n: Double) -> UInt64 { UInt64(n * 1_000_000) }

    @Test("the first chunk loses exactly its samples from before the start")
    func firstChunkIsTrimmed() {
        var t = AudioTimeline(start: Self.start, rate: 48_000)
        #expect(t.place(timestamp: Self.start - Self.ms(5), frames: 1024) == .init(silence: 0, skip: 240, keep: 784))
        #expect(t.position == 784)
    }

    @Test("a chunk wholly before the start is dropped and the next one is still placed exactly")
    func chunkBeforeStartIsDropped() {
        var t = AudioTimeline(start: Self.start, rate: 48_000)
        #expect(t.place(timestamp: Self.start - Self.ms(30), frames: 480) == .init(silence: 0, skip: 480, keep: 0))
        #expect(!t.started && t.position == 0)
        #expect(t.place(timestamp: Self.start - Self.ms(1), frames: 480) == .init(silence: 0, skip: 48, keep: 432))
    }

    @Test("a first chunk after the start is preceded by silence from the start")
    func firstChunkAfterStart() {
        var t = AudioTimeline(start: Self.start, rate: 48_000)
        #expect(t.place(timestamp: Self.start + Self.ms(2), frames: 100) == .init(silence: 96, skip: 0, keep: 100))
        #expect(t.position == 196)
    }

    @Test("chunks within the tolerance follow on; a later one gets silence before it, an earlier one loses its overlap")
    func gapsAndOverlaps() {
        var t = AudioTimeline(start: Self.start, rate: 48_000)
        _ = t.place(timestamp: Self.start, frames: 480)                                       // 0..<480
        #expect(t.place(timestamp: Self.start + Self.ms(10) + Self.ms(3), frames: 480) == .init(silence: 0, skip: 0, keep: 480))
        #expect(t.position == 960)
        // 50 ms late: 40 ms of silence first.
        #expect(t.place(timestamp: Self.start + Self.ms(60), frames: 480) == .init(silence: 1920, skip: 0, keep: 480))
        #expect(t.position == 3360)
        // 20 ms early (a source faster than time): the overlapping 960 frames go.
        #expect(t.place(timestamp: Self.start + Self.ms(50), frames: 1024) == .init(silence: 0, skip: 960, keep: 64))
        #expect(t.position == 3424)
        // Wholly inside what was placed: dropped.
        #expect(t.place(timestamp: Self.start + Self.ms(20), frames: 480) == .init(silence: 0, skip: 480, keep: 0))
        #expect(t.position == 3424)
    }

    @Test("the end adds the silence that brings the track to the given position, never less")
    func endPads() {
        var t = AudioTimeline(start: Self.start, rate: 48_000)
        _ = t.place(timestamp: Self.start, frames: 1000)
        #expect(t.end(at: t.frames(in: Self.ms(25))) == 200)
        #expect(t.position == 1200 && t.elapsed == Self.ms(25))
        #expect(t.end(at: 1100) == 0)
        #expect(t.position == 1200)
    }

    @Test("CFR: the last frame fills the slots up to the end of the audio")
    func constantRateExtends() {
        var clock = FrameClock(mode: .constant(FrameRate(30, 1)), start: Self.start)
        _ = clock.place(Self.start)
        _ = clock.place(Self.start + 33_333_333)                                                // slots 0 and 1
        let frame: UInt64 = 33_333_333
        #expect(clock.end(frameDuration: frame) == 66_666_666)
        #expect(clock.extend(to: Self.start + Self.ms(60), frameDuration: frame) == [])
        // The audio runs to 150 ms: slots 2, 3 and 4 (to 166.7 ms) show the last frame.
        #expect(clock.extend(to: Self.start + Self.ms(150), frameDuration: frame) == [2, 3, 4])
        #expect(clock.end(frameDuration: frame) == 166_666_666)
        #expect(clock.place(Self.start + Self.ms(140)).pts == nil, "a later frame for a filled slot is dropped")
    }

    @Test("VFR: the last frame is presented once more so the video lasts as long as the audio")
    func variableRateExtends() {
        var clock = FrameClock(mode: .variable(ticksPerSecond: 1_000), start: Self.start)
        _ = clock.place(Self.start + Self.ms(10))
        let frame: UInt64 = 33_333_333
        #expect(clock.end(frameDuration: frame) == Self.ms(10) + frame)
        #expect(clock.extend(to: Self.start + Self.ms(30), frameDuration: frame) == [])
        #expect(clock.extend(to: Self.start + Self.ms(500), frameDuration: frame) == [467])
        #expect(clock.end(frameDuration: frame) == Self.ms(467) + frame)
    }
}
