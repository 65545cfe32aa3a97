import Testing
@testable import PortalCapture

/// `AudioChunkClock`: the capture time of each chunk's first sample, from the graph clock or, without one,
/// from a sample clock bounded by the arrival time. Times in nanoseconds; 48 kHz, so 1024 frames = 21,333,333 ns.
@Suite("Audio chunk timestamps")
struct AudioChunkClockTests {
    static let rate = 48_000
    static let quantum = AudioChunkClock.nanoseconds(frames: 1024, rate: 48_000)
    static let t0: UInt64 = 5_000_000_000_000

    @Test("with a graph clock, a chunk starts its duration before the graph time less the delay")
    func graphClock() {
        var clock = AudioChunkClock()
        let (stamps, source) = clock.stamp(frameCounts: [1024], rate: Self.rate, graphEnd: Self.t0, arrival: Self.t0 + 700_000)
        #expect(source == .graph)
        #expect(stamps == [Self.t0 - Self.quantum])
    }

    @Test("chunks dequeued together (a backlog) end where the next one starts, the last at the graph time")
    func backlogIsSpreadBackwards() {
        var clock = AudioChunkClock()
        let (stamps, _) = clock.stamp(frameCounts: [1024, 1024, 512], rate: Self.rate, graphEnd: Self.t0, arrival: Self.t0)
        let start = Self.t0 - AudioChunkClock.nanoseconds(frames: 2560, rate: Self.rate)
        #expect(stamps == [start, start + Self.quantum, start + AudioChunkClock.nanoseconds(frames: 2048, rate: Self.rate)])
    }

    @Test("a graph time far from the arrival (stale, or another clock) is not used")
    func staleGraphTimeIsIgnored() {
        var clock = AudioChunkClock()
        let (stamps, source) = clock.stamp(frameCounts: [1024], rate: Self.rate, graphEnd: Self.t0 - 5_000_000_000, arrival: Self.t0)
        #expect(source == .arrival)
        #expect(stamps == [Self.t0 - Self.quantum])
    }

    @Test("a graph time is never later than the arrival allows")
    func graphTimeIsBoundedByArrival() {
        var clock = AudioChunkClock()
        let (stamps, source) = clock.stamp(frameCounts: [1024], rate: Self.rate, graphEnd: Self.t0 + 3_000_000, arrival: Self.t0)
        #expect(source == .graph)
        #expect(stamps == [Self.t0 - Self.quantum])
    }

    @Test("without a graph clock, chunks that arrive in time follow on from each other, whatever the jitter")
    func fallbackIsContinuous() {
        var clock = AudioChunkClock()
        var arrival = Self.t0
        var stamps: [UInt64] = []
        // Arrivals jitter by up to 30 ms late, but no sample is lost.
        for jitter: UInt64 in [0, 30_000_000, 2_000_000, 25_000_000, 0, 9_000_000] {
            stamps += clock.stamp(frameCounts: [1024], rate: Self.rate, graphEnd: nil, arrival: arrival + jitter).timestamps
            arrival += Self.quantum
        }
        #expect(stamps.first == Self.t0 - Self.quantum)
        for (a, b) in zip(stamps, stamps.dropFirst()) { #expect(b - a == Self.quantum) }
    }

    @Test("without a graph clock, a source faster than time is held to its arrival: no chunk starts after arrival minus its duration")
    func fallbackNeverRunsAhead() {
        var clock = AudioChunkClock()
        // 1024 frames every 16.7 ms (a 60 fps video driver pacing the audio graph): 61,440 frames a second.
        var stamps: [UInt64] = [], arrivals: [UInt64] = []
        for i in 0..<120 {
            let arrival = Self.t0 + UInt64(i) * 16_666_667
            arrivals.append(arrival)
            stamps += clock.stamp(frameCounts: [1024], rate: Self.rate, graphEnd: nil, arrival: arrival).timestamps
        }
        for (stamp, arrival) in zip(stamps, arrivals) { #expect(stamp <= arrival - Self.quantum) }
        #expect(stamps.last! == arrivals.last! - Self.quantum)
    }

    @Test("without a graph clock, a lag beyond the loss tolerance restarts the clock at the arrival (samples were lost)")
    func fallbackRestartsAfterLoss() {
        var clock = AudioChunkClock()
        let first = clock.stamp(frameCounts: [1024], rate: Self.rate, graphEnd: nil, arrival: Self.t0).timestamps[0]
        // The next chunk comes 300 ms late: the 300 ms in between were lost.
        let late = Self.t0 + Self.quantum + 300_000_000
        let second = clock.stamp(frameCounts: [1024], rate: Self.rate, graphEnd: nil, arrival: late).timestamps[0]
        #expect(first == Self.t0 - Self.quantum)
        #expect(second == late - Self.quantum)
        // A lag within the tolerance is kept as jitter.
        let third = clock.stamp(frameCounts: [1024], rate: Self.rate, graphEnd: nil, arrival: late + Self.quantum + 60_000_000).timestamps[0]
        #expect(third == second + Self.quantum)
    }

    @Test("a chunk that straddles a time keeps its samples from that time on, to the sample")
    func droppingBefore() throws {
        let format = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 2)
        let bytes = (0..<100).flatMap { i -> [UInt8] in [UInt8(i), 0, UInt8(i), 0] }
        let chunk = AudioBuffer(format: format, timestamp: Self.t0, sequence: 7, bytes: bytes)
        #expect(chunk.dropping(before: Self.t0)?.bytes == bytes)
        #expect(chunk.dropping(before: Self.t0 - 1_000_000)?.bytes == bytes)
        // 10 frames are 208,333 ns; a cut 1 ns after frame 10's time keeps frames 11 and later.
        let ten = AudioChunkClock.nanoseconds(frames: 10, rate: 48_000)
        let cut = try #require(chunk.dropping(before: Self.t0 + ten))
        #expect(cut.frameCount == 90 && cut.bytes.first == 10 && cut.sequence == 7)
        #expect(cut.timestamp == Self.t0 + ten)
        let later = try #require(chunk.dropping(before: Self.t0 + ten + 1))
        #expect(later.frameCount == 89 && later.bytes.first == 11)
        #expect(chunk.dropping(before: Self.t0 + chunk.duration + 1_000) == nil)
    }
}
