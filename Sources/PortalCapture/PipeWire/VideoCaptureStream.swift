import CPipeWire
import Glibc
import Synchronization

/// A video consumer: a `pw_stream` (direction `SPA_DIRECTION_INPUT`, `AUTOCONNECT`; `MAP_BUFFERS` only without `zeroCopy`) linked to a
/// screen-cast node, handing each frame on as a `VideoFrame` that borrows PipeWire's buffer (no copy) or, when
/// it cannot, holds a copy.
///
/// Threading contract: by default (`options.processThread == .data`) the stream uses
/// `PW_STREAM_FLAG_RT_PROCESS`, so `process`, and with it `frameHandler` and `storageProvider`, run on the
/// context's data thread (the thread PipeWire wakes for each graph cycle; not the loop thread, and without
/// the loop lock): one thread wake-up per frame fewer than a `process` handed to the loop thread
/// (bench/README.md, capture). They must not block or take the loop lock: hand the frame to a queue and
/// return (`stop()` from the frame handler works: see there). With `.loop` they run on the loop thread with
/// the loop lock held. `eventHandler` runs on the loop thread with the loop lock held; do not call `stop()`
/// or `PipeWireCore.close()` from it (it works, but defers the teardown). The `events` sequence carries the
/// same events for async consumers. The frame path's state is shared by the two threads under a frame lock
/// of its own, never held while calling into PipeWire from the loop thread (a blocking invoke onto the data
/// thread would wait for it) nor while `frameHandler` runs. Only the thread running `process` queues buffers
/// back to PipeWire (`BufferLender`). On the data thread, an end reported on the loop thread (an error, the
/// watchdog) can come while a frame handler still runs, and `stop()` called on a third thread may return
/// before a handler in progress does. Released last inside `process`, the stream tears itself down on
/// another thread (see `StreamHandle.destroyElsewhere`).
///
/// The frame path (`process`): dequeue every waiting buffer, take the newest one with valid pixels (older ones
/// are counted as `skippedStale`), apply the cursor metadata of all of them in order, and call
/// `frameHandler`. The frame borrows the newest buffer (`BufferLender`: a memfd buffer is mapped by us and
/// queued back to PipeWire when the last reference to the frame goes, on any thread), unless `zeroCopy` is
/// off, the buffer is not memfd, or too many buffers are already out: then the pixels are copied into a
/// storage (from the provider, or the stream's own small pool). Every other buffer is requeued at once
/// (always, in `defer`). A zero-size chunk is metadata only: the last frame is handed on again with the new
/// cursor. Buffers flagged corrupted are skipped.
///
/// DMA-BUF (`linearDmaBuf`, on by default): one EnumFormat per pixel format carries
/// `SPA_FORMAT_VIDEO_modifier` (MANDATORY | DONT_FIXATE, an enum of `DRM_FORMAT_MOD_LINEAR` and
/// `DRM_FORMAT_MOD_INVALID`), ahead of the shared-memory EnumFormat, as PipeWire's dma-buf doc describes; the
/// producer fixates the modifier. A linear DMA-BUF is mapped read-only like a memfd and read between
/// `DMA_BUF_IOCTL_SYNC` start/end (`DmaBufAccess`). Any other fixated modifier (the implicit `INVALID` one,
/// or anything tiled) cannot be read by mmap: the stream withdraws its DMA-BUF formats (`pw_stream_update_params`
/// with the shared-memory EnumFormat alone), which renegotiates to MemFd / MemPtr, and reports
/// `.dmaBufRefused(modifier)` (also in `statistics.refusedModifiers`). Tested only with a producer whose
/// "DMA-BUFs" are memfds (no GPU here): the negotiation and the mmap path are proven, a GPU's buffers are not.
public final class VideoCaptureStream: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `handle`, `lender`, `stopping`, `format`, `modifier`, `offersDmaBuf`,
    // `copyMappings`, `pool`, `cursorBox`, `lastFrame`, `sequence` and `frameCounts` are only touched under
    // `frameLock` (the data thread's `process` and the loop thread's callbacks and teardown share them; a
    // teardown on the data thread clears `handle` there). `shared` is a Mutex; everything else is immutable.
    public let core: PipeWireCore
    public let target: PipeWireTarget
    public let options: VideoCaptureOptions
    private let frameHandler: @Sendable (consuming VideoFrame) -> Void
    private let storageProvider: (@Sendable (Int) -> FrameStorage?)?
    private let lifecycle: StreamLifecycle<VideoCaptureEvent>
    private let shared = Mutex(Shared())
    private let frameLock = Mutex(())
    // The frame lock makes accesses exclusive, so these skip the runtime's exclusivity check
    // (`swift_beginAccess`, a thread-local lookup each): on the data thread every access starts from cold
    // caches (bench/README.md, capture).
    @exclusivity(unchecked) private var handle: StreamHandle?
    @exclusivity(unchecked) private var lender: BufferLender?
    @exclusivity(unchecked) private var stopping = false
    @exclusivity(unchecked) private var format: VideoFormat?
    /// The modifier of the current format (nil: shared memory), and whether DMA-BUF formats are still
    /// offered (false after a refusal: the stream keeps to shared memory from then on).
    @exclusivity(unchecked) private var modifier: VideoParams.NegotiatedModifier?
    @exclusivity(unchecked) private var offersDmaBuf: Bool
    private let copyMappings = CopyPathMappings()
    @exclusivity(unchecked) private var pool: [FrameStorage] = []
    /// The cursor as the last buffers left it, boxed once per change and shared by the frames (`VideoFrame.cursorBox`).
    @exclusivity(unchecked) private var cursorBox: CursorBox?
    /// The raw cursor meta of the last buffer read (see `BufferMetadata.CursorSnapshot`).
    @exclusivity(unchecked) private var lastCursorSnapshot = BufferMetadata.CursorSnapshot()
    /// The last visible cursor (`cursorBox`'s state while one is shown, kept while it is hidden): a position-only
    /// meta, also after the cursor was hidden, keeps its hotspot (and bitmap).
    @exclusivity(unchecked) private var lastVisibleCursor: CursorState?
    @exclusivity(unchecked) private var lastFrame: VideoFrame?
    @exclusivity(unchecked) private var sequence: UInt64 = 0
    /// The frame path's counters, kept under the frame lock (one lock per cycle, not two); `statistics` adds
    /// the modifiers (in `shared`).
    @exclusivity(unchecked) private var frameCounts = VideoCaptureStatistics()
    /// Where `processCycle` collects the buffers waiting in one cycle (under the frame lock): allocated once, as a
    /// temporary allocation per cycle wrapped its result in a closure and a `Result`, more code per frame.
    private let waiting = UnsafeMutablePointer<UnsafeMutablePointer<pw_buffer>>.allocate(capacity: waitingCapacity)
    private static let waitingCapacity = 32

    private struct Shared {
        var state: PipeWireStreamState = .unconnected
        var format: VideoFormat?
        var nodeID: UInt32?
        /// The statistics kept here rather than in `frameCounts` (changed on the loop thread).
        var modifier: DRMFormatModifier?
        var refusedModifiers: [DRMFormatModifier] = []
    }

    /// Creates the stream on `core` and connects it to `target` (`pw_stream_connect`).
    ///
    /// - Parameters:
    ///   - storageProvider: returns a storage of at least the given byte count for the next frame, or nil to
    ///     skip it (counted); called on the thread running `process`, with the frame lock held (it must not
    ///     block, call `stop()` or read `statistics`, which takes that lock). Without one the stream keeps its
    ///     own pool.
    ///   - eventHandler: called on the loop thread for each event (also in `events`).
    ///   - frameHandler: called on the thread running `process` (see the type's threading contract) with each
    ///     frame; must not block.
    public init(core: PipeWireCore, target: PipeWireTarget, options: VideoCaptureOptions = VideoCaptureOptions(),
                storageProvider: (@Sendable (Int) -> FrameStorage?)? = nil,
                eventHandler: (@Sendable (VideoCaptureEvent) -> Void)? = nil,
                frameHandler: @escaping @Sendable (consuming VideoFrame) -> Void) throws(PipeWireError) {
        try options.validate()
        self.core = core
        self.target = target
        self.options = options
        self.frameHandler = frameHandler
        self.storageProvider = storageProvider
        offersDmaBuf = options.linearDmaBuf
        lifecycle = StreamLifecycle(handler: eventHandler, endEvent: { .ended($0) })
        try core.withLock { () throws(PipeWireError) in try connectLocked() }
    }

    /// Lets the owner of the frame handler list what the handler reaches, to be prefetched with the stream's
    /// own state each time the data thread wakes (see `CacheWarmer`). Nothing once the stream has ended.
    func warmCaches(_ add: (CacheWarmer) -> Void) {
        guard let warmer = frameLock.withLock({ _ in handle?.cacheWarmer }) else { return }
        add(warmer)
    }

    deinit {
        teardown(cause: .stopped)
        waiting.deallocate()
    }

    /// Events in order: state changes, format changes, then exactly one `.ended`, after which it finishes.
    public var events: AsyncStream<VideoCaptureEvent> { lifecycle.events }

    /// The stream's state (`pw_stream_state`).
    public var state: PipeWireStreamState { shared.withLock { $0.state } }

    /// The negotiated format, nil before negotiation.
    public var currentFormat: VideoFormat? { shared.withLock { $0.format } }

    /// Our consumer node's global id, once connected (`pw_stream_get_node_id`).
    public var nodeID: UInt32? { shared.withLock { $0.nodeID } }

    /// Counters so far.
    public var statistics: VideoCaptureStatistics {
        var s = frameLock.withLock { _ in frameCounts }
        (s.modifier, s.refusedModifiers) = shared.withLock { ($0.modifier, $0.refusedModifiers) }
        return s
    }

    /// Why the stream ended, or nil while it runs.
    public var endCause: PipeWireStreamEndCause? { lifecycle.endCause }

    /// Disconnects and destroys the stream (`pw_stream_destroy`); reports `.ended(.stopped)` (on the calling
    /// thread) unless it had already ended. Idempotent. Called from the frame handler on the data thread, it
    /// makes no frame after this one and leaves the teardown to another thread (the stream cannot be
    /// destroyed under its own `process`, and the data thread must not wait for the loop lock), which then
    /// reports the end (`teardownFromDataThread`).
    public func stop() {
        teardown(cause: .stopped)
    }

    // MARK: connection (lock held)

    private func connectLocked() throws(PipeWireError) {
        guard let pwCore = core.core, !core.isClosed else { throw .notConnected }
        if let failure = core.failure { throw failure }
        var props: [String: String] = [
            PW_KEY_MEDIA_TYPE: "Video", PW_KEY_MEDIA_CATEGORY: "Capture", PW_KEY_MEDIA_ROLE: "Screen",
            PW_KEY_NODE_NAME: options.nodeName,
        ]
        var targetID = CPW_ID_ANY
        // With the lender, memfd buffers are mapped by it alone (MemPtr buffers come mapped either way).
        var flags = PW_STREAM_FLAG_AUTOCONNECT.rawValue | (options.zeroCopy ? 0 : PW_STREAM_FLAG_MAP_BUFFERS.rawValue)
        if options.processThread == .data { flags |= PW_STREAM_FLAG_RT_PROCESS.rawValue }
        switch target {
        case .default: break
        case .node(let id):
            targetID = id
            flags |= PW_STREAM_FLAG_DONT_RECONNECT.rawValue
        case .object(let name):
            props[PW_KEY_TARGET_OBJECT] = name
            flags |= PW_STREAM_FLAG_DONT_RECONNECT.rawValue
        }
        props.merge(options.properties) { $1 }
        let handle = try StreamHandle(core: pwCore, name: options.nodeName, properties: props, owner: self)
        // On the loop thread a released buffer reaches the producer a cycle later than on the data thread (the
        // cycle's recycling comes before the `process` the loop thread runs): the producer then keeps at least
        // two, so that it always has one to fill while the returned one waits (with one, two buffers stall).
        let reserve = options.processThread == .loop ? max(options.buffersLeftToProducer, 2) : options.buffersLeftToProducer
        let lender = options.zeroCopy
            ? BufferLender(maximumLent: options.maximumBorrowedFrames, reserve: reserve, mapping: options.bufferMapping)
            : nil
        lender?.attach(handle.stream!)
        // What every `process` reaches, roughly in the order it does (see `CacheWarmer`); the lender adds its
        // buffers as they come, a frame handler what it reaches (`warmCaches`).
        let warmer = handle.cacheWarmer
        warmer.add(object: handle)
        warmer.add(object: self)
        warmer.addFramePathCode()
        warmer.add(object: lifecycle)
        warmer.add(allocation: waiting)
        lender?.cacheWarmer = warmer
        // Set before connecting: buffers and the first `process` may come as soon as it is linked.
        let b = SPAPodBuilder()
        frameLock.withLock { _ in
            self.handle = handle
            self.lender = lender
            enumFormats(into: b)
        }
        let rc = try b.withPods("the video EnumFormat") { pods, count throws(PipeWireError) in
            pw_stream_connect(handle.stream, SPA_DIRECTION_INPUT, targetID, pw_stream_flags(flags), pods, count)
        }
        guard rc >= 0 else {
            frameLock.withLock { _ in
                lender?.close()
                self.handle = nil
                self.lender = nil
            }
            handle.destroy()
            throw .streamConnectFailed(errno: -rc)
        }
        core.addObserver(self)
        if let timeout = options.noFrameTimeout { lifecycle.startWatchdog(loop: core.loop, timeout: timeout) }
    }

    /// Modifiers offered with DMA-BUF: linear, which mmap reads, and `INVALID` (modifier-less buffers), so that
    /// a producer that knows only the implicit layout reaches a format this stream sees, refuses and reports,
    /// rather than failing to match in silence. A producer following PipeWire's doc tries the explicit
    /// modifiers first and so picks linear when it can.
    static let offeredModifiers: [DRMFormatModifier] = [.linear, .invalid]

    /// The EnumFormat pods: with DMA-BUF, one per pixel format with the modifier, then the shared-memory one.
    private func enumFormats(into b: SPAPodBuilder) {
        let size = (options.preferredWidth, options.preferredHeight), maxSize = (options.maxWidth, options.maxHeight)
        if offersDmaBuf {
            for f in options.formats {
                VideoParams.enumFormat(into: b, formats: [f], modifiers: Self.offeredModifiers, preferredSize: size,
                                       minSize: (1, 1), maxSize: maxSize,
                                       preferredRate: options.preferredFrameRate, maxRate: options.maxFrameRate)
            }
        }
        VideoParams.enumFormat(into: b, formats: options.formats, preferredSize: size, minSize: (1, 1),
                               maxSize: maxSize, preferredRate: options.preferredFrameRate, maxRate: options.maxFrameRate)
    }

    private func teardown(cause: PipeWireStreamEndCause) {
        if core.isOnDataThread {
            teardownFromDataThread(cause: cause)
            return
        }
        core.withLock {
            lifecycle.stopWatchdog()
            core.removeObserver(self)
            var going: StreamHandle?
            frameLock.withLock { _ in
                stopping = true
                lender?.close()   // before the stream goes: frames still out keep their mapping, never requeue
                lender = nil
                going = handle
                handle = nil
            }
            // Outside the frame lock: destroying waits for the data thread to leave `process`.
            going?.destroy(on: core)
            frameLock.withLock { _ in
                copyMappings.removeAll()
                lastFrame = nil
            }
        }
        lifecycle.end(cause)
    }

    /// The teardown on the data thread (`stop()` from a frame handler, or the last reference released inside
    /// `process`): no frame is made from now on, and the rest (which needs the loop lock, and a stream
    /// destroyed from outside its own `process`) happens on another thread, with the parts it needs and not
    /// `self`. The core's observer entry for this object is left to lapse (weak; `coreFailed` sees `stopping`).
    private func teardownFromDataThread(cause: PipeWireStreamEndCause) {
        var going: StreamHandle?
        var lender: BufferLender?
        frameLock.withLock { _ in
            stopping = true
            going = handle
            handle = nil
            lender = self.lender
            self.lender = nil
            lastFrame = nil
        }
        let lenderToClose = lender
        lifecycle.end(cause, destroyingElsewhere: going, core: core, before: {
            lenderToClose?.close()   // before the stream goes: frames still out keep their mapping, never requeue
        })
    }

    private func update(_ body: (inout Shared) -> Void) {
        shared.withLock { body(&$0) }
    }
}

// MARK: - pw_stream events (loop thread, lock held)

extension VideoCaptureStream: StreamHandleOwner {
    func streamStateChanged(from old: PipeWireStreamState, to new: PipeWireStreamState, error: String?) {
        let nodeID = frameLock.withLock { _ in handle }?.stream.map { pw_stream_get_node_id($0) }
        update {
            $0.state = new
            if let nodeID, nodeID != CPW_ID_ANY { $0.nodeID = nodeID }
        }
        lifecycle.follow(new, error: error, stopping: frameLock.withLock { _ in stopping }) { .stateChanged($0) }
    }

    func streamParamChanged(id: UInt32, param: UnsafePointer<spa_pod>?) {
        guard id == SPA_PARAM_Format.rawValue, let stream = frameLock.withLock({ _ in handle })?.stream else { return }
        guard let param else {   // the format was cleared (unlinked)
            frameLock.withLock { _ in
                format = nil
                modifier = nil
            }
            update { $0.format = nil; $0.modifier = nil }
            return
        }
        let newFormat: VideoFormat
        let newModifier: VideoParams.NegotiatedModifier?
        do {
            newFormat = try VideoParams.parseFormat(param)
            newModifier = try VideoParams.modifier(in: param)
        } catch {
            lifecycle.end(.streamError(error.description))
            return
        }
        if case .fixed(let m) = newModifier, !m.isLinear {
            refuse(m, stream: stream)
            return
        }
        let changed = frameLock.withLock { _ -> Bool in
            let changed = newFormat != format
            format = newFormat
            modifier = newModifier
            // The last frame is of the old format: a cursor-only buffer must not hand it on after the change.
            if changed { lastFrame = nil }
            return changed
        }
        let fixed: DRMFormatModifier? = if case .fixed(let m) = newModifier { m } else { nil }
        update { $0.format = newFormat; $0.modifier = fixed }
        // Frames borrow buffers until the sinks let go, and `buffersLeftToProducer` always stay with the
        // producer; a frame is copied only when more are out. Buffers live in the producer's memory (a memfd),
        // so more of them cost this process address space, not copies.
        let b = SPAPodBuilder()
        VideoParams.buffers(into: b, stride: newFormat.minimumStride, height: newFormat.height,
                            count: (Int32(options.bufferCount), 2, 16),
                            // With a modifier (linear, or one the producer has yet to pick among those offered)
                            // DMA-BUFs are allowed; a pick that is not linear is refused above.
                            dataTypes: newModifier == nil ? [SPA_DATA_MemPtr, SPA_DATA_MemFd]
                                : [SPA_DATA_MemPtr, SPA_DATA_MemFd, SPA_DATA_DmaBuf])
        VideoParams.meta(into: b, SPA_META_Header, size: MemoryLayout<spa_meta_header>.size)
        VideoParams.meta(into: b, SPA_META_VideoCrop, size: MemoryLayout<spa_meta_region>.size)
        if options.cursorMetadata {
            VideoParams.cursorMeta(into: b, preferred: min(64, options.maxCursorSize), max: options.maxCursorSize)
        }
        do {
            _ = try b.withPods("the video Buffers and Meta params") { pods, count throws(PipeWireError) in
                pw_stream_update_params(stream, pods, count)
            }
        } catch {
            lifecycle.end(.streamError(error.description))
            return
        }
        // A DMA-BUF negotiation sets the same format twice (modifier still open, then fixed): report it once.
        if changed { lifecycle.emit(.formatChanged(newFormat)) }
    }

    /// The producer fixated `refused`, which mmap cannot read: withdraw the DMA-BUF formats for good
    /// (`pw_stream_update_params` with the shared-memory EnumFormat alone replaces the EnumFormat params,
    /// which makes the link renegotiate) and report it. Buffers that arrive meanwhile are skipped as invalid.
    private func refuse(_ refused: DRMFormatModifier, stream: OpaquePointer) {
        let b = SPAPodBuilder()
        frameLock.withLock { _ in
            offersDmaBuf = false
            modifier = .fixed(refused)
            enumFormats(into: b)
        }
        update { $0.refusedModifiers.append(refused); $0.modifier = nil }
        do throws(PipeWireError) {
            let rc = try b.withPods("the shared-memory EnumFormat") { pods, count throws(PipeWireError) in
                pw_stream_update_params(stream, pods, count)
            }
            if rc < 0 { throw .streamConnectFailed(errno: -rc) }
        } catch {
            lifecycle.end(.streamError(error.description))
            return
        }
        lifecycle.emit(.dmaBufRefused(refused))
    }

    func streamAddBuffer(_ buffer: UnsafeMutablePointer<pw_buffer>) {
        let readable = frameLock.withLock { _ -> Bool in
            if let lender, lender.add(buffer) { return true }
            return copyMappings.add(buffer)
        }
        // A DMA-BUF that cannot be mapped (a driver refusing CPU access, or no size to map) can never be read:
        // ask for shared memory instead, once this callback has returned (parameters are not updated from
        // inside the buffer negotiation).
        guard !readable else { return }
        core.deferOnLoop { [weak self] in self?.refuseUnmappableDmaBuf() }
    }

    /// The DMA-BUF modifier in use is refused, as one mmap cannot read (see `refuse`), unless the stream has
    /// left it meanwhile.
    private func refuseUnmappableDmaBuf() {
        let current = frameLock.withLock { _ -> (OpaquePointer, DRMFormatModifier)? in
            guard offersDmaBuf, !stopping, let stream = handle?.stream, case .fixed(let m)? = modifier else { return nil }
            return (stream, m)
        }
        guard let (stream, refused) = current else { return }
        refuse(refused, stream: stream)
    }

    func streamRemoveBuffer(_ buffer: UnsafeMutablePointer<pw_buffer>) {
        frameLock.withLock { _ in
            lender?.remove(buffer)
            copyMappings.remove(buffer)
        }
    }

    /// On the data thread (`PW_STREAM_FLAG_RT_PROCESS`): the frame is made under the frame lock, and handed
    /// on after it is released.
    func streamProcess() {
        let now = monotonicNanoseconds()
        lifecycle.noteActivity(now)
        var delivered: VideoFrame?
        frameLock.withLock { _ in delivered = processCycle(now: now) }
        // Moved, not copied, into the handler (a copy is two retains now and two releases later).
        if let delivered = delivered.take() { frameHandler(delivered) }
    }

    /// One graph cycle, frame lock held: queues the buffers released since the last cycle, takes every
    /// waiting buffer, and returns the frame to hand on (if any). Only this thread queues buffers.
    private func processCycle(now: UInt64) -> VideoFrame? {
        guard !stopping, let stream = handle?.stream else { return nil }
        lender?.cycleStarted()
        var count = 0
        while count < Self.waitingCapacity, let b = pw_stream_dequeue_buffer(stream) {
            waiting[count] = b
            count += 1
        }
        var lent: UnsafeMutablePointer<pw_buffer>?
        defer {
            for i in 0..<count where waiting[i] != lent {
                pw_stream_queue_buffer(stream, waiting[i])
                lender?.noteQueued()
            }
        }
        guard count > 0 else { return nil }
        let made = process(UnsafeMutableBufferPointer(start: waiting, count: count), stream: stream, now: now)
        lent = made.lent
        return made.frame
    }

    func coreFailed(res: Int32, message: String) {
        guard !frameLock.withLock({ _ in stopping }) else { return }
        lifecycle.end(.coreError(res: res, message: message))
    }

    func coreWillClose() {
        teardown(cause: .stopped)
    }
}

extension VideoCaptureStream: PipeWireCoreObserver {}

// MARK: - the frame path

extension VideoCaptureStream {
    /// Picks the newest buffer with pixels among `buffers` (oldest first), applies cursor metadata, and makes
    /// its frame, borrowed or copied. Returns the frame to hand on, and the buffer lent to it, which the
    /// caller must not requeue; the caller requeues every other one.
    private func process(_ buffers: UnsafeMutableBufferPointer<UnsafeMutablePointer<pw_buffer>>, stream: OpaquePointer,
                         now: UInt64) -> (frame: VideoFrame?, lent: UnsafeMutablePointer<pw_buffer>?) {
        var stale = 0
        var lentBuffer: UnsafeMutablePointer<pw_buffer>?
        // The newest buffer with pixels, as three plain values (an optional tuple is copied through the
        // runtime's generic value witnesses, which a cold data thread pays for).
        var newestPW: UnsafeMutablePointer<pw_buffer>?
        var newestBuffer: UnsafeMutablePointer<spa_buffer>?
        var newestHeader: UnsafeMutablePointer<spa_meta_header>?
        var sawMetadataOnly = false
        var metadataHeader: UnsafeMutablePointer<spa_meta_header>?
        var cursorChanged = false
        let ended = lifecycle.hasEnded
        for pwBuffer in buffers {
            guard let spaBuffer = pwBuffer.pointee.buffer else { frameCounts.skippedInvalid += 1; continue }
            // The full read only when the raw meta changed or carries a bitmap: most buffers repeat the last one.
            if options.cursorMetadata, case let snapshot = BufferMetadata.cursorSnapshot(in: spaBuffer),
               snapshot != lastCursorSnapshot || snapshot.bitmapOffset != 0, updateCursor(from: spaBuffer, snapshot) {
                cursorChanged = true
            }
            let header = spa_buffer_find_meta_data(spaBuffer, SPA_META_Header.rawValue,
                                                   MemoryLayout<spa_meta_header>.size)?
                .assumingMemoryBound(to: spa_meta_header.self)
            guard spaBuffer.pointee.n_datas > 0, let chunk = spaBuffer.pointee.datas[0].chunk else {
                frameCounts.skippedInvalid += 1
                continue
            }
            // First: a chunk without pixels carries only metadata, whatever its flags say. Mutter marks the
            // buffers it sends for a cursor move alone as size 0 and corrupted (there are no pixels to trust).
            if chunk.pointee.size == 0 {
                sawMetadataOnly = true
                metadataHeader = header
                continue
            }
            if (chunk.pointee.flags & Int32(bitPattern: CPW_CHUNK_FLAG_CORRUPTED)) != 0
                || (header.map { $0.pointee.flags & CPW_META_HEADER_FLAG_CORRUPTED } ?? 0) != 0 {
                frameCounts.skippedCorrupted += 1
                continue
            }
            if newestPW != nil { stale += 1 }
            newestPW = pwBuffer
            newestBuffer = spaBuffer
            newestHeader = header
        }
        frameCounts.buffersReceived += buffers.count
        frameCounts.skippedStale += stale
        sequence &+= UInt64(stale)
        if ended { return (nil, nil) }
        var made: VideoFrame?
        if let newestPW, let newestBuffer {
            sequence &+= 1
            lastFrame = nil   // let go of a buffer it may borrow before lending the next one,
            lender?.queueReturned()   // and queue it, unless a sink still holds it
            guard let format else { frameCounts.skippedInvalid += 1; return (nil, nil) }
            let timestamp = Self.timestamp(header: newestHeader, stream: stream, now: now)
            var outcome = FrameOutcome.invalid
            if let frame = frame(newestPW, newestBuffer, format: format, timestamp: timestamp, outcome: &outcome) {
                frameCounts.framesDelivered += 1
                if outcome == .borrowed {
                    frameCounts.framesBorrowed += 1
                    lentBuffer = newestPW
                }
                if newestBuffer.pointee.datas[0].type == SPA_DATA_DmaBuf.rawValue { frameCounts.framesFromDmaBuf += 1 }
                lastFrame = frame   // the one copy: kept for a metadata-only update
                made = consume frame
            } else if outcome == .noStorage {
                frameCounts.skippedNoStorage += 1
            } else {
                frameCounts.skippedInvalid += 1
            }
        } else if sawMetadataOnly, cursorChanged, var frame = lastFrame {
            sequence &+= 1
            frame.cursorBox = cursorBox
            frame.sequence = sequence
            // Stamped as pixel frames are (the buffer's pts, else the stream's time), never before the frame
            // it repeats: stamped by arrival, a cursor move could come out later than the next picture.
            frame.timestamp = max(frame.timestamp, Self.timestamp(header: metadataHeader, stream: stream, now: now))
            lastFrame = frame
            frameCounts.cursorUpdates += 1
            made = frame
        }
        return (made, lentBuffer)
    }

    /// Reads the cursor meta that changed (`snapshot` is its raw form) into `cursorBox`; returns whether the
    /// cursor the frames carry changed. Out of line: most buffers repeat the last cursor, and inlined it spread
    /// the frame path's code (bench/capture/footprint).
    @inline(never)
    private func updateCursor(from spaBuffer: UnsafeMutablePointer<spa_buffer>,
                              _ snapshot: BufferMetadata.CursorSnapshot) -> Bool {
        lastCursorSnapshot = snapshot
        switch BufferMetadata.cursor(in: spaBuffer, previous: lastVisibleCursor) {
        case .absent:
            return false
        case .hidden:
            defer { cursorBox = nil }
            return cursorBox != nil
        case .visible(let state):
            lastVisibleCursor = state
            guard state != cursorBox?.state else { return false }
            cursorBox = CursorBox(state)
            return true
        }
    }

    /// What `frame` made of a buffer, beside the frame itself (a plain value: a frame inside an enum's payload
    /// was copied out of it).
    private enum FrameOutcome {
        case borrowed
        case copied
        case noStorage
        case invalid
    }

    /// The frame in `buffer`: borrowing it when the lender can, else copied; nil when there is none (`outcome`
    /// says why).
    private func frame(_ pwBuffer: UnsafeMutablePointer<pw_buffer>, _ buffer: UnsafeMutablePointer<spa_buffer>,
                       format: VideoFormat, timestamp: UInt64, outcome: inout FrameOutcome) -> VideoFrame? {
        let data = buffer.pointee.datas[0]
        guard let chunk = data.chunk?.pointee else { return nil }
        // A DMA-BUF is read only when the linear modifier was fixated (others are refused in negotiation).
        let dmaBuf = DmaBufAccess(data)
        if dmaBuf != nil, modifier != .fixed(.linear) { return nil }
        // What may be read: the lender's mapping or the copy path's (no further than the fd's memory goes), or
        // memory PipeWire handed over mapped (MemPtr), `maxsize`.
        let lenderMaps = lender?.mappedSize(pwBuffer)
        let copyMapping = lenderMaps == nil ? copyMappings.readable(pwBuffer) : nil
        guard let readable = lenderMaps ?? copyMapping?.bytes
                ?? (data.type == SPA_DATA_MemPtr.rawValue && data.data != nil ? Int(data.maxsize) : nil),
              readable > 0 else { return nil }
        let rowBytes = format.minimumStride
        let sourceStride = chunk.stride > 0 ? Int(chunk.stride) : rowBytes
        // PipeWire defines the offset modulo `maxsize` (the claimed size): taken modulo what is readable, an
        // offset past a short memfd's end would wrap back inside it and pass the range check with other bytes.
        let offset = Int(chunk.offset) % (data.maxsize > 0 ? Int(data.maxsize) : readable)
        let needed = sourceStride * (format.height - 1) + rowBytes
        // A DMA-BUF's `chunk.size` measures nothing: a producer that cannot know it writes a placeholder
        // (xdg-desktop-portal-wlr: 9). Its rows are held against the mapping alone.
        guard chunk.stride >= 0, sourceStride >= rowBytes, dmaBuf != nil || Int(chunk.size) >= needed,
              offset + needed <= readable else { return nil }
        let crop = BufferMetadata.crop(buffer, width: format.width, height: format.height)
        if let lender, let storage = lender.lend(pwBuffer, offset: offset, byteCount: sourceStride * format.height) {
            outcome = .borrowed
            var frame = VideoFrame(format: format, stride: sourceStride, timestamp: timestamp, sequence: sequence,
                                   crop: crop, cursorBox: options.cursorMetadata ? cursorBox : nil, storage: storage)
            frame.mayBeHeld = lender.canLendAnother
            return frame
        }
        // The range was checked against `readable` above, the size of the mapping read here.
        guard let base = (lenderMaps != nil ? lender?.mappedData(pwBuffer) : nil) ?? copyMapping?.data
                ?? data.data.map(UnsafeRawPointer.init) else {
            return nil
        }
        let byteCount = rowBytes * format.height
        guard let storage = storage(byteCount: byteCount) else {
            outcome = .noStorage
            return nil
        }
        dmaBuf?.beginRead()
        defer { dmaBuf?.endRead() }
        let source = UnsafeRawPointer(base).advanced(by: offset)
        if sourceStride == rowBytes {
            storage.bytes.copyMemory(from: source, byteCount: byteCount)
        } else {
            for row in 0..<format.height {
                storage.bytes.advanced(by: row * rowBytes).copyMemory(from: source.advanced(by: row * sourceStride),
                                                                      byteCount: rowBytes)
            }
        }
        outcome = .copied
        return VideoFrame(format: format, stride: rowBytes, timestamp: timestamp, sequence: sequence,
                          crop: crop, cursorBox: options.cursorMetadata ? cursorBox : nil, storage: storage)
    }

    /// From the provider, or the own pool: a storage nobody else holds (`isKnownUniquelyReferenced`).
    private func storage(byteCount: Int) -> FrameStorage? {
        if let storageProvider {
            guard let s = storageProvider(byteCount), s.capacity >= byteCount else { return nil }
            return s
        }
        for i in pool.indices where isKnownUniquelyReferenced(&pool[i]) {
            if pool[i].capacity < byteCount { pool[i] = FrameStorage(capacity: byteCount) }
            return pool[i]
        }
        guard pool.count < options.storagePoolSize else { return nil }
        let s = FrameStorage(capacity: byteCount)
        pool.append(s)
        return s
    }

    /// The header's pts when the producer set one (CLOCK_MONOTONIC ns), else the graph time of this cycle
    /// (`pw_stream_get_time_n`), else now.
    private static func timestamp(header: UnsafeMutablePointer<spa_meta_header>?, stream: OpaquePointer,
                                  now: UInt64) -> UInt64 {
        if let pts = header?.pointee.pts, pts > 0 { return UInt64(pts) }
        var time = pw_time()
        if pw_stream_get_time_n(stream, &time, MemoryLayout<pw_time>.size) == 0, time.now > 0 { return UInt64(time.now) }
        return now
    }
}
