import CLibYUV

/// Converts packed 32-bit frames to the layouts sinks write, with libyuv (BT.601, limited range for YUV).
///
/// libyuv names formats by a little-endian 32-bit word, so its "ARGB" is bytes B,G,R,A in memory (our BGRx
/// and BGRA) and its "ABGR" is bytes R,G,B,A (our RGBx and RGBA).
///
/// The target size may be the frame's size rounded down to even (4:2:0 needs even sizes: the last column
/// or row is cropped), or anything else after a resize (the frame is then scaled with `ARGBScale`).
/// Not thread-safe: one converter per worker (it keeps scratch buffers).
final class FrameConverter {
    enum Layout: Sendable {
        /// Planar Y, U, V; chroma halved both ways (rounded up).
        case i420
        /// Y plane, then interleaved U,V at half resolution.
        case nv12
        /// Planar Y, U, V at full resolution.
        case i444
        /// Packed B,G,R,x (FFmpeg's `bgr0`), lossless.
        case bgr0
        /// Packed B,G,R,A (FFmpeg's `bgra`), lossless with alpha.
        case bgra
    }

    /// Where to write one plane.
    struct Plane {
        var base: UnsafeMutablePointer<UInt8>
        var stride: Int
    }

    let layout: Layout
    let width: Int
    let height: Int
    private var scaled: UnsafeMutableRawPointer?
    private var scaledSize = 0
    private var swapped: UnsafeMutableRawPointer?
    private var swappedSize = 0

    init(layout: Layout, width: Int, height: Int) {
        self.layout = layout
        self.width = width
        self.height = height
    }

    deinit {
        scaled?.deallocate()
        swapped?.deallocate()
    }

    /// The plane sizes (width, height) of the target layout.
    static func planeSizes(_ layout: Layout, width w: Int, height h: Int) -> [(width: Int, height: Int)] {
        switch layout {
        case .i420: [(w, h), ((w + 1) / 2, (h + 1) / 2), ((w + 1) / 2, (h + 1) / 2)]
        case .nv12: [(w, h), (((w + 1) / 2) * 2, (h + 1) / 2)]
        case .i444: [(w, h), (w, h), (w, h)]
        case .bgr0, .bgra: [(w * 4, h)]
        }
    }

    /// Converts `frame` into `planes` (as many as the layout has, each at least `planeSizes` big).
    /// Returns false when libyuv refused the sizes.
    func convert(_ frame: VideoFrame, into planes: [Plane]) -> Bool {
        var src = UnsafePointer(frame.storage.bytes.assumingMemoryBound(to: UInt8.self))
        var srcStride = frame.stride
        let fw = frame.format.width, fh = frame.format.height
        // Same size, or one more (cropped to even): read directly. Otherwise scale into scratch.
        let direct = (fw == width || fw == width + 1) && (fh == height || fh == height + 1)
        if !direct {
            let bytes = width * 4 * height
            let dst = scratch(&scaled, &scaledSize, bytes)
            let r = ARGBScale(src, Int32(srcStride), Int32(fw), Int32(fh),
                              dst.assumingMemoryBound(to: UInt8.self), Int32(width * 4),
                              Int32(width), Int32(height), kFilterBilinear)
            guard r == 0 else { return false }
            src = UnsafePointer(dst.assumingMemoryBound(to: UInt8.self))
            srcStride = width * 4
        }
        let rgbOrder = frame.format.pixelFormat == .rgbx || frame.format.pixelFormat == .rgba
        let w = Int32(width), h = Int32(height), s = Int32(srcStride)
        switch layout {
        case .i420:
            let p = planes
            return (rgbOrder
                ? ABGRToI420(src, s, p[0].base, Int32(p[0].stride), p[1].base, Int32(p[1].stride),
                             p[2].base, Int32(p[2].stride), w, h)
                : ARGBToI420(src, s, p[0].base, Int32(p[0].stride), p[1].base, Int32(p[1].stride),
                             p[2].base, Int32(p[2].stride), w, h)) == 0
        case .nv12:
            let p = planes
            return (rgbOrder
                ? ABGRToNV12(src, s, p[0].base, Int32(p[0].stride), p[1].base, Int32(p[1].stride), w, h)
                : ARGBToNV12(src, s, p[0].base, Int32(p[0].stride), p[1].base, Int32(p[1].stride), w, h)) == 0
        case .i444:
            let p = planes
            var argb = src, argbStride = s
            if rgbOrder {
                // libyuv has no ABGRToI444: swap to B,G,R,A first.
                let dst = scratch(&swapped, &swappedSize, width * 4 * height).assumingMemoryBound(to: UInt8.self)
                guard ABGRToARGB(src, s, dst, w * 4, w, h) == 0 else { return false }
                argb = UnsafePointer(dst)
                argbStride = w * 4
            }
            return ARGBToI444(argb, argbStride, p[0].base, Int32(p[0].stride), p[1].base, Int32(p[1].stride),
                              p[2].base, Int32(p[2].stride), w, h) == 0
        case .bgr0, .bgra:
            let p = planes[0]
            return (rgbOrder ? ABGRToARGB(src, s, p.base, Int32(p.stride), w, h)
                             : ARGBCopy(src, s, p.base, Int32(p.stride), w, h)) == 0
        }
    }

    private func scratch(_ buffer: inout UnsafeMutableRawPointer?, _ size: inout Int, _ bytes: Int)
        -> UnsafeMutableRawPointer {
        if let b = buffer, size >= bytes { return b }
        buffer?.deallocate()
        let b = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        buffer = b
        size = bytes
        return b
    }
}
