import Foundation
import Testing
import PortalCapture
import PortalTestSupport

/// `pwrecord screenshot` and `--window` through the real Screenshot portal: what the backend is asked, and the
/// picture that comes back.
@Suite("pwrecord screenshot's portal options", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized)
struct ScreenshotPortalOptionsTests {
    struct Shot {
        var result: Pwrecord.Result
        var options: DBusVardict
        var dialogs: UInt32
        var accessAsked: Bool
    }

    /// Runs `pwrecord screenshot arguments...` in `home.work` with the backend's screen at `width` x `height`.
    static func shoot(_ arguments: [String], in home: TestHome, width: UInt32, height: UInt32,
                      response: UInt32? = nil) async throws -> Shot {
        try await TestPortalControl.exclusively { control in
            try await control.setStreamOptions(["width": width, "height": height])
            if let response { try await control.setNextResponse("Screenshot", response) }
            let r = try await PwrecordProcess.run(["screenshot"] + arguments, environment: home.env, in: home.work, timeout: 30)
            return Shot(result: r, options: try await control.lastOptions("Screenshot"),
                        dialogs: try await control.stat("dialogs_shown"),
                        accessAsked: !(try await control.lastOptions("AccessDialog")).isEmpty)
        }
    }

    @Test("--window asks the portal for an interactive screenshot (the user picks the window) and saves the PNG it returns, at its size")
    func windowIsInteractive() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let shot = try await Self.shoot(["--window", "-o", "w.png"], in: home, width: 400, height: 300)
        #expect(shot.result.status == 0, "\(shot.result.stderr)")
        let file = home.work.appendingPathComponent("w.png")
        #expect(shot.result.stdout == "saved \(file.path)\n")
        #expect(try shot.options.valueIfPresent("interactive", as: Bool.self) == true, "\(shot.options)")
        // Interactive: the portal's own dialog, not the permission dialog of non-interactive screenshots.
        #expect(shot.dialogs == 1)
        #expect(!shot.accessAsked)
        let png = try #require(try MediaTool.probe(file.path).first)
        #expect(png.codec == "png" && png.width == 400 && png.height == 300, "\(png)")
        let decoded = try MediaTool.decodeVideo(file.path, width: 400, height: 300)
        #expect(TestPattern.checkColourAreas(try #require(decoded.frames.first)) == nil)
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
    }

    @Test("a plain screenshot is not interactive and, without -o, is saved as screenshot.png in the current folder")
    func plainIsNotInteractive() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let shot = try await Self.shoot([], in: home, width: 352, height: 288)
        #expect(shot.result.status == 0, "\(shot.result.stderr)")
        #expect(try shot.options.valueIfPresent("interactive", as: Bool.self) == false, "\(shot.options)")
        #expect(home.contents(of: home.work) == ["screenshot.png"])
        let png = try #require(try MediaTool.probe(home.work.appendingPathComponent("screenshot.png").path).first)
        #expect(png.width == 352 && png.height == 288, "\(png)")
    }

    @Test("a plain or --window screenshot to -o FILE.pdf is one page of the picture's size that renders as the picture",
          arguments: [[], ["--window"]])
    func pdf(options: [String]) async throws {
        let home = try TestHome()
        defer { home.remove() }
        let shot = try await Self.shoot(options + ["-o", "shot.pdf"], in: home, width: 400, height: 300)
        #expect(shot.result.status == 0, "\(shot.result.stderr)")
        let file = home.work.appendingPathComponent("shot.pdf")
        #expect(shot.result.stdout == "saved \(file.path)\n")
        #expect(home.contents(of: home.work) == ["shot.pdf"])
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
        let info = try MediaTool.runAny("/usr/bin/pdfinfo", [file.path])
        let text = String(decoding: info.stdout, as: UTF8.self)
        #expect(info.status == 0 && text.contains("Pages:           1"), "\(text)\(info.stderr)")
        // 96 pixels an inch: 400 x 300 pixels is 300 x 225 points.
        #expect(text.contains("Page size:       300 x 225 pts"), "\(text)")
        let rendered = home.root.appendingPathComponent("render")
        let ppm = try MediaTool.runAny("/usr/bin/pdftoppm", ["-png", "-singlefile", "-scale-to-x", "400", "-scale-to-y", "300",
                                                              file.path, rendered.path])
        #expect(ppm.status == 0, "\(ppm.stderr)")
        let decoded = try MediaTool.decodeVideo(rendered.path + ".png", width: 400, height: 300)
        #expect(TestPattern.checkColourAreas(try #require(decoded.frames.first)) == nil)
    }

    @Test("--long --window asks the ScreenCast portal for a window, without the cursor, and saves what it stitched")
    func longWindow() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let (r, selected) = try await TestPortalControl.exclusively { control in
            let r = try await PwrecordProcess.run(["screenshot", "--long", "--window", "--idle-stop", "1", "-o", "long.png"],
                                            environment: home.env, in: home.work, timeout: 30)
            return (r, try await control.lastOptions("SelectSources"))
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try selected.valueIfPresent("types", as: UInt32.self) == 2, "\(selected)")
        #expect(try selected.valueIfPresent("cursor_mode", as: UInt32.self) == 1, "\(selected)")
        let png = try #require(try MediaTool.probe(home.work.appendingPathComponent("long.png").path).first)
        #expect(png.width == 320, "\(png)")
        #expect(r.stdout == "saved \(home.work.appendingPathComponent("long.png").path) (320x\(png.height ?? 0))\n", "\(r.stdout)")
    }

    @Test("a --window screenshot the user cancels exits 3 with one line and writes nothing")
    func declinedWindow() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let shot = try await Self.shoot(["--window", "-o", "w.png"], in: home, width: 320, height: 240, response: 1)
        #expect(shot.result.status == 3, "\(shot.result.stderr)")
        let lines = shot.result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("pwrecord: error: "), "\(shot.result.stderr)")
        #expect(home.contents(of: home.work).isEmpty)
    }
}
