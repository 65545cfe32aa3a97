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
    static let victimText = "keep me\n"

    private func recordRaw(to path: String) throws(SinkError) -> SinkResult {
        let samples = Synthetic.samples(video: Self.video, audio: nil, seconds: 0.1, start: Synthetic.start)
        return try Synthetic.run(RawVideoSink(), video: Self.video, audio: nil, output: path, start: Synthetic.start, samples: samples)
    }

    private func recordFrames(to folder: String) -> SinkError? {
        var o = FramesSink.Options()
        o.overflow = .block
        let frames = [CaptureSample.video(Synthetic.frame(0, format: Self.video, timestamp: Synthetic.start))]
        return error { () throws(SinkError) in
            try Synthetic.run(FramesSink(options: o), video: Self.video, audio: nil, output: folder,
                              start: Synthetic.start, samples: frames)
        }
    }

    private func error(_ body: () throws(SinkError) -> SinkResult) -> SinkError? {
        do throws(SinkError) { _ = try body(); return nil } catch { return error }
    }

    /// The path and reason of a `filePermissions` refusal; records an issue for anything else.
    private func refusal(_ failure: SinkError?, sourceLocation: SourceLocation = #_sourceLocation) -> (path: String, reason: String)? {
        guard case .filePermissions(let path, let reason) = failure else {
            Issue.record("expected filePermissions, got \(String(describing: failure))", sourceLocation: sourceLocation)
            return nil
        }
        return (path, reason)
    }

    /// A file with `victimText` in `dir`, and a symlink to it at `link`; returns the file's path.
    private func plantLink(at link: String, in dir: TemporaryDirectory) throws -> String {
        let victim = dir.file("precious.txt")
        try Self.victimText.write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(symlink(victim, link) == 0)
        return victim
    }

    private func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0
    }

    @Test("a symlink planted at the output is refused, naming it, and the file it points to is untouched")
    func symlinkRefused() throws {
        let dir = TemporaryDirectory("safety")
        let planted = dir.file("out.y4m")
        let victim = try plantLink(at: planted, in: dir)
        let r = refusal(error { () throws(SinkError) in try recordRaw(to: planted) })
        #expect(r?.path == planted)
        #expect(r?.reason.contains("symbolic link") == true)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == Self.victimText)
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

    @Test("a file or FIFO of another user is refused and keeps its content",
          .enabled(if: geteuid() == 0, "only root can hand a file to another user (CI runs as root)"))
    func foreignFileRefused() throws {
        let dir = TemporaryDirectory("safety")
        let path = dir.file("theirs.y4m")
        try "theirs\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chown(path, Self.nobody, Self.nobody) == 0)
        let fifo = dir.file("theirs.fifo")
        #expect(mkfifo(fifo, 0o666) == 0 && chown(fifo, Self.nobody, Self.nobody) == 0)

        for target in [path, fifo] {
            let r = refusal(error { () throws(SinkError) in try recordRaw(to: target) })
            #expect(r?.path == target)
            #expect(r?.reason.contains("another user") == true, "\(target)")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs\n")
    }

    @Test("a character device such as /dev/null is written as it is")
    func deviceAccepted() throws {
        let result = try recordRaw(to: "/dev/null")
        #expect(result.videoFrames == 3)
    }

    @Test("the frames sink refuses a folder anyone may write to without the sticky bit")
    func framesFolderRefused() throws {
        let dir = TemporaryDirectory("safety")
        let open = dir.file("open")
        #expect(mkdir(open, 0o700) == 0 && chmod(open, 0o777) == 0)
        let r = refusal(recordFrames(to: open))
        #expect(r?.path == open && r?.reason.contains("writable by everyone") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: open).isEmpty)
    }

    @Test("the frames sink refuses a folder of another user",
          .enabled(if: geteuid() == 0, "only root can hand a folder to another user (CI runs as root)"))
    func framesForeignFolderRefused() throws {
        let dir = TemporaryDirectory("safety")
        let theirs = dir.file("theirs")
        #expect(mkdir(theirs, 0o755) == 0 && chown(theirs, Self.nobody, Self.nobody) == 0)
        let r = refusal(recordFrames(to: theirs))
        #expect(r?.path == theirs && r?.reason.contains("another user") == true)
    }

    @Test("the frames sink does not follow a symlink planted at a frame's name")
    func framesSymlinkRefused() throws {
        let dir = TemporaryDirectory("safety")
        let folder = dir.file("frames")
        #expect(mkdir(folder, 0o700) == 0)
        let victim = try plantLink(at: folder + "/frame-000000.png", in: dir)
        #expect(refusal(recordFrames(to: folder))?.reason.contains("symbolic link") == true)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == Self.victimText)
    }

    @Test("a descriptor the process holds is written as it is: /proc/self/fd/N (the -o partial file) and /dev/fd/N")
    func heldDescriptorWritten() throws {
        let dir = TemporaryDirectory("safety")
        for form in ["/proc/self/fd/", "/dev/fd/"] {
            let path = dir.file("held-\(form.count).y4m")
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
            #expect(fd >= 0)
            defer { close(fd) }
            let result = try recordRaw(to: form + String(fd))
            #expect(result.videoFrames == 3)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(data.starts(with: Array("YUV4MPEG2 W64 H48".utf8)), "\(form): \(data.count) bytes")
        }
        // Not a descriptor's name: `..` after the prefix is a path like any other, and its link is not followed.
        let planted = dir.file("planted.y4m")
        let victim = try plantLink(at: planted, in: dir)
        let sneaky = "/proc/self/fd/../../../" + String(planted.dropFirst())
        #expect(refusal(error { () throws(SinkError) in try recordRaw(to: sneaky) })?.reason.contains("symbolic link") == true)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == Self.victimText)
    }

    @Test("a FIFO of one's own that others may open is refused; a private one is written to its reader")
    func ownFifo() async throws {
        let dir = TemporaryDirectory("safety")
        let open = dir.file("open.fifo")
        #expect(mkfifo(open, 0o600) == 0 && chmod(open, 0o644) == 0)
        let r = refusal(error { () throws(SinkError) in try recordRaw(to: open) })
        #expect(r?.reason.contains("mkfifo -m 600") == true, "\(r?.reason ?? "")")

        let fifo = dir.file("private.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Task.detached { () -> Int in
            let fd = Glibc.open(fifo, O_RDONLY)
            guard fd >= 0 else { return -1 }
            defer { close(fd) }
            var total = 0
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { return total }
                total += n
            }
        }
        let result = try recordRaw(to: fifo)
        #expect(result.videoFrames == 3)
        let got = await reader.value
        #expect(got > 3 * (64 * 48 * 3 / 2), "the reader got \(got) bytes")
    }
}
