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
/// memfd keeps them, the producer's memory is untouched) when the frame borrowing it is given back, and, for a
/// buffer read by the copy path (`mappedData`), once the stream has queued it back (`noteQueued`, or the next
/// `cycleStarted`). Only buffers frames hold are then resident here; a buffer's pages are mapped in again
/// when it is lent (`MADV_POPULATE_READ`).
///
/// Threads: `add`, `remove`, `lend`, `close` run on the loop thread with the loop lock held. A frame may be
/// released on any thread: on the loop thread its buffer is queued at once; elsewhere it is put on a list,
/// never taking the loop lock (so releasing a frame while holding another lock cannot deadlock with the data
/// thread), and queued at the start of the next cycle. Only when the producer would be short of buffers
/// meanwhile is the loop woken for it (`pw_loop_signal_event`): a wake-up per frame costs more than the rest
/// of the frame path.
final class BufferLender: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `stream`, `buffers`, `lentCount`, `backlog`, `readForCopy` are
    // touched on the loop thread (lock held) only; `returned` is a Mutex; `loop`, `threadLoop`, `reserve`,
    // `maximumLent`, `mapping` are immutable.
    private let loop: UnsafeMutablePointer<pw_loop>
    private let threadLoop: OpaquePointer
    private let reserve: Int
    private let mapping: VideoCaptureOptions.BufferMapping
    /// Buffers whose pages the copy path read (`mappedData`) and that are not lent: dropped once queued back.
    private var readForCopy: [LentBuffer] = []
    private var stream: OpaquePointer?
    private var buffers: [UnsafeMutablePointer<pw_buffer>: LentBuffer] = [:]
    private var lentCount = 0
    /// Buffers queued back that the stream has not yet handed to the producer (at most one goes per cycle).
    private var backlog = 0
    private let maximumLent: Int
    private let returned = Mutex(Returned())

    /// Buffers released off the loop thread, and the event source that wakes the loop for them (nil once
    /// closed: signalling happens under this lock, so it never reaches a destroyed source).
    private struct Returned: @unchecked Sendable {
        // Invariant: the source pointer is only signalled or destroyed under the Mutex.
        var source: UnsafeMutablePointer<spa_source>?
        var buffers: [LentBuffer] = []
        /// Whether a returned buffer is needed before the next cycle (few buffers beyond those lendable).
        var wakesLoop = true
    }

    /// A buffer the lender knows: its own mapping and whether a frame holds it.
    final class LentBuffer: @unchecked Sendable {
        // Invariant: `lent` and `removed` are touched on the loop thread only.
        let buffer: UnsafeMutablePointer<pw_buffer>
        let mapping: SharedMapping
        /// Set for a linear DMA-BUF: reads are bracketed with `DMA_BUF_IOCTL_SYNC` (see `DmaBufAccess`).
        let dmaBuf: DmaBufAccess?
        var lent = false
        var removed = false

        init(buffer: UnsafeMutablePointer<pw_buffer>, mapping: SharedMapping, dmaBuf: DmaBufAccess? = nil) {
            self.buffer = buffer
            self.mapping = mapping
            self.dmaBuf = dmaBuf
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

        init?(fd: Int32, offset: Int, size: Int) {
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

        deinit { munmap(region, length) }

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
    init(core: PipeWireCore, maximumLent: Int = 1, reserve: Int = 2,
         mapping: VideoCaptureOptions.BufferMapping = .persistent) {
        loop = core.loop
        threadLoop = core.threadLoop
        self.maximumLent = max(1, maximumLent)
        self.reserve = max(1, reserve)
        self.mapping = mapping
        let source = cpw_loop_add_event(loop, { data, _ in
            Unmanaged<BufferLender>.fromOpaque(data!).takeUnretainedValue().queueReturned()
        }, Unmanaged.passUnretained(self).toOpaque())
        returned.withLock { $0.source = source }
    }

    /// The stream buffers are queued back to (set once connected).
    func attach(_ stream: OpaquePointer) { self.stream = stream }

    /// `add_buffer`: maps a memfd buffer, or a DMA-BUF (the stream negotiates those with the linear modifier
    /// only, so they map like memfds); other kinds are not lent (the caller copies them).
    func add(_ buffer: UnsafeMutablePointer<pw_buffer>) {
        guard let spa = buffer.pointee.buffer, spa.pointee.n_datas > 0 else { return }
        let data = spa.pointee.datas[0]
        guard data.type == SPA_DATA_MemFd.rawValue || data.type == SPA_DATA_DmaBuf.rawValue,
              let mapping = SharedMapping(fd: Int32(truncatingIfNeeded: data.fd), offset: Int(data.mapoffset),
                                          size: Int(data.maxsize)) else { return }
        buffers[buffer] = LentBuffer(buffer: buffer, mapping: mapping, dmaBuf: DmaBufAccess(data))
        noteBufferCount()
    }

    /// `remove_buffer`: a lent buffer stays mapped for its frames but is never queued again.
    func remove(_ buffer: UnsafeMutablePointer<pw_buffer>) {
        guard let known = buffers.removeValue(forKey: buffer) else { return }
        known.removed = true
        if known.lent { lentCount -= 1 }
        noteBufferCount()
    }

    /// Where `buffer`'s data is mapped here (memfd buffers only): the stream does not map them a second time
    /// (no `PW_STREAM_FLAG_MAP_BUFFERS`), so frames that must be copied are read from this mapping too. With
    /// `.whileLent`, the pages read are dropped once the stream queues the buffer back (`noteQueued`).
    func mappedData(_ buffer: UnsafeMutablePointer<pw_buffer>) -> UnsafeRawPointer? {
        guard let known = buffers[buffer] else { return nil }
        if mapping == .whileLent, !known.lent, !readForCopy.contains(where: { $0 === known }) {
            readForCopy.append(known)
        }
        return known.mapping.data
    }

    /// A storage for `byteCount` bytes at `offset` in `buffer`'s data, borrowed without copying; nil when the
    /// buffer is not lendable (not memfd, out of range) or lending it would leave the producer too few.
    /// On success the caller must not queue the buffer: the storage does when released.
    func lend(_ buffer: UnsafeMutablePointer<pw_buffer>, offset: Int, byteCount: Int) -> FrameStorage? {
        guard let known = buffers[buffer], !known.lent, lentCount < maximumLent,
              lentCount + backlog + reserve < buffers.count,
              offset >= 0, offset + byteCount <= known.mapping.size else { return nil }
        known.lent = true
        lentCount += 1
        // Whole, now: one system call costs less than faulting page by page in the reader, and a lent buffer
        // is then either all resident or not at all (RSS samples do not depend on how far a sink has read).
        if mapping == .whileLent { known.mapping.populate() }
        known.dmaBuf?.beginRead()
        return FrameStorage(borrowing: known.mapping.data.advanced(by: offset), capacity: byteCount) { [self] in
            known.dmaBuf?.endRead()
            giveBack(known)
        }
    }

    /// Stops queueing (the stream is going): every buffer is forgotten, lent ones stay mapped for their frames.
    /// Call it before the stream is destroyed, and before the lender's owner lets go of it. Idempotent.
    func close() {
        returned.withLock { r in
            if let source = r.source { cpw_loop_destroy_source(loop, source) }
            r.source = nil
            r.buffers.removeAll()
        }
        for known in buffers.values { known.removed = true }
        buffers.removeAll()
        dropPagesReadForCopy()
        lentCount = 0
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

    /// Queues buffers released off the loop thread.
    func queueReturned() {
        let list = returned.withLock { r -> [LentBuffer] in
            defer { r.buffers.removeAll(keepingCapacity: true) }
            return r.buffers
        }
        for known in list { requeue(known) }
    }

    private func giveBack(_ known: LentBuffer) {
        // The last frame reading it is gone (this runs from its storage's deinit): its pages may go now, on
        // the releasing thread, before the buffer is queued back.
        if mapping == .whileLent { known.mapping.dropPages() }
        // Under the lock, so `close()` (and the core's end, which comes after it) cannot happen in between:
        // once closed, the loop may be gone and nothing of it is touched.
        let onLoopThread = returned.withLock { r -> Bool in
            guard let source = r.source else { return false }
            if pw_thread_loop_in_thread(threadLoop) { return true }
            r.buffers.append(known)
            if r.wakesLoop { _ = cpw_loop_signal_event(loop, source) }   // an eventfd write
            return false
        }
        if onLoopThread { requeue(known) }   // the loop thread holds the loop lock: queue it now
    }

    /// With the producer keeping `reserve` buffers and at most `maximumLent` out, it has two spare ones
    /// (one being filled, one recycling) unless the stream has fewer buffers than that.
    private func noteBufferCount() {
        let tight = buffers.count < maximumLent + reserve + 2
        returned.withLock { $0.wakesLoop = tight }
    }

    private func dropPagesReadForCopy() {
        guard !readForCopy.isEmpty else { return }
        for known in readForCopy where !known.lent { known.mapping.dropPages() }
        readForCopy.removeAll(keepingCapacity: true)
    }

    private func requeue(_ known: LentBuffer) {
        guard known.lent else { return }
        known.lent = false
        guard !known.removed, let stream else { return }
        lentCount -= 1
        backlog += 1
        pw_stream_queue_buffer(stream, known.buffer)
    }
}
