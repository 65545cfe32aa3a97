import Foundation
import Glibc
import Testing
import PortalCapture
import PortalTestSupport

/// The live progress line of `pwrecord record`: drawn on a terminal (the binary runs on a pseudo-terminal
/// here), never when its output goes to pipes.
@Suite("pwrecord record's progress line", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized)
struct ProgressLineTests {
    /// One drawing of the line: `\r ESC[K ● REC MM:SS  F fps  D dropped  SIZE`.
    struct Drawing: Equatable {
        var paused: Bool
        var seconds: Int
        var fps: Double
        var dropped: Int
        var bytes: Double

        static var pattern: Regex<(Substring, Substring, Substring, Substring, Substring, Substring, Substring, Substring)> { #/(● REC|❚❚ PAUSED) (\d\d):(\d\d) +(\d+\.\d) fps +(\d+) dropped +(\d+(?:\.\d)?) (B|KB|MB|GB)/# }

        /// The drawings in `output`, in order: each starts with a carriage return and a clear-line.
        static func all(in output: String) -> [Drawing] {
            output.components(separatedBy: "\r\u{1B}[K").dropFirst().compactMap { piece -> Drawing? in
                guard let m = piece.prefixMatch(of: pattern) else { return nil }
                let (_, label, minutes, seconds, fps, dropped, size, unit) = m.output
                let scale: [Substring: Double] = ["B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9]
                guard let min = Int(minutes), let sec = Int(seconds), let f = Double(fps), let d = Int(dropped),
                      let b = Double(size), let u = scale[unit] else { return nil }
                return Drawing(paused: label != "● REC", seconds: min * 60 + sec, fps: f, dropped: d, bytes: b * u)
            }
        }
    }

    @Test("on a terminal, record --duration 2 redraws one line with elapsed, fps, drops and size, and ends it with a newline")
    func drawnOnATerminal() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("tty.mkv")
        let r = try await TestPortalControl.exclusively { _ in
            try await PwrecordOnTerminal.run(["record", "-o", out.path, "--duration", "2", "--cursor", "hidden"], environment: home.env)
        }
        #expect(r.status == 0, "\(r.output)")
        let drawings = Drawing.all(in: r.output)
        // A report every 500 ms for 2 s: the line is redrawn in place several times.
        #expect(drawings.count >= 3, "\(drawings.count) drawings in: \(r.output.debugDescription)")
        #expect(r.output.components(separatedBy: "\r\u{1B}[K").count - 1 == drawings.count,
                "every redraw should be a progress line: \(r.output.debugDescription)")
        #expect(drawings.allSatisfy { !$0.paused && $0.seconds <= 2 })
        #expect(zip(drawings, drawings.dropFirst()).allSatisfy { $0.seconds <= $1.seconds && $0.bytes <= $1.bytes && $0.dropped <= $1.dropped },
                "elapsed, size and drops never go back: \(drawings)")
        #expect((drawings.last?.bytes ?? 0) > (drawings.first?.bytes ?? 0), "the size grows: \(drawings)")
        // The backend sends 30 fps: the first report counts frames too, and none is more than the source sends.
        #expect((drawings.first?.fps ?? 0) > 0, "\(drawings)")
        #expect(drawings.contains { $0.fps > 10 } && drawings.allSatisfy { $0.fps < 60 }, "\(drawings)")

        // It ends cleanly: the last drawing is followed by a newline, then the result on a line of its own, and
        // nothing redraws after it.
        let afterLast = try #require(r.output.components(separatedBy: "\r\u{1B}[K").last)
        let lines = afterLast.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count >= 2 && lines[1].hasPrefix("saved \(out.path) ("), "\(afterLast.debugDescription)")
        #expect(r.output.hasSuffix("\n"))
        #expect(!lines.dropFirst().contains { $0.contains("\r") || $0.contains("\u{1B}") }, "\(afterLast.debugDescription)")
        #expect(try MediaTool.probe(out.path).contains { $0.type == "video" })
    }

    @Test("with standard output and error on pipes, record prints no progress line and no terminal codes")
    func noneOnPipes() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("pipe.mkv")
        let r = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.run(["record", "-o", out.path, "--duration", "2", "--cursor", "hidden"], environment: home.env)
        }
        #expect(r.status == 0, "\(r.stderr)")
        for text in [r.stdout, r.stderr] {
            #expect(!text.contains("\r") && !text.contains("\u{1B}"), "\(text.debugDescription)")
            #expect(!text.contains("REC") && !text.contains(" fps"), "\(text.debugDescription)")
        }
        #expect(r.stdout.hasPrefix("saved \(out.path) ("), "\(r.stdout)")
        #expect(r.stderr.split(separator: "\n") == ["pwrecord: recording for 2.0 s; Ctrl-C stops, SIGUSR1 pauses, SIGUSR2 resumes"],
                "\(r.stderr)")
        #expect(try MediaTool.probe(out.path).contains { $0.type == "video" })
    }

    @Test("on a terminal, pause and resume notes come on lines of their own and the line says PAUSED meanwhile")
    func notesDoNotRunIntoTheLine() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("notes.mkv")
        let (r, drewBeforePause) = try await TestPortalControl.exclusively { _ -> (PwrecordOnTerminal.Result, Bool) in
            let p = try PwrecordOnTerminal(["record", "-o", out.path, "--cursor", "hidden"], environment: home.env)
            let drew = await p.waitForOutput(containing: "\r\u{1B}[K● REC", timeout: 30)
            p.send(SIGUSR1)
            _ = await p.waitForOutput(containing: "PAUSED", timeout: 10)
            p.send(SIGUSR2)
            _ = await p.waitForOutput(containing: "pwrecord: resumed", timeout: 10)
            try? await Task.sleep(for: .milliseconds(700))
            p.send(SIGINT)
            return (await p.wait(timeout: 30), drew)
        }
        #expect(drewBeforePause, "no progress line before the pause: \(r.output.debugDescription)")
        #expect(r.status == 0, "\(r.output)")
        for note in ["pwrecord: paused\n", "pwrecord: resumed\n"] {
            let before = try #require(r.output.range(of: note), "no '\(note)' in \(r.output.debugDescription)")
            // The drawn line is cleared first, so the note starts at the left edge, alone on its line.
            #expect(r.output[..<before.lowerBound].hasSuffix("\r\u{1B}[K"), "\(r.output.debugDescription)")
        }
        let drawings = Drawing.all(in: r.output)
        let firstPaused = try #require(drawings.firstIndex { $0.paused }, "never PAUSED: \(drawings)")
        #expect(drawings[..<firstPaused].allSatisfy { !$0.paused })
        #expect(drawings.last?.paused == false, "after resume the line says REC again: \(drawings)")
        #expect(try MediaTool.probe(out.path).contains { $0.type == "video" })
    }
}
