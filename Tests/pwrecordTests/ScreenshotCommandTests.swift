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
        let r = try await TestPortalControl.exclusively { _ in try Pwrecord.run(["screenshot", "-o", out.path]) }
        #expect(r.status == 0, "\(r.stderr)")
        let decoded = try MediaTool.decodeVideo(out.path, width: 320, height: 240)
        let frame = try #require(decoded.frames.first)
        #expect(TestPattern.checkColourAreas(frame) == nil)
        let mode = try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("screenshot --long stops by itself when nothing scrolls and writes a PDF poppler reads")
    func longScreenshotWritesPDF() async throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("long.pdf")
        let r = try await TestPortalControl.exclusively { _ in
            try Pwrecord.run(["screenshot", "--long", "-o", out.path, "--idle-stop", "1"], timeout: 30)
        }
        #expect(r.status == 0, "\(r.stderr)")
        let info = try MediaTool.runAny("/usr/bin/pdfinfo", [out.path])
        #expect(info.status == 0)
        #expect(String(decoding: info.stdout, as: UTF8.self).contains("Pages:           1"))
    }

    @Test("a screenshot to an unknown extension is a usage error")
    func badExtension() throws {
        let r = try Pwrecord.run(["screenshot", "-o", "/tmp/x.gif"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--output"))
    }
}
