import Testing
@testable import PortalCapture

@Suite("Cropping")
struct FrameCropTests {
    /// Every pixel different: (x, y) is (10x+1, 10y+2, 7, 90+x).
    static func numbered(_ format: PixelFormat, width: Int = 4, height: Int = 3, padding: Int = 0,
                         cursor: CursorState? = nil, crop: PixelRect? = nil) -> VideoFrame {
        Frames.make(format, width: width, height: height, padding: padding, cursor: cursor, crop: crop) { x, y in
            Self.expected(x, y)
        }
    }

    static func expected(_ x: Int, _ y: Int) -> Pixel { Pixel(UInt8(10 * x + 1), UInt8(10 * y + 2), 7, UInt8(90 + x)) }

    @Test("a region becomes a frame of its size holding the same pixels", arguments: PixelFormat.allCases)
    func cropsRegion(format: PixelFormat) throws {
        let input = Self.numbered(format, padding: 8)
        let output = try FrameCrop(region: PixelRect(x: 1, y: 1, width: 2, height: 2)).apply(to: input, pool: FramePool())
        #expect(output.format == VideoFormat(pixelFormat: format, width: 2, height: 2, frameRate: input.format.frameRate))
        #expect(output.stride == 8)
        #expect(output.sequence == input.sequence && output.timestamp == input.timestamp)
        #expect(Frames.mismatches(output) { x, y in Self.expected(x + 1, y + 1) } == [])
    }

    @Test("a region reaching past the frame is clipped to it", arguments: PixelFormat.allCases)
    func clipsRegion(format: PixelFormat) throws {
        let crop = FrameCrop(region: PixelRect(x: 2, y: -1, width: 10, height: 3))
        let output = try crop.apply(to: Self.numbered(format), pool: FramePool())
        #expect(output.format.width == 2 && output.format.height == 2)
        #expect(Frames.mismatches(output) { x, y in Self.expected(x + 2, y) } == [])
    }

    @Test("the stream's own crop area is honoured when asked", arguments: PixelFormat.allCases)
    func honoursStreamCrop(format: PixelFormat) throws {
        let input = Self.numbered(format, crop: PixelRect(x: 0, y: 1, width: 3, height: 2))
        let output = try FrameCrop(region: PixelRect(x: 1, y: 0, width: 10, height: 10), honoursStreamCrop: true)
            .apply(to: input, pool: FramePool())
        #expect(output.format.width == 2 && output.format.height == 2)
        #expect(Frames.mismatches(output) { x, y in Self.expected(x + 1, y + 1) } == [])
        #expect(output.crop == nil)

        let streamOnly = try FrameCrop(region: nil, honoursStreamCrop: true).apply(to: input, pool: FramePool())
        #expect(streamOnly.format.width == 3 && streamOnly.format.height == 2)
        #expect(Frames.mismatches(streamOnly) { x, y in Self.expected(x, y + 1) } == [])
    }

    @Test("an unhonoured stream crop and the cursor move into the output's coordinates")
    func metadataMoves() throws {
        let input = Self.numbered(.bgra, cursor: CursorState(x: 3, y: 2, hotspotX: 1, hotspotY: 1),
                                  crop: PixelRect(x: 0, y: 0, width: 3, height: 3))
        let output = try FrameCrop(region: PixelRect(x: 1, y: 1, width: 3, height: 2)).apply(to: input, pool: FramePool())
        #expect(output.cursor == CursorState(x: 2, y: 1, hotspotX: 1, hotspotY: 1))
        #expect(output.crop == PixelRect(x: 0, y: 0, width: 2, height: 2))
    }

    @Test("a region outside the frame is an error naming both")
    func outsideIsError() {
        let input = Self.numbered(.rgbx)
        let region = PixelRect(x: 4, y: 0, width: 2, height: 2)
        #expect(throws: FrameTransformError.regionOutsideFrame(region: region, frame: input.bounds)) {
            try FrameCrop(region: region).apply(to: input, pool: FramePool())
        }
        #expect(throws: FrameTransformError.self) {
            try FrameCrop(region: PixelRect(x: 0, y: 0, width: -3, height: 2)).apply(to: input, pool: FramePool())
        }
        #expect(FrameTransformError.regionOutsideFrame(region: region, frame: input.bounds).description
            .contains("4,0,2,2"))
    }

    @Test("extreme regions and cursor positions are clipped or refused, not an arithmetic overflow")
    func extremeValues() throws {
        let input = Self.numbered(.bgra, cursor: CursorState(x: Int.min, y: Int.max, hotspotX: Int.max, hotspotY: Int.min))
        let endsLeftOfFrame = FrameCrop(region: PixelRect(x: Int.min, y: Int.min, width: Int.max, height: Int.max))
        #expect(throws: FrameTransformError.self) { try endsLeftOfFrame.apply(to: input, pool: FramePool()) }
        let right = try FrameCrop(region: PixelRect(x: 1, y: 0, width: Int.max, height: Int.max)).apply(to: input, pool: FramePool())
        #expect(right.format.width == 3 && right.format.height == 3)
        var compositor = CursorCompositor(lastBitmap: CursorBitmap(width: 1, height: 1, rgba: [0, 0, 0, 255]))
        compositor.composite(onto: input)
        #expect(Frames.mismatches(input) { x, y in Self.expected(x, y) } == [])
    }
}
