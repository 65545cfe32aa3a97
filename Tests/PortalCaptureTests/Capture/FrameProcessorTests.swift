import Testing
@testable import PortalCapture

@Suite("Frame processing")
struct FrameProcessorTests {
    static let base = Pixel(10, 20, 30, 90)
    static let white = CursorBitmap(width: 2, height: 2, rgba: [UInt8](repeating: 255, count: 16))

    @Test("cursor, then masks, then crop: a mask covers the cursor, coordinates are the stream's",
          arguments: PixelFormat.allCases)
    func appliesInOrder(format: PixelFormat) throws {
        let input = Frames.solid(format, width: 6, height: 4, Self.base,
                                 cursor: CursorState(x: 2, y: 1, bitmap: Self.white))
        let options = FrameProcessingOptions()
            .compositingCursor()
            .masking([PixelRect(x: 3, y: 0, width: 1, height: 4)], colour: PixelColour(red: 1, green: 2, blue: 3))
            .cropping(to: PixelRect(x: 1, y: 1, width: 4, height: 2))
        var processor = FrameProcessor(options: options)
        let output = try processor.process(input)
        #expect(output.format.width == 4 && output.format.height == 2)
        #expect(output.cursor == nil)
        let cursor = Pixel(255, 255, 255, format.hasAlpha ? 255 : Self.base.fourth)
        let mask = Pixel(1, 2, 3, 255)
        // Output (x, y) is stream (x+1, y+1): cursor covers stream x 2...3, y 1...2; the mask stream x 3.
        #expect(Frames.mismatches(output) { x, y in
            switch x + 1 {
            case 3: mask
            case 2: cursor
            default: Self.base
            }
        } == [])
        #expect(Frames.mismatches(input) { _, _ in Self.base } == [], "the input frame is never written")
    }

    @Test("processing reuses pooled storage instead of allocating per frame")
    func reusesPool() throws {
        let pool = FramePool(maximumCount: 4)
        var processor = FrameProcessor(options: FrameProcessingOptions().masking([PixelRect(x: 0, y: 0, width: 1, height: 1)]),
                                       pool: pool)
        for _ in 0 ..< 20 {
            let output = try processor.process(Frames.solid(.rgba, width: 4, height: 4, Self.base))
            #expect(Frames.read(output, x: 0, y: 0) == Pixel(0, 0, 0, 255))
        }
        #expect(pool.statistics.allocations == 1)
        #expect(pool.statistics.reuses == 19)
    }

    @Test("options that change nothing pass the frame through uncopied")
    func identityPassesThrough() throws {
        var processor = FrameProcessor(options: FrameProcessingOptions())
        let input = Frames.solid(.bgrx, width: 2, height: 2, Self.base)
        #expect(try processor.process(input).storage === input.storage)
        #expect(processor.pool.statistics.allocations == 0)
    }

    @Test("the output format is the clipped crop region's size")
    func outputFormat() throws {
        let processor = FrameProcessor(options: FrameProcessingOptions().cropping(to: PixelRect(x: 100, y: 50, width: 4000, height: 200)))
        let format = VideoFormat(pixelFormat: .bgra, width: 1920, height: 1080, frameRate: FrameRate(60))
        #expect(try processor.outputFormat(for: format)
            == VideoFormat(pixelFormat: .bgra, width: 1820, height: 200, frameRate: FrameRate(60)))
        #expect(throws: FrameTransformError.self) {
            try FrameProcessor(options: FrameProcessingOptions().cropping(to: PixelRect(x: 2000, y: 0, width: 5, height: 5)))
                .outputFormat(for: format)
        }
    }

    @Test("a crop region outside a resized frame is an error, not a crash")
    func cropOutsideAfterResize() {
        var processor = FrameProcessor(options: FrameProcessingOptions().cropping(to: PixelRect(x: 10, y: 10, width: 4, height: 4)))
        #expect(throws: FrameTransformError.self) {
            try processor.process(Frames.solid(.rgbx, width: 8, height: 8, Self.base))
        }
    }
}
