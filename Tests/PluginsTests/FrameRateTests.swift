import Foundation
import Testing
@testable import Plugins
import PortalTestSupport

@Suite("Constant and variable frame rate")
struct FrameRateTests {
    init() { EncoderSink.setLibraryLogLevel(.error) }

    static let format = VideoFormat(pixelFormat: .rgbx, width: 160, height: 120, frameRate: FrameRate(30, 1))

    /// Capture times (seconds) that are anything but regular: a 60 fps burst, a stall, jitter.
    static let unevenTimes: [Double] = {
        var t: [Double] = []
        var now = 0.0
        for _ in 0..<20 { t.append(now); now += 1.0 / 60 }      // faster than the target: drops
        now += 0.25                                           // a stall: duplicates
        for i in 0..<30 { t.append(now); now += i % 2 == 0 ? 0.021 : 0.047 }   // jitter around 29.4 fps
        now += 0.1
        for _ in 0..<10 { t.append(now); now += 0.05 }       // 20 fps
        return t
    }()

    @Test("the clock puts CFR frames on the grid, duplicating into gaps and dropping doubles")
    func clockCFR() {
        var clock = FrameClock(mode: .constant(FrameRate(30, 1)), start: 1_000)
        #expect(clock.place(1_000) == .init(duplicates: 0..<0, pts: 0))
        #expect(clock.place(1_000 + 10_000_000) == .init(duplicates: 1..<1, pts: nil), "10 ms later: slot 0 is taken")
        #expect(clock.place(1_000 + 33_333_333) == .init(duplicates: 1..<1, pts: 1))
        #expect(clock.place(1_000 + 200_000_000) == .init(duplicates: 2..<6, pts: 6), "a 167 ms gap is filled by 4 copies")
        #expect(clock.place(500) == .init(duplicates: 7..<7, pts: nil), "a frame from before the start is late")
    }

    @Test("the clock keeps VFR times and makes them strictly increasing")
    func clockVFR() {
        var clock = FrameClock(mode: .variable(ticksPerSecond: 1_000), start: 0)
        #expect(clock.place(12_300_000).pts == 12)
        #expect(clock.place(12_400_000).pts == 13, "two frames within a millisecond get distinct times")
        #expect(clock.place(250_000_000).pts == 250)
    }

    private func deliver(times: [Double], rate: EncoderSink.Options.RateControl, container: EncoderSink.Options.Container,
                         dir: TemporaryDirectory, frameRate: FrameRate? = nil) throws -> (path: String, result: SinkResult) {
        let path = dir.file("rate.\(container.rawValue)")
        var o = EncoderSink.Options()
        o.container = container
        o.rate = rate
        o.frameRate = frameRate
        o.preset = "ultrafast"
        o.overflow = .block
        let sink = try EncoderSink(options: o)
        let samples = times.enumerated().map { i, t in
            CaptureSample.video(Synthetic.frame(i, format: Self.format, timestamp: Synthetic.start + UInt64(t * 1e9)))
        }
        let result = try Synthetic.run(sink, video: Self.format, audio: nil, output: path, start: Synthetic.start, samples: samples)
        return (path, result)
    }

    @Test("frames delivered at an uneven rate come out at exactly the target rate",
          arguments: [EncoderSink.Options.Container.mkv, .mp4])
    func cfrFromUneven(container: EncoderSink.Options.Container) throws {
        let dir = TemporaryDirectory("cfr")
        let times = Self.unevenTimes
        let (path, result) = try deliver(times: times, rate: .cfr, container: container, dir: dir)
        let slots = Int((times.last! * 30).rounded()) + 1
        let written = try MediaTool.videoFrameTimes(path)
        #expect(written.count == slots, "one frame per 1/30 s slot from the first to the last frame")
        #expect(result.videoFrames == slots)
        #expect(result.duplicatedFrames > 0 && result.droppedFrames > 0)
        #expect(result.videoFrames == times.count - result.droppedFrames + result.duplicatedFrames)
        let deltas = zip(written.dropFirst(), written).map { $0 - $1 }
        #expect(deltas.allSatisfy { abs($0 - 1.0 / 30) < 0.0015 }, "every frame lasts 1/30 s: \(deltas)")

        // What each slot shows is the newest frame captured by then (never a frame from the future).
        let decoded = try MediaTool.decodeVideo(path, width: 160, height: 120)
        #expect(decoded.frames.count == slots)
        var previous = -1
        for (k, frame) in decoded.frames.enumerated() {
            let n = Int(TestPattern.decodeCounter(frame))
            #expect(n >= previous, "slot \(k) shows frame \(n) after \(previous)")
            #expect(times[n] <= (Double(k) + 0.5) / 30 + written[0], "slot \(k) shows frame \(n) captured at \(times[n])")
            previous = n
        }
    }

    @Test("VFR keeps each frame's capture time relative to the start", arguments: [EncoderSink.Options.Container.mkv, .mp4])
    func vfrKeepsTimes(container: EncoderSink.Options.Container) throws {
        let dir = TemporaryDirectory("vfr")
        let times = Self.unevenTimes
        let (path, result) = try deliver(times: times, rate: .vfr, container: container, dir: dir)
        #expect(result.videoFrames == times.count)
        #expect(result.duplicatedFrames == 0 && result.droppedFrames == 0)
        let written = try MediaTool.videoFrameTimes(path).sorted()
        #expect(written.count == times.count)
        for (w, t) in zip(written, times) {
            #expect(abs(w - t) < 0.0015, "frame at \(t) s is written at \(w) s")
        }
    }

    @Test("VFR does not claim the nominal rate in the stream header (240 fps asked, 30 fps written)",
          arguments: [EncoderSink.Options.Container.mkv, .mp4])
    func vfrClaimsNoRate(container: EncoderSink.Options.Container) throws {
        let dir = TemporaryDirectory("vfr-rate")
        let times = (0..<60).map { Double($0) / 30 }
        let (path, _) = try deliver(times: times, rate: .vfr, container: container, dir: dir, frameRate: FrameRate(240, 1))
        let video = try #require(try MediaTool.probe(path).first { $0.type == "video" })
        #expect(video.frames == 60)
        for (name, rate) in [("avg_frame_rate", video.averageFrameRate), ("r_frame_rate", video.realFrameRate)] {
            if let rate { #expect(abs(rate - 30) < 1, "\(name) is \(rate), the frames come at 30 fps") }
        }
        let frames = try MediaTool.videoFrameTimes(path)
        let spacing = zip(frames.dropFirst(), frames).map { $0 - $1 }
        #expect(spacing.allSatisfy { abs($0 - 1.0 / 30) < 0.0015 }, "each frame lasts until the next: \(spacing)")
    }

    @Test("CFR claims its rate in the stream header", arguments: [EncoderSink.Options.Container.mkv, .mp4])
    func cfrClaimsItsRate(container: EncoderSink.Options.Container) throws {
        let dir = TemporaryDirectory("cfr-rate")
        let times = (0..<30).map { Double($0) / 30 }
        let (path, _) = try deliver(times: times, rate: .cfr, container: container, dir: dir, frameRate: FrameRate(60, 1))
        let video = try #require(try MediaTool.probe(path).first { $0.type == "video" })
        #expect(video.averageFrameRate.map { abs($0 - 60) < 0.5 } == true, "avg_frame_rate \(String(describing: video.averageFrameRate))")
        #expect(video.realFrameRate.map { abs($0 - 60) < 0.5 } == true, "r_frame_rate \(String(describing: video.realFrameRate))")
    }
}
