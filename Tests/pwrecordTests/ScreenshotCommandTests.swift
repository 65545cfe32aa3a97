import Foundation
import Testing
import PortalCapture
import PortalTestSupport

@Suite("pwrecord screenshot through the real portal", .enabled(if: TestDesktop.isAvailable), .serialized)
struct ScreenshotCommandTests {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shot-\(UUID().uuidString)")

    @Test("screenshot -o x.png saves a private PNG showing the test picture")
    func plainScreenshotSavesPNG() async throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("x.png")
        let r = try await TestPortalControl.exclusively { _ in try await Pwrecord.run(["screenshot", "-o", out.path]) }
        #expect(r.status == 0, "\(r.stderr)")
        let decoded = try MediaTool.decodeVideo(out.path, width: 320, height: 240)
        let frame = try #require(decoded.frames.first)
        #expect(TestPattern.checkColourAreas(frame) == nil)
        let mode = try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("a screenshot that cannot be written (a full disk) exits 1 and says where the portal's file still is; it is not removed")
    func failedWriteKeepsThePortalsFile() async throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let full = dir.appendingPathComponent("full")
        try FileManager.default.createDirectory(at: full, withIntermediateDirectories: true)
        // A tmpfs of one page: the PNG does not fit (needs root, as CI has; skipped without).
        guard let mounted = try? MediaTool.runAny("/bin/mount", ["-t", "tmpfs", "-o", "size=4k,mode=0700", "pwrecord-test", full.path]),
              mounted.status == 0 else { return }
        defer { _ = try? MediaTool.runAny("/bin/umount", [full.path]) }
        try? Data(count: 4096).write(to: full.appendingPathComponent("filler"))   // its one page, taken
        let out = full.appendingPathComponent("x.png")
        let r = try await TestPortalControl.exclusively { _ in try await Pwrecord.run(["screenshot", "-o", out.path]) }
        #expect(r.status == 1, "\(r.stderr)")
        let marker = "the portal's screenshot is still at "
        let kept = try #require(r.stderr.range(of: marker).map { String(r.stderr[$0.upperBound...].prefix { $0 != "\n" }) },
                                "\(r.stderr)")
        let decoded = try MediaTool.decodeVideo(kept, width: 320, height: 240)
        #expect(TestPattern.checkColourAreas(try #require(decoded.frames.first)) == nil, "the kept file is the screenshot")
        try? FileManager.default.removeItem(atPath: kept)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test("an existing file is not overwritten without --force (exit 1, the file untouched); with --force it is replaced")
    func existingFileNeedsForce() async throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("taken.png")
        try Data("keep me".utf8).write(to: out)
        let (refused, forced) = try await TestPortalControl.exclusively { _ in
            (try await Pwrecord.run(["screenshot", "-o", out.path]),
             try await Pwrecord.run(["screenshot", "-o", out.path, "--force"]))
        }
        #expect(refused.status == 1 && refused.stderr.contains("the file exists"), "\(refused.stderr)")
        #expect(forced.status == 0, "\(forced.stderr)")
        let decoded = try MediaTool.decodeVideo(out.path, width: 320, height: 240)
        #expect(TestPattern.checkColourAreas(try #require(decoded.frames.first)) == nil)
    }

    @Test("a screenshot into a folder anyone may write without the sticky bit is refused before the portal is asked, as a recording is")
    func unsafeFolderIsRefused() async throws {
        let shared = dir.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        chmod(shared.path, 0o777)
        let r = try await Pwrecord.run(["screenshot", "-o", shared.appendingPathComponent("x.png").path])
        #expect(r.status == 1 && r.stderr.contains("writable by everyone"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).isEmpty)
    }

    @Test("screenshot --long stops by itself when nothing scrolls and writes a PDF poppler reads")
    func longScreenshotWritesPDF() async throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("long.pdf")
        let r = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.run(["screenshot", "--long", "-o", out.path, "--idle-stop", "1"], timeout: 30)
        }
        #expect(r.status == 0, "\(r.stderr)")
        let info = try MediaTool.runAny("/usr/bin/pdfinfo", [out.path])
        #expect(info.status == 0)
        #expect(String(decoding: info.stdout, as: UTF8.self).contains("Pages:           1"))
    }

    @Test("a screenshot to an unknown extension is a usage error")
    func badExtension() async throws {
        let r = try await Pwrecord.run(["screenshot", "-o", "/tmp/x.gif"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--output"))
    }
}

@Suite("pwrecord screenshot --long under a policy that changes while scrolling", .enabled(if: TestDesktop.isAvailable), .serialized)
struct LongScreenshotLivePolicyTests {
    /// Starts a long screenshot that would run 30 s, applies `policy` 1.5 s in, and returns what it printed.
    static func capture(to out: URL, home: TestHome, changingTo policy: String) async throws -> Pwrecord.Result {
        try await TestPortalControl.exclusively { _ in
            let shot = try PwrecordProcess(["screenshot", "--long", "-o", out.path, "--idle-stop", "30"], environment: home.env)
            try await Task.sleep(for: .milliseconds(1500))
            try home.writeUserPolicy(policy)
            return await shot.wait(timeout: 10)
        }
    }

    @Test("recording denied while scrolling stops the long screenshot with exit 4, and what was captured is saved")
    func deniedWhileScrolling() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("long.png")
        // Not timed (the exclusive lock may wait for other suites): a capture the change did not stop would run
        // its 30 s idle stop, be ended by the 10 s wait with SIGTERM, and not exit 4.
        let r = try await Self.capture(to: out, home: home, changingTo: "[defaults]\nrecording = deny\n")
        #expect(r.status == 4, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("the capture was stopped") && r.stderr.contains("recording is denied"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.path), "what was captured before the change was not saved")
    }

    @Test("output-dirs narrowed while scrolling stops the long screenshot with exit 4, and nothing is written there")
    func outputNoLongerAllowed() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let allowed = home.root.appendingPathComponent("allowed")
        try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
        let out = home.root.appendingPathComponent("long.png")
        let r = try await Self.capture(to: out, home: home, changingTo: "[defaults]\noutput-dirs = \(allowed.path)\n")
        #expect(r.status == 4, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("nothing was saved"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.root.path).allSatisfy { !$0.hasPrefix(".long.png") },
                "a temporary file was left behind")
    }
}

@Suite("pwrecord screenshot --long on the backend's scrolling page", .enabled(if: TestDesktop.isAvailable), .serialized)
struct LongScreenshotCommandTests {
    /// `pwrecord screenshot --long -o out` while the backend scrolls a 320x1200 page with a 20-row header and a
    /// 12-row footer; returns the page it shows and the command's result.
    static func captureLongPage(to out: URL) async throws -> (ScrollingPage, Pwrecord.Result) {
        let page = try ScrollingPage.generated(width: 320, bodyHeight: 1200 - 32, viewportHeight: 240,
                                               headerHeight: 20, footerHeight: 12)
        let r = try await TestPortalControl.exclusively { control in
            try await control.setStreamOptions(["content": "page", "page_height": UInt32(1200), "header": UInt32(20),
                                                "footer": UInt32(12), "scroll_step": Int32(8), "fps": UInt32(30)])
            return try await Pwrecord.run(["screenshot", "--long", "-o", out.path, "--idle-stop", "1.5"], timeout: 60)
        }
        return (page, r)
    }

    @Test("screenshot --long while the backend scrolls its page gives the page, header and footer once")
    func longScreenshotEqualsPage() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("long-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("page.png")
        let (page, r) = try await Self.captureLongPage(to: out)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("(320x\(page.pageHeight))"), "\(r.stdout)")
        let decoded = try MediaTool.decodeVideo(out.path, width: 320, height: page.pageHeight)
        let image = try #require(decoded.frames.first)
        let expected = page.pageRGBA
        var mismatches = 0
        for y in 0..<page.pageHeight {
            for x in 0..<320 {
                let c = image.rgb(x: x, y: y), i = (y * 320 + x) * 4
                if c.r != expected[i] || c.g != expected[i + 1] || c.b != expected[i + 2] { mismatches += 1 }
            }
        }
        #expect(mismatches == 0, "\(mismatches) pixels differ from the page")
    }

    @Test("screenshot --long -o page.pdf gives a PDF that poppler opens and renders as the page")
    func longScreenshotPDFRendersPage() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("longpdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("page.pdf")
        let (page, r) = try await Self.captureLongPage(to: out)
        #expect(r.status == 0, "\(r.stderr)")
        let info = try MediaTool.runAny("/usr/bin/pdfinfo", [out.path])
        #expect(info.status == 0 && String(decoding: info.stdout, as: UTF8.self).contains("Pages:           1"))
        let rendered = dir.appendingPathComponent("render")
        let ppm = try MediaTool.runAny("/usr/bin/pdftoppm", ["-png", "-singlefile", "-scale-to-x", "320",
                                                              "-scale-to-y", "\(page.pageHeight)", out.path, rendered.path])
        #expect(ppm.status == 0, "\(ppm.stderr)")
        let decoded = try MediaTool.decodeVideo(rendered.path + ".png", width: 320, height: page.pageHeight)
        let image = try #require(decoded.frames.first)
        let expected = page.pageRGBA
        var total = 0
        for y in 0..<page.pageHeight {
            for x in 0..<320 {
                let c = image.rgb(x: x, y: y), i = (y * 320 + x) * 4
                total += abs(Int(c.r) - Int(expected[i])) + abs(Int(c.g) - Int(expected[i + 1])) + abs(Int(c.b) - Int(expected[i + 2]))
            }
        }
        // pdftoppm resamples even at 1:1 (docs/screenshots.md), so the rendering matches within a small mean error.
        let mean = Double(total) / Double(320 * page.pageHeight * 3)
        #expect(mean < 12, "mean difference \(mean) per channel")
    }
}

@Suite("pwrecord screenshot under the policy", .enabled(if: TestDesktop.isAvailable), .serialized)
struct ScreenshotPolicyTests {
    @Test("recording = deny refuses plain and long screenshots with exit 4 before the portal is asked")
    func denyRefusesScreenshots() async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeUserPolicy("[defaults]\nrecording = deny\n")
        let out = home.root.appendingPathComponent("x.png")
        let (plain, long, asked) = try await TestPortalControl.exclusively { control in
            let before = try await control.stat("sessions_created")
            let plain = try await Pwrecord.run(["screenshot", "-o", out.path], environment: home.env)
            let long = try await Pwrecord.run(["screenshot", "--long", "-o", out.path, "--idle-stop", "1"], environment: home.env)
            return (plain, long, try await control.stat("sessions_created") - before)
        }
        #expect(plain.status == 4 && plain.stderr.contains("policy.conf:2"), "\(plain.stderr)")
        #expect(long.status == 4, "\(long.stderr)")
        #expect(asked == 0)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test("output-dirs keep screenshots to the allowed folders: elsewhere is exit 4, inside works")
    func outputDirsApplyToScreenshots() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let allowed = home.root.appendingPathComponent("allowed")
        try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
        try home.writeUserPolicy("[defaults]\noutput-dirs = \(allowed.path)\n")
        let outside = home.root.appendingPathComponent("x.png"), inside = allowed.appendingPathComponent("x.png")
        let (refused, taken) = try await TestPortalControl.exclusively { _ in
            (try await Pwrecord.run(["screenshot", "-o", outside.path], environment: home.env),
             try await Pwrecord.run(["screenshot", "-o", inside.path], environment: home.env))
        }
        #expect(refused.status == 4 && refused.stderr.contains("does not allow saving recordings or screenshots in \(home.root.path)"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: outside.path))
        #expect(taken.status == 0, "\(taken.stderr)")
        #expect(FileManager.default.fileExists(atPath: inside.path))
    }
}
