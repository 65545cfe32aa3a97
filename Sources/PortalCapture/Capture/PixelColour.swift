/// A colour to paint with (mask fills), given as red, green, blue and alpha whatever the frame's layout.
public struct PixelColour: Sendable, Hashable, Codable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    /// Written to the fourth byte of BGRA/RGBA frames; BGRx/RGBx padding is always written as 255.
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let black = PixelColour(red: 0, green: 0, blue: 0)
    public static let white = PixelColour(red: 255, green: 255, blue: 255)

    /// The four bytes of this colour in `format`'s memory order.
    public func bytes(in format: PixelFormat) -> (UInt8, UInt8, UInt8, UInt8) {
        var pixel: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, format.hasAlpha ? alpha : 255)
        withUnsafeMutableBytes(of: &pixel) { p in
            p[format.redOffset] = red
            p[format.greenOffset] = green
            p[format.blueOffset] = blue
        }
        return pixel
    }

    public var description: String { "rgba(\(red),\(green),\(blue),\(alpha))" }
}
