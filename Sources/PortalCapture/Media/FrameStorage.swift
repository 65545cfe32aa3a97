/// The bytes of one video frame: either owned (page-aligned, allocated here) or borrowed (a PipeWire buffer
/// lent to the frame without copying, given back when the last frame referring to it is released).
///
/// Frames are pooled by the capture path, so an owned storage may be reused after the last `VideoFrame`
/// referring to it is released. A borrowed storage is never pooled; its bytes are read-only (another process
/// wrote them, and may write them again once they are given back).
///
/// Thread safety: the bytes are written once by the producer (the capture thread) before the frame is
/// published, and only read afterwards; `@unchecked Sendable` relies on that hand-off.
public final class FrameStorage: @unchecked Sendable {
    public let capacity: Int
    public let bytes: UnsafeMutableRawPointer
    /// Called once when a borrowed storage goes; nil for owned bytes.
    private let giveBack: (@Sendable () -> Void)?

    /// Allocates `capacity` bytes, 64-byte aligned. A pool may hand a storage out again once it holds the
    /// only reference (`isKnownUniquelyReferenced`).
    public init(capacity: Int) {
        self.capacity = max(capacity, 1)
        self.bytes = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 64)
        giveBack = nil
    }

    /// Bytes owned elsewhere, valid until `giveBack` is called (once, on whichever thread releases the last
    /// reference). Do not write to them.
    public init(borrowing bytes: UnsafeRawPointer, capacity: Int, giveBack: @escaping @Sendable () -> Void) {
        self.capacity = capacity
        self.bytes = UnsafeMutableRawPointer(mutating: bytes)
        self.giveBack = giveBack
    }

    deinit {
        if let giveBack { giveBack() } else { bytes.deallocate() }
    }

    /// Whether the bytes are lent by their owner (read-only) rather than allocated here.
    public var isBorrowed: Bool { giveBack != nil }

    public var buffer: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: bytes, count: capacity) }
}
