import Foundation
import Testing
@testable import Plugins
import PortalTestSupport

/// The encoder keeps the microphone on the video's timeline: whatever the source delivers, the audio track
/// starts at the first frame and ends with the last, to within one audio packet and one frame.
@Suite("Encoder audio and video end together")
struct EncoderAudioSyncTests {
    init() { EncoderSink.setLibraryLogLevel(.error) }

    static let video = VideoFormat(pixelFormat: .bgrx, width: 160, height: 120, frameRate: FrameRate(30, 1))
    static let audio = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2)
    /// One AAC packet (the larger of AAC's 1024 and Opus' 960 frames) plus one video frame.
    static let bound = 1024.0 / 48_000 + 1.0 / 30

    /// 30 fps frames from the start for `seconds`.
    static func frames(seconds: Double) -> [(UInt64, CaptureSample)] {
        (0..<Int((seconds * 30).rounded())).map { i in
            let ts = Synthetic.start + UInt64(i) * 1_000_000_000 / 30
            return (ts, .video(Synthetic.frame(i, format: video, timestamp: ts)))
        }
    }

    /// 1024-frame chunks arriving every `interval` ns from `first` (relative to the start, may be negative) until
    /// `until`, each stamped as the capture stream does without a graph clock when the source is faster than
    /// time: at its arrival less its duration.
    static func chunks(first: Int64, interval: UInt64, until: UInt64) -> [(UInt64, CaptureSample)] {
        var out: [(UInt64, CaptureSample)] = []
        var arrival = UInt64(Int64(Synthetic.start) + first)
        var n = 0
        while arrival <= Synthetic.start + until {
            let ts = arrival - 1024 * 1_000_000_000 / 48_000
            out.append((arrival, .audio(Synthetic.sine(format: audio, offset: n * 1024, frames: 1024, timestamp: ts, sequence: UInt64(n)))))
            arrival += interval
            n += 1
        }
        return out
    }

    /// Encodes the samples in arrival order; returns the video's seconds (decoded frames at 30 fps), the audio's
    /// seconds (decoded samples), the frame count and the last frame's time.
    static func encode(_ samples: [(UInt64, CaptureSample)], container: EncoderSink.Options.Container,
                       rate: EncoderSink.Options.RateControl = .cfr) throws -> (video: Double, audio: Double, frames: Int, lastFrame: Double) {
        let dir = TemporaryDirectory("sync")
        let path = dir.file("out.\(container.rawValue)")
        var options = EncoderSink.Options()
        options.container = container
        options.rate = rate
        options.preset = "ultrafast"
        options.overflow = .block
        let ordered = samples.sorted { $0.0 < $1.0 }.map(\.1)
        try Synthetic.run(try EncoderSink(options: options), video: video, audio: audio, output: path,
                          start: Synthetic.start, samples: ordered)
        let frames = try #require(try MediaTool.probe(path).first { $0.type == "video" }?.frames)
        let pcm = try MediaTool.decodeAudio(path)
        let lastFrame = try #require(try MediaTool.videoFrameTimes(path).max())
        return (Double(frames) / 30, Double(pcm.count) / 48_000, frames, lastFrame)
    }

    @Test("audio from a source faster than time, starting before the first frame, lasts as long as the video",
          arguments: [EncoderSink.Options.Container.mkv, .mp4])
    func fastSource(container: EncoderSink.Options.Container) throws {
        // 1024 frames every 16.7 ms (61,440 a second, a 60 fps video driver pacing the audio graph), from 50 ms
        // before the first frame to the end of the last one.
        let samples = Self.frames(seconds: 2) + Self.chunks(first: -50_000_000, interval: 16_666_667, until: 2_000_000_000)
        let r = try Self.encode(samples, container: container)
        #expect(r.frames == 60)
        #expect(abs(r.audio - r.video) <= Self.bound, "audio \(r.audio) s, video \(r.video) s")
    }

    @Test("audio from a source slower than time (samples lost) still lasts as long as the video")
    func slowSource() throws {
        // 1024 frames every 33.3 ms (30,720 a second): the capture clock restarts at each loss, silence fills it.
        var samples = Self.frames(seconds: 2)
        var arrival = Synthetic.start
        var n = 0, next = Synthetic.start - 21_333_333
        while arrival <= Synthetic.start + 2_000_000_000 {
            let latest = arrival - 21_333_333
            let ts = latest - next > 100_000_000 ? latest : next
            samples.append((arrival, .audio(Synthetic.sine(format: Self.audio, offset: n * 1024, frames: 1024, timestamp: ts, sequence: UInt64(n)))))
            next = ts + 21_333_333
            arrival += 33_333_333
            n += 1
        }
        let r = try Self.encode(samples, container: .mkv)
        #expect(abs(r.audio - r.video) <= Self.bound, "audio \(r.audio) s, video \(r.video) s")
    }

    @Test("audio that stops early is padded with silence to the video's end")
    func audioStopsEarly() throws {
        let samples = Self.frames(seconds: 2) + Self.chunks(first: 21_333_333, interval: 21_333_333, until: 1_500_000_000)
        let r = try Self.encode(samples, container: .mkv)
        #expect(r.frames == 60)
        #expect(abs(r.audio - r.video) <= Self.bound, "audio \(r.audio) s, video \(r.video) s")
    }

    @Test("when frames stop before the sound does, the last frame stays on screen to the end (CFR and VFR)",
          arguments: [EncoderSink.Options.RateControl.cfr, .vfr])
    func videoStopsEarly(rate: EncoderSink.Options.RateControl) throws {
        let samples = Self.frames(seconds: 1) + Self.chunks(first: 21_333_333, interval: 21_333_333, until: 2_000_000_000)
        let r = try Self.encode(samples, container: .mkv, rate: rate)
        if rate == .cfr {
            #expect(abs(r.audio - r.video) <= Self.bound, "audio \(r.audio) s, video \(r.video) s")
        } else {
            #expect(r.frames == 31, "the last frame is presented once more")
            #expect(abs(r.lastFrame + 1.0 / 30 - r.audio) <= Self.bound, "last frame at \(r.lastFrame) s, audio \(r.audio) s")
        }
        #expect(abs(r.audio - 2) <= Self.bound, "audio \(r.audio) s")
    }

    /// A container with the codecs it holds (webm takes vp9 video).
    struct Pair: Sendable, CustomTestStringConvertible {
        var container: EncoderSink.Options.Container
        var audio: EncoderSink.Options.AudioCodec
        var testDescription: String { "\(container.rawValue)+\(audio.rawValue)" }
    }

    @Test("the first frame and the first captured sample play together, and every frame keeps its spacing",
          arguments: [Pair(container: .mp4, audio: .aac), Pair(container: .mkv, audio: .opus),
                      Pair(container: .webm, audio: .opus), Pair(container: .mkv, audio: .aac),
                      Pair(container: .mkv, audio: .flac)])
    func firstFrameAndFirstSample(pair: Pair) throws {
        let dir = TemporaryDirectory("onset")
        let path = dir.file("out.\(pair.container.rawValue)")
        var options = EncoderSink.Options()
        options.container = pair.container
        options.videoCodec = pair.container == .webm ? .vp9 : .h264
        options.audioCodec = pair.audio
        options.preset = pair.container == .webm ? nil : "ultrafast"
        options.overflow = .block
        // The sine starts exactly at the first frame (its first sample is that frame's).
        let samples = Synthetic.samples(video: Self.video, audio: Self.audio, seconds: 1, start: Synthetic.start)
        try Synthetic.run(try EncoderSink(options: options), video: Self.video, audio: Self.audio, output: path,
                          start: Synthetic.start, samples: samples)

        let frames = try MediaTool.videoFrameTimes(path)
        let first = try #require(frames.first)
        let onset = try #require(try MediaTool.audioOnset(path))
        #expect(abs(onset - first) < 0.0015, "the sound starts at \(onset) s, the first frame at \(first) s")
        // The video starts at 0, or (AAC in Matroska, which cannot skip the priming) after the priming.
        #expect(first >= 0 && first < 1024.0 / 48_000 + 0.001, "the first frame is at \(first) s")
        let spacing = zip(frames.dropFirst(), frames).map { $0 - $1 }
        #expect(spacing.allSatisfy { abs($0 - 1.0 / 30) < 0.0015 }, "frames 1/30 s apart from the first: \(spacing.prefix(3))")
    }

    /// How a 1 fps recording is written: its rate, its container, with the microphone or without.
    struct Ending: Sendable, CustomTestStringConvertible {
        var rate: EncoderSink.Options.RateControl
        var container: EncoderSink.Options.Container
        var audio: Bool
        var testDescription: String { "\(rate.rawValue) \(container.rawValue)" + (audio ? " with audio" : "") }
    }

    @Test("a 1 fps recording ends where it was stopped, not where its last frame's slot or nominal duration ends",
          arguments: [Ending(rate: .cfr, container: .mkv, audio: true), Ending(rate: .cfr, container: .mp4, audio: true),
                      Ending(rate: .vfr, container: .mkv, audio: true), Ending(rate: .vfr, container: .mp4, audio: true),
                      Ending(rate: .cfr, container: .mkv, audio: false)])
    func lowRateEndsAtTheStop(ending: Ending) throws {
        // Frames at 0, 1, 2, 3 and 4 s, the tone in 10 ms chunks to the stop at 4.01 s: the file lasted 5 s,
        // the last frame to the end of its 1 s slot and the sound padded with silence to it.
        let format = VideoFormat(pixelFormat: .bgrx, width: 160, height: 120, frameRate: FrameRate(1, 1))
        let stop = 4.01
        var samples: [(UInt64, CaptureSample)] = (0...4).map { i in
            let ts = Synthetic.start + UInt64(i) * 1_000_000_000
            return (ts, .video(Synthetic.frame(i, format: format, timestamp: ts)))
        }
        if ending.audio {
            samples += (0..<Int(stop * 100)).map { c in
                let ts = Synthetic.start + UInt64(c) * 10_000_000
                return (ts, .audio(Synthetic.sine(format: Self.audio, offset: c * 480, frames: 480, timestamp: ts, sequence: UInt64(c))))
            }
        }
        let dir = TemporaryDirectory("stop")
        let path = dir.file("out.\(ending.container.rawValue)")
        var options = EncoderSink.Options()
        options.container = ending.container
        options.rate = ending.rate
        options.preset = "ultrafast"
        options.overflow = .block
        try Synthetic.run(try EncoderSink(options: options), video: format, audio: ending.audio ? Self.audio : nil,
                          output: path, start: Synthetic.start, samples: samples.sorted { $0.0 < $1.0 }.map(\.1),
                          end: Synthetic.start + UInt64(stop * 1e9))

        // Within Opus' 6.5 ms CodecDelay, which Matroska's track end counts, and a millisecond of rounding.
        let end = try MediaTool.end(path)
        #expect(abs(end - stop) < 0.008, "the file ends at \(end) s, the recording at \(stop) s")
        for stream in try MediaTool.probe(path) {
            let streamEnd = try #require(stream.end)
            #expect(abs(streamEnd - stop) < 0.008, "the \(stream.type) ends at \(streamEnd) s, the recording at \(stop) s")
        }
        #expect(try MediaTool.videoFrameTimes(path).count == 5)
        if ending.audio {
            // What plays: to the stop, plus at most the padding of the codec's last frame.
            let seconds = Double(try MediaTool.decodeAudio(path).count) / 48_000
            #expect(seconds > stop - 0.001 && seconds < stop + 1024.0 / 48_000, "the audio lasts \(seconds) s")
        }
    }
}
