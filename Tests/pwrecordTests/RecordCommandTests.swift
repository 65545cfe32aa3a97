import Foundation
import Glibc
import Testing
import PortalCapture
import PortalTestSupport

/// `pwrecord record`, `last` and `status`, run as a user would, through the real portal frontend and our test
/// backend on the headless test desktop. Each test holds the backend lease (other suites script it too).
@Suite("pwrecord record through the real portal", .enabled(if: TestDesktop.isAvailable), .serialized)
struct RecordCommandTests {
    /// A private state and config home per test, so kept recordings and policies do not mix.
    struct Home {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        var env: [String: String] { ["XDG_STATE_HOME": root.path + "/state", "XDG_CONFIG_HOME": root.path + "/config"] }
        init() { try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true) }
        func userPolicy(_ text: String) throws {
            let dir = root.appendingPathComponent("config/pwrecord")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try text.write(to: dir.appendingPathComponent("policy.conf"), atomically: true, encoding: .utf8)
        }
    }

    @Test("with a sink streaming to standard output (raw:output=-) the stream stays clean: the command's results go to stderr")
    func stdoutSinkKeepsStreamClean() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("s.mkv")
        let r = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.run(["record", "-o", out.path, "--sink", "raw:output=-", "--duration", "1"], environment: home.env)
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("YUV4MPEG2 "), "\(r.stdout.prefix(80))")
        #expect(!r.stdout.contains("saved "))
        #expect(r.stderr.contains("saved \(out.path)"), "\(r.stderr)")
    }

    @Test("a sink whose reader goes away (head closing the pipe) ends the recording with exit 1 naming the broken pipe; the -o file plays")
    func readerGoesAway() async throws {
        let home = Home()
        let out = home.root.appendingPathComponent("piped.mkv")
        let errors = home.root.appendingPathComponent("stderr.txt")
        // bash's PIPESTATUS is pwrecord's own status, not head's.
        let script = "\"$0\" record -o \"$1\" --duration 20 --cursor hidden --sink raw:output=- 2>\"$2\" "
            + "| head -c 300000 >/dev/null; echo ${PIPESTATUS[0]}"
        let status = try await TestPortalControl.exclusively { _ in
            try await offThePool { () throws -> String in
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/bin/bash")
                p.arguments = ["-c", script, Pwrecord.binary.path, out.path, errors.path]
                p.environment = ProcessInfo.processInfo.environment.merging(home.env) { $1 }
                let pipe = Pipe()
                p.standardOutput = pipe
                p.standardInput = FileHandle.nullDevice
                try p.run()
                let text = pipe.fileHandleForReading.readAllRetryingInterrupts()
                p.waitUntilExit()
                return String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        #expect(status == "1", "pwrecord exited \(status): \(stderr)")
        #expect(stderr.contains("Broken pipe"), "\(stderr)")
        #expect(try MediaTool.probe(out.path).contains { $0.type == "video" }, "\(stderr)")
    }

    @Test("record -o x.mkv --duration 3 --mic exits 0 with video and audio of 3 s showing the test picture (cursor hidden so it covers nothing)")
    func recordsThreeSecondsWithMicrophone() async throws {
        let home = Home()
        let out = home.root.appendingPathComponent("x.mkv")
        let r = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.run(["record", "-o", out.path, "--duration", "3", "--mic", "--cursor", "hidden"], environment: home.env, timeout: 60)
        }
        #expect(r.status == 0, "\(r.stderr)")
        let streams = try MediaTool.probe(out.path)
        #expect(streams.contains { $0.type == "video" && $0.codec == "h264" })
        #expect(streams.contains { $0.type == "audio" && $0.codec == "opus" })
        let d = try MediaTool.duration(out.path)
        #expect(abs(d - 3) <= 0.3, "duration \(d)")
        let video = try #require(streams.first { $0.type == "video" })
        let decoded = try MediaTool.decodeVideo(out.path, width: video.width ?? 0, height: video.height ?? 0)
        let first = try #require(decoded.frames.first), last = try #require(decoded.frames.last)
        #expect(TestPattern.checkColourAreas(first) == nil)
        #expect(TestPattern.checkColourAreas(last) == nil)
        #expect(TestPattern.decodeCounter(last) > TestPattern.decodeCounter(first))
        let mode = try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("record --fps 1 --duration 2 --mic lasts 2 s: the last frame stays until the stop and the sound runs to it",
          arguments: ["--cfr", "--vfr"])
    func lowFrameRateLastsTheDuration(mode: String) async throws {
        let home = Home()
        let out = home.root.appendingPathComponent("slow.mkv")
        let r = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.run(["record", "-o", out.path, "--fps", "1", mode, "--duration", "2", "--mic", "--cursor", "hidden"],
                                   environment: home.env, timeout: 60)
        }
        #expect(r.status == 0, "\(r.stderr)")
        // The frames kept at 1 fps come at about 0, 0.93 and 1.87 s; the file used to end with the last one's
        // 1 s (3.0 s with --cfr, 2.9 s without), the sound padded with silence to it. --duration stops the
        // recording in its last 20 ms.
        let end = try MediaTool.end(out.path)
        #expect(end > 1.97 && end < 2.1, "the file ends at \(end) s")
        for stream in try MediaTool.probe(out.path) {
            let streamEnd = try #require(stream.end)
            #expect(abs(streamEnd - end) < 0.008, "the \(stream.type) ends at \(streamEnd) s, the file at \(end) s")
        }
        // Its last 300 ms (but the last 30, what the microphone had not delivered yet) are the tone.
        let samples = try MediaTool.decodeAudio(out.path)
        let tail = Array(samples.dropLast(1440).suffix(14_400))
        #expect(tail.count == 14_400 && RecordCodecTests.silentShare(tail) < 0.5,
                "\(Int(RecordCodecTests.silentShare(tail) * 100)) % of the last 300 ms is silent")
    }

    @Test("without -o the recording is kept; last save writes it and last discard deletes it")
    func keptRecordingCanBeSavedAndDiscarded() async throws {
        let home = Home()
        let r = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.run(["record", "--duration", "1"], environment: home.env, timeout: 60)
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("pwrecord last save"))
        let dest = home.root.appendingPathComponent("saved.mkv")
        let save = try await Pwrecord.run(["last", "save", dest.path], environment: home.env)
        #expect(save.status == 0, "\(save.stderr)")
        #expect(try MediaTool.probe(dest.path).contains { $0.type == "video" })
        let again = try await Pwrecord.run(["last", "save", dest.path], environment: home.env)
        #expect(again.status == 1 && again.stderr.contains("exists"))
        let discard = try await Pwrecord.run(["last", "discard"], environment: home.env)
        #expect(discard.status == 0)
        let info = try await Pwrecord.run(["last", "info"], environment: home.env)
        #expect(info.status == 1 && info.stderr.contains("no kept recording"))
    }

    @Test("record -o goes to its file only: the kept recording stays as it was, and no copy is left in the state folder")
    func outputLeavesKeptRecordingAlone() async throws {
        let home = Home()
        let out = home.root.appendingPathComponent("direct.mkv")
        let (kept, direct) = try await TestPortalControl.exclusively { _ in
            (try await Pwrecord.run(["record", "--duration", "1"], environment: home.env, timeout: 60),
             try await Pwrecord.run(["record", "-o", out.path, "--duration", "1"], environment: home.env, timeout: 60))
        }
        #expect(kept.status == 0 && direct.status == 0, "\(kept.stderr)\(direct.stderr)")
        let keptFile = try #require(kept.stdout.split(separator: " ").dropFirst().first.map(String.init), "\(kept.stdout)")
        let info = try await Pwrecord.run(["last", "info"], environment: home.env)
        #expect(info.stdout.hasPrefix("file: \(keptFile)\n"), "\(info.stdout)")
        let store = URL(fileURLWithPath: keptFile).deletingLastPathComponent()
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.path).filter { $0 != ".lock" }.sorted()
                == [URL(fileURLWithPath: keptFile).lastPathComponent, "info.json"].sorted())
        #expect(try MediaTool.duration(out.path) > 0.7)
    }

    @Test("declined consent exits 3 with one line")
    func declinedExitsThree() async throws {
        let home = Home()
        let r = try await TestPortalControl.exclusively { control in
            try await control.setNextResponse("*", 1)
            return try await Pwrecord.run(["record", "--duration", "1"], environment: home.env, timeout: 60)
        }
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").filter { $0.hasPrefix("pwrecord: error:") }.count == 1)
        #expect(r.stderr.contains("declined"))
    }

    @Test("a denying policy exits 4 before any portal call")
    func policyDenyExitsFourBeforePortal() async throws {
        let home = Home()
        try home.userPolicy("[defaults]\nrecording = deny\n")
        let (r, created) = try await TestPortalControl.exclusively { control in
            let before = try await control.stat("sessions_created")
            let r = try await Pwrecord.run(["record", "--duration", "1"], environment: home.env, timeout: 60)
            return (r, try await control.stat("sessions_created") - before)
        }
        #expect(r.status == 4, "\(r.stderr)")
        #expect(created == 0)
        #expect(r.stderr.contains("policy.conf:2"))
    }

    @Test("no portal on the bus exits 5 with a hint")
    func noPortalExitsFive() async throws {
        let home = Home()
        var env = home.env
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(home.root.path)/no-bus-here"
        let r = try await Pwrecord.run(["record", "--duration", "1"], environment: env, timeout: 60)
        #expect(r.status == 5, "\(r.stderr)")
        #expect(r.stderr.contains("pwrecord: hint:"))
    }

    @Test("an unwritable -o is an error before consent is asked")
    func unwritableOutputBeforeConsent() async throws {
        let home = Home()
        let (r, created) = try await TestPortalControl.exclusively { control in
            let before = try await control.stat("sessions_created")
            let r = try await Pwrecord.run(["record", "-o", "/nonexistent-\(UUID().uuidString)/x.mkv", "--duration", "1"],
                                     environment: home.env, timeout: 60)
            return (r, try await control.stat("sessions_created") - before)
        }
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("does not exist"))
        #expect(created == 0)
    }

    @Test("bad flags exit 2 naming the flag", arguments: [["record", "--fps", "0"], ["record", "--codec", "mpeg2"], ["record", "--bogus"]])
    func badFlagsExitTwo(arguments: [String]) async throws {
        let r = try await Pwrecord.run(arguments)
        #expect(r.status == 2)
        #expect(r.stderr.contains(arguments[1]))
    }

    @Test("SIGINT at 2 s exits 0 with a playable file of about 2 s")
    func sigintFinalizes() async throws {
        let home = Home()
        let out = home.root.appendingPathComponent("int.mkv")
        let status = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.runInterrupted(["record", "-o", out.path], environment: home.env, after: 2)
        }
        #expect(status == 0)
        let d = try MediaTool.duration(out.path)
        #expect(d > 1.2 && d < 3.5, "duration \(d)")
    }

    @Test("status --json parses and follows a policy change")
    func statusFollowsPolicy() async throws {
        let home = Home()
        let first = try await Pwrecord.run(["status", "--json"], environment: home.env)
        let json1 = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any]
        #expect(json1?["available"] as? Bool == true, "\(first.stdout)\(first.stderr)")
        try home.userPolicy("[defaults]\nrecording = deny\n")
        let second = try await Pwrecord.run(["status", "--json"], environment: home.env)
        #expect(second.status == 4)
        let json2 = try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any]
        #expect(json2?["available"] as? Bool == false)
        let reasons = json2?["reasons"] as? [[String: String]] ?? []
        #expect(reasons.contains { $0["kind"] == "policy" })
    }
}
