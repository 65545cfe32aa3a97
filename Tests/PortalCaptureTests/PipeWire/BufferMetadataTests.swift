import CPipeWire
import Testing
@testable import PortalCapture
import PortalTestSupport

/// A `spa_buffer` in plain memory with one meta of `type` and `size` bytes (no data planes).
final class FakeBuffer {
    let buffer = UnsafeMutablePointer<spa_buffer>.allocate(capacity: 1)
    let meta = UnsafeMutablePointer<spa_meta>.allocate(capacity: 1)
    let metaData: UnsafeMutableRawPointer

    init(type: spa_meta_type, size: Int) {
        metaData = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        metaData.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        meta.initialize(to: spa_meta(type: type.rawValue, size: UInt32(size), data: metaData))
        buffer.initialize(to: spa_buffer(n_metas: 1, n_datas: 0, metas: meta, datas: nil))
    }

    var cursor: UnsafeMutablePointer<spa_meta_cursor> { metaData.assumingMemoryBound(to: spa_meta_cursor.self) }

    deinit {
        metaData.deallocate()
        meta.deallocate()
        buffer.deallocate()
    }
}

@Suite("Buffer metadata")
struct BufferMetadataTests {
    let cursorSize = VideoParams.cursorMetaSize(width: 64, height: 64)

    @Test("a written cursor with its bitmap reads back the same")
    func cursorRoundTrips() {
        let fake = FakeBuffer(type: SPA_META_Cursor, size: cursorSize)
        let state = TestCursor.state(frameNumber: 17, width: 640, height: 480)
        BufferMetadata.writeCursor(state, includeBitmap: true, into: fake.buffer)
        #expect(BufferMetadata.cursor(in: fake.buffer, previous: nil) == .visible(state))
    }

    @Test("a cursor without a new bitmap keeps the previous bitmap and hotspot")
    func cursorWithoutBitmapKeepsPrevious() {
        let fake = FakeBuffer(type: SPA_META_Cursor, size: cursorSize)
        let previous = TestCursor.state(frameNumber: 1, width: 640, height: 480)
        var moved = TestCursor.state(frameNumber: 2, width: 640, height: 480)
        BufferMetadata.writeCursor(moved, includeBitmap: false, into: fake.buffer)
        #expect(fake.cursor.pointee.bitmap_offset == 0)
        moved.bitmap = previous.bitmap
        #expect(BufferMetadata.cursor(in: fake.buffer, previous: previous) == .visible(moved))
    }

    @Test("cursor id 0 means no pointer, and a buffer without the meta says nothing")
    func hiddenAndAbsentCursor() {
        let fake = FakeBuffer(type: SPA_META_Cursor, size: cursorSize)
        BufferMetadata.writeCursor(nil, includeBitmap: true, into: fake.buffer)
        #expect(BufferMetadata.cursor(in: fake.buffer, previous: nil) == .hidden)
        let other = FakeBuffer(type: SPA_META_Header, size: MemoryLayout<spa_meta_header>.size)
        #expect(BufferMetadata.cursor(in: other.buffer, previous: nil) == .absent)
    }

    @Test("the raw cursor snapshot repeats for an unchanged cursor and differs once it moves or brings a bitmap")
    func cursorSnapshotTellsAChange() {
        let fake = FakeBuffer(type: SPA_META_Cursor, size: cursorSize)
        let other = FakeBuffer(type: SPA_META_Header, size: MemoryLayout<spa_meta_header>.size)
        #expect(BufferMetadata.cursorSnapshot(in: other.buffer) == BufferMetadata.CursorSnapshot(), "absent: all zero")
        let state = TestCursor.state(frameNumber: 3, width: 640, height: 480)
        BufferMetadata.writeCursor(state, includeBitmap: false, into: fake.buffer)
        let first = BufferMetadata.cursorSnapshot(in: fake.buffer)
        #expect(first.present && first.id != 0 && first.bitmapOffset == 0)
        #expect(Int(first.x) == state.x && Int(first.y) == state.y)
        BufferMetadata.writeCursor(state, includeBitmap: false, into: fake.buffer)
        #expect(BufferMetadata.cursorSnapshot(in: fake.buffer) == first)
        BufferMetadata.writeCursor(TestCursor.state(frameNumber: 4, width: 640, height: 480), includeBitmap: false, into: fake.buffer)
        #expect(BufferMetadata.cursorSnapshot(in: fake.buffer) != first)
        BufferMetadata.writeCursor(state, includeBitmap: true, into: fake.buffer)
        #expect(BufferMetadata.cursorSnapshot(in: fake.buffer).bitmapOffset != 0, "a bitmap is always read")
        BufferMetadata.writeCursor(nil, includeBitmap: false, into: fake.buffer)
        #expect(BufferMetadata.cursorSnapshot(in: fake.buffer).id == 0, "hidden")
    }

    @Test("a BGRA bitmap is converted to RGBA, its premultiplied colours divided by alpha")
    func bgraBitmapIsConverted() {
        let fake = FakeBuffer(type: SPA_META_Cursor, size: cursorSize)
        let c = fake.cursor
        c.pointee.id = 1
        c.pointee.position = spa_point(x: 5, y: 6)
        c.pointee.hotspot = spa_point(x: 1, y: 0)
        c.pointee.bitmap_offset = UInt32(MemoryLayout<spa_meta_cursor>.size)
        let bm = fake.metaData.advanced(by: MemoryLayout<spa_meta_cursor>.size).assumingMemoryBound(to: spa_meta_bitmap.self)
        bm.pointee = spa_meta_bitmap(format: SPA_VIDEO_FORMAT_BGRA.rawValue, size: spa_rectangle(width: 2, height: 1),
                                     stride: 8, offset: UInt32(MemoryLayout<spa_meta_bitmap>.size))
        let pixels = UnsafeMutableRawPointer(bm).advanced(by: MemoryLayout<spa_meta_bitmap>.size).assumingMemoryBound(to: UInt8.self)
        let bgra: [UInt8] = [10, 20, 30, 40, 50, 60, 70, 80]
        for i in 0..<8 { pixels[i] = bgra[i] }
        // R 30 at alpha 40 is (30 * 255 + 20) / 40 = 191 straight; G 128, B 64; then 223, 191, 159 at 80.
        let expected = CursorState(x: 5, y: 6, hotspotX: 1, hotspotY: 0,
                                   bitmap: CursorBitmap(width: 2, height: 1, rgba: [191, 128, 64, 40, 223, 191, 159, 80]))
        #expect(BufferMetadata.cursor(in: fake.buffer, previous: nil) == .visible(expected))
    }

    /// A bitmap as mutter and KWin write it: premultiplied RGBA.
    static func premultipliedCursor(_ rgba: [UInt8], width: Int, height: Int) -> FakeBuffer {
        let fake = FakeBuffer(type: SPA_META_Cursor, size: VideoParams.cursorMetaSize(width: 64, height: 64))
        fake.cursor.pointee.id = 1
        fake.cursor.pointee.bitmap_offset = UInt32(MemoryLayout<spa_meta_cursor>.size)
        let bm = fake.metaData.advanced(by: MemoryLayout<spa_meta_cursor>.size).assumingMemoryBound(to: spa_meta_bitmap.self)
        bm.pointee = spa_meta_bitmap(format: SPA_VIDEO_FORMAT_RGBA.rawValue,
                                     size: spa_rectangle(width: UInt32(width), height: UInt32(height)),
                                     stride: Int32(width * 4), offset: UInt32(MemoryLayout<spa_meta_bitmap>.size))
        let pixels = UnsafeMutableRawPointer(bm).advanced(by: MemoryLayout<spa_meta_bitmap>.size).assumingMemoryBound(to: UInt8.self)
        for (i, byte) in rgba.enumerated() { pixels[i] = byte }
        return fake
    }

    @Test("a half-transparent white cursor edge as the compositors send it (128,128,128,128) is drawn half white, not a quarter")
    func premultipliedEdgeCompositesAsWhite() throws {
        // Opaque white, half-transparent white, a half-transparent black shadow, transparent.
        let fake = Self.premultipliedCursor([255, 255, 255, 255, 128, 128, 128, 128, 0, 0, 0, 128, 0, 0, 0, 0],
                                            width: 4, height: 1)
        guard case .visible(let cursor) = BufferMetadata.cursor(in: fake.buffer, previous: nil) else {
            Issue.record("the cursor should be visible")
            return
        }
        let bitmap = try #require(cursor.bitmap)
        #expect(bitmap.rgba == [255, 255, 255, 255, 255, 255, 255, 128, 0, 0, 0, 128, 0, 0, 0, 0])
        let frame = Frames.solid(.bgrx, width: 4, height: 1, Pixel(100, 100, 100, 0), cursor: cursor)
        var compositor = CursorCompositor()
        compositor.composite(onto: frame)
        // Over grey 100: white, 100 + (255 - 100) * 128 / 255 = 178, 100 * 127 / 255 = 50, grey.
        #expect((0..<4).map { Frames.read(frame, x: $0, y: 0) }
                == [Pixel(255, 255, 255, 0), Pixel(178, 178, 178, 0), Pixel(50, 50, 50, 0), Pixel(100, 100, 100, 0)])
    }

    @Test("a written bitmap is premultiplied, as the compositors write theirs")
    func writtenBitmapIsPremultiplied() {
        let fake = FakeBuffer(type: SPA_META_Cursor, size: cursorSize)
        let cursor = CursorState(x: 1, y: 1, bitmap: CursorBitmap(width: 2, height: 1, rgba: [255, 255, 255, 128, 200, 100, 0, 255]))
        BufferMetadata.writeCursor(cursor, includeBitmap: true, into: fake.buffer)
        let pixels = fake.metaData.advanced(by: MemoryLayout<spa_meta_cursor>.size + MemoryLayout<spa_meta_bitmap>.size)
            .assumingMemoryBound(to: UInt8.self)
        #expect((0..<8).map { pixels[$0] } == [128, 128, 128, 128, 200, 100, 0, 255])
    }

    @Test("bitmap offsets and sizes that point outside the meta are not followed",
          arguments: [(UInt32(1_000_000), UInt32(2), UInt32(2), Int32(8)), (UInt32(0), UInt32(5000), UInt32(5000), Int32(20000)),
                      (UInt32(0), UInt32(2), UInt32(2), Int32(4))])
    func badBitmapIsIgnored(extraOffset: UInt32, width: UInt32, height: UInt32, stride: Int32) {
        let fake = FakeBuffer(type: SPA_META_Cursor, size: cursorSize)
        let c = fake.cursor
        c.pointee.id = 1
        c.pointee.position = spa_point(x: 3, y: 4)
        c.pointee.bitmap_offset = UInt32(MemoryLayout<spa_meta_cursor>.size)
        let bm = fake.metaData.advanced(by: MemoryLayout<spa_meta_cursor>.size).assumingMemoryBound(to: spa_meta_bitmap.self)
        bm.pointee = spa_meta_bitmap(format: SPA_VIDEO_FORMAT_RGBA.rawValue, size: spa_rectangle(width: width, height: height),
                                     stride: stride, offset: UInt32(MemoryLayout<spa_meta_bitmap>.size) + extraOffset)
        guard case .visible(let state) = BufferMetadata.cursor(in: fake.buffer, previous: nil) else {
            Issue.record("the position should still be read")
            return
        }
        #expect(state.x == 3 && state.y == 4)
        #expect(state.bitmap == nil)
    }

    @Test("a cursor meta too small for its header is treated as absent")
    func tinyCursorMetaIsAbsent() {
        let fake = FakeBuffer(type: SPA_META_Cursor, size: 4)
        #expect(BufferMetadata.cursor(in: fake.buffer, previous: nil) == .absent)
    }

    @Test("a crop region reads back, and the whole frame reads as no crop")
    func cropRoundTrips() {
        let fake = FakeBuffer(type: SPA_META_VideoCrop, size: MemoryLayout<spa_meta_region>.size)
        let rect = PixelRect(x: 10, y: 20, width: 100, height: 50)
        BufferMetadata.writeCrop(rect, width: 640, height: 480, into: fake.buffer)
        #expect(BufferMetadata.crop(fake.buffer, width: 640, height: 480) == rect)
        BufferMetadata.writeCrop(nil, width: 640, height: 480, into: fake.buffer)
        #expect(BufferMetadata.crop(fake.buffer, width: 640, height: 480) == nil)
    }
}

@Suite("PipeWire options and errors")
struct PipeWireOptionsTests {
    @Test("bad capture options are refused before anything connects")
    func badCaptureOptions() {
        var o = VideoCaptureOptions()
        o.formats = []
        #expect(throws: PipeWireError.invalidArgument("formats is empty")) { try o.validate() }
        o = VideoCaptureOptions()
        o.noFrameTimeout = .zero
        #expect(throws: PipeWireError.self) { try o.validate() }
        o = VideoCaptureOptions()
        o.maxWidth = 10
        #expect(throws: PipeWireError.self) { try o.validate() }
        #expect(throws: Never.self) { try VideoCaptureOptions().validate() }
    }

    @Test("capture options whose cursor meta or frame size cannot fit PipeWire's Int32 sizes are refused, not trapped on the first format")
    func oversizedCaptureOptions() {
        var o = VideoCaptureOptions()
        o.maxCursorSize = 30_000
        #expect(throws: PipeWireError.self) { try o.validate() }
        o = VideoCaptureOptions()
        o.maxWidth = 40_000
        #expect(throws: PipeWireError.self) { try o.validate() }
    }

    @Test("bad producer formats are refused", arguments: [
        VideoFormat(pixelFormat: .bgrx, width: 0, height: 10),
        VideoFormat(pixelFormat: .bgrx, width: 10, height: 100_000),
        VideoFormat(pixelFormat: .bgrx, width: 10, height: 10, frameRate: FrameRate(0)),
        VideoFormat(pixelFormat: .bgrx, width: 10, height: 10, frameRate: FrameRate(30, 0)),
    ])
    func badProducerFormats(format: VideoFormat) {
        #expect(throws: PipeWireError.self) { try VideoProducerOptions(format: format).validate() }
    }

    @Test("bad audio options are refused")
    func badAudioOptions() {
        var o = AudioCaptureOptions()
        o.channels = 0
        #expect(throws: PipeWireError.self) { try o.validate() }
        o = AudioCaptureOptions()
        o.sampleRate = 0
        #expect(throws: PipeWireError.self) { try o.validate() }
    }

    @Test("a lost daemon's error says what happened and what to do")
    func errorsCarryHints() {
        let lost = PipeWireError.coreError(id: 0, res: -32, message: "Broken pipe")
        #expect(lost.description.contains("Broken pipe") && lost.description.contains("restart pipewire"))
        let noDaemon = PipeWireError.connectionFailed(errno: 111)
        #expect(noDaemon.description.contains("XDG_RUNTIME_DIR"))
        #expect(PipeWireError.unsupportedFormat("NV12").description.contains("BGRx"))
    }
}
