import CPipeWire
import Synchronization

/// The memory a frame's path touches, prefetched all at once when PipeWire wakes the data thread.
///
/// After 16 ms asleep, with other processes on both cores, the code and data of the frame path are no longer
/// in the caches, and the path reaches them one after the other: the stream object, then its lender, then the
/// lent buffer, its storage, the pipeline, its queue... each a dependent load that waits for memory (112 ns
/// each measured, 22 ns prefetched: bench/README.md, capture). Asking for all of them first lets the memory
/// system fetch them side by side while the path runs. What is listed: the objects the path reaches (each
/// registers what it owns, whole: every cache line of its allocation), and the path's own code, which the
/// release build links in one run (`scripts/hot-path.order`, between `pwrecord_hot_path_begin` and
/// `pwrecord_hot_path_end`).
///
/// Only a hint: a prefetch never faults, so an entry whose object has gone since costs a wasted fetch, never
/// a wrong result. Entries are only ever added (up to `capacity`; beyond it, silently not), and published
/// with a release store that the waking thread reads with an acquire load, so `warm()` takes no lock.
final class CacheWarmer: @unchecked Sendable {
    // Invariant for @unchecked Sendable: entries below `count` are written before `count` is published and
    // never again; writers append under `appending`.
    static let capacity = 128
    /// The largest code range warmed: beyond it the markers are not where the order file puts them (a build
    /// without scripts/build-release), and the range is not the frame path's.
    static let maximumCodeBytes = 64 * 1024

    private struct Entry {
        var start: UInt
        var lines: Int
    }

    private let entries = UnsafeMutablePointer<Entry>.allocate(capacity: CacheWarmer.capacity)
    private let count = Atomic<Int>(0)
    private let appending = Mutex(())

    deinit {
        entries.deallocate()
    }

    /// Every cache line of `byteCount` bytes from `address`.
    func add(_ address: UnsafeRawPointer?, byteCount: Int) {
        guard let address, byteCount > 0 else { return }
        let first = UInt(bitPattern: address) & ~63
        let end = UInt(bitPattern: address) + UInt(byteCount)
        appending.withLock { _ in
            let n = count.load(ordering: .relaxed)
            guard n < Self.capacity else { return }
            entries[n] = Entry(start: first, lines: Int((end - first + 63) / 64))
            count.store(n + 1, ordering: .releasing)
        }
    }

    /// A block from `malloc` (or Swift's allocator, which is malloc): all of it.
    func add(allocation: UnsafeRawPointer?) {
        guard let allocation else { return }
        add(allocation, byteCount: cpw_allocation_size(UnsafeMutableRawPointer(mutating: allocation)))
    }

    /// An object of ours: its whole allocation (header, reference counts and stored properties). Only for
    /// objects made at run time, as ours are (`malloc_usable_size` reads the allocator's own header); an object
    /// from elsewhere goes through `add(head:)`.
    func add(object: AnyObject?) {
        guard let object else { return }
        add(allocation: UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()))
    }

    /// The first `byteCount` bytes of an object whose allocation is not ours to inspect (a sink the caller
    /// made, which could live anywhere): its header and first stored properties.
    func add(head object: AnyObject, byteCount: Int = 128) {
        add(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()), byteCount: byteCount)
    }

    /// The frame path's code, when the build laid it out in one run (see the type's note).
    func addFramePathCode() {
        let begin = UInt(bitPattern: unsafeBitCast(hotPathBegin as @convention(c) () -> Void, to: UnsafeRawPointer.self))
        let end = UInt(bitPattern: unsafeBitCast(hotPathEnd as @convention(c) () -> Void, to: UnsafeRawPointer.self))
        guard end > begin, end - begin <= UInt(Self.maximumCodeBytes) else { return }
        add(UnsafeRawPointer(bitPattern: begin), byteCount: Int(end - begin))
    }

    /// The lines listed (a line listed twice counts twice).
    var lineCount: Int {
        let n = count.load(ordering: .acquiring)
        return (0..<n).reduce(0) { $0 + entries[$1].lines }
    }

    /// Whether the line holding `address` is listed.
    func lists(_ address: UnsafeRawPointer) -> Bool {
        let line = UInt(bitPattern: address) & ~63
        let n = count.load(ordering: .acquiring)
        return (0..<n).contains { i in line >= entries[i].start && line < entries[i].start + UInt(entries[i].lines) * 64 }
    }

    /// Whether every line of `object`'s allocation is listed.
    func lists(object: AnyObject) -> Bool {
        let start = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        let size = cpw_allocation_size(start)
        return stride(from: 0, to: size, by: 64).allSatisfy { lists(UnsafeRawPointer(start) + $0) }
            && lists(UnsafeRawPointer(start) + (size - 1))
    }

    /// Prefetches every line listed, in the order added. Lock-free; on the data thread at each wake-up.
    @inline(__always)
    func warm() {
        let n = count.load(ordering: .acquiring)
        var i = 0
        while i < n {
            let entry = entries[i]
            var line = entry.start
            for _ in 0..<entry.lines {
                cpw_prefetch(UnsafeRawPointer(bitPattern: line))
                line &+= 64
            }
            i += 1
        }
    }
}

/// The first function of the frame path's code in a release build (`scripts/hot-path.order` lists it first).
@_cdecl("pwrecord_hot_path_begin")
func hotPathBegin() {}

/// The function after the frame path's code in a release build (`scripts/hot-path.order` lists it last).
@_cdecl("pwrecord_hot_path_end")
func hotPathEnd() {}
