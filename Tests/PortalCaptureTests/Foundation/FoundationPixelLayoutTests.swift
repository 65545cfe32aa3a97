import Foundation
import Synchronization
import Testing
import PortalCapture
import PortalTestSupport

/// The byte layout of ScreenCast frames, judged by ffmpeg rather than by our own code.
///
/// The round trip in `FoundationScreenCastTests` checks frames with `TestPattern.checkColourAreas`, which reads
/// bytes through `PixelFormat`'s offsets, the same table the backend paints with: a bug shared by both sides (R and
/// B swapped for RGBx, say) would pass there. Here the raw bytes of one frame go to ffmpeg, labelled with ffmpeg's
/// name for the layout the SPA format code means, and the colours ffmpeg reads back are compared with literals.
@Suite("Pixel layouts of ScreenCast frames, read by ffmpeg", .tags(.desktop), .enabled(if: TestDesktop.isAvailable),
       .serialized)
struct FoundationPixelLayoutTests {
    /// ffmpeg's `-pix_fmt` for the bytes PipeWire labels with `format`'s SPA code.
    ///
    /// spa/param/video/raw.h: "The components are in general described in big-endian order", i.e. the name lists
    /// the bytes of a pixel in memory order, as GStreamer's formats do (`SPA_VIDEO_FORMAT_BGRx` is bytes B, G, R,
    /// then one unused). libavutil/pixfmt.h names packed formats the same way: `AV_PIX_FMT_BGR0` "BGRXBGRX...
    /// X=unused/undefined", `AV_PIX_FMT_RGB0` "RGBXRGBX...", `AV_PIX_FMT_BGRA` "BGRABGRA...", `AV_PIX_FMT_RGBA`
    /// "RGBARGBA...". So x (padding) becomes ffmpeg's 0, and A stays A.
    static func ffmpegPixelFormat(_ format: PixelFormat) -> String {
        switch format {
        case .bgrx: "bgr0"
        case .rgbx: "rgb0"
        case .bgra: "bgra"
        case .rgba: "rgba"
        }
    }

    /// A rectangle of the 320x240 pattern and the colour every pixel in it must have.
    struct Area: Sendable {
        var name: String
        var x: Range<Int>
        var y: Range<Int>
        var rgb: [UInt8]
    }

    static let width = 320, height = 240

    /// TestPattern's documented layout at 320x240, written out: the counter band is rows 0..<30 (max(8, 240/8));
    /// the 210 rows below split at row 30 + 105 = 135 and the columns at 160.
    static let areas = [
        Area(name: "red, top left", x: 0..<160, y: 30..<135, rgb: [255, 0, 0]),
        Area(name: "green, top right", x: 160..<320, y: 30..<135, rgb: [0, 255, 0]),
        Area(name: "blue, bottom left", x: 0..<160, y: 135..<240, rgb: [0, 0, 255]),
        Area(name: "yellow, bottom right", x: 160..<320, y: 135..<240, rgb: [255, 255, 0]),
    ]
    static let counterBandRows = 0..<30

    @Test("a ScreenCast frame's bytes, read by ffmpeg as the layout its SPA format names, show the nominal colours in the four areas",
          arguments: PixelFormat.allCases)
    func ffmpegReadsTheNominalColours(_ pixelFormat: PixelFormat) async throws {
        let (format, packed) = try await Self.oneFrame(pixelFormat)
        #expect(format == VideoFormat(pixelFormat: pixelFormat, width: Self.width, height: Self.height,
                                      frameRate: FrameRate(60)),
                "the stream negotiated what the backend was told")
        let rgb = try await Self.rgb24(packed, ffmpegPixelFormat: Self.ffmpegPixelFormat(pixelFormat))
        try #require(rgb.count == Self.width * Self.height * 3, "\(rgb.count) bytes of rgb24")

        func colour(_ x: Int, _ y: Int) -> [UInt8] { Array(rgb[(y * Self.width + x) * 3 ..< (y * Self.width + x) * 3 + 3]) }
        for area in Self.areas {
            var wrong: [String] = []
            for y in area.y { for x in area.x where colour(x, y) != area.rgb { wrong.append("(\(x),\(y)) \(colour(x, y))") } }
            let differing = wrong.count, first = wrong.prefix(3).joined(separator: ", ")
            #expect(differing == 0, "\(area.name): pixels differ from \(area.rgb), first \(first)")
        }
        // The counter band is black and white cells only: grey or coloured pixels would mean bytes read wrongly.
        let band = Self.counterBandRows.flatMap { y in (0..<Self.width).map { colour($0, y) } }
        let notBlackOrWhite = band.filter { $0 != [0, 0, 0] && $0 != [255, 255, 255] }.count
        let bandColours = Set(band.map { "\($0)" }).sorted()
        #expect(notBlackOrWhite == 0, "colours in the band: \(bandColours)")
    }

    /// One frame of a ScreenCast round trip in `pixelFormat`, its rows packed (stride removed).
    static func oneFrame(_ pixelFormat: PixelFormat) async throws -> (VideoFormat, [UInt8]) {
        try await TestPortalControl.exclusively { control in
            try await control.setStreamOptions(["width": UInt32(width), "height": UInt32(height),
                                                "format": pixelFormat.rawValue, "fps": UInt32(60)])
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, streams) = try await portal.startScreenCast(["types": UInt32(1)])
            let first = Mutex<(VideoFormat, [UInt8])?>(nil)
            let capture = try await PortalStreamCapture.open(
                portal, session: session, nodeID: try #require(streams.first).nodeID) { frame in
                    guard first.withLock({ $0 == nil }) else { return }
                    let rowBytes = frame.format.width * 4
                    var packed: [UInt8] = []
                    packed.reserveCapacity(rowBytes * frame.format.height)
                    for y in 0..<frame.format.height {
                        packed.append(contentsOf: frame.bytes[y * frame.stride ..< y * frame.stride + rowBytes])
                    }
                    first.withLock { $0 = (frame.format, packed) }
                }
            defer { capture.stop() }
            let arrived = await eventually(timeout: .seconds(10)) { first.withLock { $0 != nil } }
            try await portal.closeSession(session)
            try #require(arrived, "no frame; \(capture.stream.statistics)")
            return try #require(first.withLock { $0 })
        }
    }

    /// `packed` (one `width` x `height` frame) converted by ffmpeg from `ffmpegPixelFormat` to `rgb24`, through
    /// files in a private directory; ffmpeg runs on a thread of its own, off the cooperative pool.
    static func rgb24(_ packed: [UInt8], ffmpegPixelFormat: String) async throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pwrecord-pixels-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("frame.raw").path
        let output = directory.appendingPathComponent("frame.rgb24").path
        try Data(packed).write(to: URL(fileURLWithPath: input))
        let arguments = ["-v", "error", "-nostdin", "-f", "rawvideo", "-pixel_format", ffmpegPixelFormat,
                         "-video_size", "\(width)x\(height)", "-i", input,
                         "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-y", output]
        let run = await onThread { ToolRun.run("/usr/bin/ffmpeg", arguments) }
        try #require(run.status == 0, "ffmpeg \(arguments): status \(run.status): \(run.stderr)")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }
}
