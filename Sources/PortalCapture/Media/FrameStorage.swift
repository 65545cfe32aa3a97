import Glibc

/// Owned, aligned bytes of one video frame. Frames are pooled by the capture path, so a storage may be
/// reused after the last `VideoFrame` referring to it is released.
///
/// A large storage (`mappingThreshold` bytes or more: any real frame) is a private anonymous mapping of its
/// own, page-aligned and faulted in when made (`MAP_POPULATE`: a frame is written whole anyway, and one system
/// call costs less than faulting it in page by page on the capture thread), unmapped when the storage goes: its
/// memory goes back to the system at once. From malloc,
/// it would not: once glibc has freed one such block, its dynamic mmap threshold rises above the block's size,
/// and later frames come from its heaps, which keep them after `free` (measured in bench/README.md,
/// recording-memory: frames allocated in a burst stayed resident for the rest of the recording).
///
/// Thread safety: the bytes are written once by the producer (the capture thread) before the frame is
/// published, and only read afterwards; `@unchecked Sendable` relies on that hand-off.
public final class FrameStorage: @unchecked Sendable {
    public let capacity: Int
    public let bytes: UnsafeMutableRawPointer
    /// Whether `bytes` is a mapping of its own (`munmap` at deinit) rather than from the allocator.
    private let mapped: Bool

    /// Storages of at least this many bytes are mappings of their own.
    public static let mappingThreshold = 1 << 20

    /// Allocates `capacity` bytes, at least 64-byte aligned (page-aligned from `mappingThreshold` up). A pool
    /// may hand a storage out again once it holds the only reference (`isKnownUniquelyReferenced`).
    public init(capacity: Int) {
        self.capacity = max(capacity, 1)
        if self.capacity >= Self.mappingThreshold,
           let memory = mmap(nil, self.capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0),
           memory != MAP_FAILED {
            bytes = memory
            mapped = true
        } else {
            bytes = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 64)
            mapped = false
        }
    }

    deinit {
        if mapped { munmap(bytes, capacity) } else { bytes.deallocate() }
    }

    public var buffer: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: bytes, count: capacity) }
}
