import CPipeWire
import Glibc
import Synchronization

/// A video consumer: a `pw_stream` (direction `SPA_DIRECTION_INPUT`, `AUTOCONNECT | MAP_BUFFERS`) linked to a
/// screen-cast node, copying each frame into a `FrameStorage` and handing it on as a `VideoFrame`.
///
/// Threading contract: `frameHandler` and `eventHandler` are called on the core's loop thread (the PipeWire
/// data thread) with the loop lock held. They must not block: hand the frame to a queue and return. Do not
/// call `stop()` or `PipeWireCore.close()` from them (it works, but defers the teardown). The `events`
/// sequence carries the same events for async consumers.
///
/// The frame path (`process`): dequeue every waiting buffer, take the newest one with valid pixels (older ones
/// are counted as `skippedStale`), apply the cursor metadata of all of them in order, copy the pixels into a
/// storage (from the provider, or the stream's own small pool), requeue every buffer (always, in `defer`),
/// then call `frameHandler`. A zero-size chunk is metadata only: the last frame is handed on again with the
/// new cursor. Buffers flagged corrupted are skipped.
///
/// DMA-BUF is not offered: frames need CPU access and a linear-modifier import is left for later, so the
/// producer falls back to MemFd / MemPtr shared memory.
public final class VideoCaptureStream: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `handle`, `pool`, `format`, `cursor`, `lastFrame`, `sequence` and
    // `stopping` are only touched on the loop thread or with the loop lock held; `shared` is a Mutex;
    // everything else is immutable.
    public let core: PipeWireCore
    public let target: PipeWireTarget
    public let options: VideoCaptureOptions
    private let frameHandler: @Sendable (VideoFrame) -> Void
    private let storageProvider: (@Sendable (Int) -> FrameStorage?)?
    private let lifecycle: StreamLifecycle<VideoCaptureEvent>
    private let shared = Mutex(Shared())
    private var handle: StreamHandle?
    private var stopping = false
    private var format: VideoFormat?
    private var pool: [FrameStorage] = []
    private var cursor: CursorState?
    private var lastFrame: VideoFrame?
    private var sequence: UInt64 = 0

    private struct Shared {
        var state: PipeWireStreamState = .unconnected
        var format: VideoFormat?
        var nodeID: UInt32?
        var statistics = VideoCaptureStatistics()
    }

    /// Creates the stream on `core` and connects it to `target` (`pw_stream_connect`).
    ///
    /// - Parameters:
    ///   - storageProvider: returns a storage of at least the given byte count for the next frame, or nil to
    ///     skip it (counted); called on the loop thread. Without one the stream keeps its own pool.
    ///   - eventHandler: called on the loop thread for each event (also in `events`).
    ///   - frameHandler: called on the loop thread with each frame; must not block.
    public init(core: PipeWireCore, target: PipeWireTarget, options: VideoCaptureOptions = VideoCaptureOptions(),
                storageProvider: (@Sendable (Int) -> FrameStorage?)? = nil,
                eventHandler: (@Sendable (VideoCaptureEvent) -> Void)? = nil,
                frameHandler: @escaping @Sendable (VideoFrame) -> Void) throws(PipeWireError) {
        try options.validate()
        self.core = core
        self.target = target
        self.options = options
        self.frameHandler = frameHandler
        self.storageProvider = storageProvider
        lifecycle = StreamLifecycle(handler: eventHandler, endEvent: { .ended($0) })
        try core.withLock { () throws(PipeWireError) in try connectLocked() }
    }

    deinit {
        teardown(cause: .stopped)
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
    public var statistics: VideoCaptureStatistics { shared.withLock { $0.statistics } }

    /// Why the stream ended, or nil while it runs.
    public var endCause: PipeWireStreamEndCause? { lifecycle.endCause }

    /// Disconnects and destroys the stream (`pw_stream_destroy`); reports `.ended(.stopped)` (on the calling
    /// thread) unless it had already ended. Idempotent.
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
        var flags = PW_STREAM_FLAG_AUTOCONNECT.rawValue | PW_STREAM_FLAG_MAP_BUFFERS.rawValue
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
        let b = SPAPodBuilder()
        VideoParams.enumFormat(into: b, formats: options.formats,
                               preferredSize: (options.preferredWidth, options.preferredHeight),
                               minSize: (1, 1), maxSize: (options.maxWidth, options.maxHeight),
                               preferredRate: options.preferredFrameRate, maxRate: options.maxFrameRate)
        let rc = try b.withPods("the video EnumFormat") { pods, count throws(PipeWireError) in
            pw_stream_connect(handle.stream, SPA_DIRECTION_INPUT, targetID, pw_stream_flags(flags), pods, count)
        }
        guard rc >= 0 else {
            handle.destroy()
            throw .streamConnectFailed(errno: -rc)
        }
        self.handle = handle
        core.addObserver(self)
        if let timeout = options.noFrameTimeout { lifecycle.startWatchdog(loop: core.loop, timeout: timeout) }
    }

    private func teardown(cause: PipeWireStreamEndCause) {
        core.withLock {
            stopping = true
            lifecycle.stopWatchdog()
            core.removeObserver(self)
            if let handle {
                self.handle = nil
                if pw_thread_loop_in_thread(core.threadLoop) {
                    // Inside a callback of this loop: never destroy a stream under its own feet.
                    handle.detach()
                    core.deferOnLoop { handle.destroy() }
                } else {
                    handle.destroy()
                }
            }
            lastFrame = nil
        }
        lifecycle.end(cause)
    }

    private func update(_ body: (inout Shared) -> Void) {
        shared.withLock { body(&$0) }
    }
}

// MARK: - pw_stream events (loop thread, lock held)

extension VideoCaptureStream: StreamHandleOwner {
    func streamStateChanged(from old: PipeWireStreamState, to new: PipeWireStreamState, error: String?) {
        let nodeID = handle?.stream.map { pw_stream_get_node_id($0) }
        update {
            $0.state = new
            if let nodeID, nodeID != CPW_ID_ANY { $0.nodeID = nodeID }
        }
        lifecycle.emit(.stateChanged(new))
        guard !stopping else { return }
        switch new {
        case .error: lifecycle.end(.streamError(error ?? "unknown error"))
        case .unconnected: lifecycle.end(.unconnected)
        default: break
        }
    }

    func streamParamChanged(id: UInt32, param: UnsafePointer<spa_pod>?) {
        guard id == SPA_PARAM_Format.rawValue, let stream = handle?.stream else { return }
        guard let param else {   // the format was cleared (unlinked)
            format = nil
            update { $0.format = nil }
            return
        }
        let newFormat: VideoFormat
        do {
            newFormat = try VideoParams.parseFormat(param)
        } catch {
            lifecycle.end(.streamError(error.description))
            return
        }
        format = newFormat
        update { $0.format = newFormat }
        // Few buffers (`options.bufferCount`): each frame is copied out at once, and each buffer is mapped here.
        let b = SPAPodBuilder()
        VideoParams.buffers(into: b, stride: newFormat.minimumStride, height: newFormat.height,
                            count: (Int32(options.bufferCount), 2, 16),
                            dataTypes: [SPA_DATA_MemPtr, SPA_DATA_MemFd])
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
        lifecycle.emit(.formatChanged(newFormat))
    }

    func streamProcess() {
        guard let stream = handle?.stream else { return }
        let now = monotonicNanoseconds()
        lifecycle.noteActivity(now)
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<pw_buffer>.self, capacity: 32) { waiting in
            var count = 0
            while count < waiting.count, let b = pw_stream_dequeue_buffer(stream) {
                waiting[count] = b
                count += 1
            }
            defer { for i in 0..<count { pw_stream_queue_buffer(stream, waiting[i]) } }
            guard count > 0 else { return }
            process(UnsafeMutableBufferPointer(rebasing: waiting[0..<count]), stream: stream, now: now)
        }
    }

    func coreFailed(res: Int32, message: String) {
        guard !stopping else { return }
        lifecycle.end(.coreError(res: res, message: message))
    }

    func coreWillClose() {
        teardown(cause: .stopped)
    }
}

extension VideoCaptureStream: PipeWireCoreObserver {}

// MARK: - the frame path

extension VideoCaptureStream {
    private struct Counts {
        var stale = 0, corrupted = 0, invalid = 0, noStorage = 0, delivered = 0, cursorOnly = 0
    }

    /// Picks the newest buffer with pixels among `buffers` (oldest first), applies cursor metadata, copies
    /// and delivers. The caller requeues every buffer.
    private func process(_ buffers: UnsafeMutableBufferPointer<UnsafeMutablePointer<pw_buffer>>,
                         stream: OpaquePointer, now: UInt64) {
        var counts = Counts()
        var newest: (buffer: UnsafeMutablePointer<spa_buffer>, header: UnsafeMutablePointer<spa_meta_header>?)?
        var sawMetadataOnly = false
        var cursorChanged = false
        let ended = lifecycle.hasEnded
        for pwBuffer in buffers {
            guard let spaBuffer = pwBuffer.pointee.buffer else { counts.invalid += 1; continue }
            if options.cursorMetadata {
                switch BufferMetadata.cursor(in: spaBuffer, previous: cursor) {
                case .absent: break
                case .hidden:
                    if cursor != nil { cursorChanged = true }
                    cursor = nil
                case .visible(let state):
                    if state != cursor { cursorChanged = true }
                    cursor = state
                }
            }
            let header = spa_buffer_find_meta_data(spaBuffer, SPA_META_Header.rawValue,
                                                   MemoryLayout<spa_meta_header>.size)?
                .assumingMemoryBound(to: spa_meta_header.self)
            guard spaBuffer.pointee.n_datas > 0, let chunk = spaBuffer.pointee.datas[0].chunk else {
                counts.invalid += 1
                continue
            }
            if (chunk.pointee.flags & Int32(bitPattern: CPW_CHUNK_FLAG_CORRUPTED)) != 0
                || (header.map { $0.pointee.flags & CPW_META_HEADER_FLAG_CORRUPTED } ?? 0) != 0 {
                counts.corrupted += 1
                continue
            }
            if chunk.pointee.size == 0 {
                sawMetadataOnly = true
                continue
            }
            if newest != nil { counts.stale += 1 }
            newest = (spaBuffer, header)
        }
        defer {
            let c = counts
            update { s in
                s.statistics.buffersReceived += buffers.count
                s.statistics.skippedStale += c.stale
                s.statistics.skippedCorrupted += c.corrupted
                s.statistics.skippedInvalid += c.invalid
                s.statistics.skippedNoStorage += c.noStorage
                s.statistics.framesDelivered += c.delivered
                s.statistics.cursorUpdates += c.cursorOnly
            }
        }
        sequence &+= UInt64(counts.stale)
        if ended { return }
        if let newest {
            sequence &+= 1
            guard let format else { counts.invalid += 1; return }
            let timestamp = Self.timestamp(header: newest.header, stream: stream, now: now)
            switch copyFrame(newest.buffer, format: format, timestamp: timestamp) {
            case .success(let frame):
                counts.delivered += 1
                lastFrame = frame
                frameHandler(frame)
            case .failure(.noStorage): counts.noStorage += 1
            case .failure(.invalid): counts.invalid += 1
            }
        } else if sawMetadataOnly, cursorChanged, var frame = lastFrame {
            sequence &+= 1
            frame.cursor = cursor
            frame.sequence = sequence
            frame.timestamp = now
            lastFrame = frame
            counts.cursorOnly += 1
            frameHandler(frame)
        }
    }

    private enum CopyFailure: Error { case noStorage, invalid }

    private func copyFrame(_ buffer: UnsafeMutablePointer<spa_buffer>, format: VideoFormat,
                           timestamp: UInt64) -> Result<VideoFrame, CopyFailure> {
        let data = buffer.pointee.datas[0]
        guard let base = data.data, let chunk = data.chunk?.pointee else { return .failure(.invalid) }
        let rowBytes = format.minimumStride
        let sourceStride = chunk.stride > 0 ? Int(chunk.stride) : rowBytes
        let offset = Int(chunk.offset % max(data.maxsize, 1))
        let needed = sourceStride * (format.height - 1) + rowBytes
        guard chunk.stride >= 0, sourceStride >= rowBytes, Int(chunk.size) >= needed,
              offset + needed <= Int(data.maxsize) else { return .failure(.invalid) }
        let byteCount = rowBytes * format.height
        guard let storage = storage(byteCount: byteCount) else { return .failure(.noStorage) }
        let source = UnsafeRawPointer(base).advanced(by: offset)
        if sourceStride == rowBytes {
            storage.bytes.copyMemory(from: source, byteCount: byteCount)
        } else {
            for row in 0..<format.height {
                storage.bytes.advanced(by: row * rowBytes).copyMemory(from: source.advanced(by: row * sourceStride),
                                                                      byteCount: rowBytes)
            }
        }
        let crop = BufferMetadata.crop(buffer, width: format.width, height: format.height)
        return .success(VideoFrame(format: format, stride: rowBytes, timestamp: timestamp, sequence: sequence,
                                   crop: crop, cursor: options.cursorMetadata ? cursor : nil, storage: storage))
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
