@_exported import PortalCapture

/// The known picture the test backend streams and the tests check, built to survive lossy encoding:
/// large flat areas of saturated colour and a frame counter in big black/white cells.
///
/// Layout of a `width x height` frame:
/// - the counter band, rows `0 ..< counterBandHeight`: `counterBits` cells across the width, cell `i`
///   (from the left) white when bit `counterBits-1-i` of the frame number is set, black otherwise;
/// - below it, four quadrants of the remaining area: top-left red, top-right green, bottom-left blue,
///   bottom-right yellow.
public enum TestPattern {
    public static let counterBits = 16
    public static let red: (UInt8, UInt8, UInt8) = (255, 0, 0)
    public static let green: (UInt8, UInt8, UInt8) = (0, 255, 0)
    public static let blue: (UInt8, UInt8, UInt8) = (0, 0, 255)
    public static let yellow: (UInt8, UInt8, UInt8) = (255, 255, 0)

    public static func counterBandHeight(height: Int) -> Int { max(8, height / 8) }

    /// The colour the pattern has at (x, y) for frame `frameNumber`.
    public static func expectedRGB(x: Int, y: Int, width: Int, height: Int,
                                   frameNumber: UInt32) -> (r: UInt8, g: UInt8, b: UInt8) {
        let band = counterBandHeight(height: height)
        if y < band {
            let cell = min(counterBits - 1, x * counterBits / max(width, 1))
            let bit = (frameNumber >> UInt32(counterBits - 1 - cell)) & 1
            return bit == 1 ? (255, 255, 255) : (0, 0, 0)
        }
        let right = x >= width / 2
        let bottom = (y - band) >= (height - band) / 2
        switch (bottom, right) {
        case (false, false): return red
        case (false, true): return green
        case (true, false): return blue
        case (true, true): return yellow
        }
    }

    /// Paints frame `frameNumber` into `pixels` (`stride * height` bytes) in `format`'s byte order. The
    /// padding or alpha byte is set to 255.
    public static func render(into pixels: UnsafeMutableRawPointer, stride: Int, format: VideoFormat,
                              frameNumber: UInt32) {
        let w = format.width, h = format.height, pf = format.pixelFormat
        let band = counterBandHeight(height: h)
        func pack(_ c: (UInt8, UInt8, UInt8)) -> UInt32 {
            var bytes: [UInt8] = [0, 0, 0, 255]
            bytes[pf.redOffset] = c.0; bytes[pf.greenOffset] = c.1; bytes[pf.blueOffset] = c.2
            return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        }
        // Build the two distinct row kinds once (band row, upper-area row, lower-area row), then copy rows.
        var bandRow = [UInt32](repeating: 0, count: w)
        for x in 0..<w { let c = expectedRGB(x: x, y: 0, width: w, height: h, frameNumber: frameNumber); bandRow[x] = pack(c) }
        var upperRow = [UInt32](repeating: 0, count: w)
        var lowerRow = [UInt32](repeating: 0, count: w)
        let (r, g, b, yl) = (pack(red), pack(green), pack(blue), pack(yellow))
        for x in 0..<w { upperRow[x] = x >= w / 2 ? g : r; lowerRow[x] = x >= w / 2 ? yl : b }
        let splitY = band + (h - band) / 2
        for y in 0..<h {
            let row = y < band ? bandRow : (y < splitY ? upperRow : lowerRow)
            row.withUnsafeBytes { src in
                pixels.advanced(by: y * stride).copyMemory(from: src.baseAddress!, byteCount: w * 4)
            }
        }
    }

    /// Reads the frame number back from a frame (tolerant to encoding: each cell is sampled at its centre
    /// and counted as white when its luma is above 128).
    public static func decodeCounter(_ frame: VideoFrame) -> UInt32 {
        let w = frame.format.width, h = frame.format.height
        let y = counterBandHeight(height: h) / 2
        var value: UInt32 = 0
        for cell in 0..<counterBits {
            let x = (cell * w + w / 2) / counterBits
            let c = frame.rgb(x: min(x, w - 1), y: y)
            let luma = (Int(c.r) * 299 + Int(c.g) * 587 + Int(c.b) * 114) / 1000
            value = value << 1 | (luma > 128 ? 1 : 0)
        }
        return value
    }

    /// Whether the four colour areas of `frame` match the pattern within `tolerance` per channel, sampled
    /// at each quadrant's centre. Returns a description of the first mismatch, or nil when all match.
    public static func checkColourAreas(_ frame: VideoFrame, tolerance: Int = 40) -> String? {
        let w = frame.format.width, h = frame.format.height
        let band = counterBandHeight(height: h)
        let lowerTop = band + (h - band) / 2
        let points = [(w / 4, band + (lowerTop - band) / 2), (3 * w / 4, band + (lowerTop - band) / 2),
                      (w / 4, lowerTop + (h - lowerTop) / 2), (3 * w / 4, lowerTop + (h - lowerTop) / 2)]
        for (x, y) in points {
            let want = expectedRGB(x: x, y: y, width: w, height: h, frameNumber: 0)
            let got = frame.rgb(x: x, y: y)
            if abs(Int(got.r) - Int(want.r)) > tolerance || abs(Int(got.g) - Int(want.g)) > tolerance
                || abs(Int(got.b) - Int(want.b)) > tolerance {
                return "pixel (\(x),\(y)) is \(got), expected \(want)"
            }
        }
        return nil
    }
}
