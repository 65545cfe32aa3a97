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
    /// The same rectangle with its edges (computed without overflow) limited to ±2^30, so `intersection`
    /// cannot overflow whatever a user typed; frames are far smaller, so clipping gives the same pixels.
    var clampedForArithmetic: PixelRect {
        let limit = 1 << 30
        func clamp(_ v: Int) -> Int { min(max(v, -limit), limit) }
        func end(_ start: Int, _ size: Int) -> Int {
            let (sum, overflow) = start.addingReportingOverflow(size)
            return overflow ? (size > 0 ? Int.max : Int.min) : sum
        }
        let x0 = clamp(x), y0 = clamp(y)
        return PixelRect(x: x0, y: y0, width: clamp(end(x, width)) - x0, height: clamp(end(y, height)) - y0)
    }

    /// The same rectangle moved by (dx, dy).
    func offsetBy(dx: Int, dy: Int) -> PixelRect {
        PixelRect(x: x + dx, y: y + dy, width: width, height: height)
    }
}
