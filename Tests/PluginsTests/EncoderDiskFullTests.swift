import Foundation
import Testing
import Plugins
import PortalTestSupport

/// A small tmpfs mounted for one test (needs root or CAP_SYS_ADMIN), unmounted on deinit.
final class SmallFilesystem {
    let path: String
    private let holder: TemporaryDirectory

    init?(size: String) {
        holder = TemporaryDirectory("full")
        path = holder.path
        guard let r = try? MediaTool.runAny("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "pwrecord-test", path]),
              r.status == 0 else { return nil }
    }

    deinit { _ = try? MediaTool.runAny("/bin/umount", [path]) }
}

@Suite("A full disk stops the encoder cleanly", .serialized)
struct EncoderDiskFullTests {
    init() { EncoderSink.setLibraryLogLevel(.quiet) }

    static let video = VideoFormat(pixelFormat: .bgrx, width: 640, height: 360, frameRate: FrameRate(30, 1))
    static let audio = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2)

    /// Feeds frames (and audio) until the sink reports an error; returns it and the frames handed over.
    private func record(_ sink: EncoderSink, output: String, maxFrames: Int) -> (error: SinkError?, sent: Int) {
        do throws(SinkError) {
            try sink.open(SinkContext(video: Self.video, audio: Self.audio, output: output, startTime: Synthetic.start))
            var sent = 0
            for i in 0..<maxFrames {
                let ts = Synthetic.start + UInt64(i) * 1_000_000_000 / 30
                try sink.consume(.video(Synthetic.frame(i, format: Self.video, timestamp: ts)))
                if i % 3 == 0 {
                    let chunk = Synthetic.sine(format: Self.audio, offset: i / 3 * 4800, frames: 4800, timestamp: ts, sequence: UInt64(i))
                    try sink.consume(.audio(chunk))
                }
                sent += 1
            }
            return (nil, sent)
        } catch {
            return (error, -1)
        }
    }

    @Test("ENOSPC on a small tmpfs gives insufficientStorage and the file so far plays",
          arguments: [Int64(128 << 10), 0])
    func diskFull(reserve: Int64) throws {
        guard let fs = SmallFilesystem(size: "512k") else {
            // Not allowed to mount here: /dev/full is the ENOSPC source (every write fails).
            let sink = try EncoderSink(options: { var o = EncoderSink.Options(); o.container = .mkv; return o }())
            let r = record(sink, output: "/dev/full", maxFrames: 10)
            #expect(r.error == .insufficientStorage(path: "/dev/full"), "mount was refused; /dev/full gives ENOSPC")
            return
        }
        let path = fs.path + "/full.mkv"
        var o = EncoderSink.Options()
        o.videoCodec = .ffv1            // lossless frames are big: the disk fills in a second or two
        o.overflow = .block
        o.reserveBytes = reserve
        let sink = try EncoderSink(options: o)
        let r = record(sink, output: path, maxFrames: 3000)
        #expect(r.error == .insufficientStorage(path: path), "consume reports the full disk: \(String(describing: r.error))")
        #expect(throws: SinkError.insufficientStorage(path: path)) { _ = try sink.close() }
        let partial = try #require(sink.partialResult)
        #expect(partial.videoFrames > 10, "some frames were written before the disk filled (\(partial.videoFrames))")

        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let decoded = try MediaTool.decodeVideo(path, width: 640, height: 360)
        let first = try #require(decoded.frames.first, "the partial file decodes: \(decoded.stderr)")
        let last = try #require(decoded.frames.last)
        #expect(TestPattern.decodeCounter(first) == 0)
        #expect(TestPattern.checkColourAreas(last) == nil)
        #expect(decoded.frames.count >= partial.videoFrames - 10 && decoded.frames.count <= partial.videoFrames,
                "\(decoded.frames.count) of \(partial.videoFrames) encoded frames play")
        #expect(Int(TestPattern.decodeCounter(last)) == decoded.frames.count - 1)
        if reserve > 0 {
            // Finalized into the reserve: the index is there, so ffprobe knows the duration without scanning.
            let duration = try MediaTool.duration(path)
            #expect(abs(duration - Double(decoded.frames.count) / 30) < 0.2, "the trailer was written (duration \(duration) s)")
        }
    }

    @Test("A disk that fills in the middle of a muxer write larger than the reserve still gets the file's index")
    func diskFullDuringALargeWrite() throws {
        // Lossless noise at 720p is about 2.7 MB a frame, and Matroska writes a cluster (up to 250 ms) at once:
        // a write several times the 1 MiB default reserve. The file must still be finalized (its duration known).
        guard let fs = SmallFilesystem(size: "24m") else { return }
        let path = fs.path + "/noise.mkv"
        let format = VideoFormat(pixelFormat: .bgrx, width: 1280, height: 720, frameRate: FrameRate(30, 1))
        var o = EncoderSink.Options()
        o.videoCodec = .ffv1
        o.overflow = .block
        let sink = try EncoderSink(options: o)
        var failure: SinkError?
        do throws(SinkError) {
            try sink.open(SinkContext(video: format, audio: nil, output: path, startTime: Synthetic.start))
            for i in 0..<300 {
                let ts = Synthetic.start + UInt64(i) * 1_000_000_000 / 30
                try sink.consume(.video(Synthetic.noiseFrame(i, format: format, timestamp: ts)))
            }
        } catch { failure = error }
        #expect(failure == .insufficientStorage(path: path), "the full disk is reported: \(String(describing: failure))")
        #expect(throws: SinkError.insufficientStorage(path: path)) { _ = try sink.close() }
        let partial = try #require(sink.partialResult)
        #expect(partial.videoFrames >= 3, "frames were written before the disk filled (\(partial.videoFrames))")
        let decoded = try MediaTool.decodeVideo(path, width: 1280, height: 720)
        let last = try #require(decoded.frames.last, "the partial file decodes: \(decoded.stderr)")
        #expect(Int(TestPattern.decodeCounter(last)) == decoded.frames.count - 1)
        let duration = try MediaTool.duration(path)
        #expect(abs(duration - Double(decoded.frames.count) / 30) < 0.2,
                "the trailer was written: duration \(duration) s for \(decoded.frames.count) frames")
    }
}
