import Foundation
import Testing
@testable import PortalCapture
@testable import PortalTestSupport

private typealias Support = ScreenshotTestSupport

/// PNGWriter's own parallel encoder (`Encoder.parallel`), checked by decoders that share no code with it:
/// libpng (`LibpngDecoder`), zlib's `uncompress` on the IDAT stream (header and Adler-32), and `pngfix`
/// (CRCs and the zlib stream) when installed.
@Suite("PNG band encoder")
struct PNGBandEncoderTests {
    /// Deterministic pixels: runs of repeated and copied pixels (matches for deflate) among noise (literals).
    private static func pixels(width: Int, height: Int, seed: UInt64, opaque: Bool) -> [UInt8] {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 24
        }
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let r = next()
                switch r % 4 {
                case 0 where y > 0: for c in 0..<4 { rgba[i + c] = rgba[i - width * 4 + c] }
                case 1 where x > 0: for c in 0..<4 { rgba[i + c] = rgba[i - 4 + c] }
                default: for c in 0..<4 { rgba[i + c] = UInt8(truncatingIfNeeded: r >> (8 * UInt64(c) + 4)) }
                }
                if opaque { rgba[i + 3] = 255 }
            }
        }
        return rgba
    }

    /// Checks `png` against the pixels it was made from, with every decoder available.
    private func expectDecodes(_ png: EncodedPNG, to rgba: [UInt8], width: Int, height: Int,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let decoded = try LibpngDecoder.decode(png.bytes)
        #expect(decoded.width == width && decoded.height == height, sourceLocation: sourceLocation)
        #expect(Support.mismatch(decoded.rgba, rgba, width: width) == nil, sourceLocation: sourceLocation)
        let rowBytes = 1 + width * (png.hasAlpha ? 4 : 3)
        let filtered = try LibpngDecoder.inflate(png, expectedBytes: height * rowBytes)
        #expect(filtered.count == height * rowBytes, "the zlib stream holds exactly the filtered rows",
                sourceLocation: sourceLocation)
        if Support.tool("pngfix") != nil {
            let dir = try Support.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try Data(png.bytes).write(to: URL(fileURLWithPath: dir + "/check.png"))
            let result = try Support.run("pngfix", [dir + "/check.png"])
            #expect(result.status == 0, "pngfix: \(String(decoding: result.output, as: UTF8.self)) \(result.error)",
                    sourceLocation: sourceLocation)
        }
    }

    private static let sizes: [(width: Int, height: Int)] = [
        (1, 1), (37, 1), (1, 53), (3, 7), (101, 13), (1920, 3), (257, 300),
    ]

    @Test("a PNG made in bands decodes to exactly the pixels, for any size and band count, opaque or not",
          arguments: sizes.indices, [nil, 1, 2, 7, 64] as [Int?])
    func roundTrip(size: Int, bands: Int?) throws {
        let (width, height) = Self.sizes[size]
        for opaque in [true, false] {
            let rgba = Self.pixels(width: width, height: height, seed: UInt64(size * 31 + (bands ?? 0)), opaque: opaque)
            let image = try StitchedImage(width: width, height: height, rgba: rgba)
            let png = try PNGWriter(options: PNGWriter.Options().encoder(.parallel(bands: bands))).encode(image)
            #expect(png.hasAlpha == !opaque)
            try expectDecodes(png, to: rgba, width: width, height: height)
        }
    }

    @Test("a single filter gives the same filtered rows as libpng's, and every setting the same pixels", arguments: [
        PNGWriter.Options(),
        PNGWriter.Options().filters(.noFilter).compressionLevel(0),
        PNGWriter.Options().filters(.sub).strategy(.standard),
        PNGWriter.Options().filters(.average).strategy(.filtered).compressionLevel(6),
        PNGWriter.Options().filters(.paeth).strategy(.huffmanOnly).compressionLevel(9),
        PNGWriter.Options().filters(.all).strategy(nil).compressionLevel(nil),
        PNGWriter.Options().filters([.sub, .up]),
        PNGWriter.Options().filters(nil).dropAlpha(true),
    ])
    func filtersMatchLibpng(options: PNGWriter.Options) throws {
        let width = 67, height = 41
        for opaque in [true, false] {
            let rgba = Self.pixels(width: width, height: height, seed: 11, opaque: opaque)
            let image = try StitchedImage(width: width, height: height, rgba: rgba)
            let ours = try PNGWriter(options: options.encoder(.parallel(bands: 3))).encode(image)
            let libpng = try PNGWriter(options: options.encoder(.libpng)).encode(image)
            #expect(ours.hasAlpha == libpng.hasAlpha)
            let expected = ours.hasAlpha ? rgba : rgba.enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element }
            try expectDecodes(ours, to: expected, width: width, height: height)
            // One filter (or libpng's own choice among several, which ours makes the same way) gives the same
            // bytes before compression.
            let rowBytes = 1 + width * (ours.hasAlpha ? 4 : 3)
            #expect(try LibpngDecoder.inflate(ours, expectedBytes: height * rowBytes)
                    == LibpngDecoder.inflate(libpng, expectedBytes: height * rowBytes))
        }
    }

    @Test("a frame in every pixel format, transparent pixels included, saves as its pixels",
          arguments: PixelFormat.allCases)
    func everyPixelFormat(format: PixelFormat) throws {
        let width = 45, height = 19, stride = 45 * 4 + 20
        let source = Self.pixels(width: stride / 4, height: height, seed: 3, opaque: false)
        let storage = FrameStorage(capacity: stride * height)
        source.withUnsafeBytes { storage.bytes.copyMemory(from: $0.baseAddress!, byteCount: stride * height) }
        let frame = VideoFrame(format: VideoFormat(pixelFormat: format, width: width, height: height), stride: stride,
                               timestamp: 0, sequence: 0, storage: storage)
        // What each format means, written out here rather than taken from the code under test.
        var expected: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let p = Array(source[(y * stride + x * 4)..<(y * stride + x * 4 + 4)])
                switch format {
                case .rgba: expected += p
                case .rgbx: expected += [p[0], p[1], p[2], 255]
                case .bgra: expected += [p[2], p[1], p[0], p[3]]
                case .bgrx: expected += [p[2], p[1], p[0], 255]
                }
            }
        }
        let png = try PNGWriter(options: PNGWriter.Options().encoder(.parallel(bands: 4))).encode(StitchedImage(frame: frame))
        #expect(png.hasAlpha == format.hasAlpha)
        try expectDecodes(png, to: expected, width: width, height: height)
    }

    @Test("the checks catch a wrong Adler-32 at the end of the stream")
    func brokenChecksumIsCaught() throws {
        let rgba = Self.pixels(width: 30, height: 20, seed: 5, opaque: true)
        let png = try PNGWriter().encode(StitchedImage(width: 30, height: 20, rgba: rgba))
        var bytes = png.bytes
        let last = try #require(png.imageDataRanges().last)
        bytes[last.upperBound - 1] ^= 1  // the Adler-32's last byte (the chunk's CRC is now wrong too)
        let broken = EncodedPNG(bytes: bytes, width: 30, height: 20, hasAlpha: false)
        #expect(throws: LibpngDecoder.Failure.self) { try LibpngDecoder.inflate(broken, expectedBytes: 20 * 91) }
        #expect(throws: LibpngDecoder.Failure.self) { try LibpngDecoder.decode(broken.bytes) }
    }

    @Test("IDAT chunks stay within their size limit and the zlib header is valid")
    func chunkLayout() throws {
        let rgba = Self.pixels(width: 300, height: 200, seed: 9, opaque: true)
        let image = try StitchedImage(width: 300, height: 200, rgba: rgba)
        var encoder = PNGBandEncoder(level: 1, strategy: PNGWriter.Strategy.runLength.zlibValue, filters: .up,
                                     hasAlpha: false, bands: 3)
        encoder.maximumChunkPayload = 5000
        let png = EncodedPNG(bytes: try encoder.encode(image), width: 300, height: 200, hasAlpha: false)
        let ranges = png.imageDataRanges()
        #expect(ranges.count > 6, "each band's output is cut into several chunks")
        #expect(ranges.dropLast().allSatisfy { $0.count <= 5000 } && ranges.last!.count <= 5004)
        let header = png.bytes[ranges[0].lowerBound], flags = png.bytes[ranges[0].lowerBound + 1]
        #expect(header == 0x78 && (Int(header) << 8 | Int(flags)) % 31 == 0)
        try expectDecodes(png, to: rgba, width: 300, height: 200)
    }

    @Test("streamed bytes are the file's bytes, in order, and a failing write stops the encoding with its error")
    func streaming() throws {
        let rgba = Self.pixels(width: 200, height: 90, seed: 4, opaque: false)
        let image = try StitchedImage(width: 200, height: 90, rgba: rgba)
        let encoder = PNGBandEncoder(level: 1, strategy: PNGWriter.Strategy.runLength.zlibValue, filters: .up,
                                     hasAlpha: true, bands: 5)
        var streamed: [UInt8] = [], imageData: [UInt8] = [], calls = 0
        let bytes = try encoder.encode(image, keep: true) { (piece, ranges) throws(ScreenshotError) in
            streamed += piece
            for range in ranges { imageData += piece[range] }
            calls += 1
        }
        #expect(streamed == bytes)
        #expect(calls == 7, "the signature and header, one piece per band, the end")
        #expect(imageData == EncodedPNG(bytes: bytes, width: 200, height: 90, hasAlpha: true).imageData(),
                "the pieces say where the zlib stream lies")
        #expect(bytes == (try encoder.encode(image)), "the same bytes as encoding in memory")
        let full = ScreenshotError.fileWriteFailed(path: "x.png", operation: "write", errno: ENOSPC)
        calls = 0
        #expect(throws: full) {
            _ = try encoder.encode(image, keep: false) { (_, _) throws(ScreenshotError) in
                calls += 1
                if calls == 3 { throw full }
            }
        }
        #expect(calls == 3, "nothing is written after the failure")
    }

    @Test("many PNG and PDF writes at once, from tasks that block pool threads while they write, all give their image",
          .timeLimit(.minutes(1)))
    func concurrentWrites() async throws {
        let rgba = Self.pixels(width: 240, height: 160, seed: 21, opaque: true)
        let image = try StitchedImage(width: 240, height: 160, rgba: rgba)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writes = 3 * PNGBandEncoder.processors() + 2
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<writes {
                group.addTask {
                    try PNGWriter(options: PNGWriter.Options().encoder(.parallel(bands: 6))).write(image, to: dir + "/\(i).png")
                    try PDFWriter().write(image, to: dir + "/\(i).pdf")
                }
            }
            try await group.waitForAll()
        }
        for i in 0..<writes {
            let decoded = try LibpngDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/\(i).png"))))
            #expect(Support.mismatch(decoded.rgba, rgba, width: 240) == nil, "file \(i)")
        }
    }

    @Test("a band count below 1 and an empty filter set are refused with the option's name")
    func badOptions() throws {
        let image = try StitchedImage(width: 4, height: 4, rgba: [UInt8](repeating: 9, count: 64))
        #expect(throws: ScreenshotError.invalidOption(name: "encoder", reason: "0 bands; give at least 1, or nil to choose by size")) {
            try PNGWriter(options: PNGWriter.Options().encoder(.parallel(bands: 0))).encode(image)
        }
        for encoder in [PNGWriter.Encoder.parallel(), .libpng] {
            #expect(throws: ScreenshotError.invalidOption(name: "filters", reason: "no filter given; choose at least one (noFilter stores rows as they are)")) {
                try PNGWriter(options: PNGWriter.Options().filters([]).encoder(encoder)).encode(image)
            }
        }
    }

    @Test("the default band count follows the size and the processors")
    func bandCount() {
        #expect(PNGBandEncoder.bandCount(rows: 20_000, lineBytes: 5761, processors: 2) == 28)
        #expect(PNGBandEncoder.bandCount(rows: 10, lineBytes: 100, processors: 1) == 2)
        #expect(PNGBandEncoder.bandCount(rows: 10, lineBytes: 100, processors: 6) == 6)
    }
}
