import Foundation
import Testing
@testable import PortalCapture

/// The sinks open with the first frame; when the microphone's format is not known by then they are told
/// stereo F32, and a sink refuses audio whose format changes mid-stream (a mono microphone failed the
/// encoder). The pipeline hands each chunk on in the format the sinks were opened with.
@Suite("Audio chunks in the sinks' format")
struct AudioConformingTests {
    static func s16(_ values: [Int16], channels: Int) -> AudioBuffer {
        AudioBuffer(format: AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: channels), timestamp: 7,
                    sequence: 3, bytes: values.flatMap { v in withUnsafeBytes(of: v.littleEndian) { Array($0) } })
    }

    static func floats(_ buffer: AudioBuffer) -> [Float] {
        buffer.bytes.withUnsafeBytes { raw in (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) } }
    }

    @Test("mono S16 becomes the stereo F32 the sinks opened with, each sample on both channels, time and sequence kept")
    func monoToStereo() {
        let stereo = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2)
        let out = CapturePipeline.conformed(Self.s16([16384, -32768, 0], channels: 1), to: stereo)
        #expect(out.format == stereo && out.timestamp == 7 && out.sequence == 3)
        #expect(Self.floats(out) == [0.5, 0.5, -1, -1, 0, 0])
        #expect(out.frameCount == 3)
    }

    @Test("stereo F32 becomes mono S16 (the average), clamped")
    func stereoToMono() {
        let mono = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 1)
        let input = AudioBuffer(format: AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2), timestamp: 0,
                                sequence: 0, bytes: [Float(0.5), 0.25, 2, 2].flatMap { v in withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) } })
        let out = CapturePipeline.conformed(input, to: mono)
        let values = out.bytes.withUnsafeBytes { raw in (0..<raw.count / 2).map { raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self) } }
        #expect(out.format == mono && values == [12288, 32767])
    }

    @Test("a chunk already in the sinks' format, or at another rate, or with no sink format yet, is handed on as it is")
    func unchanged() {
        let chunk = Self.s16([1, 2], channels: 2)
        for target in [chunk.format, nil, AudioFormat(sampleFormat: .f32, sampleRate: 44_100, channels: 2)] {
            let out = CapturePipeline.conformed(chunk, to: target)
            #expect(out.format == chunk.format && out.bytes == chunk.bytes, "\(String(describing: target))")
        }
    }
}
