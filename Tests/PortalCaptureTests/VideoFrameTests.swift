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

    @Test("a frame's cursor keeps value semantics: changing one copy's cursor leaves the other's as it was")
    func cursorIsAValue() {
        let bitmap = CursorBitmap(width: 1, height: 1, rgba: [1, 2, 3, 255])
        var a = VideoFrame(format: VideoFormat(pixelFormat: .bgrx, width: 2, height: 2), stride: 8, timestamp: 0,
                           sequence: 0, cursor: CursorState(x: 1, y: 2, hotspotX: 0, hotspotY: 0, bitmap: bitmap),
                           storage: FrameStorage(capacity: 16))
        var b = a
        b.cursor?.x = 40
        b.cursor?.bitmap?.rgba[0] = 9
        #expect(a.cursor == CursorState(x: 1, y: 2, hotspotX: 0, hotspotY: 0, bitmap: bitmap))
        #expect(b.cursor?.x == 40 && b.cursor?.y == 2 && b.cursor?.bitmap?.rgba == [9, 2, 3, 255])
        a.cursor = nil
        #expect(a.cursor == nil && b.cursor?.x == 40)
    }

    @Test("rectangles intersect to their overlap, or nothing")
    func rectanglesIntersect() {
        let a = PixelRect(x: 0, y: 0, width: 10, height: 10)
        #expect(a.intersection(PixelRect(x: 5, y: 5, width: 10, height: 10)) == PixelRect(x: 5, y: 5, width: 5, height: 5))
        #expect(a.intersection(PixelRect(x: 10, y: 0, width: 5, height: 5)) == nil)
    }
}
