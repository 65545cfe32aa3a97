import Foundation
import Glibc
import Testing
import PortalCapture
import PortalTestSupport
@testable import pwrecord

/// The signals `pwrecord record` documents: SIGUSR1 pauses, SIGUSR2 resumes, SIGINT and SIGTERM stop and
/// finalize. Run as a user would, through the real portal on the test desktop.
@Suite("pwrecord record's signals", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized)
struct RecordSignalTests {
    @Test("SIGUSR1 pauses and SIGUSR2 resumes: the file leaves the paused time out, its picture jumps over it, and both are reported")
    func pauseAndResume() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("paused.mkv")
        let (r, began, wall) = try await TestPortalControl.exclusively { _ -> (Pwrecord.Result, Bool, Double) in
            let p = try PwrecordProcess(["record", "-o", out.path, "--cursor", "hidden"], environment: home.env)
            let began = await home.waitForRecording(to: out)
            let start = Date()
            try? await Task.sleep(for: .milliseconds(1500))
            p.send(SIGUSR1)
            try? await Task.sleep(for: .milliseconds(2500))
            p.send(SIGUSR2)
            try? await Task.sleep(for: .milliseconds(1500))
            p.send(SIGINT)
            let wall = Date().timeIntervalSince(start)
            return (await p.wait(timeout: 30), began, wall)
        }
        try #require(began, "the recording never began: \(r.stderr)")
        #expect(r.status == 0, "\(r.stderr)")
        let notes = r.stderr.split(separator: "\n")
        let paused = try #require(notes.firstIndex(of: "pwrecord: paused"), "\(r.stderr)")
        let resumed = try #require(notes.firstIndex(of: "pwrecord: resumed"), "\(r.stderr)")
        #expect(paused < resumed)

        // About 3 s recorded of about 5.5 s. The wall clock only bounds it loosely: on a loaded machine the
        // file may begin before `start` and the signals land late, so the pause is measured on the backend's
        // own clock below.
        let duration = try MediaTool.duration(out.path)
        #expect(duration > 2.0 && duration < wall, "duration \(duration) s of \(wall) s")
        // Left out, not frozen: the frame times run on without a gap...
        let times = try MediaTool.videoFrameTimes(out.path)
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect((gaps.max() ?? 0) < 1.0, "a gap of \(gaps.max() ?? 0) s in the frame times")
        // ...while the backend's frame counter (30 a second) jumps over the frames sent during the pause
        // (about 75), and the frames span about 2.5 s more of the backend's time than the file lasts.
        let decoded = try MediaTool.decodeVideo(out.path, width: 320, height: 240)
        let counters = decoded.frames.map(TestPattern.decodeCounter)
        let jumps = zip(counters, counters.dropFirst()).map { Int($1) - Int($0) }
        #expect((jumps.max() ?? 0) >= 30, "the largest counter step is \(jumps.max() ?? 0)")
        let spanned = Double(Int(counters.last ?? 0) - Int(counters.first ?? 0)) / 30
        #expect(spanned - duration > 1.5, "the frames span \(spanned) s of the backend's time and the file lasts \(duration) s: the pause was recorded")
        #expect(TestPattern.checkColourAreas(try #require(decoded.frames.last)) == nil)
    }

    @Test("Ctrl-C while the consent dialog is open gives up at once: exit 3, nothing recorded, nothing left")
    func ctrlCDuringConsent() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("never.mkv")
        let (r, waited) = try await TestPortalControl.exclusively { control -> (Pwrecord.Result, Double) in
            try await control.setNextResponse("Start", 3)   // the dialog stays open: Start is never answered
            let p = try PwrecordProcess(["record", "-o", out.path], environment: home.env)
            try? await Task.sleep(for: .milliseconds(1500))
            let sent = Date()
            p.send(SIGINT)
            let r = await p.wait(timeout: 30)
            return (r, Date().timeIntervalSince(sent))
        }
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr.contains("stopped before the recording started"), "\(r.stderr)")
        #expect(waited < 5, "it took \(waited) s to give up")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.root.path).allSatisfy { !$0.hasPrefix("never") })
    }

    @Test("SIGTERM, and SIGHUP (a closed terminal), stop and finalize like Ctrl-C: exit 0 and a playable file of about the time recorded",
          arguments: [SIGTERM, SIGHUP])
    func stopSignalFinalizes(signal: Int32) async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("term.mkv")
        let (r, began) = try await TestPortalControl.exclusively { _ -> (Pwrecord.Result, Bool) in
            let p = try PwrecordProcess(["record", "-o", out.path, "--cursor", "hidden"], environment: home.env)
            let began = await home.waitForRecording(to: out)
            try? await Task.sleep(for: .seconds(2))
            p.send(signal)
            return (await p.wait(timeout: 30), began)
        }
        try #require(began, "the recording never began: \(r.stderr)")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("saved \(out.path) ("), "\(r.stdout)")
        let duration = try MediaTool.duration(out.path)
        #expect(duration > 1.2 && duration < 3.5, "duration \(duration) s")
        let decoded = try MediaTool.decodeVideo(out.path, width: 320, height: 240)
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
        #expect(TestPattern.checkColourAreas(try #require(decoded.frames.last)) == nil)
    }

    @Test("SIGUSR2 without a pause changes nothing and says nothing")
    func resumeWithoutPause() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("resume.mkv")
        let r = try await TestPortalControl.exclusively { _ -> Pwrecord.Result in
            let p = try PwrecordProcess(["record", "-o", out.path, "--duration", "2", "--cursor", "hidden"], environment: home.env)
            _ = await home.waitForRecording(to: out)
            try? await Task.sleep(for: .milliseconds(500))
            p.send(SIGUSR2)
            return await p.wait(timeout: 30)
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("resumed") && !r.stderr.contains("paused"), "\(r.stderr)")
        let duration = try MediaTool.duration(out.path)
        #expect(abs(duration - 2) <= 0.3, "duration \(duration) s")
    }

    @Test("the pause and resume signals are documented where a user looks: record --help, the man page and the README")
    func documented() async throws {
        let help = try await Pwrecord.run(["record", "--help"])
        #expect(help.status == 0)
        // The README wraps lines: compare with runs of white space made one space.
        let readme = try RepositoryFile.text("README.md").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let man = ManPageSource(try RepositoryFile.text("docs/pwrecord.1"))
        let signals = try #require(man.section("SIGNALS")).entries
        let documented: [StopSignals.Signal: (verb: String, manPage: String)] = [.pause: ("pauses", "Pause"), .resume: ("resumes", "Resume")]
        var seen = 0
        for (name, _, meaning) in StopSignals.handled {
            guard let words = documented[meaning] else { continue }
            seen += 1
            #expect(help.stdout.contains("\(name) \(words.verb)"), "record --help does not say '\(name) \(words.verb)'")
            #expect(readme.contains("\(name) \(words.verb)"), "the README does not say '\(name) \(words.verb)'")
            let entry = signals.first { $0.tag.contains(name) }
            #expect(entry?.text.hasPrefix(words.manPage) == true, "man page, \(name): \(entry?.text ?? "missing")")
        }
        #expect(seen == 2, "one signal pauses and one resumes")
    }
}
