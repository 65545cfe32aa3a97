import Foundation
import Testing
import Plugins
import PortalTestSupport

@Suite("EncoderSink edge cases")
struct EncoderBehaviourTests {
    init() { EncoderSink.setLibraryLogLevel(.error) }

    private func options(_ container: EncoderSink.Options.Container = .mkv) -> EncoderSink.Options {
        var o = EncoderSink.Options()
        o.container = container
        o.preset = "ultrafast"
        o.overflow = .block
        return o
    }

    @Test("an odd size is cropped to even for 4:2:0, and a resize mid-stream is scaled to the first size")
    func oddSizeAndResize() throws {
        let dir = TemporaryDirectory("edge")
        let path = dir.file("odd.mkv")
        let first = VideoFormat(pixelFormat: .bgrx, width: 321, height: 241, frameRate: FrameRate(30, 1))
        let second = VideoFormat(pixelFormat: .bgrx, width: 642, height: 482, frameRate: FrameRate(30, 1))
        let sink = try EncoderSink(options: options())
        try sink.open(SinkContext(video: first, audio: nil, output: path, startTime: Synthetic.start))
        for i in 0..<10 { try sink.consume(.video(Synthetic.frame(i, format: first, timestamp: Synthetic.start + UInt64(i) * 33_333_334))) }
        try sink.formatChanged(second)
        for i in 10..<20 { try sink.consume(.video(Synthetic.frame(i, format: second, timestamp: Synthetic.start + UInt64(i) * 33_333_334))) }
        let result = try sink.close()
        #expect(result.videoFrames == 20)
        let v = try #require(try MediaTool.probe(path).first)
        #expect(v.width == 320 && v.height == 240)
        let decoded = try MediaTool.decodeVideo(path, width: 320, height: 240)
        #expect(decoded.frames.count == 20)
        for (n, f) in decoded.frames.enumerated() {
            #expect(TestPattern.decodeCounter(f) == UInt32(n), "frame \(n)")
            #expect(TestPattern.checkColourAreas(f) == nil, "frame \(n)")
        }
    }

    @Test("a full encoder queue drops frames and counts them instead of blocking the delivery thread")
    func overflowDrops() throws {
        let dir = TemporaryDirectory("edge")
        var o = options()
        o.overflow = .drop
        o.queueCapacity = 1
        o.preset = "medium"
        let format = VideoFormat(pixelFormat: .bgrx, width: 640, height: 360, frameRate: FrameRate(30, 1))
        let frames = (0..<60).map { CaptureSample.video(Synthetic.frame($0, format: format, timestamp: Synthetic.start + UInt64($0) * 33_333_334)) }
        let sink = try EncoderSink(options: o)
        try sink.open(SinkContext(video: format, audio: nil, output: dir.file("drops.mkv"), startTime: Synthetic.start))
        let clock = ContinuousClock()
        let elapsed = try clock.measure { for f in frames { try sink.consume(f) } }
        let result = try sink.close()
        #expect(result.droppedFrames > 0, "60 frames at once into a queue of 1")
        #expect(result.videoFrames == 60 - result.droppedFrames + result.duplicatedFrames)
        // The oldest waiting frame gives way, so the newest picture is never the one lost.
        let decoded = try MediaTool.decodeVideo(dir.file("drops.mkv"), width: 640, height: 360)
        #expect(decoded.frames.last.map(TestPattern.decodeCounter) == 59)
        #expect(elapsed < .seconds(1), "consume only queues (\(elapsed) for 60 frames)")
    }

    @Test("a producer's frame rate past what FFmpeg holds is left out: the file is made at the default 30 fps")
    func producerRateFFmpegCannotHold() throws {
        let dir = TemporaryDirectory("edge")
        let path = dir.file("rate.mkv")
        let format = VideoFormat(pixelFormat: .bgrx, width: 64, height: 48, frameRate: FrameRate(3_000_000_000, 100_000_000))
        let sink = try EncoderSink(options: options())
        try sink.open(SinkContext(video: format, audio: nil, output: path, startTime: Synthetic.start))
        for i in 0..<10 { try sink.consume(.video(Synthetic.frame(i, format: format, timestamp: Synthetic.start + UInt64(i) * 33_333_334))) }
        #expect(try sink.close().videoFrames == 10)
        let v = try #require(try MediaTool.probe(path).first)
        #expect(v.width == 64 && v.height == 48)
        #expect(try MediaTool.decodeVideo(path, width: 64, height: 48).frames.count == 10)
    }

    @Test("audio alone makes an audio-only file")
    func audioOnly() throws {
        let dir = TemporaryDirectory("edge")
        let path = dir.file("mic.mkv")
        let audio = AudioFormat(sampleFormat: .s16, sampleRate: 44_100, channels: 1)
        let samples = Synthetic.samples(video: nil, audio: audio, seconds: 1, start: Synthetic.start)
        let result = try Synthetic.run(try EncoderSink(options: options()), video: nil, audio: audio, output: path,
                                       start: Synthetic.start, samples: samples)
        #expect(result.audioFrames == 44_100)
        let streams = try MediaTool.probe(path)
        #expect(streams.map(\.type) == ["audio"])
        #expect(streams.first?.codec == "opus" && streams.first?.sampleRate == 48_000, "opus resampled to 48 kHz")
        let pcm = try MediaTool.decodeAudio(path)
        #expect(abs(Double(pcm.count) / 48_000 - 1) < 0.05)
        #expect(abs(MediaTool.frequency(Array(pcm.dropFirst(4800))) - 440) < 5)
    }

    @Test("a pipe (not seekable) gets a streamable file", arguments: [EncoderSink.Options.Container.mkv, .mp4])
    func pipeOutput(container: EncoderSink.Options.Container) throws {
        let dir = TemporaryDirectory("edge")
        let fifo = dir.file("pipe"), copy = dir.file("copy.\(container.rawValue)")
        #expect(mkfifo(fifo, 0o600) == 0)
        // A reader, as a tool at the other end of the pipe would be.
        let reader = try Process.run(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "cat '\(fifo)' > '\(copy)'"])
        let format = VideoFormat(pixelFormat: .rgbx, width: 160, height: 120, frameRate: FrameRate(30, 1))
        let samples = Synthetic.samples(video: format, audio: nil, seconds: 1, start: Synthetic.start)
        let result = try Synthetic.run(try EncoderSink(options: options(container)), video: format, audio: nil, output: fifo,
                                       start: Synthetic.start, samples: samples)
        reader.waitUntilExit()
        #expect(result.videoFrames == 30)
        let decoded = try MediaTool.decodeVideo(copy, width: 160, height: 120)
        #expect(decoded.frames.count == 30, "\(decoded.stderr)")
        #expect(decoded.frames.last.map(TestPattern.decodeCounter) == 29)
    }

    @Test("a codec that cannot open leaves no file behind and says which call failed")
    func openFailureCleansUp() throws {
        let dir = TemporaryDirectory("edge")
        let path = dir.file("tiny.mkv")
        var o = options()
        o.videoCodec = .av1
        o.preset = nil
        let sink = try EncoderSink(options: o)
        let tiny = VideoFormat(pixelFormat: .bgrx, width: 8, height: 8)
        let error = #expect(throws: SinkError.self) {
            try sink.open(SinkContext(video: tiny, audio: nil, output: path, startTime: 0))
        }
        guard case .failed("encoder", let reason) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.hasPrefix("avcodec_open2(libsvtav1, 8x8 yuv420p)"))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try sink.close() == SinkResult())
    }

    @Test("an output in a folder that does not exist gives filePermissions")
    func missingFolder() throws {
        let sink = try EncoderSink(options: options())
        let video = VideoFormat(pixelFormat: .bgrx, width: 64, height: 64)
        let error = #expect(throws: SinkError.self) {
            try sink.open(SinkContext(video: video, audio: nil, output: "/nonexistent-pwrecord/x.mkv", startTime: 0))
        }
        #expect(error == .filePermissions(path: "/nonexistent-pwrecord/x.mkv", reason: "No such file or directory"))
    }
}
