import Testing
@testable import PortalCapture

@Suite("End-of-stream causes")
struct CaptureEndTests {
    @Test("PipeWire's negative result becomes a positive errno, and EPIPE says the daemon went away")
    func coreErrorFromResult() {
        let end = CaptureEnd.coreError(result: -32, message: "connection error")
        #expect(end == .coreError(errno: 32, message: "connection error"))
        #expect(end.description.contains("32"))
        #expect(end.description.contains("pipewire"))
        #expect(!CaptureEnd.coreError(result: -22, message: "x").description.contains("went away"))
    }

    @Test("each cause has its own description, and failures are told apart from interruptions")
    func descriptions() {
        let all: [CaptureEnd] = [
            .streamUnconnected(.video), .streamError(.audio, message: "no format"),
            .coreError(errno: 32, message: "broken pipe"), .noFrames(for: .seconds(5)), .sessionClosed,
        ]
        #expect(Set(all.map(\.description)).count == all.count)
        #expect(CaptureEnd.noFrames(for: .seconds(5)).description.contains("5 s"))
        #expect(CaptureEnd.noFrames(for: .milliseconds(1500)).description.contains("1.5 s"))
        #expect(CaptureEnd.streamError(.audio, message: "no format").description.contains("audio"))
        #expect(all.map(\.isFailure) == [false, true, true, false, false])
    }
}
