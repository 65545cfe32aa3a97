import Dispatch
import Synchronization

/// The capture path from PipeWire to the sinks: a `VideoCaptureStream` on the portal's connection, optional
/// `AudioCaptureStream`s on the default daemon (the microphone, and "system audio": the output's monitor), the
/// bounded `DeliveryQueue` (with frame processing, and the audio mix) and a `StallWatchdog`, tied together
/// with one clock.
///
/// Data path: PipeWire's data thread copies each frame into pooled storage and `enqueue`s it (O(1), never
/// blocking); the delivery thread processes and hands it to the sinks. The sinks are opened when the first
/// video frame arrives, with its format; `SinkContext.startTime` is that frame's timestamp, and audio from
/// before it is not delivered (a chunk that straddles it is cut at the sample). Audio that arrived before the
/// first frame but was captured after its timestamp is handed on when the frame comes (`AudioPreroll`), and
/// the audio streams are connected before the video stream, so the sound runs from the first frame unless a
/// source was not running yet.
///
/// Audio: the sinks get one audio stream. With the microphone and system audio both, their chunks are
/// enqueued tagged by source and mixed on the delivery thread (`AudioMixer`, `options.audioMixing`): the
/// `process` callbacks run on PipeWire's data thread and must not block, and mixing waits for the slower
/// source while holding the other's chunks, then converts and sums every sample; the queue's O(1) push is all
/// the data thread does, as for video. A source that delivers nothing is silence after `maximumWait`.
///
/// Pause: while paused, samples are not delivered; after `resume()` timestamps are shifted back by the time
/// spent paused, so the output has no gap.
///
/// End: the video stream going unconnected or to error, a PipeWire core error, or the watchdog each end the
/// capture once (`.ended`); the owner then calls `finish()` to flush and close the sinks, so what was captured
/// is always finalized. The recording ends when samples stop being accepted (`stopAccepting()`, an end, or
/// `finish()`, whichever comes first): the sinks hear that time (`CaptureSink.ended(at:)`), on the samples'
/// timeline, so a file lasts until then even when the last frame came long before (a still screen, a low
/// fps). Events arrive on a private serial queue.
public final class CapturePipeline: Sendable {
    public let options: CapturePipelineOptions
    private let videoCore: PipeWireCore
    private let audioCore: PipeWireCore?
    private let queue: DeliveryQueue
    /// Frame storage for the video stream: enough for every frame the queue may hold plus the ones in flight,
    /// and it never refuses (an extra storage is allocated on overflow), so a slow sink costs queue drops,
    /// never skipped frames at the source.
    private let framePool: FramePool
    private let events = DispatchQueue(label: "pwrecord.capture.events")
    private let onEvent: @Sendable (CapturePipelineEvent) -> Void
    private let state = Mutex(State())
    private let sinksOpened = Atomic<Bool>(false)
    /// Whether `.framesRejected` was reported (it is, once).
    private let rejectionReported = OnceFlag()
    private let streams = Mutex<(video: VideoCaptureStream?, audio: AudioCaptureStream?, systemAudio: AudioCaptureStream?,
                                 watchdog: StallWatchdog?)>((nil, nil, nil, nil))
    /// Whether the microphone and system audio are mixed (both recorded).
    private var mixesAudio: Bool { Self.mixesAudio(options) }
    private static func mixesAudio(_ options: CapturePipelineOptions) -> Bool {
        options.microphone != nil && options.systemAudio != nil
    }

    private struct State {
        var started = false
        var startTime: UInt64 = 0
        var ended = false
        var finished = false
        var paused = false
        /// The microphone's chunks go on as silence (ReplayKit's microphone switched off mid-recording).
        var microphoneMuted = false
        var pausedAt: UInt64 = 0
        var pausedTotal: UInt64 = 0
        /// When samples stopped being accepted, on the samples' timeline (pauses taken out): the recording's
        /// end, where `elapsed` stops.
        var stoppedAt: UInt64?
        /// With an fps cap: when the next frame is due (see `FrameRateCap`).
        var frameRateCap = FrameRateCap()
        var capped = 0
        var videoFrames = 0
        var audioChunks = 0
        var microphoneChunks = 0
        var firstTimestamp: UInt64?
        var lastTimestamp: UInt64 = 0
        /// Per audio source (the microphone, system audio): what it delivered before the first frame.
        var preroll = [AudioPreroll(window: CapturePipeline.timestampTolerance),
                       AudioPreroll(window: CapturePipeline.timestampTolerance)]
        /// The audio format the sinks were opened with (what the file holds), nil without audio.
        var sinkAudioFormat: AudioFormat?

        /// Keeps the first stop: now on the samples' timeline (while paused, when the pause began).
        mutating func noteStop() {
            guard stoppedAt == nil else { return }
            stoppedAt = (paused ? pausedAt : monotonicNanoseconds()) &- pausedTotal
        }
    }

    /// A snapshot for progress reports.
    public struct Statistics: Sendable, Equatable {
        /// Frames handed to the delivery queue.
        public var videoFrames: Int
        public var audioChunks: Int
        /// Of `audioChunks`, those from the microphone (the rest are system audio).
        public var microphoneChunks: Int = 0
        /// Dropped by the queue (sinks behind), or skipped by the stream (stale or corrupted): frames lost.
        public var droppedFrames: Int
        /// Left out on purpose to keep to the fps cap (not a loss).
        public var cappedFrames: Int = 0
        /// Seconds of media so far (from the first frame, pauses excluded).
        public var duration: Double
    }

    /// - Parameters:
    ///   - videoCore: the connection the screen-cast node lives on (the portal's fd).
    ///   - audioCore: a connection to the default daemon, needed when `options.microphone` or
    ///     `options.systemAudio` is set.
    ///   - sinks: fed in order; each is opened at the first frame and closed exactly once by `finish()`.
    public init(videoCore: PipeWireCore, audioCore: PipeWireCore?, sinks: [any CaptureSink],
                options: CapturePipelineOptions, onEvent: @escaping @Sendable (CapturePipelineEvent) -> Void) {
        self.options = options
        self.videoCore = videoCore
        self.audioCore = audioCore
        self.onEvent = onEvent
        // Frames normally borrow PipeWire's buffer and need no storage here. A frame is copied only while the
        // previous one is still held (a sink behind); one storage is kept for that, made at the first copy; a
        // burst beyond it gets storages that go back to the system once released (FrameStorage maps them), so
        // they never show as growth. Without borrowing, the steady state needs the stream's last frame, one
        // being copied and one waiting or being encoded, all kept.
        framePool = FramePool(maximumCount: options.zeroCopy ? 1 : options.delivery.videoCapacity + 1, prefills: true)
        let events = self.events
        let rejectionReported = self.rejectionReported
        let mixing = Self.mixesAudio(options) ? options.audioMixing : nil
        queue = DeliveryQueue(sinks: sinks, options: options.delivery.processing(options.processing).audioMixing(mixing)) { event in
            switch event {
            case .sinkFailed(let sink, let error): events.async { onEvent(.sinkFailed(sink: sink, error: error)) }
            case .formatChanged(let from, let to) where from != nil: events.async { onEvent(.formatChanged(to)) }
            case .frameRejected(let error):
                if rejectionReported.claim() { events.async { onEvent(.framesRejected(error)) } }
            default: break
            }
        }
    }

    /// Connects the streams. Frames flow (and sinks open) once the producer sends the first one.
    public func start() throws(PipeWireError) {
        var videoOptions = VideoCaptureOptions()
        videoOptions.cursorMetadata = options.cursorMetadata
        videoOptions.preferredFrameRate = options.preferredFrameRate
        videoOptions.bufferCount = min(16, options.videoBufferCount + 2 * (options.delivery.samplesPerWakeup - 1))
        videoOptions.maximumBorrowedFrames = options.delivery.samplesPerWakeup
        videoOptions.zeroCopy = options.zeroCopy
        videoOptions.bufferMapping = options.videoBufferMapping
        videoOptions.processThread = options.videoProcessThread
        let watchdog = options.noFrameTimeout.map { timeout in
            StallWatchdog(timeout: timeout) { [weak self] cause in self?.end(cause) }
        }
        // The audio streams first: the microphone is running by the time the first frame comes, so the sound
        // covers the recording from its start (a microphone linked after the video began up to its link time
        // late).
        var audio: AudioCaptureStream?, systemAudio: AudioCaptureStream?
        if let audioCore {
            do {
                audio = try options.microphone.map { (target) throws(PipeWireError) in
                    try audioStream(core: audioCore, target: target, systemAudio: false)
                }
                systemAudio = try options.systemAudio.map { (target) throws(PipeWireError) in
                    try audioStream(core: audioCore, target: target, systemAudio: true)
                }
            } catch {
                audio?.stop()
                throw error
            }
        }
        let pool = framePool
        let fallback = options.heldBufferFallback
        // Both closures run on the stream's process thread, one at a time: relaxed atomics (no lock per frame).
        let lastBorrowed = Atomic<Bool>(false), dropsInARow = Atomic<Int>(0)
        let video: VideoCaptureStream
        do {
            video = try VideoCaptureStream(
                core: videoCore, target: options.video, options: videoOptions,
                storageProvider: { capacity in
                    if case .drop(let most) = fallback, lastBorrowed.load(ordering: .relaxed),
                       dropsInARow.load(ordering: .relaxed) < most {
                        dropsInARow.add(1, ordering: .relaxed)
                        return nil   // the stream counts it as skipped (no storage)
                    }
                    return pool.acquire(capacity: capacity)
                },
                eventHandler: { [weak self] event in
                    if case .ended(let cause) = event, let mapped = Self.map(cause, stream: .video) { self?.end(mapped) }
                },
                frameHandler: { [pipeline = WeakReference(self)] frame in
                    lastBorrowed.store(frame.storage.isBorrowed, ordering: .relaxed)
                    dropsInARow.store(0, ordering: .relaxed)
                    let arrival = monotonicNanoseconds()   // one clock read for the watchdog and the timestamp check
                    watchdog?.frameArrived(at: arrival)
                    pipeline.object?.deliver(frame, arrival: arrival)
                })
        } catch {
            audio?.stop()
            systemAudio?.stop()
            throw error
        }
        streams.withLock { $0 = (video, audio, systemAudio, watchdog) }
        // The pipeline's part of each frame, prefetched with the stream's when the data thread wakes.
        video.warmCaches { warmer in
            warmer.add(object: self)
            warmer.add(object: watchdog)
            queue.warmCaches(warmer)
        }
        watchdog?.start()
        watchCore(videoCore)
    }

    /// The microphone's stream (mix input 0), or system audio's: the default output's monitor (mix input 1).
    private func audioStream(core: PipeWireCore, target: PipeWireTarget, systemAudio: Bool) throws(PipeWireError) -> AudioCaptureStream {
        var audioOptions = AudioCaptureOptions()
        if mixesAudio { audioOptions.sampleRate = options.audioMixing.format.sampleRate }
        if systemAudio {
            audioOptions.captureSinkMonitor = true
            audioOptions.nodeName = "pwrecord-system-audio"
        }
        return try AudioCaptureStream(
            core: core, target: target, options: audioOptions,
            eventHandler: { [weak self] event in
                if case .ended(let cause) = event, let mapped = Self.map(cause, stream: .audio), let self {
                    let lost: CapturePipelineEvent = systemAudio ? .systemAudioLost(mapped) : .microphoneLost(mapped)
                    self.events.async { self.onEvent(lost) }
                }
            },
            handler: { [pipeline = WeakReference(self)] buffer in pipeline.object?.deliver(buffer, systemAudio: systemAudio) })
    }

    /// Stops delivering without closing anything (the timeline pauses too).
    public func pause() {
        state.withLock { s in
            guard !s.paused else { return }
            s.paused = true
            s.pausedAt = monotonicNanoseconds()
            // Before the first frame: audio from before a pause is not the start's (the time paused is taken
            // out of what follows). After it, nothing is kept.
            for i in s.preroll.indices { s.preroll[i].clear() }
        }
    }

    public func resume() {
        state.withLock { s in
            guard s.paused else { return }
            s.paused = false
            s.pausedTotal += monotonicNanoseconds() &- s.pausedAt
            s.frameRateCap = FrameRateCap()
        }
    }

    public var isPaused: Bool { state.withLock { $0.paused } }

    /// Mutes or unmutes the microphone from now on: its chunks go on, timed as before, as silence, so the
    /// audio track keeps its length and a mix keeps system audio.
    public func setMicrophoneMuted(_ muted: Bool) {
        state.withLock { $0.microphoneMuted = muted }
    }

    public var isMicrophoneMuted: Bool { state.withLock { $0.microphoneMuted } }

    /// Seconds of recording time now: the monotonic clock since the first frame, less the time paused (0
    /// before the first frame). Unlike `statistics.duration` it advances while a producer sends nothing, so a
    /// time limit cuts audio and video at the same moment.
    public var elapsed: Double {
        state.withLock { s in
            guard s.started else { return 0 }
            // The first frame may be stamped a little ahead of now (`timestampTolerance`): never negative.
            let end = s.stoppedAt ?? ((s.paused ? s.pausedAt : monotonicNanoseconds()) &- s.pausedTotal)
            return end > s.startTime ? Double(end - s.startTime) / 1e9 : 0
        }
    }

    public var statistics: Statistics {
        let s = state.withLock { $0 }
        let q = queue.statistics
        let skipped = streams.withLock { $0.video?.statistics.framesSkipped ?? 0 }
        let duration = s.firstTimestamp.map { Double(s.lastTimestamp &- $0) / 1e9 } ?? 0
        return Statistics(videoFrames: s.videoFrames, audioChunks: s.audioChunks, microphoneChunks: s.microphoneChunks,
                          droppedFrames: q.droppedVideo + q.rejectedVideo + skipped, cappedFrames: s.capped, duration: duration)
    }

    /// The delivery queue's counts so far (what the sinks got, drops, the delivery thread's wake-ups).
    public var deliveryStatistics: DeliveryStatistics { queue.statistics }

    /// The video stream's own counters (borrowed and copied frames, skips), once started.
    public var videoStreamStatistics: VideoCaptureStatistics? { streams.withLock { $0.video?.statistics } }

    /// The video stream, while it runs.
    var videoStream: VideoCaptureStream? { streams.withLock { $0.video } }

    /// Where a start still waiting for its first frame stands, for the error that gives up on it: whether
    /// PipeWire linked the video stream, buffers came, frames reached the pipeline, and the sinks opened.
    public var startProgress: String {
        guard let video = videoStream else { return "the video stream was not created" }
        let stats = video.statistics
        let node = video.nodeID.map { " (our node \($0))" } ?? ""
        let skipped = stats.framesSkipped > 0
            ? ", \(stats.framesSkipped) skipped (\(stats.skippedInvalid) invalid, \(stats.skippedCorrupted) corrupted, \(stats.skippedNoStorage) without storage, \(stats.skippedStale) passed over)"
            : ""
        var text = "the video stream\(node) is \(video.state), "
        text += video.currentFormat.map { "format \($0)" } ?? "no format agreed"
        text += ", \(stats.buffersReceived) buffers received, \(stats.framesDelivered) frames\(skipped)"
        if sinksOpened.load(ordering: .acquiring) { text += "; the sinks were still opening" }
        return text
    }

    /// The audio format the sinks were opened with (the file's), once they are; nil without audio.
    public var audioFormat: AudioFormat? { state.withLock { $0.sinkAudioFormat } }

    /// The negotiated video format, once known.
    public var videoFormat: VideoFormat? { streams.withLock { $0.video?.currentFormat } }

    /// Stops accepting samples at once (what is queued is still delivered by `finish()`): the recording's end
    /// is now, not when the owner gets round to finishing (audio would otherwise run on past the video).
    public func stopAccepting() {
        state.withLock { s in
            s.finished = true
            s.noteStop()
        }
    }

    /// Stops the streams, delivers what is queued, closes every sink and returns their outcomes. Safe to call
    /// more than once (later calls return the same report) and after `.ended`.
    public func finish() async -> DeliveryReport {
        stopAccepting()
        let end = state.withLock { $0.started ? $0.stoppedAt : nil }
        stopStreams()
        if sinksOpened.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            // No frame ever arrived: open the sinks with what is known so they can finalize, then close.
            queue.start(SinkContext(video: nil, audio: nil, output: nil, startTime: monotonicNanoseconds()))
        }
        return await queue.finish(endingAt: end)
    }

    // MARK: data thread

    /// A frame whose timestamp is further than this from its arrival is restamped with its arrival time.
    static let timestampTolerance: UInt64 = 500_000_000

    /// `arrival`: when the frame reached the handler (`CLOCK_MONOTONIC` ns).
    private func deliver(_ frame: consuming VideoFrame, arrival: UInt64) {
        var frame = frame
        // A buffer can carry a stale presentation time (produced long before this consumer was linked, or by
        // a producer on another clock); trusting it would stretch or fold the timeline. Such frames get their
        // arrival time instead.
        if frame.timestamp &+ Self.timestampTolerance < arrival || frame.timestamp > arrival &+ Self.timestampTolerance {
            frame.timestamp = arrival
        }
        let accepted: Bool = state.withLock { s in
            guard !s.ended, !s.finished, !s.paused else { return false }
            if let cap = options.fpsCap, cap > 0, !s.frameRateCap.keeps(frame.timestamp, cap: cap) {
                s.capped += 1
                return false
            }
            frame.timestamp &-= s.pausedTotal
            if !s.started {
                s.started = true
                s.startTime = frame.timestamp
                s.firstTimestamp = frame.timestamp
                startRecording(&s)
            }
            s.lastTimestamp = frame.timestamp
            s.videoFrames += 1
            return true
        }
        // The sinks get the rate they will see: the cap's, when it is below what the producer announced (a plugin
        // opened with 30/1 under `--fps 10` would size its timeline wrongly).
        if let cap = options.fpsCap, cap > 0, !(1...Double(cap)).contains(frame.format.frameRate.framesPerSecond) {
            frame.format.frameRate = FrameRate(cap)
        }
        guard accepted, openSinksIfNeeded(with: frame) else { return }
        queue.enqueue(video: consume frame)
    }

    /// `systemAudio`: whether the chunk comes from the output's monitor rather than the microphone (its source
    /// in the mix, when both are recorded: see `enqueue(_:source:)`).
    private func deliver(_ buffer: AudioBuffer, systemAudio: Bool) {
        var buffer = buffer
        var start: UInt64 = 0
        var sinkFormat: AudioFormat?
        let accepted: Bool = state.withLock { s in
            sinkFormat = s.sinkAudioFormat
            guard !s.ended, !s.finished, !s.paused else { return false }
            guard s.started else {
                // The first frame may be stamped before this chunk and arrive after it: kept until it does
                // (`startRecording`).
                s.preroll[systemAudio ? 1 : 0].add(buffer)
                return false
            }
            buffer.timestamp &-= s.pausedTotal
            // A chunk that straddles the first frame keeps its samples from that frame on (cut below).
            guard buffer.timestamp &+ buffer.duration > s.startTime else { return false }
            start = s.startTime
            s.audioChunks += 1
            if !systemAudio { s.microphoneChunks += 1 }
            if !systemAudio && s.microphoneMuted { buffer = buffer.silenced }
            return true
        }
        guard accepted, let kept = buffer.dropping(before: start) else { return }
        enqueue(kept, source: systemAudio ? 1 : 0, sinkFormat: sinkFormat)
    }

    /// An audio chunk of `source` (0 the microphone, 1 system audio) to the queue, tagged for the mix when
    /// both are recorded.
    private func enqueue(_ chunk: AudioBuffer, source: Int, sinkFormat: AudioFormat?) {
        if mixesAudio {
            queue.enqueue(chunk, mixInput: source)
        } else {
            queue.enqueue(.audio(Self.conformed(chunk, to: sinkFormat)))
        }
    }

    /// `chunk` in the sinks' audio format: the sinks may have opened before the stream's format was known
    /// (the first frame came first: stereo F32 was assumed), and a sink refuses a format that changes mid-stream
    /// (a mono microphone failed the encoder). Channels and sample format are converted; another rate is not.
    static func conformed(_ chunk: AudioBuffer, to sinkFormat: AudioFormat?) -> AudioBuffer {
        guard let target = sinkFormat, chunk.format != target, chunk.format.sampleRate == target.sampleRate,
              target.channels > 0 else { return chunk }
        let samples = AudioMixer.convert(chunk, channels: target.channels)
        // In memory order, as the mixer hands on its mix (this host, like the stream, is little-endian).
        let bytes: [UInt8] = switch target.sampleFormat {
        case .f32: samples.withUnsafeBytes { Array($0) }
        case .s16: samples.map { Int16((max(-1, min(1, $0)) * 32767).rounded()) }.withUnsafeBytes { Array($0) }
        }
        return AudioBuffer(format: target, timestamp: chunk.timestamp, sequence: chunk.sequence, bytes: bytes)
    }

    /// The first frame starts the recording at `s.startTime`: every source's audio kept from before it is
    /// handed on from that time, oldest first across the sources (so the mix sees both at once), while the
    /// state lock is held: a source's later chunks take the lock first, so they queue after these.
    private func startRecording(_ s: inout State) {
        // Kept since the last resume (a pause clears them), so on the clock before the time paused is taken
        // out, as later chunks are.
        let paused = s.pausedTotal
        var kept: [(chunk: AudioBuffer, source: Int)] = []
        for source in s.preroll.indices {
            for var chunk in s.preroll[source].take(from: s.startTime &+ paused) {
                chunk.timestamp &-= paused
                kept.append((chunk, source))
            }
        }
        guard !kept.isEmpty else { return }
        kept.sort { $0.chunk.timestamp < $1.chunk.timestamp }   // a source's own chunks are in this order already
        s.audioChunks += kept.count
        s.microphoneChunks += kept.filter { $0.source == 0 }.count
        for (chunk, source) in kept {
            enqueue(source == 0 && s.microphoneMuted ? chunk.silenced : chunk, source: source, sinkFormat: s.sinkAudioFormat)
        }
    }

    /// Opens the sinks with the first frame's processed format; false (nothing opened, the frame withheld) when
    /// the processing leaves nothing of the frame, e.g. a crop outside it.
    private func openSinksIfNeeded(with frame: VideoFrame) -> Bool {
        // A load first: the exchange (a locked instruction on a shared line) is needed once, not every frame.
        guard !sinksOpened.load(ordering: .acquiring) else { return true }
        let format: VideoFormat
        do {
            format = try FrameProcessor(options: options.processing).outputFormat(for: frame.format, streamCrop: frame.crop)
        } catch {
            reportRejection(error)
            return false
        }
        guard sinksOpened.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return true }
        // Mixed audio comes in the mix's format; a single stream as negotiated (stereo F32 48 kHz until known).
        let audioFormat: AudioFormat? = if mixesAudio {
            options.audioMixing.outputFormat
        } else if options.microphone != nil || options.systemAudio != nil {
            streams.withLock { $0.audio?.currentFormat ?? $0.systemAudio?.currentFormat } ?? AudioFormat()
        } else {
            nil
        }
        state.withLock { $0.sinkAudioFormat = audioFormat }
        // `format` is processed already (with the frame's own crop, which the queue cannot see): the queue
        // must not crop it again.
        // `.started` once the sinks are open, after any failure of theirs: an owner hears a sink that refused the
        // first frame before it hears that the recording started.
        queue.start(processed: SinkContext(video: format, audio: audioFormat, output: nil, startTime: frame.timestamp)) {
            [events, onEvent] in events.async { onEvent(.started(format)) }
        }
        return true
    }

    private func reportRejection(_ error: FrameTransformError) {
        guard rejectionReported.claim() else { return }
        events.async { [onEvent] in onEvent(.framesRejected(error)) }
    }

    // MARK: ending

    private func end(_ cause: CaptureEnd) {
        let first = state.withLock { s -> Bool in
            guard !s.ended, !s.finished else { return false }
            s.ended = true
            s.noteStop()
            return true
        }
        guard first else { return }
        events.async { [onEvent] in onEvent(.ended(cause)) }
    }

    private func stopStreams() {
        let (video, audio, systemAudio, watchdog) = streams.withLock { $0 }
        watchdog?.cancel()
        video?.stop()
        audio?.stop()
        systemAudio?.stop()
    }

    private func watchCore(_ core: PipeWireCore) {
        let stream = core.events
        Task { [weak self] in
            for await event in stream {
                if case .error(let id, _, let res, let message) = event, id == 0 {
                    self?.end(.coreError(result: res, message: message))
                    return
                }
            }
        }
    }

    /// PipeWire's end causes as capture ends; a deliberate stop is not an end.
    static func map(_ cause: PipeWireStreamEndCause, stream: CaptureEnd.Stream) -> CaptureEnd? {
        switch cause {
        case .unconnected: .streamUnconnected(stream)
        case .streamError(let message): .streamError(stream, message: message)
        case .coreError(let res, let message): .coreError(result: res, message: message)
        case .noFrames(let timeout): .noFrames(for: timeout)
        case .stopped: nil
        }
    }
}
