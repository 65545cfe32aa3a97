import Testing
@testable import PortalCapture

@Suite("Video frames")
struct VideoFrameTests {
    @Test("rgb reads red, green and blue whatever the byte order", arguments: PixelFormat.allCases)
    func rgbReadsChannelsInEveryLayout(format: PixelFormat) {
        let storage = FrameStorage(capacity: 16)
        let frame = VideoFrame(format: VideoFormat(pixelFormat: format, width: 2, height: 2), stride: 8,
                               timestamp: 0, sequence: 0, storage: storage)
        let p = storage.bytes.assumingMemoryBound(to: UInt8.self)
        p[format.redOffset] = 10; p[format.greenOffset] = 20; p[format.blueOffset] = 30
        let c = frame.rgb(x: 0, y: 0)
        #expect(c.r == 10 && c.g == 20 && c.b == 30)
    }

    @Test("rectangles intersect to their overlap, or nothing")
    func rectanglesIntersect() {
        let a = PixelRect(x: 0, y: 0, width: 10, height: 10)
        #expect(a.intersection(PixelRect(x: 5, y: 5, width: 10, height: 10)) == PixelRect(x: 5, y: 5, width: 5, height: 5))
        #expect(a.intersection(PixelRect(x: 10, y: 0, width: 5, height: 5)) == nil)
    }
}
