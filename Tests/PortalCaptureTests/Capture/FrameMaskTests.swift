import Testing
@testable import PortalCapture

@Suite("Masks")
struct FrameMaskTests {
    static let base = Pixel(10, 20, 30, 90)

    @Test("masked rectangles get the colour, the fourth byte its alpha or opaque padding",
          arguments: PixelFormat.allCases)
    func fillsRectangles(format: PixelFormat) {
        let frame = Frames.solid(format, width: 4, height: 4, Self.base)
        let colour = PixelColour(red: 200, green: 100, blue: 50, alpha: 77)
        FrameMask([PixelRect(x: 1, y: 1, width: 2, height: 2)], colour: colour).apply(to: frame)
        let painted = Pixel(200, 100, 50, format.hasAlpha ? 77 : 255)
        #expect(Frames.mismatches(frame) { x, y in
            (1...2).contains(x) && (1...2).contains(y) ? painted : Self.base
        } == [])
    }

    @Test("rectangles are clipped at every edge and empty ones paint nothing", arguments: PixelFormat.allCases)
    func clipsAtEdges(format: PixelFormat) {
        let frame = Frames.solid(format, width: 4, height: 4, Self.base)
        FrameMask([
            PixelRect(x: -1, y: -1, width: 2, height: 2),   // only (0,0)
            PixelRect(x: 3, y: 2, width: 5, height: 5),     // (3,2) and (3,3)
            PixelRect(x: 1, y: 1, width: 0, height: 3),     // empty
            PixelRect(x: 2, y: 0, width: -2, height: 2),    // negative
            PixelRect(x: 10, y: 10, width: 2, height: 2),   // outside
        ]).apply(to: frame)
        let black = Pixel(0, 0, 0, 255)
        #expect(Frames.mismatches(frame) { x, y in
            switch (x, y) {
            case (0, 0), (3, 2), (3, 3): black
            default: Self.base
            }
        } == [])
    }

    @Test("the default colour is opaque black")
    func defaultBlack() {
        #expect(FrameMask([]).colour == PixelColour(red: 0, green: 0, blue: 0, alpha: 255))
    }

    @Test("rows beyond the width (stride padding) are not touched")
    func paddingUntouched() {
        let frame = Frames.make(.bgrx, width: 2, height: 2, padding: 4) { _, _ in Self.base }
        FrameMask([PixelRect(x: 0, y: 0, width: 9, height: 9)]).apply(to: frame)
        let padding = UnsafeRawBufferPointer(start: frame.storage.bytes.advanced(by: 8), count: 4)
        #expect(Array(padding) == [0xEE, 0xEE, 0xEE, 0xEE])
    }

    @Test("rectangles with extreme coordinates are clipped, not an arithmetic overflow")
    func extremeRectangles() {
        let frame = Frames.solid(.rgbx, width: 2, height: 2, Self.base)
        FrameMask([PixelRect(x: Int.max, y: 0, width: Int.max, height: 1),
                   PixelRect(x: -5, y: 1, width: Int.max, height: Int.max),
                   PixelRect(x: Int.min, y: 0, width: Int.max, height: 2)]).apply(to: frame)
        #expect(Frames.mismatches(frame) { _, y in y == 1 ? Pixel(0, 0, 0, 255) : Self.base } == [])
    }
}
