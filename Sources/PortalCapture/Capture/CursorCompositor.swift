/// Draws the pointer from the stream's cursor metadata (`SPA_META_Cursor`, with its `spa_meta_bitmap`) into
/// frames, for streams negotiated with cursor mode "metadata".
///
/// Pixel rule: the bitmap's top-left lands at `(cursor.x - cursor.hotspotX, cursor.y - cursor.hotspotY)`,
/// clipped to the frame. Each covered frame pixel becomes, per colour channel with the cursor's straight
/// alpha `a` (0...255) and integer arithmetic rounded to nearest:
///
///     out = (cursor * a + frame * (255 - a) + 127) / 255
///
/// so `a == 255` copies the cursor colour and `a == 0` leaves the pixel unchanged. In BGRA/RGBA frames the
/// alpha byte becomes `(255 * a + frameAlpha * (255 - a) + 127) / 255` (Porter-Duff "over"); in BGRx/RGBx
/// frames the padding byte is left as it was. The frame's colour is treated as opaque, as screen content is.
///
/// The compositor remembers the last bitmap it saw: PipeWire sends a bitmap only when it changed, so a
/// cursor with `bitmap == nil` is drawn with the remembered one. A frame without cursor metadata, or with
/// nothing remembered, is left unchanged. A malformed bitmap (see `CursorBitmap.isWellFormed`) is not drawn
/// or remembered, and is counted in `malformedBitmaps`.
public struct CursorCompositor: Sendable {
    /// The bitmap drawn when a frame's cursor carries none.
    public private(set) var lastBitmap: CursorBitmap?
    /// Malformed bitmaps seen (and skipped) so far.
    public private(set) var malformedBitmaps = 0

    public init(lastBitmap: CursorBitmap? = nil) {
        self.lastBitmap = lastBitmap
    }

    /// Draws `frame.cursor` into `frame`'s own storage, in place. Call it only on a frame you own (not yet
    /// handed to another thread or sink).
    public mutating func composite(onto frame: VideoFrame) {
        composite(frame.cursor, onto: frame, originX: 0, originY: 0)
    }

    /// Draws `cursor` (in stream coordinates) into `frame`, whose top-left pixel is the stream's
    /// `(originX, originY)`: a frame cropped from the stream is drawn on as if it were still in place.
    public mutating func composite(_ cursor: CursorState?, onto frame: VideoFrame, originX: Int, originY: Int) {
        guard let cursor else { return }
        if let bitmap = cursor.bitmap {
            guard bitmap.isWellFormed else {
                malformedBitmaps += 1
                return
            }
            lastBitmap = bitmap
        }
        guard let bitmap = lastBitmap else { return }
        let position = PixelRect(x: cursor.x, y: cursor.y, width: 0, height: 0).clampedForArithmetic
        let hotspot = PixelRect(x: cursor.hotspotX, y: cursor.hotspotY, width: 0, height: 0).clampedForArithmetic
        let placed = PixelRect(x: position.x - hotspot.x - originX, y: position.y - hotspot.y - originY,
                               width: bitmap.width, height: bitmap.height)
        guard let visible = placed.intersection(frame.bounds) else { return }
        let format = frame.format.pixelFormat
        let r = format.redOffset, g = format.greenOffset, b = format.blueOffset
        bitmap.rgba.withUnsafeBufferPointer { source in
            for y in visible.y ..< visible.y + visible.height {
                var s = ((y - placed.y) * bitmap.width + (visible.x - placed.x)) * 4
                var d = frame.mutablePixel(x: visible.x, y: y)
                for _ in 0 ..< visible.width {
                    let a = Int(source[s + 3])
                    if a == 255 {
                        d[r] = source[s]; d[g] = source[s + 1]; d[b] = source[s + 2]
                        if format.hasAlpha { d[3] = 255 }
                    } else if a != 0 {
                        let keep = 255 - a
                        d[r] = Self.blend(Int(source[s]), Int(d[r]), a, keep)
                        d[g] = Self.blend(Int(source[s + 1]), Int(d[g]), a, keep)
                        d[b] = Self.blend(Int(source[s + 2]), Int(d[b]), a, keep)
                        if format.hasAlpha { d[3] = Self.blend(255, Int(d[3]), a, keep) }
                    }
                    s += 4
                    d += 4
                }
            }
        }
    }

    @inline(__always)
    private static func blend(_ top: Int, _ bottom: Int, _ a: Int, _ keep: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: (top * a + bottom * keep + 127) / 255)
    }
}

extension CursorBitmap {
    /// Whether each side is in 0...4096 (PipeWire cursors are far smaller) and `rgba` holds at least
    /// `width * height * 4` bytes.
    public var isWellFormed: Bool {
        width >= 0 && height >= 0 && width <= 4096 && height <= 4096 && rgba.count >= width * height * 4
    }
}
