/// The known pointer the test backend attaches as `SPA_META_Cursor` (cursor mode "metadata") and the tests
/// check: a 24x24 arrow with a black outline and white fill on transparency, hotspot at its tip (2, 1), with
/// a half-transparent white fringe right of its diagonal edge (an antialiased edge: it travels premultiplied
/// through PipeWire, as the compositors' cursors do), moving along a known path.
public enum TestCursor {
    public static let width = 24
    public static let height = 24
    public static let hotspotX = 2
    public static let hotspotY = 1

    /// The arrow as tightly packed straight RGBA: inside the triangle x <= y (from the hotspot) it is white,
    /// its edge one pixel black, the pixel right of the diagonal white at alpha 128, elsewhere fully transparent.
    public static let bitmap: CursorBitmap = {
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let dx = x - hotspotX, dy = y - hotspotY
                if dy >= 0, dx == dy + 1, dy < height - 3 {
                    let o = (y * width + x) * 4
                    rgba[o] = 255; rgba[o + 1] = 255; rgba[o + 2] = 255; rgba[o + 3] = 128
                    continue
                }
                guard dx >= 0, dy >= 0, dx <= dy, dy < height - 2 else { continue }
                let edge = dx == 0 || dx == dy || dy == height - 3
                let o = (y * width + x) * 4
                let v: UInt8 = edge ? 0 : 255
                rgba[o] = v; rgba[o + 1] = v; rgba[o + 2] = v; rgba[o + 3] = 255
            }
        }
        return CursorBitmap(width: width, height: height, rgba: rgba)
    }()

    /// Where the pointer is on frame `frameNumber` of a `width x height` stream: it moves 7 pixels right and
    /// 3 down per frame, wrapping within the stream.
    public static func position(frameNumber: UInt32, width: Int, height: Int) -> (x: Int, y: Int) {
        let n = Int(frameNumber)
        return ((n * 7) % max(width, 1), (n * 3) % max(height, 1))
    }

    /// The full cursor state for frame `frameNumber`.
    public static func state(frameNumber: UInt32, width: Int, height: Int) -> CursorState {
        let p = position(frameNumber: frameNumber, width: width, height: height)
        return CursorState(x: p.x, y: p.y, hotspotX: hotspotX, hotspotY: hotspotY, bitmap: bitmap)
    }

    /// A `CursorProvider` for `VideoProducerStream`.
    public static let provider: CursorProvider = { frameNumber, width, height in
        state(frameNumber: frameNumber, width: width, height: height)
    }
}
