import Testing
@testable import PortalCapture

@Suite("Cursor compositing")
struct CursorCompositorTests {
    static let base = Pixel(10, 20, 30, 90)
    /// Opaque red, fully transparent, half-transparent green, opaque blue.
    static let bitmap = CursorBitmap(width: 2, height: 2, rgba: [
        255, 0, 0, 255, /**/ 1, 2, 3, 0,
        0, 255, 0, 128, /**/ 0, 0, 255, 255,
    ])

    /// The fourth byte after drawing a cursor pixel of alpha `a` over `base`: "over" in alpha formats,
    /// untouched padding otherwise.
    static func fourth(_ format: PixelFormat, opaque: Bool) -> UInt8 {
        guard format.hasAlpha else { return base.fourth }
        return opaque ? 255 : 173  // (255*128 + 90*127 + 127) / 255
    }

    @Test("the bitmap is blended at the position minus the hotspot, a half-transparent pixel by its alpha",
          arguments: PixelFormat.allCases)
    func blendsAtHotspot(format: PixelFormat) {
        let cursor = CursorState(x: 2, y: 2, hotspotX: 1, hotspotY: 1, bitmap: Self.bitmap)
        let frame = Frames.solid(format, width: 4, height: 4, Self.base, cursor: cursor)
        var compositor = CursorCompositor()
        compositor.composite(onto: frame)
        let mismatches = Frames.mismatches(frame) { x, y in
            switch (x, y) {
            case (1, 1): Pixel(255, 0, 0, Self.fourth(format, opaque: true))
            // (0*128 + 10*127 + 127)/255 = 5, (255*128 + 20*127 + 127)/255 = 138, (30*127 + 127)/255 = 15
            case (1, 2): Pixel(5, 138, 15, Self.fourth(format, opaque: false))
            case (2, 2): Pixel(0, 0, 255, Self.fourth(format, opaque: true))
            default: Self.base
            }
        }
        #expect(mismatches == [])
    }

    @Test("a cursor hanging over the top-left edge is clipped to the frame", arguments: PixelFormat.allCases)
    func clipsTopLeft(format: PixelFormat) {
        let cursor = CursorState(x: 0, y: 0, hotspotX: 1, hotspotY: 1, bitmap: Self.bitmap)
        let frame = Frames.solid(format, width: 3, height: 3, Self.base, cursor: cursor)
        var compositor = CursorCompositor()
        compositor.composite(onto: frame)
        #expect(Frames.mismatches(frame) { x, y in
            (x, y) == (0, 0) ? Pixel(0, 0, 255, Self.fourth(format, opaque: true)) : Self.base
        } == [])
    }

    @Test("a cursor hanging over the bottom-right edge is clipped to the frame", arguments: PixelFormat.allCases)
    func clipsBottomRight(format: PixelFormat) {
        let cursor = CursorState(x: 2, y: 2, bitmap: Self.bitmap)
        let frame = Frames.solid(format, width: 3, height: 3, Self.base, cursor: cursor)
        var compositor = CursorCompositor()
        compositor.composite(onto: frame)
        #expect(Frames.mismatches(frame) { x, y in
            (x, y) == (2, 2) ? Pixel(255, 0, 0, Self.fourth(format, opaque: true)) : Self.base
        } == [])
    }

    @Test("a cursor entirely outside the frame changes nothing", arguments: PixelFormat.allCases)
    func outsideChangesNothing(format: PixelFormat) {
        var compositor = CursorCompositor()
        for (x, y) in [(-2, 0), (0, -2), (3, 0), (0, 3), (-5, -5)] {
            let frame = Frames.solid(format, width: 3, height: 3, Self.base,
                                     cursor: CursorState(x: x, y: y, bitmap: Self.bitmap))
            compositor.composite(onto: frame)
            #expect(Frames.mismatches(frame) { _, _ in Self.base } == [], "cursor at \(x),\(y)")
        }
    }

    @Test("a cursor without a bitmap is drawn with the last bitmap seen", arguments: PixelFormat.allCases)
    func remembersBitmap(format: PixelFormat) {
        var compositor = CursorCompositor()
        compositor.composite(onto: Frames.solid(format, width: 3, height: 3, Self.base,
                                                cursor: CursorState(x: 0, y: 0, bitmap: Self.bitmap)))
        let moved = Frames.solid(format, width: 3, height: 3, Self.base, cursor: CursorState(x: 1, y: 0))
        compositor.composite(onto: moved)
        #expect(Frames.mismatches(moved) { x, y in
            switch (x, y) {
            case (1, 0): Pixel(255, 0, 0, Self.fourth(format, opaque: true))
            case (1, 1): Pixel(5, 138, 15, Self.fourth(format, opaque: false))
            case (2, 1): Pixel(0, 0, 255, Self.fourth(format, opaque: true))
            default: Self.base
            }
        } == [])
        #expect(compositor.lastBitmap == Self.bitmap)
    }

    @Test("no cursor, or a cursor with no bitmap ever seen, leaves the frame unchanged",
          arguments: PixelFormat.allCases)
    func noCursorNoChange(format: PixelFormat) {
        var compositor = CursorCompositor()
        let bare = Frames.solid(format, width: 3, height: 3, Self.base)
        compositor.composite(onto: bare)
        let noBitmap = Frames.solid(format, width: 3, height: 3, Self.base, cursor: CursorState(x: 1, y: 1))
        compositor.composite(onto: noBitmap)
        #expect(Frames.mismatches(bare) { _, _ in Self.base } == [])
        #expect(Frames.mismatches(noBitmap) { _, _ in Self.base } == [])
    }

    @Test("a bitmap shorter than its size says is skipped and counted, not read past its end")
    func malformedBitmapSkipped() {
        var compositor = CursorCompositor()
        let short = CursorBitmap(width: 4, height: 4, rgba: [255, 0, 0, 255])
        let frame = Frames.solid(.rgba, width: 3, height: 3, Self.base,
                                 cursor: CursorState(x: 0, y: 0, bitmap: short))
        compositor.composite(onto: frame)
        #expect(Frames.mismatches(frame) { _, _ in Self.base } == [])
        #expect(compositor.malformedBitmaps == 1)
        #expect(compositor.lastBitmap == nil)
    }
}
