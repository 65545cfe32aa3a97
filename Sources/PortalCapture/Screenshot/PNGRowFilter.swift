/// Turns rows of a `StitchedImage` (RGBA bytes) into PNG scanlines (PNG spec, section 9, filter method 0):
/// a filter-type byte, then the row's RGB or RGBA bytes minus a prediction from the row above and the pixel
/// to the left. With more than one filter allowed, each row takes the one whose output has the smallest sum
/// of absolute (signed) byte values, libpng's heuristic.
///
/// Each band of `PNGBandEncoder` has its own: it keeps the row above, packed, and the candidate rows.
/// UP alone and NONE alone (the fast settings) read the RGBA rows directly, 8 bytes at a time.
struct PNGRowFilter: ~Copyable {
    let width: Int
    /// 3 (RGB: the alpha byte dropped) or 4 (RGBA).
    let channels: Int
    private let allowed: [UInt8]
    /// The filtered scanline's size: the type byte and `width * channels` bytes.
    let lineBytes: Int
    /// Packed rows (`channels` bytes a pixel), each after `channels` zero bytes (the left neighbour of the
    /// first pixel): the current row and the one above.
    private var current: UnsafeMutablePointer<UInt8>
    private var above: UnsafeMutablePointer<UInt8>
    /// The image row `above` was packed from.
    private var abovePackedFrom: UnsafeRawPointer?
    /// One filtered candidate per allowed filter, when there is a choice.
    private let candidates: UnsafeMutablePointer<UInt8>

    /// PNG's filter types (the byte before each scanline).
    static let none: UInt8 = 0, sub: UInt8 = 1, up: UInt8 = 2, average: UInt8 = 3, paeth: UInt8 = 4

    init(width: Int, channels: Int, filters: PNGWriter.Filters) {
        self.width = width
        self.channels = channels
        lineBytes = 1 + width * channels
        var allowed: [UInt8] = []
        let types: [(PNGWriter.Filters, UInt8)] = [(.noFilter, Self.none), (.sub, Self.sub), (.up, Self.up),
                                                    (.average, Self.average), (.paeth, Self.paeth)]
        for (filter, type) in types where filters.contains(filter) { allowed.append(type) }
        self.allowed = allowed
        let packed = channels + width * channels + 1  // 1: the byte past the end that `difference` may write
        current = .allocate(capacity: packed)
        above = .allocate(capacity: packed)
        current.initialize(repeating: 0, count: packed)
        above.initialize(repeating: 0, count: packed)
        candidates = .allocate(capacity: max(1, allowed.count > 1 ? allowed.count * width * channels : 1))
    }

    deinit {
        current.deallocate()
        above.deallocate()
        candidates.deallocate()
    }

    /// Writes the scanline of `row` (`width * 4` RGBA bytes) to `out`: `lineBytes` bytes, and `out` must have
    /// one writable byte more (the fast paths store 4 bytes a pixel). `previous` is the image row above `row`,
    /// nil for the image's first row.
    mutating func filter(_ row: UnsafeRawPointer, previous: UnsafeRawPointer?, into out: UnsafeMutablePointer<UInt8>) {
        if allowed == [Self.up] {
            out[0] = Self.up
            Self.difference(row, previous, width: width, channels: channels, into: out + 1)
            return
        }
        if allowed == [Self.none] {
            out[0] = Self.none
            Self.difference(row, nil, width: width, channels: channels, into: out + 1)
            return
        }
        if let previous {
            if previous != abovePackedFrom {
                Self.difference(previous, nil, width: width, channels: channels, into: above + channels)
            }
        } else {
            above.update(repeating: 0, count: channels + width * channels + 1)
        }
        Self.difference(row, nil, width: width, channels: channels, into: current + channels)
        let count = width * channels
        if allowed.count == 1 {
            out[0] = allowed[0]
            apply(allowed[0], into: out + 1)
        } else {
            var best = 0, bestSum = Int.max
            for (i, type) in allowed.enumerated() {
                let candidate = candidates + i * count
                apply(type, into: candidate)
                var sum = 0
                for j in 0..<count {
                    let v = Int(candidate[j])
                    sum &+= v < 128 ? v : 256 - v
                }
                if sum < bestSum { best = i; bestSum = sum }
            }
            out[0] = allowed[best]
            (out + 1).update(from: candidates + best * count, count: count)
        }
        swap(&current, &above)
        abovePackedFrom = row
    }

    /// Filters the packed `current` row against `above` with filter `type`.
    private func apply(_ type: UInt8, into out: UnsafeMutablePointer<UInt8>) {
        let count = width * channels, bpp = channels
        // `x` and `b` start `bpp` bytes after their zero prefix, so x[i - bpp] and b[i - bpp] are 0 for the first pixel.
        let x = current + bpp, b = above + bpp
        switch type {
        case Self.none:
            out.update(from: x, count: count)
        case Self.sub:
            for i in 0..<count { out[i] = x[i] &- x[i - bpp] }
        case Self.up:
            for i in 0..<count { out[i] = x[i] &- b[i] }
        case Self.average:
            for i in 0..<count { out[i] = x[i] &- UInt8((UInt16(x[i - bpp]) + UInt16(b[i])) >> 1) }
        default:
            for i in 0..<count {
                let a = Int(x[i - bpp]), up = Int(b[i]), c = Int(b[i - bpp])
                let pa = abs(up - c), pb = abs(a - c), pc = abs(a + up - 2 * c)
                let predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? up : c)
                out[i] = x[i] &- UInt8(truncatingIfNeeded: predictor)
            }
        }
    }

    /// `row - previous` byte by byte (`row` itself when `previous` is nil), written packed: 3 bytes a pixel
    /// (the alpha byte dropped) or 4. Works on two pixels at a time in a 64-bit word; each pixel is stored
    /// as 4 bytes, so with 3 channels one byte past the end is written too.
    @inline(__always)
    static func difference(_ row: UnsafeRawPointer, _ previous: UnsafeRawPointer?, width: Int, channels: Int,
                           into out: UnsafeMutablePointer<UInt8>) {
        let dst = UnsafeMutableRawPointer(out)
        let pairs = width / 2
        if let previous {
            if channels == 3 {
                for i in 0..<pairs {
                    let d = subtract(pair(row, i), pair(previous, i))
                    dst.storeBytes(of: UInt32(truncatingIfNeeded: d).littleEndian, toByteOffset: i * 6, as: UInt32.self)
                    dst.storeBytes(of: UInt32(truncatingIfNeeded: d >> 32).littleEndian, toByteOffset: i * 6 + 3,
                                   as: UInt32.self)
                }
            } else {
                for i in 0..<pairs {
                    let d = subtract(pair(row, i), pair(previous, i))
                    dst.storeBytes(of: d.littleEndian, toByteOffset: i * 8, as: UInt64.self)
                }
            }
            if width % 2 == 1 {
                let x = width - 1
                let d = subtract(UInt64(UInt32(littleEndian: row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self))),
                                 UInt64(UInt32(littleEndian: previous.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self))))
                dst.storeBytes(of: UInt32(truncatingIfNeeded: d).littleEndian, toByteOffset: x * channels, as: UInt32.self)
            }
        } else if channels == 4 {
            dst.copyMemory(from: row, byteCount: width * 4)
        } else {
            for x in 0..<width {
                dst.storeBytes(of: row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self), toByteOffset: x * 3,
                               as: UInt32.self)
            }
        }
    }

    /// Pixels `2i` and `2i + 1` of `row` as one word, the first pixel's red byte lowest.
    @inline(__always)
    private static func pair(_ row: UnsafeRawPointer, _ i: Int) -> UInt64 {
        UInt64(littleEndian: row.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))
    }

    /// `a - b` in each of the 8 bytes, modulo 256, without borrows between bytes: the low 7 bits are
    /// subtracted with the top bit of `a` set (so nothing borrows past it), then the top bit is corrected.
    @inline(__always)
    static func subtract(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let high: UInt64 = 0x8080_8080_8080_8080
        return ((a | high) &- (b & ~high)) ^ ((a ^ ~b) & high)
    }
}
