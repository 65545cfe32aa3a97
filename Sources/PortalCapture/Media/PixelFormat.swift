/// The packed 32-bit pixel layouts pwrecord captures and produces, named by their bytes in memory order
/// (PipeWire's `SPA_VIDEO_FORMAT_BGRx` is bytes B, G, R, x).
public enum PixelFormat: String, Sendable, CaseIterable, Codable {
    case bgrx = "BGRx"
    case rgbx = "RGBx"
    case bgra = "BGRA"
    case rgba = "RGBA"

    /// Every supported format packs one pixel in four bytes.
    public var bytesPerPixel: Int { 4 }

    /// Whether the fourth byte carries alpha (otherwise it is padding and must be ignored).
    public var hasAlpha: Bool { self == .bgra || self == .rgba }

    /// Byte offsets of red, green and blue within one pixel.
    public var redOffset: Int { self == .bgrx || self == .bgra ? 2 : 0 }
    public var greenOffset: Int { 1 }
    public var blueOffset: Int { self == .bgrx || self == .bgra ? 0 : 2 }
}
