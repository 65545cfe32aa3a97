import CPipeWire
import Glibc
import Synchronization

/// A microphone (or any audio source node): a `pw_stream` (`SPA_DIRECTION_INPUT`,
/// `AUTOCONNECT | MAP_BUFFERS`, `media.type` Audio, `media.category` Capture) whose buffers are copied
/// into `AudioBuffer`s, interleaved, timestamped on CLOCK_MONOTONIC (the clock of video frames): the time of
/// the chunk's first sample, from the graph clock (`pw_stream_get_time_n`: `now - delay`, less the chunk's
/// duration and those of the chunks after it in the same call), or, when the driver leaves the clock empty,
/// from a sample clock bounded by the arrival time (see `AudioChunkClock`).
///
/// Threading: the stream uses `PW_STREAM_FLAG_RT_PROCESS`, so `handler` runs on the context's realtime
/// data thread (not the loop thread, and without the loop lock), and must not block or call `stop()`.
/// `eventHandler` runs on the loop thread. Every buffer is delivered in order (no draining: audio must not
/// have gaps).
public final class AudioCaptureStream: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `handle` and `stopping` are only touched on the loop thread or with
    // the loop lock held; `sequence` and `clock` only on the data thread (process); `stream` is set once before
    // `pw_stream_connect` and cleared only after `pw_stream_destroy` (which stops the data thread's calls);
    // `shared` is a Mutex; the rest is immutable.
    public let core: PipeWireCore
    public let target: PipeWireTarget
    public let options: AudioCaptureOptions
    private let handler: @Sendable (AudioBuffer) -> Void
    private let lifecycle: StreamLifecycle<AudioCaptureEvent>
    private let shared = Mutex(Shared())
    private var handle: StreamHandle?
    private var stopping = false
    private var stream: OpaquePointer?
    private var sequence: UInt64 = 0
    private var clock = AudioChunkClock()

    private struct Shared {
        var state: PipeWireStreamState = .unconnected
        var format: AudioFormat?
        var nodeID: UInt32?
        var statistics = AudioCaptureStatistics()
    }

    /// Creates the stream and connects it to `target` (`.default`: the default source, or with
    /// `captureSinkMonitor` the default output's monitor; `.object("test-mic")`: a node by name).
    public init(core: PipeWireCore, target: PipeWireTarget = .default, options: AudioCaptureOptions = AudioCaptureOptions(),
                eventHandler: (@Sendable (AudioCaptureEvent) -> Void)? = nil,
                handler: @escaping @Sendable (AudioBuffer) -> Void) throws(PipeWireError) {
        try options.validate()
        self.core = core
        self.target = target
        self.options = options
        self.handler = handler
        lifecycle = StreamLifecycle(handler: eventHandler, endEvent: { .ended($0) })
        let channels = options.channels ?? Self.sourceChannels(core: core, target: target)
        try core.withLock { () throws(PipeWireError) in try connectLocked(channels: channels) }
    }

    deinit { teardown(cause: .stopped) }

    public var events: AsyncStream<AudioCaptureEvent> { lifecycle.events }
    public var state: PipeWireStreamState { shared.withLock { $0.state } }
    public var currentFormat: AudioFormat? { shared.withLock { $0.format } }
    public var nodeID: UInt32? { shared.withLock { $0.nodeID } }
    public var statistics: AudioCaptureStatistics { shared.withLock { $0.statistics } }
    public var endCause: PipeWireStreamEndCause? { lifecycle.endCause }

    /// Destroys the stream; reports `.ended(.stopped)` unless it had already ended. Idempotent.
    public func stop() { teardown(cause: .stopped) }

    /// The target node's `audio.channels` (ALSA sources and `AudioProducerStream` announce it in their
    /// info), or nil (the default target, an unknown node, or a call on the loop thread).
    private static func sourceChannels(core: PipeWireCore, target: PipeWireTarget) -> Int? {
        guard !pw_thread_loop_in_thread(core.threadLoop), let id = core.nodeID(for: target),
              let value = try? core.nodeProperties(id: id)[PW_KEY_AUDIO_CHANNELS], let n = Int(value),
              (1...64).contains(n) else { return nil }
        return n
    }

    private func connectLocked(channels: Int?) throws(PipeWireError) {
        guard let pwCore = core.core, !core.isClosed else { throw .notConnected }
        if let failure = core.failure { throw failure }
        var props: [String: String] = [
            PW_KEY_MEDIA_TYPE: "Audio", PW_KEY_MEDIA_CATEGORY: "Capture", PW_KEY_MEDIA_ROLE: "Production",
            PW_KEY_NODE_NAME: options.nodeName,
        ]
        if let latency = options.latencyFrames { props[PW_KEY_NODE_LATENCY] = "\(latency)/\(options.sampleRate)" }
        if options.captureSinkMonitor { props[PW_KEY_STREAM_CAPTURE_SINK] = "true" }
        var targetID = CPW_ID_ANY
        var flags = PW_STREAM_FLAG_AUTOCONNECT.rawValue | PW_STREAM_FLAG_MAP_BUFFERS.rawValue
            | PW_STREAM_FLAG_RT_PROCESS.rawValue
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
        stream = handle.stream
        let b = SPAPodBuilder()
        AudioParams.enumFormat(into: b, sampleFormat: options.sampleFormat, rate: options.sampleRate,
                               channels: channels)
        let rc = try b.withPods("the audio EnumFormat") { pods, n throws(PipeWireError) in
            pw_stream_connect(handle.stream, SPA_DIRECTION_INPUT, targetID, pw_stream_flags(flags), pods, n)
        }
        guard rc >= 0 else {
            handle.destroy()
            stream = nil
            throw .streamConnectFailed(errno: -rc)
        }
        self.handle = handle
        core.addObserver(self)
        if let timeout = options.noFrameTimeout { lifecycle.startWatchdog(loop: core.loop, timeout: timeout) }
    }

    private func teardown(cause: PipeWireStreamEndCause) {
        if core.isOnDataThread {
            // Released last inside `process` (`stop()` from an audio handler is not allowed): no callback reaches
            // this object once detached, and the rest, which needs the loop lock and a stream destroyed from
            // outside its own `process`, runs on another thread with the parts it needs, not `self`. While this
            // runs no loop-thread callback can: each holds the object, and this one is going away.
            stopping = true
            let going = handle
            handle = nil
            lifecycle.end(cause, destroyingElsewhere: going, core: core)
            return
        }
        core.withLock {
            stopping = true
            lifecycle.stopWatchdog()
            core.removeObserver(self)
            // The data thread may still be in `process` until the stream is destroyed.
            if handle?.destroy(on: core) == true { stream = nil }
            handle = nil
        }
        lifecycle.end(cause)
    }
}

extension AudioCaptureStream: StreamHandleOwner, PipeWireCoreObserver {
    func streamStateChanged(from old: PipeWireStreamState, to new: PipeWireStreamState, error: String?) {
        let nodeID = handle?.stream.map { pw_stream_get_node_id($0) }
        shared.withLock {
            $0.state = new
            if let nodeID, nodeID != CPW_ID_ANY { $0.nodeID = nodeID }
        }
        lifecycle.follow(new, error: error, stopping: stopping) { .stateChanged($0) }
    }

    func streamParamChanged(id: UInt32, param: UnsafePointer<spa_pod>?) {
        guard id == SPA_PARAM_Format.rawValue else { return }
        guard let param else {
            shared.withLock { $0.format = nil }
            return
        }
        do {
            let f = try AudioParams.parseFormat(param)
            shared.withLock { $0.format = f }
            lifecycle.emit(.formatChanged(f))
        } catch {
            lifecycle.end(.streamError(error.description))
        }
    }

    /// On the realtime data thread (`PW_STREAM_FLAG_RT_PROCESS`). Copies every waiting buffer (requeueing each
    /// at once), then stamps them together (a backlog's chunks end where the next one starts) and delivers them.
    func streamProcess() {
        guard let stream else { return }
        let format = shared.withLock { $0.format }
        lifecycle.noteActivity()
        var received = 0, corrupted = 0, invalid = 0
        var chunks: [[UInt8]] = []
        while let pwBuffer = pw_stream_dequeue_buffer(stream) {
            defer { pw_stream_queue_buffer(stream, pwBuffer) }
            received += 1
            guard let format, !lifecycle.hasEnded, let spaBuffer = pwBuffer.pointee.buffer, spaBuffer.pointee.n_datas > 0,
                  let d = spaBuffer.pointee.datas, let base = d.pointee.data, let chunk = d.pointee.chunk?.pointee else {
                invalid += 1
                continue
            }
            if (chunk.flags & Int32(bitPattern: CPW_CHUNK_FLAG_CORRUPTED)) != 0 {
                corrupted += 1
                continue
            }
            let offset = Int(chunk.offset % max(d.pointee.maxsize, 1))
            let size = min(Int(chunk.size), Int(d.pointee.maxsize) - offset)
            let usable = size - size % format.bytesPerFrame
            guard usable > 0 else {
                invalid += 1
                continue
            }
            chunks.append([UInt8](UnsafeRawBufferPointer(start: UnsafeRawPointer(base).advanced(by: offset), count: usable)))
        }
        var frames = 0, byGraph = 0
        if let format, !chunks.isEmpty {
            let counts = chunks.map { $0.count / format.bytesPerFrame }
            let (timestamps, source) = clock.stamp(frameCounts: counts, rate: format.sampleRate,
                                                   graphEnd: graphEnd(stream: stream), arrival: monotonicNanoseconds())
            if source == .graph { byGraph = chunks.count }
            for (bytes, timestamp) in zip(chunks, timestamps) {
                sequence &+= 1
                frames += bytes.count / format.bytesPerFrame
                handler(AudioBuffer(format: format, timestamp: timestamp, sequence: sequence, bytes: bytes))
            }
        }
        shared.withLock {
            $0.statistics.buffersReceived += received
            $0.statistics.chunksDelivered += chunks.count
            $0.statistics.chunksTimedByGraphClock += byGraph
            $0.statistics.sampleFramesDelivered += frames
            $0.statistics.skippedCorrupted += corrupted
            $0.statistics.skippedInvalid += invalid
        }
    }

    /// The capture time just after the newest sample on CLOCK_MONOTONIC: the cycle's graph time
    /// (`pw_time.now`, the driver's `spa_io_clock.nsec`) less the delay from the device; nil when the driver
    /// leaves the clock empty (`now` 0).
    private func graphEnd(stream: OpaquePointer) -> UInt64? {
        var time = pw_time()
        guard pw_stream_get_time_n(stream, &time, MemoryLayout<pw_time>.size) == 0, time.now > 0 else { return nil }
        var delay: Int64 = 0
        if time.delay > 0, time.rate.denom > 0 {
            // A bogus delay or rate (the peer's Latency param) must not trap on the real-time thread: on
            // overflow the chunk is stamped by its arrival instead.
            let (scaled, o1) = time.delay.multipliedReportingOverflow(by: 1_000_000_000)
            let (product, o2) = scaled.multipliedReportingOverflow(by: Int64(time.rate.num))
            guard !o1, !o2 else { return nil }
            delay = product / Int64(time.rate.denom)
        }
        return UInt64(time.now) > UInt64(delay) ? UInt64(time.now) - UInt64(delay) : nil
    }

    func coreFailed(res: Int32, message: String) {
        guard !stopping else { return }
        lifecycle.end(.coreError(res: res, message: message))
    }

    func coreWillClose() { teardown(cause: .stopped) }
}
