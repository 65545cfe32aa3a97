/// A negotiated raw audio format (interleaved samples).
public struct AudioFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum SampleFormat: String, Sendable, Hashable, Codable {
        /// 32-bit float, little endian, in [-1, 1].
        case f32
        /// 16-bit signed integer, little endian.
        case s16

        public var bytesPerSample: Int { self == .f32 ? 4 : 2 }
    }

    public var sampleFormat: SampleFormat
    public var sampleRate: Int
    public var channels: Int

    public init(sampleFormat: SampleFormat = .f32, sampleRate: Int = 48_000, channels: Int = 2) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channels = channels
    }

    public var bytesPerFrame: Int { sampleFormat.bytesPerSample * channels }
    public var description: String { "\(sampleFormat.rawValue) \(sampleRate) Hz \(channels) ch" }
}
