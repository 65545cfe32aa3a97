import Foundation
import Glibc
import Testing
import PortalTestSupport

/// How a long screenshot ends, as a user at a terminal meets it: every documented way stops it (not only Enter),
/// the user is told when the image is cut short or incomplete, and a capture is never thrown away.
@Suite("pwrecord screenshot --long: stopping, and what the user is told", .enabled(if: TestDesktop.isAvailable), .serialized)
struct LongScreenshotStopTests {
    let home: TestHome
    init() throws { home = try TestHome() }

    /// The backend's page, still (`scrollStep` 0) or scrolling by `scrollStep` rows a frame.
    static func page(_ control: TestPortalControl, scrollStep: Int32, height: UInt32 = 3000) async throws {
        try await control.setStreamOptions(["content": "page", "page_height": height, "header": UInt32(0),
                                            "footer": UInt32(0), "scroll_step": scrollStep, "fps": UInt32(30)])
    }

    static func pngHeight(_ path: String) throws -> Int {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        return bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
    }

    @Test("with the terminal on standard input, a still page stops by itself after --idle-stop")
    func idleStopOnTerminal() async throws {
        defer { home.remove() }
        let out = home.root.appendingPathComponent("still.png")
        let r = try await TestPortalControl.exclusively { control in
            try await Self.page(control, scrollStep: 0)
            let shot = try PwrecordOnTerminal(["screenshot", "--long", "-o", out.path, "--idle-stop", "1"],
                                              environment: home.env, inputFromTerminal: true)
            return await shot.wait(timeout: 15)
        }
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("saved \(out.path)"), "\(r.output)")
    }

    @Test("with the terminal on standard input, SIGINT and Enter each stop it and save what was captured",
          arguments: ["SIGINT", "Enter"])
    func signalAndEnterOnTerminal(_ how: String) async throws {
        defer { home.remove() }
        let out = home.root.appendingPathComponent("stopped.png")
        let (r, took) = try await TestPortalControl.exclusively { control in
            try await Self.page(control, scrollStep: 8)
            let shot = try PwrecordOnTerminal(["screenshot", "--long", "-o", out.path, "--idle-stop", "60"],
                                              environment: home.env, inputFromTerminal: true)
            _ = await shot.waitForOutput(containing: "scroll the content now", timeout: 10)
            try await Task.sleep(for: .seconds(1))
            let asked = ContinuousClock.now
            if how == "Enter" { shot.type("\n") } else { shot.send(SIGINT) }
            let r = await shot.wait(timeout: 15)
            return (r, ContinuousClock.now - asked)
        }
        #expect(r.status == 0, "\(r.output)")
        #expect(took < .seconds(5), "\(how) took \(took) to stop it")
        #expect(FileManager.default.fileExists(atPath: out.path), "\(r.output)")
    }

    @Test("a file that appears at the output during the capture is left alone; the image is saved beside it (exit 1)")
    func fileAppearsDuringCapture() async throws {
        defer { home.remove() }
        let out = home.root.appendingPathComponent("appear.png")
        let r = try await TestPortalControl.exclusively { control in
            try await Self.page(control, scrollStep: 0)
            let shot = try PwrecordProcess(["screenshot", "--long", "-o", out.path, "--idle-stop", "2"], environment: home.env)
            try await Task.sleep(for: .milliseconds(800))
            try Data("mine".utf8).write(to: out)
            return await shot.wait(timeout: 20)
        }
        #expect(r.status == 1, "\(r.stderr)")
        #expect(try String(contentsOf: out, encoding: .utf8) == "mine", "the file that appeared was replaced")
        let beside = home.root.appendingPathComponent("appear-2.png").path
        #expect(r.stderr.contains("appeared during the capture") && r.stderr.contains("saved as \(beside)"), "\(r.stderr)")
        #expect(try Self.pngHeight(beside) == 240)
        // Its standard input is no terminal: Enter, which is not read then, is not offered.
        #expect(r.stderr.contains("send SIGINT (Ctrl-C) when done") && !r.stderr.contains("press Enter"), "\(r.stderr)")
    }

    @Test("a --max-height below the captured area is a usage error naming the option (exit 2)")
    func maxHeightBelowView() async throws {
        defer { home.remove() }
        let out = home.root.appendingPathComponent("small.png")
        let r = try await TestPortalControl.exclusively { control in
            try await Self.page(control, scrollStep: 0)
            return try await PwrecordProcess.run(["screenshot", "--long", "-o", out.path, "--max-height", "100"],
                                                 environment: home.env, timeout: 20)
        }
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("--max-height 100 is below the captured height 240"), "\(r.stderr)")
        #expect(!r.stderr.contains("maximumHeight"), "\(r.stderr)")
    }

    @Test("reaching --max-height and scrolling too fast to place a frame are both said")
    func cutShortAndIncompleteAreSaid() async throws {
        defer { home.remove() }
        let tall = home.root.appendingPathComponent("tall.png"), fast = home.root.appendingPathComponent("fast.png")
        let (capped, skipped) = try await TestPortalControl.exclusively { control in
            try await Self.page(control, scrollStep: 8)
            let capped = try await PwrecordProcess.run(["screenshot", "--long", "-o", tall.path, "--max-height", "400"],
                                                       environment: home.env, timeout: 30)
            // 230 rows a frame in a 240-row view leaves 10 rows of overlap, fewer than the 16 the aligner needs;
            // a page long enough to scroll for 4 s (the stream may run a while before the capture connects).
            try await Self.page(control, scrollStep: 230, height: 30_000)
            let shot = try PwrecordProcess(["screenshot", "--long", "-o", fast.path, "--idle-stop", "30"], environment: home.env)
            try await Task.sleep(for: .seconds(2))
            shot.send(SIGINT)
            return (capped, await shot.wait(timeout: 15))
        }
        #expect(capped.status == 0, "\(capped.stderr)")
        #expect(capped.stderr.contains("reached --max-height (400 rows)"), "\(capped.stderr)")
        #expect(try Self.pngHeight(tall.path) <= 400)
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("scroll more slowly"),
                "\(skipped.stderr) \(skipped.stdout) height \(String(describing: try? Self.pngHeight(fast.path)))")
        // Said while scrolling too, so the user can go back while the page is on screen.
        #expect(skipped.stderr.contains("scroll back until the last part captured is in view"), "\(skipped.stderr)")
    }

    @Test("the desktop closing the screen cast ends the capture at once, saying so, and keeps what was captured")
    func desktopClosesTheCast() async throws {
        defer { home.remove() }
        let out = home.root.appendingPathComponent("closed.png")
        let (r, took) = try await TestPortalControl.exclusively { control in
            try await Self.page(control, scrollStep: 8)
            let shot = try PwrecordProcess(["screenshot", "--long", "-o", out.path, "--idle-stop", "30"], environment: home.env)
            try await Task.sleep(for: .seconds(1.5))
            let closed = ContinuousClock.now
            try await control.closeSessions(emitClosed: true)
            let r = await shot.wait(timeout: 20)
            return (r, ContinuousClock.now - closed)
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(took < .seconds(4), "it waited \(took) after the cast was closed")
        #expect(r.stderr.contains("the desktop ended the screen cast") || r.stderr.contains("the capture ended"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.path))
    }

    @Test("the policy's consent-memory = 0 makes every long screenshot ask, as every recording does")
    func consentMemoryApplies() async throws {
        defer { home.remove() }
        try home.writeUserPolicy("[defaults]\nconsent-memory = 0\n")
        let out = home.root.appendingPathComponent("ask.png")
        let (first, second, asked) = try await TestPortalControl.exclusively { control in
            try await Self.page(control, scrollStep: 0)
            let before = try await control.stat("dialogs_shown")
            let first = try await PwrecordProcess.run(["screenshot", "--long", "-o", out.path, "--idle-stop", "1", "--force"],
                                                      environment: home.env, timeout: 20)
            let second = try await PwrecordProcess.run(["screenshot", "--long", "-o", out.path, "--idle-stop", "1", "--force"],
                                                       environment: home.env, timeout: 20)
            return (first, second, try await control.stat("dialogs_shown") - before)
        }
        #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
        #expect(asked == 2, "\(asked) dialogs for two long screenshots under consent-memory = 0")
    }
}
