import Foundation
import Testing
import Plugins
import PortalTestSupport

@Suite("FramesSink writes PNGs")
struct FramesSinkTests {
    @Test("every kept frame is a PNG that decodes to the input pixels exactly",
          arguments: [PixelFormat.bgrx, .rgbx, .bgra, .rgba])
    func pngsDecodeExactly(pixelFormat: PixelFormat) throws {
        let dir = TemporaryDirectory("frames")
        let format = VideoFormat(pixelFormat: pixelFormat, width: 97, height: 61, frameRate: FrameRate(30, 1))
        var o = FramesSink.Options()
        o.every = 3
        o.overflow = .block
        // A stride wider than the row, as PipeWire buffers often have.
        let frames = (0..<8).map { Synthetic.frame($0, format: format, timestamp: Synthetic.start + UInt64($0) * 33_333_333, stride: 97 * 4 + 12) }
        let result = try Synthetic.run(FramesSink(options: o), video: format, audio: nil, output: dir.path,
                                       start: Synthetic.start, samples: frames.map { .video($0) })
        let names = ["frame-000000.png", "frame-000003.png", "frame-000006.png"]
        #expect(result.files == names.map(dir.file))
        #expect(result.videoFrames == 3)
        for (name, n) in zip(names, [0, 3, 6]) {
            let path = dir.file(name)
            var st = stat()
            #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
            let streams = try MediaTool.probe(path)
            #expect(streams.first?.pixelFormat == (pixelFormat.hasAlpha ? "rgba" : "rgb24"))
            let decoded = try MediaTool.decodeVideo(path, width: 97, height: 61)
            let png = try #require(decoded.frames.first)
            var mismatches = 0
            for y in 0..<61 {
                for x in 0..<97 {
                    let got = png.pixel(x: x, y: y)
                    let want = TestPattern.expectedRGB(x: x, y: y, width: 97, height: 61, frameNumber: UInt32(n))
                    if got.0 != want.r || got.1 != want.g || got.2 != want.b || got.3 != 255 { mismatches += 1 }
                }
            }
            #expect(mismatches == 0, "\(name): \(mismatches) pixels differ")
        }
    }

    @Test("a full disk ends the frames with insufficientStorage, and every PNG left in the folder is whole")
    func fullDiskLeavesWholePNGs() throws {
        guard let fs = SmallFilesystem(size: "256k") else { return }
        // Noise does not compress: about 57 KB a PNG, so the fifth one does not fit.
        let format = VideoFormat(pixelFormat: .bgrx, width: 160, height: 120, frameRate: FrameRate(30, 1))
        var o = FramesSink.Options()
        o.overflow = .block
        let frames = (0..<12).map { CaptureSample.video(Synthetic.noiseFrame($0, format: format, timestamp: Synthetic.start + UInt64($0) * 33_333_333)) }
        #expect(throws: SinkError.insufficientStorage(path: fs.path + "/frame-000004.png")) {
            _ = try Synthetic.run(FramesSink(options: o), video: format, audio: nil, output: fs.path,
                                  start: Synthetic.start, samples: frames)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: fs.path).sorted()
        #expect(names == (0..<4).map { "frame-00000\($0).png" })
        let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        for name in names {
            let bytes = try #require(FileManager.default.contents(atPath: fs.path + "/" + name))
            #expect(Array(bytes.suffix(12)) == iend, "\(name) ends with its IEND chunk (\(bytes.count) bytes)")
        }
    }

    @Test("frames written after their folder was renamed and replaced by a link go on into the folder that was opened")
    func swappedFolderIsNotFollowed() throws {
        let dir = TemporaryDirectory("frames")
        let out = dir.file("out"), elsewhere = dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        let format = VideoFormat(pixelFormat: .bgrx, width: 32, height: 24, frameRate: FrameRate(30, 1))
        var o = FramesSink.Options()
        o.overflow = .block
        let sink = FramesSink(options: o)
        try sink.open(SinkContext(video: format, audio: nil, output: out, startTime: Synthetic.start))
        try sink.consume(.video(Synthetic.frame(0, format: format, timestamp: Synthetic.start)))
        #expect(rename(out, out + ".old") == 0)
        #expect(symlink(elsewhere, out) == 0)
        for n in 1..<4 {
            try sink.consume(.video(Synthetic.frame(n, format: format, timestamp: Synthetic.start + UInt64(n) * 33_333_333)))
        }
        let result = try sink.close()
        #expect(result.videoFrames == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere) == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: out + ".old").sorted() == (0..<4).map { "frame-00000\($0).png" })
    }

    @Test("an output that is a file, not a folder, is refused with filePermissions")
    func outputNotAFolder() throws {
        let dir = TemporaryDirectory("frames")
        let file = dir.file("plain")
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let sink = FramesSink()
        let error = #expect(throws: SinkError.self) {
            try sink.open(SinkContext(video: nil, audio: nil, output: file, startTime: 0))
        }
        guard case .filePermissions(let path, let reason) = error else {
            Issue.record("expected filePermissions, got \(String(describing: error))")
            return
        }
        #expect(path == file && reason.contains("not a folder"))
        _ = try sink.close()
    }
}

@Suite("CallbackSink and NullSink")
struct CallbackAndNullSinkTests {
    static let video = VideoFormat(pixelFormat: .bgrx, width: 64, height: 48, frameRate: FrameRate(30, 1))
    static let audio = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 2)

    @Test("the callback gets every sample in order, and the counts add up")
    func callbackInOrder() async throws {
        let samples = Synthetic.samples(video: Self.video, audio: Self.audio, seconds: 0.5, start: Synthetic.start)
        let seen = Locked<[UInt64]>([])
        let result = try await confirmation("one call per sample", expectedCount: samples.count) { called in
            let sink = CallbackSink { (sample) throws(SinkError) in
                seen.mutate { $0.append(sample.timestamp) }
                called()
            }
            return try Synthetic.run(sink, video: Self.video, audio: Self.audio, output: nil, start: Synthetic.start, samples: samples)
        }
        #expect(seen.value == samples.map(\.timestamp))
        #expect(result.videoFrames == 15)
        #expect(result.audioFrames == 24_000)
    }

    @Test("an error thrown by the handler reaches the caller of consume")
    func callbackError() throws {
        let sink = CallbackSink { (_) throws(SinkError) in throw .failed(sink: "callback", reason: "app says stop") }
        try sink.open(SinkContext(video: Self.video, audio: nil, output: nil, startTime: 0))
        #expect(throws: SinkError.failed(sink: "callback", reason: "app says stop")) {
            try sink.consume(.video(Synthetic.frame(0, format: Self.video, timestamp: 1)))
        }
        _ = try sink.close()
    }

    @Test("the stream variant yields every sample and finishes on close")
    func callbackStream() async throws {
        let (sink, stream) = CallbackSink.stream(bufferingNewest: 100)
        let samples = Synthetic.samples(video: Self.video, audio: nil, seconds: 0.3, start: Synthetic.start)
        try Synthetic.run(sink, video: Self.video, audio: nil, output: nil, start: Synthetic.start, samples: samples)
        var received: [UInt64] = []
        for await s in stream { received.append(s.timestamp) }
        #expect(received == samples.map(\.timestamp))
    }

    @Test("the null sink counts frames, audio and bytes")
    func nullCounts() throws {
        let sink = NullSink()
        let samples = Synthetic.samples(video: Self.video, audio: Self.audio, seconds: 1, start: Synthetic.start)
        try sink.open(SinkContext(video: Self.video, audio: Self.audio, output: nil, startTime: Synthetic.start))
        for s in samples { try sink.consume(s) }
        try sink.formatChanged(VideoFormat(pixelFormat: .bgrx, width: 32, height: 24))
        let c = sink.counts
        #expect(c.videoFrames == 30)
        #expect(c.audioChunks == 100)
        #expect(c.audioFrames == 48_000)
        let pixelBytes = 30 * 64 * 48 * 4
        let audioBytes = 48_000 * 4
        #expect(c.bytes == Int64(pixelBytes + audioBytes))
        #expect(c.formatChanges == 1)
        #expect(c.firstTimestamp == Synthetic.start)
        let result = try sink.close()
        #expect(result.videoFrames == 30 && result.audioFrames == 48_000 && result.files.isEmpty)
    }
}

/// A value behind a lock, for test closures that run on another thread.
final class Locked<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ v: T) { stored = v }
    var value: T { lock.lock(); defer { lock.unlock() }; return stored }
    func mutate(_ f: (inout T) -> Void) { lock.lock(); f(&stored); lock.unlock() }
}
