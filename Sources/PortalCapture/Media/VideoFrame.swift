/// One captured video frame, owned (copied out of PipeWire's buffer, or produced by a transform).
public struct VideoFrame: Sendable {
    public var format: VideoFormat
    /// Bytes from the start of one row to the next (at least `format.minimumStride`).
    public var stride: Int
    /// Presentation time on `CLOCK_MONOTONIC`, in nanoseconds (from the buffer header or the stream time).
    public var timestamp: UInt64
    /// A number that increases by one per frame delivered on this stream; gaps mean dropped frames.
    public var sequence: UInt64
    /// The valid region the producer reported (`SPA_META_VideoCrop`), nil when the whole frame is valid.
    public var crop: PixelRect?
    /// The pointer, when the stream carries cursor metadata.
    public var cursor: CursorState? {
        get { cursorBox?.state }
        set { cursorBox = newValue.map(CursorBox.init) }
    }
    /// The cursor, boxed: a frame is then plain values and two references, so the capture path copies and
    /// destroys it with two reference counts instead of through the runtime's value witnesses for a nested
    /// optional holding an array (bench/README.md, capture). A stream hands every frame the same box while
    /// the cursor stays as it is.
    var cursorBox: CursorBox?
    /// The pixel bytes: `stride * format.height` bytes are valid.
    public let storage: FrameStorage
    /// Whether holding this frame back until the next one comes costs nothing: the stream that made it could
    /// still lend the next buffer (false when holding it would make the next frame a copy). What lets a
    /// `DeliveryQueue` wake its thread once for two frames (`DeliveryOptions.samplesPerWakeup`).
    var mayBeHeld = true

    public init(format: VideoFormat, stride: Int, timestamp: UInt64, sequence: UInt64,
                crop: PixelRect? = nil, cursor: CursorState? = nil, storage: FrameStorage) {
        self.init(format: format, stride: stride, timestamp: timestamp, sequence: sequence, crop: crop,
                  cursorBox: cursor.map(CursorBox.init), storage: storage)
    }

    /// A frame sharing `cursorBox` (the capture path's: no allocation per frame).
    init(format: VideoFormat, stride: Int, timestamp: UInt64, sequence: UInt64,
         crop: PixelRect?, cursorBox: CursorBox?, storage: FrameStorage) {
        precondition(stride >= format.minimumStride && storage.capacity >= stride * format.height,
                     "VideoFrame storage too small for \(format) with stride \(stride)")
        self.format = format
        self.stride = stride
        self.timestamp = timestamp
        self.sequence = sequence
        self.crop = crop
        self.cursorBox = cursorBox
        self.storage = storage
    }

    /// The valid pixel bytes, read-only.
    public var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage.bytes, count: stride * format.height)
    }

    /// The bytes of pixel (x, y): `[c0, c1, c2, c3]` in `format.pixelFormat` order.
    public func pixel(x: Int, y: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let p = storage.bytes.advanced(by: y * stride + x * 4).assumingMemoryBound(to: UInt8.self)
        return (p[0], p[1], p[2], p[3])
    }

    /// Red, green and blue of pixel (x, y), whatever the layout.
    public func rgb(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let p = storage.bytes.advanced(by: y * stride + x * 4).assumingMemoryBound(to: UInt8.self)
        let f = format.pixelFormat
        return (p[f.redOffset], p[f.greenOffset], p[f.blueOffset])
    }
}
