import Foundation
import Testing
import PortalCapture
import PortalTestSupport

/// `PNGReader`, which turns the PNG a Screenshot portal hands over into pixels for `screenshot -o FILE.pdf`:
/// portals write PNGs in different flavours (GNOME RGBA, KDE RGB, others palette or 16-bit), so each is
/// decoded to the same colours.
@Suite("Reading the portal's PNG")
struct PNGReaderTests {
    /// The test picture at 64x48, frame 5, as `PNGWriter` encodes it.
    static func pattern() throws -> StitchedImage {
        let format = VideoFormat(pixelFormat: .rgbx, width: 64, height: 48)
        let storage = FrameStorage(capacity: 64 * 48 * 4)
        TestPattern.render(into: storage.bytes, stride: 64 * 4, format: format, frameNumber: 5)
        return try StitchedImage(frame: VideoFrame(format: format, stride: 64 * 4, timestamp: 0, sequence: 0, storage: storage))
    }

    static func expectPattern(_ image: StitchedImage, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(image.width == 64 && image.height == 48, sourceLocation: sourceLocation)
        var wrong: [String] = []
        for y in 0..<48 {
            for x in 0..<64 {
                let want = TestPattern.expectedRGB(x: x, y: y, width: 64, height: 48, frameNumber: 5)
                let got = image.pixel(x: x, y: y)
                if (got.r, got.g, got.b, got.a) != (want.r, want.g, want.b, 255) { wrong.append("(\(x),\(y)) \(got) not \(want)") }
            }
        }
        let same = wrong.isEmpty
        #expect(same, "\(wrong.count) pixels differ: \(wrong.prefix(5))", sourceLocation: sourceLocation)
    }

    @Test("what PNGWriter writes reads back pixel for pixel")
    func roundTrip() throws {
        let png = try PNGWriter().encode(try Self.pattern())
        Self.expectPattern(try PNGReader().decode(png.bytes))
    }

    @Test("RGBA, RGB, 16-bit and palette PNGs (as ffmpeg writes them) read as ffmpeg reads them",
          arguments: [["-pix_fmt", "rgba"], ["-pix_fmt", "rgb24", "-pred", "mixed"], ["-pix_fmt", "rgb48be"], ["-pix_fmt", "pal8"]])
    func flavours(arguments: [String]) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pngread-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("source.png"), converted = dir.appendingPathComponent("converted.png")
        try PNGWriter().write(try Self.pattern(), to: source.path)
        let ffmpeg = try MediaTool.run("ffmpeg", ["-v", "error", "-i", source.path] + arguments + [converted.path])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderr)")
        let image = try PNGReader().decode(Array(try Data(contentsOf: converted)))
        #expect(image.width == 64 && image.height == 48)
        // ffmpeg's own conversion may move colours a little (palette, 16-bit): compare with what it reads back.
        let reference = try #require(try MediaTool.decodeVideo(converted.path, width: 64, height: 48).frames.first)
        var wrong: [String] = []
        for y in 0..<48 {
            for x in 0..<64 {
                let got = image.pixel(x: x, y: y), want = reference.rgb(x: x, y: y)
                if abs(Int(got.r) - Int(want.r)) > 1 || abs(Int(got.g) - Int(want.g)) > 1 || abs(Int(got.b) - Int(want.b)) > 1 || got.a != 255 {
                    wrong.append("(\(x),\(y)) \(got) not \(want)")
                }
            }
        }
        let same = wrong.isEmpty
        #expect(same, "\(wrong.count) pixels differ: \(wrong.prefix(5))")
        #expect(TestPattern.checkColourAreas(reference) == nil)
    }

    @Test("bytes that are not a PNG, or a cut-off PNG, are an invalid image, not a crash")
    func notAPNG() throws {
        #expect(throws: ScreenshotError.self) { try PNGReader().decode(Array("GIF89a".utf8)) }
        let png = try PNGWriter().encode(try Self.pattern()).bytes
        #expect(throws: ScreenshotError.self) { try PNGReader().decode(Array(png.prefix(png.count / 2))) }
        #expect(throws: ScreenshotError.self) { try PNGReader().decode([]) }
    }

    @Test("an image larger than the limit is refused before its pixels are allocated")
    func tooLarge() throws {
        let png = try PNGWriter().encode(try Self.pattern()).bytes
        #expect(throws: ScreenshotError.imageTooLarge(width: 64, height: 48, format: "PNG")) {
            try PNGReader(maximumPixels: 1000).decode(png)
        }
    }
}
