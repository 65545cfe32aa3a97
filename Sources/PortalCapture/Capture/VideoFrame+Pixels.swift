/// Row access for the transforms. Transforms write only into frames they produced themselves (fresh from a
/// `FramePool`) or that the caller states it owns, before the frame is published to another thread.
extension VideoFrame {
    /// The bounds of the frame as a rectangle at the origin.
    public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: format.width, height: format.height) }

    /// The first byte of pixel (x, y), writable.
    func mutablePixel(x: Int, y: Int) -> UnsafeMutablePointer<UInt8> {
        storage.bytes.advanced(by: y * stride + x * 4).assumingMemoryBound(to: UInt8.self)
    }
}

extension PixelRect {
    /// The same rectangle moved by (dx, dy).
    func offsetBy(dx: Int, dy: Int) -> PixelRect {
        PixelRect(x: x + dx, y: y + dy, width: width, height: height)
    }
}
