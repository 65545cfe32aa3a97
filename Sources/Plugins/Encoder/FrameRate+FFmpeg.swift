import PortalCapture

extension FrameRate {
    /// Whether FFmpeg's `AVRational` (two `Int32`s) holds this rate, both terms positive: the encoder's time
    /// base and stream rate are made from it, and a term past `Int32.max` would not convert.
    var fitsFFmpeg: Bool {
        (1...Int(Int32.max)).contains(numerator) && (1...Int(Int32.max)).contains(denominator)
    }
}
