import CPipeWire
import Glibc
import Synchronization

/// Fills `frames` interleaved F32 sample frames of `channels` channels at `sampleRate`; `firstFrame` is the
/// index of the first one since the stream started. Called on the producer's loop thread; must not block.
public typealias AudioRenderer = @Sendable (_ samples: UnsafeMutablePointer<Float>, _ frames: Int, _ channels: Int,
                                            _ sampleRate: Int, _ firstFrame: UInt64) -> Void

/// An audio node of our own (F32 interleaved) filled by `render` (default: a sine), for tests and the test
/// backend: an output `pw_stream` (`SPA_DIRECTION_OUTPUT`, `MAP_BUFFERS`) that the graph's driver pulls. As a
/// `.source` (`media.class` Audio/Source) it is a microphone; as `.playback` (`media.class`
/// Stream/Output/Audio, `AUTOCONNECT`) it is an application playing sound into a sink, which the session
/// manager links it to. PipeWire 0.3.65's audiotestsrc loses its buffers after a few relinks under load; this
/// node does not.
///
/// Clock: a `.source` joins `node.group` `pipewire.dummy` (`clockGroup`), so PipeWire's Dummy-Driver, a timer at
/// the audio quantum that fills the graph clock, paces it as a sound card paces a microphone. (A `.playback`
/// stream is paced by its sink, as a sound card paces what plays into it.) Without a group,
/// PipeWire 0.3.65 hands a source that has no driver of its own to the first active driver that has
/// followers, whatever its media: on the test desktop, a video producer. The graph then ran one audio quantum
/// (1024 frames) per video frame with an empty clock (`pw_time.now` 0): 30,720 samples a second behind a
/// 30 fps stream, 61,440 behind a 60 fps one, so recordings had holes or ran 0.5 s long over 2 s.
///
/// Threading: `PW_STREAM_FLAG_RT_PROCESS`: `render` runs on the context's realtime data thread (so a loaded
/// loop thread does not starve the graph); `eventHandler` runs on the loop thread.
public final class AudioProducerStream: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `handle` and `stopping` are only touched on the loop thread or with
    // the loop lock held; `framesWritten` only on the data thread; `stream` is set before `pw_stream_connect`
    // and cleared after `pw_stream_destroy`; `shared` is a Mutex; the rest is immutable.
    public let core: PipeWireCore
    public let format: AudioFormat
    public let nodeName: String
    private let render: AudioRenderer
    private let lifecycle: StreamLifecycle<AudioCaptureEvent>
    private let shared = Mutex<(nodeID: UInt32?, state: PipeWireStreamState)>((nil, .unconnected))
    private var handle: StreamHandle?
    private var stream: OpaquePointer?
    private var stopping = false
    private var framesWritten: UInt64 = 0

    /// The `node.group` of PipeWire's Dummy-Driver in its default `pipewire.conf` (`context.objects`), which a
    /// `.source` joins unless `properties` set another group.
    public static let clockGroup = "pipewire.dummy"

    /// What the node is to the graph.
    public enum Role: Sendable, Equatable {
        /// `media.class` Audio/Source, in the Dummy-Driver's group: a microphone that clients capture.
        case source
        /// `media.class` Stream/Output/Audio with `PW_STREAM_FLAG_AUTOCONNECT`: an application playing into
        /// the sink whose `node.name` is `target` (`target.object`), or the default sink when nil; the
        /// session manager links it there and the sink paces it.
        case playback(target: String?)
    }

    /// A full-scale-ish sine of `frequency` Hz on every channel.
    public static func sine(frequency: Double, amplitude: Float = 0.8) -> AudioRenderer {
        { samples, frames, channels, rate, first in
            for i in 0..<frames {
                let t = Double(first + UInt64(i)) / Double(rate)
                let v = amplitude * Float(sin(2 * Double.pi * frequency * t))
                for c in 0..<channels { samples[i * channels + c] = v }
            }
        }
    }

    /// Creates the node (F32 only: `format.sampleFormat` must be `.f32`); `properties` are applied last.
    public init(core: PipeWireCore, format: AudioFormat = AudioFormat(), nodeName: String = "pwrecord-tone",
                role: Role = .source, properties: [String: String] = [:],
                eventHandler: (@Sendable (AudioCaptureEvent) -> Void)? = nil,
                render: @escaping AudioRenderer = AudioProducerStream.sine(frequency: 440)) throws(PipeWireError) {
        guard format.sampleFormat == .f32, format.channels >= 1, format.channels <= 64,
              format.sampleRate >= 1, format.sampleRate <= 768_000 else {
            throw .invalidArgument("audio producer format \(format) (F32, 1...64 channels)")
        }
        self.core = core
        self.format = format
        self.nodeName = nodeName
        self.render = render
        lifecycle = StreamLifecycle(handler: eventHandler, endEvent: { .ended($0) })
        try core.withLock { () throws(PipeWireError) in
            guard let pwCore = core.core, !core.isClosed else { throw .notConnected }
            if let failure = core.failure { throw failure }
            var props: [String: String] = [
                PW_KEY_NODE_NAME: nodeName, PW_KEY_NODE_DESCRIPTION: nodeName,
                PW_KEY_MEDIA_TYPE: "Audio", PW_KEY_AUDIO_CHANNELS: "\(format.channels)",
                PW_KEY_AUDIO_RATE: "\(format.sampleRate)", PW_KEY_AUDIO_FORMAT: "F32LE",
            ]
            var flags = PW_STREAM_FLAG_MAP_BUFFERS.rawValue | PW_STREAM_FLAG_RT_PROCESS.rawValue
            switch role {
            case .source:
                props[PW_KEY_MEDIA_CLASS] = "Audio/Source"
                props[PW_KEY_NODE_GROUP] = Self.clockGroup
            case .playback(let target):
                props[PW_KEY_MEDIA_CLASS] = "Stream/Output/Audio"
                props[PW_KEY_MEDIA_CATEGORY] = "Playback"
                if let target { props[PW_KEY_TARGET_OBJECT] = target }
                flags |= PW_STREAM_FLAG_AUTOCONNECT.rawValue
            }
            props.merge(properties) { $1 }
            let handle = try StreamHandle(core: pwCore, name: nodeName, properties: props, owner: self)
            stream = handle.stream
            let b = SPAPodBuilder()
            AudioParams.enumFormat(into: b, sampleFormat: .f32, rate: format.sampleRate, channels: format.channels)
            let rc = try b.withPods("the audio producer EnumFormat") { pods, n throws(PipeWireError) in
                pw_stream_connect(handle.stream, SPA_DIRECTION_OUTPUT, CPW_ID_ANY, pw_stream_flags(flags), pods, n)
            }
            guard rc >= 0 else {
                handle.destroy()
                stream = nil
                throw .streamConnectFailed(errno: -rc)
            }
            self.handle = handle
            core.addObserver(self)
        }
    }

    deinit { teardown(cause: .stopped) }

    public var events: AsyncStream<AudioCaptureEvent> { lifecycle.events }
    public var nodeID: UInt32? { shared.withLock { $0.nodeID } }
    /// `.streaming` once the graph pulls the node (for `.playback`: linked to its sink, which runs).
    public var state: PipeWireStreamState { shared.withLock { $0.state } }
    public var endCause: PipeWireStreamEndCause? { lifecycle.endCause }

    /// Waits until the node has its id and the registry announced it.
    public func waitUntilReady(timeout: Duration = .seconds(5)) async throws(PipeWireError) -> PipeWireNodeInfo {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let id = nodeID, let info = core.node(id: id) { return info }
            if let cause = lifecycle.endCause { throw .streamEnded(cause) }
            if ContinuousClock.now >= deadline { throw .timedOut("audio node \(nodeName) to appear") }
            do { try await Task.sleep(for: .milliseconds(5)) } catch { throw .timedOut("audio node (cancelled)") }
        }
    }

    /// Pauses (`false`) or resumes the node (`pw_stream_set_active`): a paused microphone is still there and
    /// linked, but sends nothing, like a device that has stopped delivering.
    public func setActive(_ active: Bool) {
        core.withLock {
            if let stream = handle?.stream { _ = pw_stream_set_active(stream, active) }
        }
    }

    /// Destroys the node; reports `.ended(.stopped)`. Idempotent.
    public func stop() { teardown(cause: .stopped) }

    private func teardown(cause: PipeWireStreamEndCause) {
        core.withLock {
            stopping = true
            core.removeObserver(self)
            // The data thread may still be in `process` until the stream is destroyed.
            if handle?.destroy(on: core) == true { stream = nil }
            handle = nil
        }
        lifecycle.end(cause)
    }
}

extension AudioProducerStream: StreamHandleOwner, PipeWireCoreObserver {
    func streamStateChanged(from old: PipeWireStreamState, to new: PipeWireStreamState, error: String?) {
        let nodeID = handle?.stream.map { pw_stream_get_node_id($0) }
        shared.withLock {
            $0.state = new
            if let nodeID, nodeID != CPW_ID_ANY { $0.nodeID = nodeID }
        }
        lifecycle.follow(new, error: error, stopping: stopping) { .stateChanged($0) }
    }

    func streamParamChanged(id: UInt32, param: UnsafePointer<spa_pod>?) {
        guard id == SPA_PARAM_Format.rawValue, let param, let f = try? AudioParams.parseFormat(param) else { return }
        lifecycle.emit(.formatChanged(f))
    }

    /// Fills the buffer with `requested` sample frames (or as many as fit) and queues it.
    func streamProcess() {
        guard let stream, let pwBuffer = pw_stream_dequeue_buffer(stream) else { return }
        defer { pw_stream_queue_buffer(stream, pwBuffer) }
        guard let spaBuffer = pwBuffer.pointee.buffer, spaBuffer.pointee.n_datas > 0, let d = spaBuffer.pointee.datas,
              let base = d.pointee.data, let chunk = d.pointee.chunk else { return }
        let stride = MemoryLayout<Float>.size * format.channels
        var frames = Int(d.pointee.maxsize) / stride
        if pwBuffer.pointee.requested > 0 { frames = min(frames, Int(pwBuffer.pointee.requested)) }
        render(base.assumingMemoryBound(to: Float.self), frames, format.channels, format.sampleRate, framesWritten)
        framesWritten &+= UInt64(frames)
        chunk.pointee.offset = 0
        chunk.pointee.stride = Int32(stride)
        chunk.pointee.size = UInt32(frames * stride)
        chunk.pointee.flags = 0
        pwBuffer.pointee.size = UInt64(frames)
    }

    func coreFailed(res: Int32, message: String) {
        guard !stopping else { return }
        lifecycle.end(.coreError(res: res, message: message))
    }

    func coreWillClose() { teardown(cause: .stopped) }
}
