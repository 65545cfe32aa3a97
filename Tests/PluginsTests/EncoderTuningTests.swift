import Foundation
import Testing
@testable import Plugins
import PortalTestSupport

@Suite("EncoderSink memory and latency tuning")
struct EncoderTuningTests {
    init() { EncoderSink.setLibraryLogLevel(.error) }

    private func format(_ width: Int, _ height: Int) -> VideoFormat {
        VideoFormat(pixelFormat: .bgrx, width: width, height: height, frameRate: FrameRate(30))
    }

    @Test("the encoding queue holds at most 16 MiB of frames, never fewer than 2, never more than asked",
          arguments: [
              (1920, 1080, 16, 2), (1280, 720, 16, 4), (3840, 2160, 16, 2), (640, 360, 16, 16),
              (640, 360, 5, 5), (1280, 720, 1, 1),
          ])
    func queueCapacity(width: Int, height: Int, asked: Int, expected: Int) {
        #expect(EncoderTuning.queueCapacity(asked, for: format(width, height)) == expected)
    }

    @Test("a recording without video keeps the queue capacity asked for")
    func queueWithoutVideo() {
        #expect(EncoderTuning.queueCapacity(16, for: nil) == 16)
    }

    private func video(latency: EncoderSink.Options.Latency, preset: String?) -> EncoderSettings.Video {
        EncoderSettings.Video(codec: .h264, pixelFormat: .yuv420p, crf: 23, preset: preset, width: 64, height: 64,
                              frameRate: FrameRate(30), rate: .vfr, gopSize: 30, threads: 0, latency: latency)
    }

    @Test("low latency gives libx264 no B-frames, a one-frame lookahead, no sync lookahead and sliced threads")
    func lowLatencyOptions() {
        let options = EncoderTuning.x264Options(video(latency: .low, preset: "veryfast"))
        #expect(options.map(\.0) == ["x264-params"])
        #expect(options.first?.1 == "bframes=0:rc-lookahead=1:sync-lookahead=0:sliced-threads=1")
        // A preset without a lookahead gets none.
        #expect(EncoderTuning.x264Options(video(latency: .low, preset: "ultrafast")).first?.1
                == "bframes=0:rc-lookahead=0:sync-lookahead=0:sliced-threads=1")
    }

    @Test("normal latency keeps the preset's pipeline and caps only its lookahead to a sixth of a second")
    func normalLatencyOptions() {
        #expect(EncoderTuning.x264Options(video(latency: .normal, preset: "veryfast")).map { "\($0.0)=\($0.1)" } == ["rc-lookahead=5"])
        #expect(EncoderTuning.x264Options(video(latency: .normal, preset: "ultrafast")).isEmpty)
    }

    @Test("latency is a spec option: low by default, normal on request, anything else refused")
    func latencySpec() throws {
        let registry = SinkRegistry.standard()
        let plain = try #require(try registry.makeSink("encoder") as? EncoderSink)
        #expect(plain.options.latency == .low)
        let normal = try #require(try registry.makeSink("encoder:latency=normal") as? EncoderSink)
        #expect(normal.options.latency == .normal)
        let error = #expect(throws: SinkError.self) { _ = try registry.makeSink("encoder:latency=zero") }
        #expect(error == .invalidOption(sink: "encoder", option: "latency", reason: "'zero' is not one of low, normal"))
    }

    /// The picture types of the video frames of `path`, in presentation order (`I`, `P`, `B`).
    private func pictureTypes(_ path: String) throws -> [String] {
        let o = try MediaTool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pict_type",
                                               "-of", "csv=p=0", path])
        #expect(o.status == 0, "\(o.stderr)")
        return String(decoding: o.stdout, as: UTF8.self).split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    @Test("a low-latency file has no B-frames; the preset's pipeline (latency=normal) has some")
    func bFramesInFiles() throws {
        let dir = TemporaryDirectory("tuning")
        let format = format(320, 240)
        let samples = Synthetic.samples(video: format, audio: nil, seconds: 2, start: Synthetic.start)
        var types: [EncoderSink.Options.Latency: [String]] = [:]
        for latency in EncoderSink.Options.Latency.allCases {
            var o = EncoderSink.Options()
            o.latency = latency
            o.rate = .vfr
            o.overflow = .block
            let path = dir.file("\(latency.rawValue).mkv")
            let result = try Synthetic.run(try EncoderSink(options: o), video: format, audio: nil, output: path,
                                           start: Synthetic.start, samples: samples)
            #expect(result.videoFrames == 60)
            types[latency] = try pictureTypes(path)
        }
        #expect(types[.low]?.count == 60)
        #expect(types[.low]?.contains("B") == false, "\(types[.low] ?? [])")
        #expect(types[.normal]?.count == 60)
        #expect(types[.normal]?.contains("B") == true, "\(types[.normal] ?? [])")
    }
}
