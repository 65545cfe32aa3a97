import Foundation
import Testing
import Plugins
import PortalTestSupport

@Suite("RawVideoSink writes Y4M and WAV")
struct RawVideoSinkTests {
    /// A size where every pattern edge falls on an even row and column, so each 2x2 chroma block is one colour.
    static let video = VideoFormat(pixelFormat: .bgrx, width: 320, height: 256, frameRate: FrameRate(30, 1))

    /// BT.601 limited range in integers, as libyuv's C rows define it (`RGBToY`, `RGBToU`, `RGBToV`). Its
    /// SIMD rows (used on x86-64) round chroma down instead of to nearest, so U and V may be one lower.
    static func yuv(_ c: (r: UInt8, g: UInt8, b: UInt8)) -> (y: UInt8, u: UInt8, v: UInt8) {
        let r = Int(c.r), g = Int(c.g), b = Int(c.b)
        return (UInt8((66 * r + 129 * g + 25 * b + 0x1080) >> 8),
                UInt8((112 * b - 74 * g - 38 * r + 0x8080) >> 8),
                UInt8((112 * r - 94 * g - 18 * b + 0x8080) >> 8))
    }

    /// The Y, U and V planes the pattern's frame `n` must give.
    static func expectedPlanes(frame n: Int, width w: Int, height h: Int) -> [UInt8] {
        var y = [UInt8](), u = [UInt8](), v = [UInt8]()
        for row in 0..<h {
            for col in 0..<w { y.append(yuv(TestPattern.expectedRGB(x: col, y: row, width: w, height: h, frameNumber: UInt32(n))).y) }
        }
        for row in stride(from: 0, to: h, by: 2) {
            for col in stride(from: 0, to: w, by: 2) {
                let c = yuv(TestPattern.expectedRGB(x: col, y: row, width: w, height: h, frameNumber: UInt32(n)))
                u.append(c.u)
                v.append(c.v)
            }
        }
        return y + u + v
    }

    @Test("the Y4M header, frame markers and luma bytes are exact; chroma is BT.601 within libyuv's rounding",
          arguments: [PixelFormat.bgrx, .rgbx, .rgba])
    func y4mExact(pixelFormat: PixelFormat) throws {
        let dir = TemporaryDirectory("raw")
        var format = Self.video
        format.pixelFormat = pixelFormat
        let path = dir.file("out.y4m")
        let samples = Synthetic.samples(video: format, audio: nil, seconds: 0.2, start: Synthetic.start)
        let result = try Synthetic.run(RawVideoSink(), video: format, audio: nil, output: path, start: Synthetic.start, samples: samples)
        #expect(result.files == [path])
        #expect(result.videoFrames == 6)

        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let header = Array("YUV4MPEG2 W320 H256 F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n".utf8)
        #expect(Array(data.prefix(header.count)) == header)
        let frameSize = 320 * 256 + 2 * (160 * 128)
        #expect(data.count == header.count + 6 * (6 + frameSize))
        for n in 0..<6 {
            let at = header.count + n * (6 + frameSize)
            #expect(Array(data[at..<at + 6]) == Array("FRAME\n".utf8))
            let planes = Array(data[at + 6..<at + 6 + frameSize])
            let expected = Self.expectedPlanes(frame: n, width: 320, height: 256)
            let luma = 320 * 256
            let wrongY = zip(planes.prefix(luma), expected.prefix(luma)).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(wrongY == nil, "frame \(n): first differing luma byte \(String(describing: wrongY))")
            let wrongUV = zip(planes.dropFirst(luma), expected.dropFirst(luma)).enumerated().first {
                !(0...1).contains(Int($0.element.1) - Int($0.element.0))
            }
            #expect(wrongUV == nil, "frame \(n): first chroma byte off by more than rounding \(String(describing: wrongUV))")
        }
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
    }

    @Test("ffmpeg reads the Y4M back as the pattern, also at an odd size and in 4:4:4",
          arguments: [(VideoFormat(pixelFormat: .bgrx, width: 321, height: 241, frameRate: FrameRate(30, 1)), RawVideoSink.Chroma.c420),
                      (VideoFormat(pixelFormat: .rgbx, width: 320, height: 240, frameRate: FrameRate(25, 1)), .c444)])
    func y4mDecodes(format: VideoFormat, chroma: RawVideoSink.Chroma) throws {
        let dir = TemporaryDirectory("raw")
        let path = dir.file("odd.y4m")
        var o = RawVideoSink.Options()
        o.chroma = chroma
        let samples = Synthetic.samples(video: format, audio: nil, seconds: 0.4, start: Synthetic.start)
        try Synthetic.run(RawVideoSink(options: o), video: format, audio: nil, output: path, start: Synthetic.start, samples: samples)
        let streams = try MediaTool.probe(path)
        #expect(streams.first?.width == format.width && streams.first?.height == format.height)
        #expect(streams.first?.pixelFormat == (chroma == .c420 ? "yuv420p" : "yuv444p"))
        let decoded = try MediaTool.decodeVideo(path, width: format.width, height: format.height)
        #expect(decoded.frames.count == samples.count)
        for (n, f) in decoded.frames.enumerated() {
            #expect(TestPattern.decodeCounter(f) == UInt32(n))
            #expect(TestPattern.checkColourAreas(f, tolerance: 6) == nil)
        }
    }

    @Test("the WAV header is exact and the samples are the input's")
    func wavExact() throws {
        let dir = TemporaryDirectory("raw")
        let path = dir.file("rec.y4m")
        let audio = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2)
        let samples = Synthetic.samples(video: Self.video, audio: audio, seconds: 0.5, start: Synthetic.start)
        let result = try Synthetic.run(RawVideoSink(), video: Self.video, audio: audio, output: path, start: Synthetic.start, samples: samples)
        let wavPath = dir.file("rec.wav")
        #expect(result.files == [path, wavPath])
        #expect(result.audioFrames == 24_000)

        let input = samples.flatMap { s -> [UInt8] in if case .audio(let b) = s { b.bytes } else { [] } }
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: wavPath)))
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func le16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let header: [UInt8] = Array("RIFF".utf8) + le32(36 + input.count) + Array("WAVE".utf8)
            + Array("fmt ".utf8) + le32(16) + le16(3) + le16(2) + le32(48_000) + le32(48_000 * 8) + le16(8) + le16(32)
            + Array("data".utf8) + le32(input.count)
        #expect(Array(data.prefix(44)) == header)
        #expect(Array(data.dropFirst(44)) == input)
        let pcm = try MediaTool.decodeAudio(wavPath)
        #expect(abs(MediaTool.frequency(pcm) - 440) < 5)
    }

    @Test("16-bit audio alone goes to the output as a PCM WAV")
    func wavOnlyS16() throws {
        let dir = TemporaryDirectory("raw")
        let path = dir.file("mic.wav")
        let audio = AudioFormat(sampleFormat: .s16, sampleRate: 44_100, channels: 1)
        let samples = Synthetic.samples(video: nil, audio: audio, seconds: 0.3, start: Synthetic.start)
        let result = try Synthetic.run(RawVideoSink(), video: nil, audio: audio, output: path, start: Synthetic.start, samples: samples)
        #expect(result.files == [path])
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(data.count == 44 + 13_230 * 2)
        #expect(Array(data[20..<24]) == [1, 0, 1, 0], "WAVE_FORMAT_PCM, mono")
        #expect(Array(data[34..<36]) == [16, 0], "16 bits a sample")
    }

    @Test("video to a descriptor (/dev/fd/N, as /dev/stdout is) with audio and no audio= is refused before anything is written, not sent to a '.wav' beside it",
          arguments: ["/dev/fd/", "/proc/self/fd/"])
    func descriptorOutputNeedsAudioFile(form: String) throws {
        let dir = TemporaryDirectory("raw")
        let path = dir.file("video.y4m")
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        let output = form + String(fd)
        let audio = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2)
        do throws(SinkError) {
            _ = try Synthetic.run(RawVideoSink(), video: Self.video, audio: audio, output: output, start: Synthetic.start, samples: [])
            Issue.record("expected invalidOption for audio")
        } catch {
            guard case .invalidOption(_, let option, let reason) = error else { Issue.record("got \(error)"); return }
            #expect(option == "audio" && reason.contains("give audio=FILE"), "\(reason)")
        }
        #expect(!FileManager.default.fileExists(atPath: output + ".wav") && !FileManager.default.fileExists(atPath: "/dev/fd/\(fd).wav"))
        var st = stat()
        #expect(fstat(fd, &st) == 0 && st.st_size == 0, "\(st.st_size) bytes were written before the refusal")
    }

    @Test("audio= naming the video's own destination is refused before anything is written",
          arguments: [("same.y4m", "same.y4m"), ("same.y4m", "./same.y4m"), ("-", "/dev/stdout"), ("/dev/stdout", "-")])
    func audioOnTheVideosDestination(video: String, audio: String) throws {
        let dir = TemporaryDirectory("raw")
        let expand = { (p: String) in p.hasPrefix("/") || p == "-" ? p : dir.path + "/" + p }
        var o = RawVideoSink.Options()
        o.audioOutput = expand(audio)
        let sink = RawVideoSink(options: o)
        let format = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2)
        let plan = SinkPreflight(audio: true, output: expand(video))
        let refusal = #expect(throws: SinkError.self) { try sink.preflight(plan) }
        guard case .invalidOption(_, let option, let reason)? = refusal else { Issue.record("got \(String(describing: refusal))"); return }
        #expect(option == "audio" && reason.contains("of its own"), "\(reason)")
        // open makes the same check first: nothing is created.
        #expect(throws: SinkError.self) {
            try sink.open(SinkContext(video: Self.video, audio: format, output: expand(video), startTime: Synthetic.start))
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/same.y4m"))
    }
}
