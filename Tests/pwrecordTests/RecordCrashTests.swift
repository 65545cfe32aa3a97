import Foundation
import Glibc
import Testing
import PortalCapture
import PortalTestSupport

/// A recording is always left playable: `kill -9` of `pwrecord record` leaves the kept file decodable up to
/// about the moment of the kill (mkv clusters and fragmented mp4 are written as they go).
@Suite("pwrecord killed with SIGKILL leaves a playable recording", .enabled(if: TestDesktop.isAvailable), .serialized)
struct RecordCrashTests {
    @Test("kill -9 after 3 s: the kept file plays to within 1 s of the kill", arguments: ["mkv", "mp4"])
    func killedRecordingPlays(container: String) async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let (recordedFor, file, infoDuration) = try await TestPortalControl.exclusively { _ -> (Double, String?, Double) in
            let p = Process()
            p.executableURL = Pwrecord.binary
            p.arguments = ["record", "--container", container, "--cursor", "hidden"]
            p.environment = ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": home.path]) { $1 }
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            p.standardInput = FileHandle.nullDevice
            try p.run()
            // The kept file appears once the first frame has arrived: the recording has begun.
            let dir = home.appendingPathComponent("pwrecord/recordings/pwrecord")
            var began: Date?
            let deadline = Date().addingTimeInterval(20)
            while began == nil && Date() < deadline {
                if FileManager.default.fileExists(atPath: dir.appendingPathComponent("info.json").path) { began = Date() }
                try? await Task.sleep(for: .milliseconds(20))
            }
            try? await Task.sleep(for: .seconds(3))
            // How long it recorded, read at the kill (not after the wait for its exit, which a loaded machine
            // may take a while to report: a 4 s "recording" was once measured for a 3 s one).
            let recorded = began.map { Date().timeIntervalSince($0) } ?? 0
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let media = (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?
                .first { $0.hasSuffix("." + container) }.map { dir.appendingPathComponent($0).path }
            let info = try? JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("info.json"))) as? [String: Any]
            return (recorded, media, info?["duration"] as? Double ?? 0)
        }
        // The kept info follows the recording every 2 s: `last info` after the kill says about how long it is.
        #expect(infoDuration >= recordedFor - 2.5 && infoDuration <= recordedFor + 0.5,
                "info.json says \(infoDuration) s of \(recordedFor) s recorded")
        let path = try #require(file, "no kept recording was left")
        let decoded = try MediaTool.decodeVideo(path, width: 320, height: 240)
        let seconds = Double(decoded.frames.count) / 30
        #expect(seconds >= recordedFor - 1, "\(decoded.frames.count) frames decode (\(seconds) s) of \(recordedFor) s recorded")
        let last = try #require(decoded.frames.last)
        #expect(TestPattern.checkColourAreas(last) == nil)
        // `last info` does not pass the killed recording off as a finished one.
        let info = try await Pwrecord.run(["last", "info"], environment: ["XDG_STATE_HOME": home.path])
        #expect(info.stdout.contains("warning: this recording was not finished"), "\(info.stdout)")
        let json = try await Pwrecord.run(["last", "info", "--json"], environment: ["XDG_STATE_HOME": home.path])
        #expect(json.stdout.contains("\"state\" : \"unfinished\""), "\(json.stdout)")
    }

    @Test("kill -9 of a recording with -o: the partial file beside the output plays, and the kept recording is untouched")
    func killedOutputRecordingPlays() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString)")
        let outDir = home.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: outDir, withIntermediateDirectories: true)
        let out = outDir.appendingPathComponent("talk.mkv")
        let partial = try await TestPortalControl.exclusively { _ -> String? in
            let p = Process()
            p.executableURL = Pwrecord.binary
            p.arguments = ["record", "-o", out.path, "--cursor", "hidden"]
            p.environment = ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": home.path]) { $1 }
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            p.standardInput = FileHandle.nullDevice
            try p.run()
            func partials() -> [String] {
                ((try? FileManager.default.contentsOfDirectory(atPath: outDir.path)) ?? []).filter { $0.hasPrefix("talk.partial-") }
            }
            // Begun once the partial file has the container's header (written at the first frame).
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if let name = partials().first,
                   ((try? FileManager.default.attributesOfItem(atPath: outDir.appendingPathComponent(name).path)[.size] as? NSNumber)?.intValue ?? 0) > 0 { break }
                try? await Task.sleep(for: .milliseconds(20))
            }
            try? await Task.sleep(for: .seconds(2))
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            return partials().first.map { outDir.appendingPathComponent($0).path }
        }
        let path = try #require(partial, "no partial file was left beside \(out.path)")
        #expect(path.hasSuffix(".mkv"))
        #expect(!FileManager.default.fileExists(atPath: out.path), "the output is only there once the recording ended")
        let decoded = try MediaTool.decodeVideo(path, width: 320, height: 240)
        #expect(decoded.frames.count >= 30, "\(decoded.frames.count) frames decode")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("pwrecord/recordings/pwrecord/info.json").path),
                "nothing was kept")
    }
}
