/// A chunk of captured audio: interleaved samples in `format`, owned.
public struct AudioBuffer: Sendable {
    public var format: AudioFormat
    /// Time of the first sample on `CLOCK_MONOTONIC`, in nanoseconds (the same clock as `VideoFrame`).
    public var timestamp: UInt64
    /// Increases by one per chunk on this stream.
    public var sequence: UInt64
    /// `frameCount * format.bytesPerFrame` bytes of interleaved samples.
    public var bytes: [UInt8]

    public init(format: AudioFormat, timestamp: UInt64, sequence: UInt64, bytes: [UInt8]) {
        self.format = format
        self.timestamp = timestamp
        self.sequence = sequence
        self.bytes = bytes
    }

    /// Number of sample frames (one sample per channel).
    public var frameCount: Int { format.bytesPerFrame == 0 ? 0 : bytes.count / format.bytesPerFrame }

    /// The same chunk, silent: every sample 0 (all-zero bytes are 0 in both F32 and S16).
    public var silenced: AudioBuffer {
        AudioBuffer(format: format, timestamp: timestamp, sequence: sequence, bytes: [UInt8](repeating: 0, count: bytes.count))
    }

    /// Duration in nanoseconds.
    public var duration: UInt64 {
        format.sampleRate == 0 ? 0 : UInt64(frameCount) * 1_000_000_000 / UInt64(format.sampleRate)
    }
}
