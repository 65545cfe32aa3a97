/// The pointer as PipeWire's `SPA_META_Cursor` describes it: where it is, its hotspot, and its bitmap when
/// the bitmap changed (nil means "same as before").
public struct CursorState: Sendable, Hashable {
    /// Position of the pointer in stream coordinates.
    public var x: Int
    public var y: Int
    /// The point within the bitmap that sits at (x, y).
    public var hotspotX: Int
    public var hotspotY: Int
    public var bitmap: CursorBitmap?

    public init(x: Int, y: Int, hotspotX: Int = 0, hotspotY: Int = 0, bitmap: CursorBitmap? = nil) {
        self.x = x
        self.y = y
        self.hotspotX = hotspotX
        self.hotspotY = hotspotY
        self.bitmap = bitmap
    }
}

/// A cursor image: tightly packed RGBA (bytes R, G, B, A; straight alpha), `width * height * 4` bytes. (PipeWire
/// carries it premultiplied; `VideoCaptureStream` divides it out.)
public struct CursorBitmap: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var rgba: [UInt8]

    public init(width: Int, height: Int, rgba: [UInt8]) {
        self.width = width
        self.height = height
        self.rgba = rgba
    }
}
