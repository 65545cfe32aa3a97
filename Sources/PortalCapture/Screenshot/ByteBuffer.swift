#if canImport(Glibc)
import Glibc
#endif

/// Bytes in one growing block of C memory (`malloc`, `realloc`), which zlib writes into directly; used by one
/// thread at a time.
final class ByteBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private(set) var capacity: Int

    /// An empty buffer with room for `capacity` bytes; nil when the memory cannot be had.
    init?(capacity: Int) {
        guard let memory = malloc(max(capacity, 64)) else { return nil }
        base = memory.assumingMemoryBound(to: UInt8.self)
        self.capacity = max(capacity, 64)
    }

    deinit { free(base) }

    /// The bytes written so far.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// The free room after the bytes, at least `minimum` bytes (the buffer grows by doubling); nil when the
    /// memory cannot be had.
    func reserve(_ minimum: Int) -> UnsafeMutableBufferPointer<UInt8>? {
        if capacity - count < minimum {
            var grown = capacity
            while grown - count < minimum { grown *= 2 }
            guard let memory = realloc(base, grown) else { return nil }
            base = memory.assumingMemoryBound(to: UInt8.self)
            capacity = grown
        }
        return UnsafeMutableBufferPointer(start: base + count, count: capacity - count)
    }

    /// Counts `n` bytes written into the room `reserve` gave.
    func commit(_ n: Int) {
        precondition(n >= 0 && count + n <= capacity, "committed past the reserved room")
        count += n
    }

    /// Appends `data`; false when the memory cannot be had.
    func append(_ data: some Collection<UInt8>) -> Bool {
        guard let room = reserve(data.count) else { return false }
        _ = room.initialize(from: data)
        commit(data.count)
        return true
    }
}
