import Foundation
import Testing
import Plugins
import PortalTestSupport

@Suite("A killed recording leaves a playable file", .serialized)
struct EncoderCrashTests {
    @Test("kill -9 after 3 s: the file decodes up to within 1 s of the kill",
          arguments: ["mkv", "mp4"])
    func killMidRecording(container: String) async throws {
        let dir = TemporaryDirectory("crash")
        let path = dir.file("killed.\(container)")
        let child = try ChildRecorder(output: path, container: container, codec: "h264", seconds: 30)
        // 3 s of content (frame 90 at 30 fps); the child paces frames in real time.
        #expect(await child.wait(untilSent: 90, timeout: .seconds(20)), "the child records (helper at \(ChildRecorder.helperPath))")
        let lastSent = await child.killHard()
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(lastSent >= 90)

        let streams = try MediaTool.probe(path)
        #expect(streams.contains { $0.type == "video" && $0.codec == "h264" })
        let decoded = try MediaTool.decodeVideo(path, width: 320, height: 240)
        let last = try #require(decoded.frames.last, "ffmpeg decodes frames from the killed file: \(decoded.stderr)")
        let lastShown = Int(TestPattern.decodeCounter(last))
        #expect(TestPattern.checkColourAreas(last) == nil)
        #expect(lastShown <= lastSent && lastSent - lastShown <= 30,
                "the file plays up to frame \(lastShown); frame \(lastSent) was sent before the kill (30 = 1 s)")
        #expect(decoded.frames.count >= lastShown - 2, "every frame up to there decodes (\(decoded.frames.count))")

        let pcm = try MediaTool.decodeAudio(path)
        let audioSeconds = Double(pcm.count) / 48_000
        #expect(audioSeconds >= Double(lastSent) / 30 - 1, "audio plays to within 1 s of the kill (\(audioSeconds) s)")
    }
}
