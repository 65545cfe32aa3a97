import CPNG

/// PNG's chunk framing (PNG spec, section 5.3): a 4-byte big-endian length, a 4-byte type, the data, and
/// a CRC-32 (zlib's `crc32`) of the type and data.
enum PNGChunk {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The CRC-32 of `type` and then `data`.
    static func crc(type: String, _ data: UnsafeBufferPointer<UInt8>) -> UInt32 {
        crc(continuing: crc(continuing: 0, Array(type.utf8)), data)
    }

    /// `crc` continued over `data` (zlib's `crc32`, fed at most 1 GiB at a time).
    static func crc(continuing crc: UInt32, _ data: some Collection<UInt8>) -> UInt32 {
        let result = data.withContiguousStorageIfAvailable { buffer in
            var value = UInt(crc)
            var offset = 0
            while offset < buffer.count {
                let piece = min(buffer.count - offset, 1 << 30)
                value = crc32(value, buffer.baseAddress! + offset, UInt32(piece))
                offset += piece
            }
            return UInt32(truncatingIfNeeded: value)
        }
        return result ?? Self.crc(continuing: crc, Array(data))
    }

    /// A whole chunk with a small payload (IHDR, IEND).
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let crc = data.withUnsafeBufferPointer { Self.crc(type: type, $0) }
        return bigEndian(UInt32(data.count)) + Array(type.utf8) + data + bigEndian(crc)
    }

    /// The IHDR chunk of an 8-bit, non-interlaced image, RGBA (colour type 6) or RGB (2).
    static func header(width: Int, height: Int, hasAlpha: Bool) -> [UInt8] {
        chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, hasAlpha ? 6 : 2, 0, 0, 0])
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
         UInt8(truncatingIfNeeded: value)]
    }
}
