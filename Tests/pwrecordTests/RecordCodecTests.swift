import Foundation
import Testing
import PortalCapture
import PortalTestSupport

/// Every container and codec pair Debian 12's FFmpeg provides, recorded from the test desktop through the real
/// portal by the `pwrecord` binary, with the microphone: what a user would check with ffprobe and a player.
@Suite("pwrecord records every container and codec pair from the test desktop", .enabled(if: TestDesktop.isAvailable), .serialized)
struct RecordCodecTests {
    static let pairs: [(container: String, codec: String, audio: String, pixelFormat: String)] = [
        ("mkv", "h264", "opus", "yuv420p"), ("mkv", "vp9", "opus", "yuv420p"), ("mkv", "av1", "opus", "yuv420p"),
        ("mkv", "ffv1", "opus", "bgr0"), ("mp4", "h264", "aac", "yuv420p"), ("mp4", "av1", "aac", "yuv420p"),
        ("webm", "vp9", "opus", "yuv420p"), ("webm", "av1", "opus", "yuv420p"),
    ]

    @Test("the file has the asked codecs, size, pixel format, frame count, audio length and the test picture",
          arguments: pairs.map { "\($0.container)/\($0.codec)/\($0.audio)/\($0.pixelFormat)" })
    func recordsPair(pair: String) async throws {
        let p = pair.split(separator: "/").map(String.init)
        let (container, codec, audio, pixelFormat) = (p[0], p[1], p[2], p[3])
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("codec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let out = home.appendingPathComponent("x.\(container)")
        let r = try await TestPortalControl.exclusively { _ in
            try Pwrecord.run(["record", "-o", out.path, "--codec", codec, "--duration", "2", "--mic", "--cursor", "hidden",
                              "--cfr", "--fps", "30"],
                             environment: ["XDG_STATE_HOME": home.path + "/state", "XDG_CONFIG_HOME": home.path + "/config"],
                             timeout: 120)
        }
        #expect(r.status == 0, "\(r.stderr)")
        let streams = try MediaTool.probe(out.path)
        let video = try #require(streams.first { $0.type == "video" })
        #expect(video.codec == codec)
        #expect(video.width == 320 && video.height == 240)
        #expect(video.pixelFormat == pixelFormat)
        let frames = try #require(video.frames)
        #expect(abs(Double(frames) - 60) <= 3, "\(frames) frames for 2 s at 30 fps")
        let sound = try #require(streams.first { $0.type == "audio" })
        #expect(sound.codec == audio)
        let samples = try MediaTool.decodeAudio(out.path)
        // Known intermittent bug (issue #6 note): under load, audio that waited in PipeWire before the first video
        // frame can be stamped with its late arrival time and kept, so the audio runs long (seen: +0.28 to +0.52 s,
        // with the slow av1/vp9 encoders starting in the same process).
        withKnownIssue("audio backlog stamped at arrival under load makes the audio run long", isIntermittent: true) {
            #expect(abs(Double(samples.count) / 48_000 - 2) < 0.2, "audio lasts \(Double(samples.count) / 48_000) s")
        }
        // Outside the known issue: the audio is never short.
        #expect(Double(samples.count) / 48_000 > 1.8, "audio lasts \(Double(samples.count) / 48_000) s")
        let decoded = try MediaTool.decodeVideo(out.path, width: 320, height: 240)
        let first = try #require(decoded.frames.first), last = try #require(decoded.frames.last)
        #expect(TestPattern.checkColourAreas(first) == nil)
        #expect(TestPattern.checkColourAreas(last) == nil)
        #expect(TestPattern.decodeCounter(last) > TestPattern.decodeCounter(first))
    }
}
