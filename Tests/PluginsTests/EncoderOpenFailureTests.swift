import Foundation
import Testing
import Plugins
import PortalTestSupport

/// An encoder that cannot start leaves no file it made, touches no name it did not make, and says which
/// option is wrong when one is.
@Suite("A failed encoder open cleans up only after itself")
struct EncoderOpenFailureTests {
    init() { EncoderSink.setLibraryLogLevel(.quiet) }

    /// Wider than libx264 encodes (16384): the file is created, then the encoder refuses to open.
    static let tooWide = VideoFormat(pixelFormat: .bgrx, width: 20_000, height: 16, frameRate: FrameRate(30, 1))
    static let stereo = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2)

    private func open(_ sink: EncoderSink, video: VideoFormat?, audio: AudioFormat?, output: String) -> SinkError? {
        do throws(SinkError) {
            try sink.open(SinkContext(video: video, audio: audio, output: output, startTime: Synthetic.start))
            _ = try sink.close()
            return nil
        } catch { return error }
    }

    @Test("the file the failed open created is removed")
    func createdFileRemoved() throws {
        let dir = TemporaryDirectory("open-failure")
        let path = dir.file("wide.mkv")
        let failure = open(try EncoderSink(options: .init()), video: Self.tooWide, audio: nil, output: path)
        #expect(failure != nil, "libx264 refuses a 20000-pixel-wide frame")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a file that was at the name before is not removed by a failed open")
    func existingNameKept() throws {
        let dir = TemporaryDirectory("open-failure")
        let path = dir.file("old.mkv")
        try "an older recording\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        let failure = open(try EncoderSink(options: .init()), video: Self.tooWide, audio: nil, output: path)
        #expect(failure != nil, "libx264 refuses a 20000-pixel-wide frame")
        // The sink did not make this name (it was asked to overwrite a file, as /dev/stdout redirected to one
        // is): removing it is not its call, so the name stays (emptied, as an overwrite does).
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test("an Opus bit rate past 256 kb/s per channel is refused at open, naming abitrate, before any file is made")
    func opusBitrateNamed() throws {
        let dir = TemporaryDirectory("open-failure")
        let path = dir.file("loud.mkv")
        let sink = try SinkRegistry.standard().makeSink("encoder:audio=opus,abitrate=600")
        let failure = open(try #require(sink as? EncoderSink), video: nil, audio: Self.stereo, output: path)
        guard case .invalidOption(let name, let option, let reason) = failure else {
            Issue.record("expected invalidOption, got \(String(describing: failure))")
            return
        }
        #expect(name == "encoder" && option == "abitrate")
        #expect(reason.contains("512") && reason.contains("600"), "the limit for 2 channels and the value asked: \(reason)")
        #expect(!FileManager.default.fileExists(atPath: path))
        // Within the limit, the same audio opens.
        let fine = try #require(try SinkRegistry.standard().makeSink("encoder:audio=opus,abitrate=500") as? EncoderSink)
        #expect(open(fine, video: nil, audio: Self.stereo, output: dir.file("fine.mkv")) == nil)
    }
}
