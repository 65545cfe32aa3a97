import CPipeWire
import Glibc
import Synchronization

/// A video source node, as a compositor makes one for a screen cast: a driver `pw_stream`
/// (`SPA_DIRECTION_OUTPUT`, `PW_STREAM_FLAG_DRIVER | PW_STREAM_FLAG_ALLOC_BUFFERS`, `media.class`
/// Video/Source) that allocates its own memfd buffers in `add_buffer` and is triggered by a loop timer at
/// the frame rate (`pw_stream_trigger_process`). Each frame is painted by `render`, stamped with
/// `SPA_META_Header` (pts on CLOCK_MONOTONIC, seq), and optionally carries `SPA_META_Cursor` and
/// `SPA_META_VideoCrop`.
///
/// With `options.dmaBufModifiers` it offers DMA-BUF the way PipeWire's dma-buf doc describes for producers
/// (modifier EnumFormat first, fixate the modifier once the link has intersected it, Buffers of
/// `SPA_DATA_DmaBuf`), with memfds standing in for device buffers (see `VideoProducerOptions`).
///
/// Threading: `render`, `cursor` and `eventHandler` run on the core's loop thread. Public methods may be
/// called from any thread (they take the loop lock).
public final class VideoProducerStream: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `handle`, `timer`, `format`, `frameNumber`, `sentBitmap`,
    // `cropRect` and `stopping` are only touched on the loop thread or with the loop lock held; `shared`
    // is a Mutex; the rest is immutable.
    public let core: PipeWireCore
    public let options: VideoProducerOptions
    private let render: VideoFrameRenderer
    private let cursorProvider: CursorProvider?
    private let lifecycle: StreamLifecycle<VideoProducerEvent>
    private let shared: Mutex<Shared>
    private var handle: StreamHandle?
    private let memory = MemfdBufferSet()
    private var timer: LoopTimer?
    private var stopping = false
    private var offered: VideoFormat
    /// When the offered format last changed without the link having renegotiated yet (monotonic ns).
    private var renegotiationAskedAt: UInt64?
    /// The DMA-BUF modifier this producer fixated (announced alone, first), nil before it picks one.
    private var modifierPick: DRMFormatModifier?
    /// A consumer went from `streaming` to `paused` (unlinked, usually): the next link reclaims buffers.
    private var consumerLeft = false
    private var frameNumber: UInt32 = 0
    private var sentBitmap: CursorBitmap?
    private var cropRect: PixelRect?

    private struct Shared {
        var state: PipeWireStreamState = .unconnected
        var negotiated: VideoFormat?
        var negotiatedModifier: DRMFormatModifier?
        var offered: VideoFormat
        var nodeID: UInt32?
        var paused: Bool
        var framesProduced: UInt64 = 0
        var framesMissed: UInt64 = 0
        var corruptRemaining = 0
        var pixelsFrozen = false
    }

    /// Creates the node and connects it (it waits for a consumer; nothing autoconnects it).
    ///
    /// - Parameters:
    ///   - render: paints each frame (e.g. `TestPattern.render` from PortalTestSupport).
    ///   - cursor: the pointer for each frame when `options.cursorMetadata` is set.
    public init(core: PipeWireCore, options: VideoProducerOptions = VideoProducerOptions(),
                cursor: CursorProvider? = nil,
                eventHandler: (@Sendable (VideoProducerEvent) -> Void)? = nil,
                render: @escaping VideoFrameRenderer) throws(PipeWireError) {
        try options.validate()
        self.core = core
        self.options = options
        self.render = render
        self.cursorProvider = cursor
        offered = options.format
        shared = Mutex(Shared(offered: options.format, paused: options.startPaused))
        lifecycle = StreamLifecycle(handler: eventHandler, endEvent: { .ended($0) })
        try core.withLock { () throws(PipeWireError) in try connectLocked() }
    }

    deinit { teardown(cause: .stopped) }

    public var events: AsyncStream<VideoProducerEvent> { lifecycle.events }
    public var state: PipeWireStreamState { shared.withLock { $0.state } }
    /// The format fixed with the current consumer, nil while none is linked.
    public var negotiatedFormat: VideoFormat? { shared.withLock { $0.negotiated } }
    /// The DRM format modifier fixated with the current consumer: its buffers are `SPA_DATA_DmaBuf` (memfd
    /// stand-ins). Nil while buffers are shared memory or nothing is negotiated.
    public var negotiatedModifier: DRMFormatModifier? { shared.withLock { $0.negotiatedModifier } }
    /// The format offered (changes with `setFormat`).
    public var offeredFormat: VideoFormat { shared.withLock { $0.offered } }
    /// The node's global id once the daemon assigned it (`pw_stream_get_node_id`).
    public var nodeID: UInt32? { shared.withLock { $0.nodeID } }
    /// The node's `object.serial`, once the registry announced the node.
    public var objectSerial: UInt64? { nodeID.flatMap { core.node(id: $0)?.serial } }
    public var isPaused: Bool { shared.withLock { $0.paused } }
    /// Frames queued to PipeWire so far.
    public var framesProduced: UInt64 { shared.withLock { $0.framesProduced } }
    /// Timer ticks with no free buffer (the consumer held them all).
    public var framesMissed: UInt64 { shared.withLock { $0.framesMissed } }
    public var endCause: PipeWireStreamEndCause? { lifecycle.endCause }

    /// Waits until the node has its id and the registry announced it (with `object.serial`).
    public func waitUntilReady(timeout: Duration = .seconds(5)) async throws(PipeWireError) -> PipeWireNodeInfo {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if let id = nodeID, let info = core.node(id: id) { return info }
            if let cause = lifecycle.endCause { throw .streamEnded(cause) }
            if clock.now >= deadline { throw .timedOut("producer node \(options.nodeName) to appear") }
            do { try await Task.sleep(for: .milliseconds(5)) } catch { throw .timedOut("producer node (cancelled)") }
        }
    }

    /// Stops producing frames (the timer keeps running, nothing is triggered).
    public func pause() { shared.withLock { $0.paused = true } }

    /// Produces frames again.
    public func resume() { shared.withLock { $0.paused = false } }

    /// Flags the next `count` frames as corrupted (`SPA_CHUNK_FLAG_CORRUPTED` and
    /// `SPA_META_HEADER_FLAG_CORRUPTED`), for testing consumers.
    public func markNextFramesCorrupted(_ count: Int) { shared.withLock { $0.corruptRemaining = max(0, count) } }

    /// While frozen, buffers carry no pixels (a zero-size chunk), only metadata such as the moving cursor,
    /// as a compositor sends when only the pointer moves.
    public func setPixelsFrozen(_ frozen: Bool) { shared.withLock { $0.pixelsFrozen = frozen } }

    /// The `SPA_META_VideoCrop` region to attach (nil: the whole frame).
    public func setCrop(_ rect: PixelRect?) { core.withLock { cropRect = rect } }

    /// Changes size, pixel format or rate at run time: offers the new format (`pw_stream_update_params`
    /// with a new EnumFormat), which renegotiates with the consumer; buffers are reallocated.
    public func setFormat(_ format: VideoFormat) throws(PipeWireError) {
        try VideoProducerOptions.validate(format)
        try core.withLock { () throws(PipeWireError) in
            guard let stream = handle?.stream else { throw .notConnected }
            offered = format
            modifierPick = nil
            shared.withLock { $0.offered = format }
            try offer(format, on: stream)
            renegotiationAskedAt = Self.sameFrames(shared.withLock { $0.negotiated }, format) ? nil : monotonicNanoseconds()
            scheduleTimer()
        }
    }

    /// `pw_stream_update_params` with a fixed EnumFormat for `format`. Lock held.
    private func offer(_ format: VideoFormat, on stream: OpaquePointer) throws(PipeWireError) {
        let b = SPAPodBuilder()
        enumFormats(into: b, format)
        let rc = try b.withPods("the producer EnumFormat") { pods, n throws(PipeWireError) in
            pw_stream_update_params(stream, pods, n)
        }
        if rc < 0 { throw .streamConnectFailed(errno: -rc) }
    }

    /// The EnumFormat pods for `format`: with DMA-BUF, the fixated modifier (once picked), all modifiers
    /// (`DONT_FIXATE`), then shared memory. Lock held.
    private func enumFormats(into b: SPAPodBuilder, _ format: VideoFormat) {
        let modifiers = options.dmaBufModifiers
        if !modifiers.isEmpty {
            if let modifierPick { VideoParams.fixedFormat(into: b, format, modifiers: [modifierPick], fixated: true) }
            VideoParams.fixedFormat(into: b, format, modifiers: modifiers)
        }
        VideoParams.fixedFormat(into: b, format)
    }

    /// The modifier to fixate among those the link left open: the first of ours that is explicit, else
    /// `.invalid` (allocate without a modifier), as PipeWire's dma-buf doc asks of an allocator.
    static func pickModifier(ours: [DRMFormatModifier], open: [DRMFormatModifier]) -> DRMFormatModifier? {
        ours.first { $0 != .invalid && open.contains($0) } ?? ours.first { open.contains($0) }
    }

    /// A changed EnumFormat is what makes the link renegotiate, but under load the change is sometimes never
    /// acted on (seen in full test runs: frames kept their old size for 10 s). Offering it again after
    /// `renegotiationRetry` without a new format negotiated repairs that. Lock held.
    private func retryRenegotiationIfStuck(stream: OpaquePointer) {
        guard let asked = renegotiationAskedAt else { return }
        if Self.sameFrames(shared.withLock({ $0.negotiated }), offered) {
            renegotiationAskedAt = nil
            return
        }
        let now = monotonicNanoseconds()
        guard now &- asked >= Self.renegotiationRetry else { return }
        renegotiationAskedAt = now
        try? offer(offered, on: stream)
    }

    /// Whether frames in `negotiated` are what `offered` asks for (size and pixel format; the rate may be
    /// given differently by the link).
    private static func sameFrames(_ negotiated: VideoFormat?, _ offered: VideoFormat) -> Bool {
        guard let negotiated else { return false }
        return negotiated.width == offered.width && negotiated.height == offered.height
            && negotiated.pixelFormat == offered.pixelFormat
    }

    /// How long a format change may wait for the link before it is offered again.
    static let renegotiationRetry: UInt64 = 500_000_000

    /// Resizes, keeping pixel format and rate.
    public func resize(width: Int, height: Int) throws(PipeWireError) {
        var f = offeredFormat
        f.width = width
        f.height = height
        try setFormat(f)
    }

    /// Destroys the node (consumers see it go); reports `.ended(.stopped)`. Idempotent.
    public func stop() { teardown(cause: .stopped) }

    // MARK: connection (lock held)

    private func connectLocked() throws(PipeWireError) {
        guard let pwCore = core.core, !core.isClosed else { throw .notConnected }
        if let failure = core.failure { throw failure }
        var props: [String: String] = [
            PW_KEY_MEDIA_CLASS: options.mediaClass, PW_KEY_NODE_NAME: options.nodeName,
            PW_KEY_NODE_DESCRIPTION: options.nodeName,
        ]
        props.merge(options.properties) { $1 }
        let handle = try StreamHandle(core: pwCore, name: options.nodeName, properties: props, owner: self)
        let b = SPAPodBuilder()
        enumFormats(into: b, offered)
        let flags = PW_STREAM_FLAG_DRIVER.rawValue | PW_STREAM_FLAG_ALLOC_BUFFERS.rawValue
        let rc = try b.withPods("the producer EnumFormat") { pods, n throws(PipeWireError) in
            pw_stream_connect(handle.stream, SPA_DIRECTION_OUTPUT, CPW_ID_ANY, pw_stream_flags(flags), pods, n)
        }
        guard rc >= 0 else {
            handle.destroy()
            throw .streamConnectFailed(errno: -rc)
        }
        self.handle = handle
        core.addObserver(self)
        timer = LoopTimer(loop: core.loop) { [unowned self] in self.tick() }
        scheduleTimer()
    }

    private func scheduleTimer() {
        let rate = offered.frameRate
        let interval = Duration.nanoseconds(Int64(1_000_000_000) * Int64(rate.denominator) / Int64(rate.numerator))
        timer?.schedule(after: interval, every: interval)
    }

    private func teardown(cause: PipeWireStreamEndCause) {
        core.withLock {
            stopping = true
            timer?.destroy()
            timer = nil
            core.removeObserver(self)
            let memory = self.memory
            handle?.destroy(on: core) { memory.releaseAll() }
            handle = nil
        }
        lifecycle.end(cause)
    }

    /// The frame timer: one graph cycle per tick while streaming and not paused.
    private func tick() {
        guard let stream = handle?.stream else { return }
        retryRenegotiationIfStuck(stream: stream)
        let go = shared.withLock { $0.state == .streaming && !$0.paused }
        if go { _ = pw_stream_trigger_process(stream) }
    }
}

// MARK: - pw_stream events (loop thread, lock held)

extension VideoProducerStream: StreamHandleOwner, PipeWireCoreObserver {
    func streamStateChanged(from old: PipeWireStreamState, to new: PipeWireStreamState, error: String?) {
        let nodeID = handle?.stream.map { pw_stream_get_node_id($0) }
        shared.withLock {
            $0.state = new
            if let nodeID, nodeID != CPW_ID_ANY { $0.nodeID = nodeID }
        }
        lifecycle.follow(new, error: error, stopping: stopping) { .stateChanged($0) }
        reclaimBuffersAfterUnlink(from: old, to: new)
    }

    /// PipeWire 0.3.65 keeps an output port's buffers (and format) across links ("reusing output buffers" in
    /// impl-link.c's `do_allocation`), and a consumer hands buffers back only through the link's io area, one
    /// per cycle. Whatever the leaving consumer still held (the frame it was reading, the ones waiting to be
    /// recycled) never comes back to the stream's free queue, and nothing clears it: measured, a 4-buffer
    /// 60 fps node made 60, 45, 20, then 0-15 fps for consumers one after another. So when a consumer links
    /// after one left (`paused` -> `streaming`), offer the EnumFormat again: the link renegotiates the
    /// format, which makes the stream drop all its buffers (`clear_buffers`) and allocate a full set.
    /// The new consumer sees its format set twice. Lock held.
    private func reclaimBuffersAfterUnlink(from old: PipeWireStreamState, to new: PipeWireStreamState) {
        if old == .streaming, new == .paused { consumerLeft = true }
        guard new == .streaming, consumerLeft, let stream = handle?.stream else { return }
        consumerLeft = false
        modifierPick = nil   // a new consumer: its modifiers are intersected afresh
        do { try offer(offered, on: stream) } catch { lifecycle.end(.streamError(error.description)) }
    }

    func streamParamChanged(id: UInt32, param: UnsafePointer<spa_pod>?) {
        guard id == SPA_PARAM_Format.rawValue, let stream = handle?.stream else { return }
        guard let param else {
            shared.withLock { $0.negotiated = nil; $0.negotiatedModifier = nil }
            return
        }
        let format: VideoFormat
        let modifier: VideoParams.NegotiatedModifier?
        do {
            format = try VideoParams.parseFormat(param)
            modifier = try VideoParams.modifier(in: param)
        } catch {
            lifecycle.end(.streamError(error.description))
            return
        }
        var dmaBuf: DRMFormatModifier?
        switch modifier {
        case nil: break
        case .unfixated(let open):
            // The allocator's turn: announce the pick alone, first; the link renegotiates to it.
            guard let pick = Self.pickModifier(ours: options.dmaBufModifiers, open: open) else {
                lifecycle.end(.streamError("none of the modifiers \(open) left open by the link is ours"))
                return
            }
            // Announced already, yet the link chose the open format again: fixating once more would loop.
            guard pick != modifierPick else {
                lifecycle.end(.streamError("the link ignored the fixated modifier \(pick)"))
                return
            }
            modifierPick = pick
            do { try offer(offered, on: stream) } catch { lifecycle.end(.streamError(error.description)) }
            return
        case .fixed(let m): dmaBuf = m
        }
        shared.withLock { $0.negotiated = format; $0.negotiatedModifier = dmaBuf }
        sentBitmap = nil   // new buffers: send the cursor bitmap again
        let b = SPAPodBuilder()
        VideoParams.buffers(into: b, stride: format.minimumStride, height: format.height,
                            count: (Int32(options.bufferCount), 2, 16),
                            dataTypes: [dmaBuf == nil ? SPA_DATA_MemFd : SPA_DATA_DmaBuf])
        VideoParams.meta(into: b, SPA_META_Header, size: MemoryLayout<spa_meta_header>.size)
        VideoParams.meta(into: b, SPA_META_VideoCrop, size: MemoryLayout<spa_meta_region>.size)
        if options.cursorMetadata {
            VideoParams.meta(into: b, SPA_META_Cursor,
                             size: VideoParams.cursorMetaSize(width: options.maxCursorSize, height: options.maxCursorSize))
        }
        do {
            _ = try b.withPods("the producer Buffers and Meta params") { pods, n throws(PipeWireError) in
                pw_stream_update_params(stream, pods, n)
            }
        } catch {
            lifecycle.end(.streamError(error.description))
            return
        }
        lifecycle.emit(.formatChanged(format))
    }

    /// Allocates the buffer's memory: one memfd per data plane, mapped read-write (`memfd_create`,
    /// `ftruncate`, `mmap`), as compositors do. With a DMA-BUF modifier negotiated the data is typed
    /// `SPA_DATA_DmaBuf` while the fd is still a memfd: a stand-in for a linear device buffer (no GPU here).
    func streamAddBuffer(_ buffer: UnsafeMutablePointer<pw_buffer>) {
        guard let spaBuffer = buffer.pointee.buffer,
              let (format, modifier) = shared.withLock({ s in s.negotiated.map { ($0, s.negotiatedModifier) } })
        else { return }
        let size = format.minimumStride * format.height
        for i in 0..<Int(spaBuffer.pointee.n_datas) {
            let d = spaBuffer.pointee.datas.advanced(by: i)
            do {
                let dmaBuf = modifier != nil
                let (fd, mapped) = try memory.allocate(size: size, writeOnly: dmaBuf && !options.dmaBufMappable)
                d.pointee.type = dmaBuf ? SPA_DATA_DmaBuf.rawValue : SPA_DATA_MemFd.rawValue
                d.pointee.flags = CPW_DATA_FLAG_READWRITE
                d.pointee.fd = Int64(fd)
                d.pointee.mapoffset = 0
                d.pointee.maxsize = dmaBuf && !options.dmaBufAnnouncesSize ? 0 : UInt32(size + options.overstatedBytes)
                d.pointee.data = mapped
            } catch {
                lifecycle.end(.streamError(error.description))
                return
            }
        }
    }

    func streamRemoveBuffer(_ buffer: UnsafeMutablePointer<pw_buffer>) {
        guard let spaBuffer = buffer.pointee.buffer else { return }
        for i in 0..<Int(spaBuffer.pointee.n_datas) {
            let d = spaBuffer.pointee.datas.advanced(by: i)
            guard d.pointee.type == SPA_DATA_MemFd.rawValue || d.pointee.type == SPA_DATA_DmaBuf.rawValue,
                  d.pointee.fd >= 0 else { continue }
            memory.release(fd: Int32(d.pointee.fd))
            d.pointee.data = nil
            d.pointee.fd = -1
        }
    }

    /// Buffers currently allocated (memfd mappings), for tests.
    var allocatedBufferCount: Int { core.withLock { memory.count } }

    /// Paints the next frame into a free buffer and queues it.
    func streamProcess() {
        guard let stream = handle?.stream, let format = shared.withLock({ $0.negotiated }) else { return }
        guard let pwBuffer = pw_stream_dequeue_buffer(stream) else {
            shared.withLock { $0.framesMissed += 1 }
            return
        }
        defer { pw_stream_queue_buffer(stream, pwBuffer) }
        guard let spaBuffer = pwBuffer.pointee.buffer, spaBuffer.pointee.n_datas > 0,
              let d = spaBuffer.pointee.datas else { return }
        let stride = format.minimumStride
        // Our own allocation's size (`maxsize` may say otherwise on purpose: see the options).
        guard let pixels = d.pointee.data, let chunk = d.pointee.chunk,
              let allocated = memory.size(of: pixels), allocated >= stride * format.height else { return }
        let placeholderSize = d.pointee.type == SPA_DATA_DmaBuf.rawValue && !options.dmaBufAnnouncesSize
        let (corrupt, frozen) = shared.withLock { s in
            defer { s.corruptRemaining = max(0, s.corruptRemaining - 1) }
            return (s.corruptRemaining > 0, s.pixelsFrozen)
        }
        frameNumber &+= 1
        if !frozen { render(pixels, stride, format, frameNumber) }
        chunk.pointee.offset = UInt32(options.overstatedBytes)
        chunk.pointee.size = frozen ? 0 : placeholderSize ? 9 : UInt32(stride * format.height)
        chunk.pointee.stride = Int32(stride)
        chunk.pointee.flags = corrupt ? Int32(bitPattern: CPW_CHUNK_FLAG_CORRUPTED) : 0
        if let header = spa_buffer_find_meta_data(spaBuffer, SPA_META_Header.rawValue, MemoryLayout<spa_meta_header>.size) {
            let h = header.assumingMemoryBound(to: spa_meta_header.self)
            h.pointee.flags = corrupt ? CPW_META_HEADER_FLAG_CORRUPTED : 0
            h.pointee.offset = 0
            h.pointee.pts = Int64(monotonicNanoseconds() &- options.presentationLead)
            h.pointee.dts_offset = 0
            h.pointee.seq = UInt64(frameNumber)
        }
        BufferMetadata.writeCrop(cropRect, width: format.width, height: format.height, into: spaBuffer)
        if options.cursorMetadata {
            let cursor = cursorProvider?(frameNumber, format.width, format.height)
            let newBitmap = cursor?.bitmap != nil && cursor?.bitmap != sentBitmap
            BufferMetadata.writeCursor(cursor, includeBitmap: newBitmap, into: spaBuffer)
            if newBitmap { sentBitmap = cursor?.bitmap }
        }
        shared.withLock { $0.framesProduced += 1 }
    }

    func coreFailed(res: Int32, message: String) {
        guard !stopping else { return }
        lifecycle.end(.coreError(res: res, message: message))
    }

    func coreWillClose() { teardown(cause: .stopped) }
}
