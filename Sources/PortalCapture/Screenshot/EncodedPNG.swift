/// A PNG file in memory, as `PNGWriter.encode` made it: 8-bit RGB or RGBA, not interlaced.
public struct EncodedPNG: Sendable, Equatable {
    /// The whole file: signature, IHDR, IDAT chunks, IEND.
    public let bytes: [UInt8]
    public let width: Int
    public let height: Int
    /// RGBA (4 channels) rather than RGB (3).
    public let hasAlpha: Bool

    public init(bytes: [UInt8], width: Int, height: Int, hasAlpha: Bool) {
        self.bytes = bytes
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
    }

    /// The payloads of the IDAT chunks joined: one zlib stream of the filtered rows (PNG spec, section
    /// 10), which is what a PDF `FlateDecode` filter with `/Predictor 15` reads. Empty when the bytes are
    /// not a well-formed PNG.
    public func imageData() -> [UInt8] {
        imageDataRanges().reduce(into: []) { $0 += bytes[$1] }
    }

    /// Where the IDAT payloads lie in `bytes`, in order; empty when the bytes are not a well-formed PNG.
    func imageDataRanges() -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var at = 8
        guard bytes.count >= 8, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return [] }
        while at + 12 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard at + 12 + length <= bytes.count else { return [] }
            let type = bytes[(at + 4)..<(at + 8)]
            if type.elementsEqual("IDAT".utf8) { ranges.append((at + 8)..<(at + 8 + length)) }
            if type.elementsEqual("IEND".utf8) { return ranges }
            at += 12 + length
        }
        return []
    }
}
