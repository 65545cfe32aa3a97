import Foundation
import Testing
import PortalCapture
@testable import PortalTestSupport

private typealias Support = ScreenshotTestSupport

@Suite("PNG writer", .enabled(if: Support.tool("ffmpeg") != nil && Support.tool("ffprobe") != nil))
struct PNGWriterTests {
    private func pageImage(width: Int = 150, bodyHeight: Int = 700, seed: UInt64 = 2) throws -> (StitchedImage, ScrollingPage) {
        let page = try ScrollingPage.generated(width: width, bodyHeight: bodyHeight, viewportHeight: 200,
                                               headerHeight: 20, footerHeight: 16, seed: seed)
        return (try StitchedImage(width: page.width, height: page.pageHeight, rgba: page.pageRGBA), page)
    }

    @Test("a written PNG decodes (with ffmpeg) to the same pixels", arguments: [
        PNGWriter.Options(), PNGWriter.Options.libpngDefaults, PNGWriter.Options().compressionLevel(0).filters(.noFilter),
        PNGWriter.Options().compressionLevel(9).filters(.paeth).strategy(.standard),
        PNGWriter.Options().filters(.sub).strategy(.huffmanOnly),
    ])
    func roundTrip(options: PNGWriter.Options) throws {
        let (image, page) = try pageImage()
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/page.png"
        let png = try PNGWriter(options: options).write(image, to: path)
        #expect(!png.hasAlpha)
        let decoded = try Support.decodePNG(path)
        #expect(decoded.width == page.width && decoded.height == page.pageHeight)
        #expect(Support.mismatch(decoded.rgba, page.pageRGBA, width: page.width) == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(png.bytes), "the file holds the encoded bytes")
    }

    @Test("without replacing, a file that appeared at the path is left alone and nothing else is left behind")
    func notReplacing() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("png-keep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("shot.png").path
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: path))
        let image = try StitchedImage(width: 4, height: 4, rgba: [UInt8](repeating: 200, count: 64))
        #expect(throws: ScreenshotError.fileWriteFailed(path: path, operation: "link", errno: EEXIST)) {
            _ = try PNGWriter().write(image, to: path, replacing: false)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "someone else's")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["shot.png"])
        _ = try PNGWriter().write(image, to: path, replacing: true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test("an image with transparent pixels is written as RGBA and keeps its alpha")
    func alphaIsKept() throws {
        var rgba = [UInt8](repeating: 0, count: 64 * 40 * 4)
        for i in 0..<(64 * 40) { rgba[i * 4] = UInt8(i % 256); rgba[i * 4 + 1] = UInt8(i / 64); rgba[i * 4 + 2] = 200; rgba[i * 4 + 3] = UInt8((i * 7) % 256) }
        let image = try StitchedImage(width: 64, height: 40, rgba: rgba)
        #expect(!image.isOpaque)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let png = try PNGWriter().write(image, to: dir + "/alpha.png")
        #expect(png.hasAlpha)
        #expect(Support.mismatch(try Support.decodePNG(dir + "/alpha.png").rgba, rgba, width: 64) == nil)
    }

    @Test("a frame in every pixel format saves as the same picture", arguments: PixelFormat.allCases)
    func frameAsPlainScreenshot(format: PixelFormat) throws {
        let page = try ScrollingPage.generated(width: 90, bodyHeight: 300, viewportHeight: 120, headerHeight: 10, seed: 5)
        let image = try StitchedImage(frame: page.frame(offset: 33, pixelFormat: format, stride: 90 * 4 + 12, padding: 7))
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try PNGWriter().write(image, to: dir + "/frame.png")
        let decoded = try Support.decodePNG(dir + "/frame.png")
        let expected = (0..<page.viewportHeight).flatMap { page.pageRow(page.pageRow(forViewportRow: $0, offset: 33)) }
        #expect(Support.mismatch(decoded.rgba, expected, width: 90) == nil)
    }

    @Test("the file is private (0600), written atomically, with no temporary file left")
    func filePermissionsAndAtomicity() throws {
        let (image, _) = try pageImage(bodyHeight: 300)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/shot.png"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try PNGWriter().write(image, to: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["shot.png"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    }

    @Test("writing into a missing directory fails with the failing call and a hint")
    func missingDirectory() throws {
        let (image, _) = try pageImage(bodyHeight: 300)
        #expect(throws: ScreenshotError.fileWriteFailed(path: "/nonexistent-pwrecord/x.png", operation: "mkstemp", errno: ENOENT)) {
            try PNGWriter().write(image, to: "/nonexistent-pwrecord/x.png")
        }
    }

    @Test("a compression level outside 0...9 is refused")
    func badLevel() throws {
        let (image, _) = try pageImage(bodyHeight: 300)
        #expect(throws: ScreenshotError.invalidOption(name: "compressionLevel", reason: "12 is not in 0...9")) {
            try PNGWriter(options: PNGWriter.Options().compressionLevel(12)).encode(image)
        }
    }

    @Test("pixels that do not match the size are refused")
    func badPixels() {
        #expect(throws: ScreenshotError.self) { try StitchedImage(width: 10, height: 10, rgba: [0, 0, 0]) }
        #expect(throws: ScreenshotError.self) { try StitchedImage(width: 0, height: 10, rgba: []) }
    }
}
