/// Fingerprints of the rows of one frame region: a 64-bit hash of each row's colour bytes (the padding
/// byte of BGRx/RGBx is ignored) and whether the row is blank (every pixel the same colour).
///
/// Hashing reads each byte once, 8 bytes at a time in four independent lanes, each lane folding a
/// 64x64->128-bit multiply; a 1920-pixel row costs about a microsecond. Equal hashes are taken as equal
/// rows (a false match has odds of about 2^-64 per comparison).
struct RowSignatures {
    private(set) var hashes: [UInt64] = []
    private(set) var blank: [Bool] = []

    var count: Int { hashes.count }

    /// Replaces the fingerprints with those of `area` in `frame`.
    mutating func compute(_ frame: VideoFrame, area: PixelRect) {
        let rows = area.height
        if hashes.count != rows {
            hashes = [UInt64](repeating: 0, count: rows)
            blank = [Bool](repeating: false, count: rows)
        }
        let mask: UInt64 = frame.format.pixelFormat.hasAlpha ? ~0 : 0x00FF_FFFF_00FF_FFFF
        let base = UnsafeRawPointer(frame.storage.bytes).advanced(by: area.y * frame.stride + area.x * 4)
        let stride = frame.stride, width = area.width
        hashes.withUnsafeMutableBufferPointer { h in
            blank.withUnsafeMutableBufferPointer { b in
                for y in 0..<rows {
                    let (hash, isBlank) = Self.hashRow(base.advanced(by: y * stride), pixels: width, mask: mask)
                    h[y] = hash
                    b[y] = isBlank
                }
            }
        }
    }

    @inline(__always)
    static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    /// The hash of `pixels` pixels at `row` (4 bytes each, `mask` clearing padding bytes) and whether they
    /// are all one colour.
    @inline(__always)
    static func hashRow(_ row: UnsafeRawPointer, pixels: Int, mask: UInt64) -> (hash: UInt64, blank: Bool) {
        let k0: UInt64 = 0xA076_1D64_78BD_642F, k1: UInt64 = 0xE703_7ED1_A0B4_28DB
        let k2: UInt64 = 0x8EBC_6AF0_9C88_C6E3, k3: UInt64 = 0x5899_65CC_7537_4CC3
        let firstPixel = UInt64(row.loadUnaligned(as: UInt32.self)) & (mask & 0xFFFF_FFFF)
        let pair = firstPixel | firstPixel << 32
        var h0 = k3, h1 = k2, h2 = k1, h3 = k0
        var diff: UInt64 = 0
        let words = pixels / 2
        var i = 0
        while i + 4 <= words {
            let w0 = row.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self) & mask
            let w1 = row.loadUnaligned(fromByteOffset: i * 8 + 8, as: UInt64.self) & mask
            let w2 = row.loadUnaligned(fromByteOffset: i * 8 + 16, as: UInt64.self) & mask
            let w3 = row.loadUnaligned(fromByteOffset: i * 8 + 24, as: UInt64.self) & mask
            diff |= (w0 ^ pair) | (w1 ^ pair) | (w2 ^ pair) | (w3 ^ pair)
            h0 = fold(h0 ^ w0, k0)
            h1 = fold(h1 ^ w1, k1)
            h2 = fold(h2 ^ w2, k2)
            h3 = fold(h3 ^ w3, k3)
            i += 4
        }
        while i < words {
            let w = row.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self) & mask
            diff |= w ^ pair
            h0 = fold(h0 ^ w, k1)
            i += 1
        }
        if pixels & 1 == 1 {
            let w = UInt64(row.loadUnaligned(fromByteOffset: (pixels - 1) * 4, as: UInt32.self)) & (mask & 0xFFFF_FFFF)
            diff |= w ^ firstPixel
            h1 = fold(h1 ^ w, k2)
        }
        let hash = fold(fold(h0 ^ k2, h1 ^ k3) ^ fold(h2 ^ k0, h3 ^ k1), k0 ^ UInt64(truncatingIfNeeded: pixels))
        return (hash, diff == 0)
    }
}
