import Glibc

/// The bytes of one video frame, in one of three kinds:
/// - **owned, small**: from the allocator, 64-byte aligned;
/// - **owned, large** (`mappingThreshold` bytes or more: any real frame): a private anonymous mapping of its
///   own, page-aligned and faulted in when made (`MAP_POPULATE`: a frame is written whole anyway, and one
///   system call costs less than faulting it in page by page on the capture thread), unmapped when the storage
///   goes, so its memory goes back to the system at once. From malloc it would not: once glibc has freed one
///   such block, its dynamic mmap threshold rises above the block's size, and later frames come from its
///   heaps, which keep them after `free` (measured in bench/README.md, recording-memory: frames allocated in a
///   burst stayed resident for the rest of the recording);
/// - **borrowed**: bytes owned elsewhere, given back (a closure) when the last frame referring to it is
///   released; read-only;
/// - **lent**: a PipeWire buffer lent to frames without copying (`BufferLender`). The lender keeps one such
///   storage per buffer for as long as the buffer lives and hands the same object to every frame made from
///   it; it sees that the frames are gone when it holds the only reference again
///   (`isKnownUniquelyReferenced`), so lending a buffer allocates nothing and a release runs no code. Its bytes
///   are read-only (another process wrote them, and may write them again once the buffer is queued back).
///
/// Frames are pooled by the capture path, so an owned storage may be reused after the last `VideoFrame`
/// referring to it is released.
///
/// Thread safety: the bytes are written once by the producer (the capture thread) before the frame is
/// published, and only read afterwards; `@unchecked Sendable` relies on that hand-off.
public final class FrameStorage: @unchecked Sendable {
    public let capacity: Int
    public let bytes: UnsafeMutableRawPointer
    private let kind: Kind

    private enum Kind {
        case allocated
        case mapped
        case borrowed(giveBack: @Sendable () -> Void)
        /// Keeps what maps the bytes (the lender's mapping) alive while any frame holds the storage.
        case lent(owner: AnyObject)
    }

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
            kind = .mapped
        } else {
            bytes = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 64)
            kind = .allocated
        }
    }

    /// Bytes owned elsewhere, valid until `giveBack` is called (once, on whichever thread releases the last
    /// reference). Do not write to them.
    public init(borrowing bytes: UnsafeRawPointer, capacity: Int, giveBack: @escaping @Sendable () -> Void) {
        self.capacity = capacity
        self.bytes = UnsafeMutableRawPointer(mutating: bytes)
        kind = .borrowed(giveBack: giveBack)
    }

    /// Bytes in a mapping `owner` keeps alive, lent to frames again and again (see the type's doc).
    init(lending bytes: UnsafeRawPointer, capacity: Int, owner: AnyObject) {
        self.capacity = capacity
        self.bytes = UnsafeMutableRawPointer(mutating: bytes)
        kind = .lent(owner: owner)
    }

    deinit {
        switch kind {
        case .allocated: bytes.deallocate()
        case .mapped: munmap(bytes, capacity)
        case .borrowed(let giveBack): giveBack()
        case .lent: break
        }
    }

    /// Whether the bytes are lent by their owner (read-only) rather than allocated here.
    public var isBorrowed: Bool {
        switch kind {
        case .borrowed, .lent: true
        case .allocated, .mapped: false
        }
    }

    public var buffer: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: bytes, count: capacity) }
}
