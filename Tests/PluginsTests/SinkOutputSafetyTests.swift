import Foundation
import Testing
import Plugins
import PortalTestSupport

/// Where a sink writes is a name someone else may have prepared (a shared folder, `/tmp`): a planted symlink
/// or another user's file must never receive the recording, and a file of one's own becomes private.
@Suite("Sinks write only to files of their own")
struct SinkOutputSafetyTests {
    static let video = VideoFormat(pixelFormat: .bgrx, width: 64, height: 48, frameRate: FrameRate(30, 1))
    static let nobody: uid_t = 65534

    private func recordRaw(to path: String) throws(SinkError) -> SinkResult {
        let samples = Synthetic.samples(video: Self.video, audio: nil, seconds: 0.1, start: Synthetic.start)
        return try Synthetic.run(RawVideoSink(), video: Self.video, audio: nil, output: path, start: Synthetic.start, samples: samples)
    }

    private func error(_ body: () throws(SinkError) -> SinkResult) -> SinkError? {
        do throws(SinkError) { _ = try body(); return nil } catch { return error }
    }

    private func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0
    }

    @Test("a symlink planted at the output is refused, naming it, and the file it points to is untouched")
    func symlinkRefused() throws {
        let dir = TemporaryDirectory("safety")
        let victim = dir.file("precious.txt")
        try "keep me\n".write(toFile: victim, atomically: false, encoding: .utf8)
        let planted = dir.file("out.y4m")
        #expect(symlink(victim, planted) == 0)

        let failure = error { () throws(SinkError) in try recordRaw(to: planted) }
        guard case .filePermissions(let path, let reason) = failure else {
            Issue.record("expected filePermissions, got \(String(describing: failure))")
            return
        }
        #expect(path == planted)
        #expect(reason.contains("symbolic link"))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")
    }

    @Test("an existing file of one's own is made private (0600) and replaced, not appended to")
    func ownFileMadePrivate() throws {
        let dir = TemporaryDirectory("safety")
        let path = dir.file("out.y4m")
        try String(repeating: "old content ", count: 100_000).write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o644) == 0)

        let result = try recordRaw(to: path)
        #expect(result.files == [path])
        #expect(mode(path) == 0o600)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.starts(with: Array("YUV4MPEG2 W64 H48".utf8)))
        let frame = 64 * 48 * 3 / 2 + 6
        #expect(data.count > 3 * frame && data.count < 3 * frame + 200, "\(data.count) bytes: old content was left")
    }

    @Test("a file or FIFO of another user is refused and keeps its content")
    func foreignFileRefused() throws {
        guard geteuid() == 0 else { return }   // only root can hand a file to another user; CI runs as root
        let dir = TemporaryDirectory("safety")
        let path = dir.file("theirs.y4m")
        try "theirs\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chown(path, Self.nobody, Self.nobody) == 0)
        let fifo = dir.file("theirs.fifo")
        #expect(mkfifo(fifo, 0o666) == 0 && chown(fifo, Self.nobody, Self.nobody) == 0)

        for target in [path, fifo] {
            let failure = error { () throws(SinkError) in try recordRaw(to: target) }
            guard case .filePermissions(let shown, let reason) = failure else {
                Issue.record("\(target): expected filePermissions, got \(String(describing: failure))")
                continue
            }
            #expect(shown == target)
            #expect(reason.contains("another user"))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs\n")
    }

    @Test("a character device such as /dev/null is written as it is")
    func deviceAccepted() throws {
        let result = try recordRaw(to: "/dev/null")
        #expect(result.videoFrames == 3)
    }

    @Test("the frames sink refuses a folder anyone may write to without the sticky bit, and one of another user")
    func framesFolderRefused() throws {
        let dir = TemporaryDirectory("safety")
        let open = dir.file("open")
        #expect(mkdir(open, 0o700) == 0 && chmod(open, 0o777) == 0)
        var o = FramesSink.Options()
        o.overflow = .block
        let frames = [CaptureSample.video(Synthetic.frame(0, format: Self.video, timestamp: Synthetic.start))]
        func run(_ folder: String) -> SinkError? {
            error { () throws(SinkError) in
                try Synthetic.run(FramesSink(options: o), video: Self.video, audio: nil, output: folder,
                                  start: Synthetic.start, samples: frames)
            }
        }
        guard case .filePermissions(let path, let reason) = run(open) else {
            Issue.record("a world-writable folder was accepted")
            return
        }
        #expect(path == open && reason.contains("writable by everyone"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: open).isEmpty)

        guard geteuid() == 0 else { return }
        let theirs = dir.file("theirs")
        #expect(mkdir(theirs, 0o755) == 0 && chown(theirs, Self.nobody, Self.nobody) == 0)
        guard case .filePermissions(let path2, let reason2) = run(theirs) else {
            Issue.record("another user's folder was accepted")
            return
        }
        #expect(path2 == theirs && reason2.contains("another user"))
    }

    @Test("the frames sink does not follow a symlink planted at a frame's name")
    func framesSymlinkRefused() throws {
        let dir = TemporaryDirectory("safety")
        let victim = dir.file("precious.txt")
        try "keep me\n".write(toFile: victim, atomically: false, encoding: .utf8)
        let folder = dir.file("frames")
        #expect(mkdir(folder, 0o700) == 0)
        #expect(symlink(victim, folder + "/frame-000000.png") == 0)
        var o = FramesSink.Options()
        o.overflow = .block
        let frames = [CaptureSample.video(Synthetic.frame(0, format: Self.video, timestamp: Synthetic.start))]
        let failure = error { () throws(SinkError) in
            try Synthetic.run(FramesSink(options: o), video: Self.video, audio: nil, output: folder,
                              start: Synthetic.start, samples: frames)
        }
        guard case .filePermissions(_, let reason) = failure else {
            Issue.record("expected filePermissions, got \(String(describing: failure))")
            return
        }
        #expect(reason.contains("symbolic link"))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")
    }
}
