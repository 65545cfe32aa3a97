/// Converts rows of captured pixels (any `PixelFormat`) to RGBA (bytes R, G, B, A), the layout of
/// `StitchedImage`. Padding bytes of BGRx/RGBx become an opaque alpha of 255.
enum RGBAConversion {
    /// Converts `count` pixels from `source` to `destination` and returns whether all of them are opaque.
    @inline(__always)
    static func convert(_ source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, count: Int,
                        from format: PixelFormat) -> Bool {
        let dst = destination.assumingMemoryBound(to: UInt32.self)
        switch format {
        case .rgba:
            var alpha: UInt32 = 0xFF00_0000
            for i in 0..<count {
                let p = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
                alpha &= p
                dst[i] = p.littleEndian
            }
            return alpha == 0xFF00_0000
        case .rgbx:
            for i in 0..<count {
                let p = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
                dst[i] = (p | 0xFF00_0000).littleEndian
            }
            return true
        case .bgra:
            var alpha: UInt32 = 0xFF00_0000
            for i in 0..<count {
                let p = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
                alpha &= p
                dst[i] = ((p & 0xFF00_FF00) | (p & 0xFF) << 16 | (p >> 16) & 0xFF).littleEndian
            }
            return alpha == 0xFF00_0000
        case .bgrx:
            for i in 0..<count {
                let p = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
                dst[i] = (0xFF00_0000 | (p & 0x0000_FF00) | (p & 0xFF) << 16 | (p >> 16) & 0xFF).littleEndian
            }
            return true
        }
    }
}
