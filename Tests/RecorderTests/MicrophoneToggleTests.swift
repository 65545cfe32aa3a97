import Foundation
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

/// ReplayKit's `isMicrophoneEnabled` set while recording: the microphone is muted (silence in its place, the
/// audio track going on) and unmuted, on the test desktop's microphone (a 440 Hz tone).
@Suite("The microphone switched off and on while recording", .enabled(if: TestDesktop.isAvailable), .serialized)
struct MicrophoneToggleTests {
    /// The loudness (RMS) of each 100 ms of `samples` (48 kHz).
    static func loudness(_ samples: [Float]) -> [Float] {
        stride(from: 0, to: samples.count - 4800 + 1, by: 4800).map { start in
            let window = samples[start ..< start + 4800]
            return (window.reduce(0) { $0 + $1 * $1 } / Float(window.count)).squareRoot()
        }
    }

    @Test("isMicrophoneEnabled set to false while recording silences the microphone from then on, and true brings it back")
    func mutesAndUnmutes() async throws {
        let h = try RecorderHarness()
        h.recorder.isMicrophoneEnabled = true
        try await h.recorder.startRecording()
        try await Task.sleep(for: .seconds(2))
        h.recorder.isMicrophoneEnabled = false
        try await Task.sleep(for: .seconds(2))
        h.recorder.isMicrophoneEnabled = true
        try await Task.sleep(for: .seconds(2))
        let recording = try await h.recorder.stopRecording()
        let windows = Self.loudness(try MediaTool.decodeAudio(recording.file.path))
        let silent = windows.indices.filter { windows[$0] < 0.005 }
        let loud = windows.indices.filter { windows[$0] > 0.05 }
        let description = windows.map { String(format: "%.2f", $0) }.joined(separator: " ")
        guard let firstSilent = silent.first, let lastSilent = silent.last else {
            Issue.record("never silent: \(description)")
            return
        }
        // About 2 s of silence in one piece (a loaded machine moves the edges), sound before and after it.
        #expect((12...30).contains(silent.count), "\(silent.count) silent windows: \(description)")
        #expect(lastSilent - firstSilent + 1 - silent.count <= 2, "the silence is in pieces: \(description)")
        #expect(loud.filter { $0 < firstSilent }.count >= 8, "no sound before the mute: \(description)")
        #expect(loud.filter { $0 > lastSilent }.count >= 8, "no sound after the unmute: \(description)")
        #expect(h.recorder.isMicrophoneEnabled)
    }
}
