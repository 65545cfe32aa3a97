import Testing
@testable import PortalCapture

@Suite("Audio kept from before the first frame")
struct AudioPrerollTests {
    /// A chunk of `frames` stereo F32 samples at 48 kHz starting at `ms` milliseconds, each sample frame's
    /// first byte holding its index in the chunk (mod 256).
    static func chunk(at ms: UInt64, frames: Int = 480, sequence: UInt64 = 0) -> AudioBuffer {
        let format = AudioFormat()
        var bytes = [UInt8](repeating: 0, count: frames * format.bytesPerFrame)
        for i in 0..<frames { bytes[i * format.bytesPerFrame] = UInt8(truncatingIfNeeded: i) }
        return AudioBuffer(format: format, timestamp: ms * 1_000_000, sequence: sequence, bytes: bytes)
    }

    @Test("what was captured from the start on comes back in order, the chunk straddling the start cut at its sample")
    func takesFromTheStartOn() {
        var preroll = AudioPreroll(window: 500_000_000)
        for (i, ms) in [1000, 1010, 1020, 1030].enumerated() { preroll.add(Self.chunk(at: UInt64(ms), sequence: UInt64(i))) }
        let taken = preroll.take(from: 1_015_000_000)
        #expect(taken.map(\.sequence) == [1, 2, 3])
        #expect(taken.first?.timestamp == 1_015_000_000)
        #expect(taken.first?.frameCount == 240)
        #expect(taken.first?.bytes.first == 240, "the first sample kept is the 241st of its chunk")
        #expect(preroll.isEmpty)
    }

    @Test("chunks that ended more than the window before the newest began are forgotten")
    func forgetsBeyondTheWindow() {
        var preroll = AudioPreroll(window: 100_000_000)
        preroll.add(Self.chunk(at: 1000, sequence: 0))   // ends at 1010 ms
        preroll.add(Self.chunk(at: 1050, sequence: 1))
        preroll.add(Self.chunk(at: 1115, sequence: 2))   // the horizon is 1015 ms: the first is gone
        #expect(preroll.take(from: 0).map(\.sequence) == [1, 2])
    }

    @Test("a start after every chunk takes nothing")
    func startAfterEverything() {
        var preroll = AudioPreroll(window: 500_000_000)
        preroll.add(Self.chunk(at: 1000))
        #expect(preroll.take(from: 2_000_000_000).isEmpty)
        #expect(preroll.isEmpty)
    }
}
