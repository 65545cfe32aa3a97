/// Converting one 8-bit colour channel between straight alpha (`CursorBitmap`'s) and premultiplied alpha
/// (PipeWire cursor bitmaps as mutter and KWin write them: each channel already multiplied by alpha / 255).
/// Both round to nearest; a channel over its alpha (not valid premultiplied data) becomes 255.
enum PremultipliedAlpha {
    /// `channel * alpha / 255`.
    @inline(__always)
    static func premultiplied(_ channel: UInt8, alpha: UInt8) -> UInt8 {
        UInt8((Int(channel) * Int(alpha) + 127) / 255)
    }

    /// `channel * 255 / alpha`, at most 255; 0 where alpha is 0 (a fully transparent pixel has no colour).
    @inline(__always)
    static func straight(_ channel: UInt8, alpha: UInt8) -> UInt8 {
        guard alpha != 0 else { return 0 }
        guard alpha != 255 else { return channel }
        return UInt8(min(255, (Int(channel) * 255 + Int(alpha) / 2) / Int(alpha)))
    }
}
