/// A negotiated raw video format: what a stream carries and what a sink is opened with.
public struct VideoFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    public var pixelFormat: PixelFormat
    public var width: Int
    public var height: Int
    /// The nominal frame rate as a fraction (`numerator / denominator` frames per second); 0/1 means variable.
    public var frameRate: FrameRate

    public init(pixelFormat: PixelFormat, width: Int, height: Int, frameRate: FrameRate = FrameRate(30, 1)) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }

    /// The smallest stride that holds one row.
    public var minimumStride: Int { width * pixelFormat.bytesPerPixel }

    public var description: String { "\(pixelFormat.rawValue) \(width)x\(height)@\(frameRate)" }
}

/// A frame rate as a fraction, as PipeWire and FFmpeg express it.
public struct FrameRate: Sendable, Hashable, Codable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    public init(_ numerator: Int, _ denominator: Int = 1) {
        self.numerator = numerator
        self.denominator = denominator
    }

    public var framesPerSecond: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }
    /// Whether both terms are positive and fit FFmpeg's `AVRational` (two `Int32`s): an encoder's time base
    /// and stream rate are made from them, and a term past `Int32.max` would not convert.
    public var fitsFFmpeg: Bool {
        (1...Int(Int32.max)).contains(numerator) && (1...Int(Int32.max)).contains(denominator)
    }
    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }
}
