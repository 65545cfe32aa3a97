import CPipeWire
import Glibc
import Synchronization

/// Lends a consumer stream's memfd buffers to frames without copying their pixels, and gives each back to
/// PipeWire (`pw_stream_queue_buffer`) once the last frame referring to it is released.
///
/// Why not PipeWire's own mapping: `PW_STREAM_FLAG_MAP_BUFFERS` maps a buffer only while it belongs to the
/// stream, and a format change or the stream's end unmaps it at once, while a sink may still be reading. So
/// each `SPA_DATA_MemFd` buffer is mapped here instead (`mmap` of its fd, read-only; the stream then does not
/// ask PipeWire to map it too, which would count every buffer twice in this process's memory), and that
/// mapping lives as long as any frame refers to it. A buffer removed by PipeWire while lent is simply never
/// queued again.
///
/// Lending never starves the producer. A consumer hands buffers back through one slot per graph cycle
/// (`spa_io_buffers.buffer_id`: `pw_stream` recycles one queued buffer per cycle), so buffers queued faster
/// than that wait in the stream (the *backlog*, tracked here) and are as lost to the producer as lent ones.
/// A buffer is lent only while fewer than `maximumLent` are out and `lent + backlog + reserve` stays below the
/// buffer count; otherwise the caller copies (``lend(_:offset:byteCount:)`` returns nil). Measured on the test
/// desktop: lending up to `count - 2` buffers to a sink that keeps frames for 100 ms cut a 60 fps producer to
/// 15-20 fps; with one buffer lent at a time it keeps its rate and a fast sink still gets every frame uncopied.
///
/// Residency (`VideoCaptureOptions.BufferMapping`): with `.persistent` a buffer's pages stay mapped in once
/// read, so every buffer counts in this process's RSS (`RssShmem`). With `.whileLent` the mapping (its address)
/// stays, but its pages are dropped from this process (`madvise(MADV_DONTNEED)` on the shared mapping: the
/// memfd keeps them, the producer's memory is untouched) when the buffer is queued back after its frames are
/// gone, and, for a
/// buffer read by the copy path (`mappedData`), once the stream has queued it back (`noteQueued`, or the next
/// `cycleStarted`). Only buffers frames hold are then resident here; a buffer's pages are mapped in again
/// when it is lent (`MADV_POPULATE_READ`).
///
/// Threads: the stream's `process` runs on PipeWire's data thread (`PW_STREAM_FLAG_RT_PROCESS`), and so do
/// `lend`, `mappedData`, `cycleStarted`, `noteQueued` and `queueReturned`; `add`, `remove` and `close` come
/// from the loop thread. The stream calls all of them under its own frame lock, never two at once. Only the
/// data thread queues buffers (`pw_stream_queue_buffer` pushes onto a ring with one writer).
///
/// Giving back runs no code: each buffer has one `FrameStorage` for as long as it lives, and every frame made
/// from the buffer holds that same object. A frame may be released on any thread; the data thread sees that
/// all of a buffer's frames are gone when the lender holds the only reference to its storage again
/// (`isKnownUniquelyReferenced`, at the start of each cycle and before it lends the next buffer), and queues
/// it then. So lending allocates nothing, a release takes no lock and wakes no thread (releasing a frame
/// while holding another lock cannot deadlock with PipeWire), and the only memory the releasing thread and
/// the data thread share for it is the storage's reference count. No thread is woken for a release: the
/// producer keeps `reserve` buffers (at least one more than it fills at a time), so the next cycle always
/// comes. A wake-up per frame costs more than the rest of the frame path (bench/README.md, capture). With
/// `process` on the loop thread, the cycle's recycling comes before that `process`, so a returned buffer
/// reaches the producer a cycle later; the stream then keeps at least two in reserve.
final class BufferLender: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `stream`, `slots`, `bufferCount`, `lent`'s elements, `lentCount`,
    // `backlog`, `readForCopy`, `cacheWarmer`, `listedSlotTable` are touched under the owning stream's frame lock only (so they skip the runtime's
    // exclusivity check, as the stream's frame state does); `reserve`, `maximumLent`, `mapping` and the `lent`
    // pointer are immutable.
    private let reserve: Int
    private let mapping: VideoCaptureOptions.BufferMapping
    /// Buffers whose pages the copy path read (`mappedData`) and that are not lent: dropped once queued back.
    @exclusivity(unchecked) private var readForCopy: [LentBuffer] = []
    @exclusivity(unchecked) private var stream: OpaquePointer?
    /// The buffers known, by slot; a buffer's slot + 1 is its `pw_buffer.user_data` (a lookup without hashing
    /// on every frame). Slots of removed buffers are reused.
    @exclusivity(unchecked) private var slots: [LentBuffer?] = []
    @exclusivity(unchecked) private var bufferCount = 0
    /// The buffers lent now (`lentCount` of them, at most `maximumLent`): the ones whose storage is checked each
    /// cycle. Storage of its own: an array's append and removal ran the standard library's uniqueness and
    /// capacity code on every frame (bench/capture/footprint).
    private let lent: UnsafeMutablePointer<LentBuffer>
    @exclusivity(unchecked) private var lentCount = 0
    /// Buffers queued back that the stream has not yet handed to the producer (at most one goes per cycle).
    @exclusivity(unchecked) private var backlog = 0
    private let maximumLent: Int
    /// The slot table's storage as last listed in `cacheWarmer` (see `listSlotTable`).
    @exclusivity(unchecked) private var listedSlotTable: UnsafeRawPointer?
    /// Where the lender lists itself and each buffer's state for the data thread's wake-up (`CacheWarmer`).
    @exclusivity(unchecked) var cacheWarmer: CacheWarmer? {
        didSet {
            cacheWarmer?.add(object: self)
            cacheWarmer?.add(allocation: lent)
        }
    }

    /// The most buffers a stream can have here (`SPA_PARAM_BUFFERS_buffers` is at most 16 in what we ask).
    static let maximumSlots = 64

    /// A buffer the lender knows: its own mapping, the storage its frames share, and whether it is lent.
    final class LentBuffer: @unchecked Sendable {
        // Invariant: `isLent`, `removed` and `storage` are touched under the owning stream's frame lock only (the
        // storage's reference count is what other threads change); the rest is immutable.
        let buffer: UnsafeMutablePointer<pw_buffer>
        let slot: Int
        let mapping: SharedMapping
        @exclusivity(unchecked) var isLent = false
        @exclusivity(unchecked) var removed = false
        /// The storage every frame of this buffer holds (made on first lend, again only if the chunk's offset
        /// or size changes); it keeps the mapping alive for frames that outlive the buffer.
        @exclusivity(unchecked) var storage: FrameStorage?

        init(buffer: UnsafeMutablePointer<pw_buffer>, slot: Int, mapping: SharedMapping) {
            self.buffer = buffer
            self.slot = slot
            self.mapping = mapping
        }

        /// The storage for `byteCount` bytes at `offset` of the mapping: the one frames had, when it matches.
        func storage(offset: Int, byteCount: Int) -> FrameStorage {
            let start = mapping.data.advanced(by: offset)
            if let storage, storage.bytes == UnsafeMutableRawPointer(mutating: start), storage.capacity == byteCount {
                return storage
            }
            let made = FrameStorage(lending: start, capacity: byteCount, owner: mapping)
            storage = made
            return made
        }
    }

    /// A read-only shared mapping of one buffer's memfd, unmapped when the last holder goes.
    final class SharedMapping: @unchecked Sendable {
        // Invariant: immutable after init.
        let region: UnsafeMutableRawPointer
        let length: Int
        /// Where the buffer's data starts in the mapping (`mapoffset` rounded down to a page).
        let data: UnsafeRawPointer
        let size: Int
        /// A descriptor the mapping owns and closes when it goes: a linear DMA-BUF's, duplicated (its sync
        /// ioctls come when a frame is released, possibly after PipeWire closed its own descriptor). Reads of
        /// such a mapping are bracketed with `DMA_BUF_IOCTL_SYNC` (`beginRead`, `endRead`; see `DmaBufAccess`).
        let ownedFD: Int32?
        /// Set between `beginRead` and `endRead`: a mapping that goes while a frame still read it (its buffer
        /// removed, or the stream gone, while lent) ends the read itself.
        private let inRead = Atomic<Bool>(false)

        init?(fd: Int32, offset: Int, size: Int, owning ownedFD: Int32? = nil) {
            self.ownedFD = ownedFD
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = offset - offset % page
            let length = size + (offset - start)
            guard fd >= 0, size > 0, let region = mmap(nil, length, PROT_READ, MAP_SHARED, fd, off_t(start)),
                  region != MAP_FAILED else { return nil }
            self.region = region
            self.length = length
            data = UnsafeRawPointer(region).advanced(by: offset - start)
            self.size = size
        }

        deinit {
            munmap(region, length)
            endRead()
            if let ownedFD { Glibc.close(ownedFD) }
        }

        /// Starts a CPU read of a DMA-BUF's mapping (nothing for a memfd's).
        func beginRead() {
            guard let ownedFD else { return }
            DmaBufAccess(fd: ownedFD).beginRead()
            inRead.store(true, ordering: .releasing)
        }

        /// Ends the read `beginRead` started, once.
        func endRead() {
            guard let ownedFD, inRead.exchange(false, ordering: .acquiringAndReleasing) else { return }
            DmaBufAccess(fd: ownedFD).endRead()
        }

        /// Drops this mapping's pages from the process (`MADV_DONTNEED`; the memfd keeps them, and a later read
        /// faults them in again with the same bytes). Call it only when nobody reads the mapping.
        func dropPages() {
            _ = madvise(region, length, MADV_DONTNEED)
        }

        /// Maps all of its pages in at once (`MADV_POPULATE_READ`, Linux 5.14; older kernels refuse it and the
        /// pages are faulted in as they are read).
        func populate() {
            _ = madvise(region, length, MADV_POPULATE_READ)
        }
    }

    /// - Parameters:
    ///   - maximumLent: buffers lent at once (at least 1).
    ///   - reserve: buffers always left to the producer (at least 1).
    ///   - mapping: whether buffers' pages stay mapped in between frames (see the type's doc).
    init(maximumLent: Int = 1, reserve: Int = 2, mapping: VideoCaptureOptions.BufferMapping = .persistent) {
        self.maximumLent = max(1, maximumLent)
        self.reserve = max(1, reserve)
        self.mapping = mapping
        lent = .allocate(capacity: self.maximumLent)
    }

    deinit {
        lent.deinitialize(count: lentCount)
        lent.deallocate()
    }

    /// Forgets the lent buffer at `index` (the last one takes its place).
    private func removeLent(at index: Int) {
        lentCount -= 1
        (lent + index).deinitialize(count: 1)
        if index != lentCount { (lent + index).moveInitialize(from: lent + lentCount, count: 1) }
    }

    /// The stream buffers are queued back to (set once connected).
    func attach(_ stream: OpaquePointer) { self.stream = stream }

    /// `add_buffer`: maps a memfd buffer, or a DMA-BUF (the stream negotiates those with the linear modifier
    /// only, so they map like memfds), no further than can be read (`BufferExtent`). False when it did not
    /// take the buffer (another kind, nothing readable, no mapping, no slot left): the stream's copy path reads
    /// it then, or finds it unreadable.
    @discardableResult
    func add(_ buffer: UnsafeMutablePointer<pw_buffer>) -> Bool {
        guard let spa = buffer.pointee.buffer, spa.pointee.n_datas > 0 else { return false }
        let data = spa.pointee.datas[0]
        guard data.type == SPA_DATA_MemFd.rawValue || data.type == SPA_DATA_DmaBuf.rawValue,
              let readable = BufferExtent.readableBytes(data) else { return false }
        let slot = slots.firstIndex(where: { $0 == nil }) ?? slots.count
        guard slot < Self.maximumSlots else { return false }
        // A DMA-BUF is synced (ioctl on its descriptor) when its frame is released, which may come after PipeWire
        // removed the buffer and closed the descriptor, or reused its number: the mapping keeps a duplicate.
        var owned: Int32?
        if let access = DmaBufAccess(data) {
            let own = fcntl(access.fd, F_DUPFD_CLOEXEC, 0)
            guard own >= 0 else { return false }
            owned = own
        }
        guard let mapping = SharedMapping(fd: Int32(truncatingIfNeeded: data.fd), offset: Int(data.mapoffset),
                                          size: readable, owning: owned) else {
            if let owned { Glibc.close(owned) }
            return false
        }
        if slot == slots.count { slots.append(nil) }
        slots[slot] = LentBuffer(buffer: buffer, slot: slot, mapping: mapping)
        cacheWarmer?.add(object: slots[slot])
        cacheWarmer?.add(object: mapping)
        listSlotTable()
        buffer.pointee.user_data = UnsafeMutableRawPointer(bitPattern: slot + 1)
        bufferCount += 1
        return true
    }

    /// `remove_buffer`: a lent buffer stays mapped for its frames (their storage keeps the mapping) but is never
    /// queued again.
    func remove(_ buffer: UnsafeMutablePointer<pw_buffer>) {
        guard let known = known(buffer) else { return }
        slots[known.slot] = nil
        buffer.pointee.user_data = nil
        bufferCount -= 1
        known.removed = true
        if known.isLent {
            known.isLent = false
            if let index = (0..<lentCount).first(where: { lent[$0] === known }) { removeLent(at: index) }
        }
    }

    /// The buffer's entry, through its `user_data`.
    private func known(_ buffer: UnsafeMutablePointer<pw_buffer>) -> LentBuffer? {
        guard let tag = buffer.pointee.user_data else { return nil }
        let slot = Int(bitPattern: tag) - 1
        guard slot >= 0, slot < slots.count, let known = slots[slot], known.buffer == buffer else { return nil }
        return known
    }

    /// Where `buffer`'s data is mapped here (memfd buffers only): the stream does not map them a second time
    /// (no `PW_STREAM_FLAG_MAP_BUFFERS`), so frames that must be copied are read from this mapping too. With
    /// `.whileLent`, the pages read are dropped once the stream queues the buffer back (`noteQueued`).
    func mappedData(_ buffer: UnsafeMutablePointer<pw_buffer>) -> UnsafeRawPointer? {
        guard let known = known(buffer) else { return nil }
        if mapping == .whileLent, !known.isLent, !readForCopy.contains(where: { $0 === known }) {
            readForCopy.append(known)
        }
        return known.mapping.data
    }

    /// How many bytes of `buffer`'s data the mapping here holds (all that may be read), if it maps it.
    func mappedSize(_ buffer: UnsafeMutablePointer<pw_buffer>) -> Int? { known(buffer)?.mapping.size }

    /// Whether one more buffer could be lent now (as `lend` judges it): a frame already lent may then wait for
    /// the next one without that one being copied.
    var canLendAnother: Bool {
        lentCount < maximumLent && lentCount + backlog + reserve < bufferCount
    }

    /// A storage for `byteCount` bytes at `offset` in `buffer`'s data, borrowed without copying (the buffer's
    /// own, the same object every time); nil when the buffer is not lendable (not memfd, out of range) or
    /// lending it would leave the producer too few. On success the caller must not queue the buffer: the
    /// lender does once no frame holds the storage any more.
    func lend(_ buffer: UnsafeMutablePointer<pw_buffer>, offset: Int, byteCount: Int) -> FrameStorage? {
        guard let known = known(buffer), !known.isLent, lentCount < maximumLent,
              lentCount + backlog + reserve < bufferCount,
              offset >= 0, offset + byteCount <= known.mapping.size else { return nil }
        known.isLent = true
        (lent + lentCount).initialize(to: known)
        lentCount += 1
        // Whole, now: one system call costs less than faulting page by page in the reader, and a lent buffer
        // is then either all resident or not at all (RSS samples do not depend on how far a sink has read).
        if mapping == .whileLent { known.mapping.populate() }
        known.mapping.beginRead()
        let previous = known.storage
        let storage = known.storage(offset: offset, byteCount: byteCount)
        if storage !== previous { cacheWarmer?.add(object: storage) }
        return storage
    }

    /// Lists the slot table's storage, its whole capacity, once per allocation of it: listed again with every
    /// buffer added, the same lines would be prefetched several times each wake-up.
    private func listSlotTable() {
        guard let cacheWarmer else { return }
        slots.withUnsafeBufferPointer { table in
            guard let base = table.baseAddress.map(UnsafeRawPointer.init), base != listedSlotTable else { return }
            listedSlotTable = base
            cacheWarmer.add(base, byteCount: slots.capacity * MemoryLayout<LentBuffer?>.stride)
        }
    }

    /// Stops queueing (the stream is going): every buffer is forgotten, lent ones stay mapped for their frames.
    /// Call it before the stream is destroyed, and before the lender's owner lets go of it. Idempotent.
    func close() {
        for known in slots.compactMap({ $0 }) {
            known.removed = true
            known.buffer.pointee.user_data = nil
        }
        slots.removeAll()
        lent.deinitialize(count: lentCount)
        lentCount = 0
        bufferCount = 0
        dropPagesReadForCopy()
        backlog = 0
        stream = nil
    }

    /// At the start of each `process`: one queued buffer went back to the producer this cycle.
    func cycleStarted() {
        if backlog > 0 { backlog -= 1 }
        dropPagesReadForCopy()
        queueReturned()
    }

    /// Notes a buffer the stream's owner queued itself (not lent, or passed over): a copy from it is done.
    func noteQueued() {
        backlog += 1
        dropPagesReadForCopy()
    }

    /// Queues the lent buffers no frame holds any more (data thread). The stream calls it at the start of each
    /// cycle and before it lends a buffer, after letting go of its own last frame.
    func queueReturned() {
        var i = lentCount
        while i > 0 {
            i -= 1
            guard isKnownUniquelyReferenced(&lent[i].storage) else { continue }
            // The reads of whoever released the last frame happen before the producer may write the buffer again.
            atomicMemoryFence(ordering: .acquiring)
            let known = lent[i]
            removeLent(at: i)
            requeue(known)
        }
    }

    /// Inline, so that the usual case (`.persistent`) costs a comparison and no call.
    @inline(__always)
    private func dropPagesReadForCopy() {
        guard mapping == .whileLent, !readForCopy.isEmpty else { return }
        dropPagesReadForCopyNow()
    }

    @inline(never)
    private func dropPagesReadForCopyNow() {
        for known in readForCopy where !known.isLent { known.mapping.dropPages() }
        readForCopy.removeAll(keepingCapacity: true)
    }

    /// A buffer whose frames are all gone: its reads end, its pages may go (`.whileLent`), and it goes back.
    private func requeue(_ known: LentBuffer) {
        known.isLent = false
        known.mapping.endRead()
        if mapping == .whileLent { known.mapping.dropPages() }
        guard !known.removed, let stream else { return }
        backlog += 1
        pw_stream_queue_buffer(stream, known.buffer)
    }
}
