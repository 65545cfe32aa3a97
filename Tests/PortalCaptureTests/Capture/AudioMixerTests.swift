import Testing
@testable import PortalCapture

@Suite("Audio mixer")
struct AudioMixerTests {
    static let rate = 48_000
    static let stereo = AudioFormat(sampleFormat: .f32, sampleRate: rate, channels: 2)
    static let mono = AudioFormat(sampleFormat: .f32, sampleRate: rate, channels: 1)
    /// A CLOCK_MONOTONIC time some hours after boot, on a whole sample.
    static let t0: UInt64 = 3 * 3600 * 1_000_000_000
    static let frameNanoseconds = 1_000_000_000 / UInt64(rate)

    /// `frames` sample frames in `format` starting at `timestamp`; `value(frame, channel)` gives each sample.
    static func chunk(_ format: AudioFormat = stereo, at timestamp: UInt64, frames: Int,
                      _ value: (Int, Int) -> Float) -> AudioBuffer {
        var samples: [Float] = []
        for f in 0..<frames { for c in 0..<format.channels { samples.append(value(f, c)) } }
        return AudioBuffer(format: format, timestamp: timestamp, sequence: 0, bytes: samples.withUnsafeBytes { Array($0) })
    }

    static func constant(_ v: Float, _ format: AudioFormat = stereo, at timestamp: UInt64, frames: Int) -> AudioBuffer {
        chunk(format, at: timestamp, frames: frames) { _, _ in v }
    }

    static func time(ms: Double) -> UInt64 { t0 + UInt64(ms * 1_000_000) }

    /// The mixed chunks' samples, one after the other; checks that each starts where the previous ended.
    static func samples(_ chunks: [AudioBuffer]) -> [Float] {
        var out: [Float] = []
        var next: UInt64?
        for chunk in chunks {
            if let next { #expect(AudioMixer.position(of: chunk.timestamp, rate: rate) == AudioMixer.position(of: next, rate: rate),
                                  "a gap or an overlap between mixed chunks") }
            next = chunk.timestamp + chunk.duration
            out += chunk.bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
        return out
    }

    @Test("after every source was silent for ten minutes, the next chunk comes out on its own, not after ten minutes of zeros made in one piece")
    func longSilenceOfEverySourceLeavesAGap() {
        var mixer = AudioMixer()
        _ = mixer.add(Self.constant(0.1, at: Self.time(ms: 0), frames: 480), input: 0)
        _ = mixer.add(Self.constant(0.1, at: Self.time(ms: 0), frames: 480), input: 1)
        let later = Self.time(ms: 600_000)
        var out = mixer.add(Self.constant(0.2, at: later, frames: 480), input: 0)
        out += mixer.flush()
        let frames = out.reduce(0) { $0 + $1.frameCount }
        #expect(frames <= 480 + 4800, "\(frames) frames handed out")
        #expect(out.last.map { $0.timestamp + $0.duration } == later + 10_000_000)   // 480 frames: 10 ms
    }

    @Test("chunks of two sources with the same timestamps come out as one chunk, summed sample by sample")
    func sumsAlignedChunks() {
        var mixer = AudioMixer()
        #expect(mixer.add(Self.chunk(at: Self.t0, frames: 480) { f, _ in Float(f) / 1000 }, input: 0).isEmpty,
                "nothing comes out while the other source has not reached that time")
        let out = mixer.add(Self.constant(0.25, at: Self.t0, frames: 480), input: 1)
        #expect(out.count == 1)
        #expect(out.first?.timestamp == Self.t0)
        #expect(out.first?.format == Self.stereo)
        let samples = Self.samples(out)
        #expect(samples.count == 480 * 2)
        #expect(samples.enumerated().allSatisfy { i, s in abs(s - (Float(i / 2) / 1000 + 0.25)) < 1e-6 })
    }

    @Test("sources are aligned on their timestamps, to the sample, not on when their chunks arrive")
    func alignsOnTimestamps() {
        var mixer = AudioMixer()
        // A click at frame 300 of source 0; source 1 starts 5 ms (240 frames) later with its click at its frame 60:
        // the same moment.
        let first = mixer.add(Self.chunk(at: Self.t0, frames: 960) { f, _ in f == 300 ? 0.4 : 0 }, input: 0)
        let second = mixer.add(Self.chunk(at: Self.t0 + 240 * Self.frameNanoseconds, frames: 960) { f, _ in f == 60 ? 0.4 : 0 },
                               input: 1)
        let flushed = mixer.flush()
        let samples = Self.samples(first + second + flushed)
        #expect(samples.count == (240 + 960) * 2)
        let loud = samples.indices.filter { samples[$0] != 0 }.map { $0 / 2 }
        #expect(loud == [300, 300], "non-zero frames: \(loud)")
        #expect(samples[600] == 0.8)
        #expect((first + second + flushed).first?.timestamp == Self.t0)
    }

    @Test("a source that started earlier than the first one seen moves the start back before anything is out")
    func earlierSourceMovesTheStart() {
        var mixer = AudioMixer()
        _ = mixer.add(Self.constant(0.5, at: Self.time(ms: 10), frames: 480), input: 0)
        let out = mixer.add(Self.constant(0.25, at: Self.time(ms: 0), frames: 960), input: 1) + mixer.flush()
        #expect(out.first?.timestamp == Self.time(ms: 0))
        let samples = Self.samples(out)
        #expect(samples.count == 960 * 2)
        #expect(samples[0] == 0.25 && samples[480 * 2] == 0.75 && samples[959 * 2] == 0.75)
    }

    @Test("a source that delivers nothing is silence once the other is 100 ms ahead; the mix is never further behind")
    func silentSourceDoesNotStallTheMix() {
        var mixer = AudioMixer(options: AudioMixerOptions().maximumWait(.milliseconds(100)))
        var out: [AudioBuffer] = []
        for n in 0..<50 {   // 50 chunks of 10 ms from source 0 only
            out += mixer.add(Self.constant(0.5, at: Self.time(ms: Double(n) * 10), frames: 480), input: 0)
            let mixedUpTo = out.last.map { $0.timestamp + $0.duration } ?? Self.t0
            let delivered = Self.time(ms: Double(n + 1) * 10)
            #expect(delivered - mixedUpTo <= 100_000_000 + Self.frameNanoseconds, "the mix is \(delivered - mixedUpTo) ns behind")
        }
        let samples = Self.samples(out)
        #expect(samples.count == 400 * 48 * 2, "400 ms out of 500")
        #expect(samples.allSatisfy { $0 == 0.5 })
        #expect(Self.samples(mixer.flush()).count == 100 * 48 * 2)
    }

    @Test("a source that falls silent mid-way: the mix goes on with its part silent, and what it sends late is left out")
    func laggingSourceIsLeftBehind() {
        var mixer = AudioMixer()
        var out: [AudioBuffer] = []
        for n in 0..<10 {   // both for 100 ms
            out += mixer.add(Self.constant(0.25, at: Self.time(ms: Double(n) * 10), frames: 480), input: 0)
            out += mixer.add(Self.constant(0.5, at: Self.time(ms: Double(n) * 10), frames: 480), input: 1)
        }
        for n in 10..<40 {   // then only source 0, to 400 ms
            out += mixer.add(Self.constant(0.25, at: Self.time(ms: Double(n) * 10), frames: 480), input: 0)
        }
        // Source 1 comes back with what it had from 100 ms to 200 ms: the mix has passed it (it is at 300 ms).
        for n in 10..<20 {
            out += mixer.add(Self.constant(0.5, at: Self.time(ms: Double(n) * 10), frames: 480), input: 1)
        }
        out += mixer.flush()
        let samples = Self.samples(out)
        #expect(samples.count == 400 * 48 * 2)
        #expect(samples[0..<(100 * 48 * 2)].allSatisfy { $0 == 0.75 })
        #expect(samples[(100 * 48 * 2)...].allSatisfy { $0 == 0.25 })
        #expect(mixer.statistics.lateFrames == [0, 100 * 48])
        #expect(mixer.statistics.framesOut == 400 * 48)
    }

    @Test("sums beyond full scale are clipped to -1 and 1")
    func clips() {
        var mixer = AudioMixer()
        _ = mixer.add(Self.chunk(at: Self.t0, frames: 4) { f, _ in f % 2 == 0 ? 0.8 : -0.8 }, input: 0)
        let out = mixer.add(Self.chunk(at: Self.t0, frames: 4) { f, _ in f % 2 == 0 ? 0.7 : -0.7 }, input: 1)
        #expect(Self.samples(out) == [1, 1, -1, -1, 1, 1, -1, -1])
    }

    @Test("a mono source goes to both channels of a stereo mix, beside a stereo source")
    func monoAndStereo() {
        var mixer = AudioMixer()
        _ = mixer.add(Self.constant(0.1, Self.mono, at: Self.t0, frames: 3), input: 0)
        let out = mixer.add(Self.chunk(at: Self.t0, frames: 3) { _, c in c == 0 ? 0.2 : -0.2 }, input: 1)
        let samples = Self.samples(out).map { ($0 * 1000).rounded() / 1000 }
        #expect(samples == [0.3, -0.1, 0.3, -0.1, 0.3, -0.1])
    }

    @Test("a stereo source is averaged into a mono mix, and 16-bit samples are scaled to [-1, 1]")
    func stereoIntoMonoAndS16() {
        var mixer = AudioMixer(options: AudioMixerOptions().format(Self.mono))
        _ = mixer.add(Self.chunk(at: Self.t0, frames: 2) { _, c in c == 0 ? 0.5 : 0.1 }, input: 0)
        let s16 = AudioFormat(sampleFormat: .s16, sampleRate: Self.rate, channels: 1)
        let values: [Int16] = [16384, -8192]
        let out = mixer.add(AudioBuffer(format: s16, timestamp: Self.t0, sequence: 0, bytes: values.withUnsafeBytes { Array($0) }),
                            input: 1)
        #expect(out.first?.format == Self.mono)
        #expect(Self.samples(out).map { ($0 * 1000).rounded() / 1000 } == [0.8, 0.05])
    }

    @Test("chunks of one source within the tolerance of each other follow on directly; a jump leaves silence")
    func jitterAndGaps() {
        var mixer = AudioMixer(options: AudioMixerOptions().inputs(1))
        var out: [AudioBuffer] = []
        var expected = 0
        for n in 0..<20 {   // 10 ms chunks whose stamps wobble by up to 2 ms
            let wobble = Double([0, 2, -2, 1, -1][n % 5])
            out += mixer.add(Self.constant(0.5, at: Self.time(ms: Double(n) * 10 + wobble), frames: 480), input: 0)
            expected += 480
        }
        out += mixer.add(Self.constant(0.5, at: Self.time(ms: 250), frames: 480), input: 0)   // 50 ms lost
        out += mixer.flush()
        let samples = Self.samples(out)
        #expect(samples.count == (expected + 50 * 48 + 480) * 2)
        #expect(samples[(expected * 2)..<((expected + 50 * 48) * 2)].allSatisfy { $0 == 0 })
        #expect(mixer.statistics.gapFrames == [50 * 48])
    }

    @Test("a chunk overlapping what its source already sent loses the overlap")
    func overlapIsDropped() {
        var mixer = AudioMixer(options: AudioMixerOptions().inputs(1))
        var out = mixer.add(Self.constant(0.5, at: Self.time(ms: 0), frames: 4800), input: 0)
        out += mixer.add(Self.constant(0.25, at: Self.time(ms: 50), frames: 4800), input: 0)   // 50 ms overlap
        out += mixer.flush()
        let samples = Self.samples(out)
        #expect(samples.count == (4800 + 2400) * 2)
        #expect(samples.last == 0.25 && samples[4799 * 2] == 0.5)
        #expect(mixer.statistics.overlappingFrames == [2400])
    }

    @Test("the mix is F32 whatever sample format the options name, at their rate and channel count")
    func outputIsFloat() {
        let s16 = AudioFormat(sampleFormat: .s16, sampleRate: Self.rate, channels: 1)
        var mixer = AudioMixer(options: AudioMixerOptions().inputs(1).format(s16))
        let out = mixer.add(Self.constant(0.5, Self.mono, at: Self.t0, frames: 10), input: 0)
        #expect(out.first?.format == AudioFormat(sampleFormat: .f32, sampleRate: Self.rate, channels: 1))
        #expect(AudioMixerOptions().format(s16).outputFormat == out.first?.format)
        #expect(Self.samples(out) == Array(repeating: 0.5, count: 10))
    }

    @Test("a chunk at another rate, or from a source out of range, is refused and counted")
    func refusesOtherRates() {
        var mixer = AudioMixer()
        let other = AudioFormat(sampleFormat: .f32, sampleRate: 44_100, channels: 2)
        #expect(mixer.add(Self.constant(0.5, other, at: Self.t0, frames: 441), input: 0).isEmpty)
        #expect(mixer.add(Self.constant(0.5, at: Self.t0, frames: 480), input: 2).isEmpty)
        #expect(mixer.statistics.refusedChunks == 2)
        #expect(mixer.flush().isEmpty)
    }

    @Test("sample positions and times convert both ways without overflow, even a year after boot")
    func timelineRoundTrips() {
        for time: UInt64 in [Self.t0, 365 * 24 * 3600 * 1_000_000_000 + 123_456_789] {
            let position = AudioMixer.position(of: time, rate: Self.rate)
            #expect(AudioMixer.position(of: AudioMixer.time(of: position, rate: Self.rate), rate: Self.rate) == position)
            let back = AudioMixer.time(of: position, rate: Self.rate)
            #expect(back <= time + Self.frameNanoseconds && time <= back + Self.frameNanoseconds)
        }
    }
}
