import Foundation
import Testing
import Plugins
import PortalTestSupport

/// One container/codec pair the encoder must write on Debian 12's FFmpeg 5.1.
struct EncoderCase: Sendable, CustomTestStringConvertible {
    var container: EncoderSink.Options.Container
    var codec: EncoderSink.Options.VideoCodec
    var audio: EncoderSink.Options.AudioCodec?
    var pixelFormat: EncoderSink.Options.PixelFormat?
    var expectedCodec: String
    var expectedPixelFormat: String
    var expectedAudioCodec: String?

    var testDescription: String {
        "\(container.rawValue)/\(codec.rawValue)" + (pixelFormat.map { "/\($0.rawValue)" } ?? "")
            + (expectedAudioCodec.map { "+\($0)" } ?? "")
    }

    /// (NV12 is an input layout: the H.264 stream it gives is 4:2:0, which decoders report as yuv420p.)
    static let all: [EncoderCase] = [
        .init(container: .mkv, codec: .h264, audio: nil, expectedCodec: "h264", expectedPixelFormat: "yuv420p", expectedAudioCodec: "opus"),
        .init(container: .mkv, codec: .vp9, audio: nil, expectedCodec: "vp9", expectedPixelFormat: "yuv420p", expectedAudioCodec: "opus"),
        .init(container: .mkv, codec: .av1, audio: .flac, expectedCodec: "av1", expectedPixelFormat: "yuv420p", expectedAudioCodec: "flac"),
        .init(container: .mkv, codec: .ffv1, audio: .flac, expectedCodec: "ffv1", expectedPixelFormat: "bgr0", expectedAudioCodec: "flac"),
        .init(container: .mkv, codec: .h264, audio: .aac, pixelFormat: .yuv444p, expectedCodec: "h264", expectedPixelFormat: "yuv444p", expectedAudioCodec: "aac"),
        .init(container: .mp4, codec: .h264, audio: nil, expectedCodec: "h264", expectedPixelFormat: "yuv420p", expectedAudioCodec: "aac"),
        .init(container: .mp4, codec: .av1, audio: .aac, expectedCodec: "av1", expectedPixelFormat: "yuv420p", expectedAudioCodec: "aac"),
        .init(container: .webm, codec: .vp9, audio: nil, expectedCodec: "vp9", expectedPixelFormat: "yuv420p", expectedAudioCodec: "opus"),
        .init(container: .webm, codec: .av1, audio: .opus, expectedCodec: "av1", expectedPixelFormat: "yuv420p", expectedAudioCodec: "opus"),
        .init(container: .mkv, codec: .h264, audio: nil, pixelFormat: .nv12, expectedCodec: "h264", expectedPixelFormat: "yuv420p", expectedAudioCodec: nil),
    ]
}

@Suite("EncoderSink writes every container and codec pair", .serialized)
struct EncoderSinkTests {
    init() { EncoderSink.setLibraryLogLevel(.error) }

    static let video = VideoFormat(pixelFormat: .bgrx, width: 320, height: 240, frameRate: FrameRate(30, 1))
    static let audio = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2)

    @Test("a 2 s recording reads back with the asked codec, size, pixel format, frame count, pattern and audio",
          arguments: EncoderCase.all)
    func roundTrip(_ c: EncoderCase) throws {
        let dir = TemporaryDirectory("enc")
        let path = dir.file("out.\(c.container.rawValue)")
        var options = EncoderSink.Options()
        options.container = c.container
        options.videoCodec = c.codec
        options.audioCodec = c.audio
        options.pixelFormat = c.pixelFormat
        options.overflow = .block
        let sink = try EncoderSink(options: options)
        let withAudio = c.expectedAudioCodec != nil
        let audio = withAudio ? Self.audio : nil
        let samples = Synthetic.samples(video: Self.video, audio: audio, seconds: 2, start: Synthetic.start)
        let result = try Synthetic.run(sink, video: Self.video, audio: audio, output: path, start: Synthetic.start, samples: samples)

        #expect(result.files == [path])
        #expect(result.videoFrames == 60)
        #expect(result.droppedFrames == 0)
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600, "the recording is private (0600)")
        #expect(Int64(st.st_size) == result.bytesWritten)

        let streams = try MediaTool.probe(path)
        let v = try #require(streams.first { $0.type == "video" })
        #expect(v.codec == c.expectedCodec)
        #expect(v.width == 320 && v.height == 240)
        #expect(v.pixelFormat == c.expectedPixelFormat)
        let frames = try #require(v.frames)
        #expect(abs(frames - 60) <= 3, "frame count \(frames) is within 5% of 2 s x 30 fps")

        let decoded = try MediaTool.decodeVideo(path, width: 320, height: 240)
        #expect(decoded.status == 0, "ffmpeg decodes the file: \(decoded.stderr)")
        let first = try #require(decoded.frames.first)
        let last = try #require(decoded.frames.last)
        #expect(TestPattern.checkColourAreas(first) == nil)
        #expect(TestPattern.checkColourAreas(last) == nil)
        #expect(TestPattern.decodeCounter(first) == 0)
        #expect(TestPattern.decodeCounter(last) == 59)

        let a = streams.first { $0.type == "audio" }
        if let expected = c.expectedAudioCodec {
            let a = try #require(a)
            #expect(a.codec == expected)
            #expect(a.channels == 2)
            let pcm = try MediaTool.decodeAudio(path)
            let seconds = Double(pcm.count) / 48_000
            #expect(abs(seconds - 2) < 0.1, "audio lasts \(seconds) s")
            let hz = MediaTool.frequency(Array(pcm.dropFirst(4800).prefix(48_000)))
            #expect(abs(hz - 440) < 5, "the audio is the 440 Hz sine (\(hz) Hz)")
        } else {
            #expect(a == nil)
        }
    }
}
