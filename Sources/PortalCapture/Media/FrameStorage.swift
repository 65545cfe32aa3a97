/// Owned, page-aligned bytes of one video frame. Frames are pooled by the capture path, so a storage may be
/// reused after the last `VideoFrame` referring to it is released.
///
/// Thread safety: the bytes are written once by the producer (the capture thread) before the frame is
/// published, and only read afterwards; `@unchecked Sendable` relies on that hand-off.
public final class FrameStorage: @unchecked Sendable {
    public let capacity: Int
    public let bytes: UnsafeMutableRawPointer

    /// Allocates `capacity` bytes, 64-byte aligned. A pool may hand a storage out again once it holds the
    /// only reference (`isKnownUniquelyReferenced`).
    public init(capacity: Int) {
        self.capacity = max(capacity, 1)
        self.bytes = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 64)
    }

    deinit { bytes.deallocate() }

    public var buffer: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: bytes, count: capacity) }
}
