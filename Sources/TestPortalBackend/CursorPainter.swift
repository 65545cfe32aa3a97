import PortalTestSupport

/// Draws `TestCursor` into a frame's pixels (cursor mode "embedded"): the arrow's hotspot at
/// `TestCursor.position` for that frame, blended by its alpha, clipped at the frame's edges.
enum CursorPainter {
    static func draw(into pixels: UnsafeMutableRawPointer, stride: Int, format: VideoFormat, frameNumber: UInt32) {
        let cursor = TestCursor.state(frameNumber: frameNumber, width: format.width, height: format.height)
        guard let bitmap = cursor.bitmap else { return }
        let left = cursor.x - cursor.hotspotX, top = cursor.y - cursor.hotspotY
        let pf = format.pixelFormat
        let alphaOffset = 6 - pf.redOffset - pf.greenOffset - pf.blueOffset
        let channels = [(pf.redOffset, 0), (pf.greenOffset, 1), (pf.blueOffset, 2)]
        bitmap.rgba.withUnsafeBufferPointer { rgba in
            for by in 0..<bitmap.height {
                let y = top + by
                guard y >= 0, y < format.height else { continue }
                let row = pixels.advanced(by: y * stride).assumingMemoryBound(to: UInt8.self)
                for bx in 0..<bitmap.width {
                    let x = left + bx
                    guard x >= 0, x < format.width else { continue }
                    let s = (by * bitmap.width + bx) * 4
                    let a = Int(rgba[s + 3])
                    guard a > 0 else { continue }
                    let p = row + x * 4
                    for (offset, channel) in channels {
                        p[offset] = UInt8((Int(rgba[s + channel]) * a + Int(p[offset]) * (255 - a)) / 255)
                    }
                    p[alphaOffset] = 255
                }
            }
        }
    }
}
