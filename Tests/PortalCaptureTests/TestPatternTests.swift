import Testing
@testable import PortalTestSupport

@Suite("Test pattern")
struct TestPatternTests {
    @Test("a rendered frame decodes to its frame number and shows the four colour areas",
          arguments: PixelFormat.allCases)
    func renderedFrameRoundTrips(format: PixelFormat) {
        let vf = VideoFormat(pixelFormat: format, width: 320, height: 240)
        let storage = FrameStorage(capacity: 320 * 4 * 240)
        for n: UInt32 in [0, 1, 0xBEEF, 65535] {
            TestPattern.render(into: storage.bytes, stride: 320 * 4, format: vf, frameNumber: n)
            let frame = VideoFrame(format: vf, stride: 320 * 4, timestamp: 0, sequence: 0, storage: storage)
            #expect(TestPattern.decodeCounter(frame) == n)
            #expect(TestPattern.checkColourAreas(frame, tolerance: 0) == nil)
        }
    }
}
