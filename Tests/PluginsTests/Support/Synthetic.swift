import Foundation
import Plugins
import PortalTestSupport

/// Synthetic capture for driving sinks without PipeWire: TestPattern frames and a 440 Hz sine.
enum Synthetic {
    /// A frame showing `TestPattern` number `number`, captured at `timestamp`.
    static func frame(_ number: Int, format: VideoFormat, timestamp: UInt64, stride: Int? = nil) -> VideoFrame {
        let stride = stride ?? format.minimumStride
        let storage = FrameStorage(capacity: stride * format.height)
        TestPattern.render(into: storage.bytes, stride: stride, format: format, frameNumber: UInt32(number))
        return VideoFrame(format: format, stride: stride, timestamp: timestamp, sequence: UInt64(number), storage: storage)
    }

    /// A frame that lossless coding cannot shrink: the counter band of `TestPattern` (so `decodeCounter`
    /// reads its number), noise below it.
    static func noiseFrame(_ number: Int, format: VideoFormat, timestamp: UInt64) -> VideoFrame {
        let frame = Synthetic.frame(number, format: format, timestamp: timestamp)
        let band = TestPattern.counterBandHeight(height: format.height) * format.minimumStride
        var state = UInt64(number) &* 0x9E37_79B9_7F4A_7C15 | 1
        let words = frame.storage.bytes.advanced(by: band).assumingMemoryBound(to: UInt64.self)
        for i in 0..<(format.height * format.minimumStride - band) / 8 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            words[i] = state
        }
        return frame
    }

    /// `frames` sample frames of a 440 Hz sine at amplitude 0.5, starting at sample `offset`.
    static func sine(format: AudioFormat, offset: Int, frames: Int, timestamp: UInt64, sequence: UInt64) -> AudioBuffer {
        var bytes = [UInt8]()
        bytes.reserveCapacity(frames * format.bytesPerFrame)
        for i in 0..<frames {
            let t = Double(offset + i) / Double(format.sampleRate)
            let v = 0.5 * sin(2 * Double.pi * 440 * t)
            for _ in 0..<format.channels {
                switch format.sampleFormat {
                case .f32: withUnsafeBytes(of: Float(v).bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
                case .s16: withUnsafeBytes(of: Int16(v * 32767).littleEndian) { bytes.append(contentsOf: $0) }
                }
            }
        }
        return AudioBuffer(format: format, timestamp: timestamp, sequence: sequence, bytes: bytes)
    }

    /// A recording's samples in timestamp order: `seconds` of video at `fps` (frame i at start + i/fps,
    /// showing pattern i) and, with `audio`, 10 ms chunks of sine.
    static func samples(video: VideoFormat?, audio: AudioFormat?, seconds: Double, start: UInt64) -> [CaptureSample] {
        var out: [(UInt64, Int, CaptureSample)] = []
        if let v = video {
            let fps = v.frameRate.framesPerSecond
            let count = Int((seconds * fps).rounded())
            for i in 0..<count {
                let ts = start + UInt64((Double(i) / fps * 1e9).rounded())
                out.append((ts, 0, .video(frame(i, format: v, timestamp: ts))))
            }
        }
        if let a = audio {
            let chunk = a.sampleRate / 100
            let chunks = Int((seconds * 100).rounded())
            for c in 0..<chunks {
                let ts = start + UInt64(c) * 10_000_000
                out.append((ts, 1, .audio(sine(format: a, offset: c * chunk, frames: chunk, timestamp: ts, sequence: UInt64(c)))))
            }
        }
        return out.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    }

    /// Opens `sink`, feeds `samples`, tells it where the recording ended (given `end`), closes it.
    @discardableResult
    static func run(_ sink: any CaptureSink, video: VideoFormat?, audio: AudioFormat?, output: String?,
                    start: UInt64, samples: [CaptureSample], end: UInt64? = nil) throws(SinkError) -> SinkResult {
        try sink.open(SinkContext(video: video, audio: audio, output: output, startTime: start))
        for s in samples { try sink.consume(s) }
        if let end { try sink.ended(at: end) }
        return try sink.close()
    }

    /// A start time like a real one (CLOCK_MONOTONIC is never near zero on a running system).
    static let start: UInt64 = 5_000_000_000_000
}
