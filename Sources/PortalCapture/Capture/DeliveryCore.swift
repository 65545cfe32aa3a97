import Dispatch
import Synchronization

/// The state a `DeliveryQueue` shares with its delivery thread, and the thread's loop.
final class DeliveryCore: Sendable {
    enum End: Sendable { case finish, cancel }

    private struct State: ~Copyable {
        var queue: SampleQueue
        var context: SinkContext?
        /// `context.video` is already the processed format (`CapturePipeline` knows the stream's own crop).
        var contextIsProcessed = false
        /// Called on the delivery thread once the sinks were opened (failures already reported).
        var onOpened: (@Sendable () -> Void)?
        var end: End?
        /// Where the recording ended (`CaptureSink.ended(at:)`), when a finish said so.
        var endTime: UInt64?
        /// The delivery thread is about to wait (or waits) on `wakeup`; whoever clears this signals it.
        var consumerWaiting = false
        /// The delivery thread waits without a time limit (it found nothing after waiting `maximumHold`), so
        /// the next sample must wake it however few wait.
        var consumerIdle = false
        var report: DeliveryReport?
        var waiters: [@Sendable (DeliveryReport) -> Void] = []

        /// Whether the delivery thread must be signalled, clearing the flag so it is signalled once.
        mutating func takeWaitingConsumer() -> Bool {
            defer { consumerWaiting = false }
            return consumerWaiting
        }

        /// `takeWaitingConsumer()` for a push: only once `samplesPerWakeup` samples wait, when the thread is
        /// idle, or when the sample pushed may not be held (`VideoFrame.mayBeHeld`).
        mutating func takeWaitingConsumer(afterPushOf mayBeHeld: Bool, samplesPerWakeup: Int) -> Bool {
            guard consumerWaiting, !mayBeHeld || consumerIdle || queue.count >= samplesPerWakeup else { return false }
            consumerWaiting = false
            queue.noteWakeup()
            return true
        }
    }

    /// Plain values only, so a step costs nothing to make and drop (the context for `.open` is read by
    /// `open`, once; it never changes once set).
    private enum Step {
        case open
        /// The sample is handed out beside the step, in a variable of its kind (a payload made every step a
        /// copy of it).
        case deliver
        /// Waits for a signal, at most `maximumHold` unless `idle`.
        case wait(idle: Bool)
        case end(cancelled: Bool, at: UInt64?)
    }

    private let state: Mutex<State>
    private let wakeup = ThreadWakeup()
    private let sinks: [any CaptureSink]
    private let processing: FrameProcessingOptions
    private let audioMixing: AudioMixerOptions?
    private let poolSize: Int
    private let samplesPerWakeup: Int
    private let maximumHoldNanoseconds: Int
    private let onEvent: @Sendable (DeliveryEvent) -> Void

    init(sinks: [any CaptureSink], options: DeliveryOptions, onEvent: @escaping @Sendable (DeliveryEvent) -> Void) {
        state = Mutex(State(queue: SampleQueue(videoCapacity: options.videoCapacity,
                                               audioCapacity: options.audioCapacity)))
        self.sinks = sinks
        processing = options.processing
        audioMixing = options.audioMixing
        poolSize = options.videoCapacity + 4
        samplesPerWakeup = options.samplesPerWakeup
        let (seconds, attoseconds) = options.maximumHold.components
        maximumHoldNanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        self.onEvent = onEvent
    }

    // MARK: Producer and owner side (any thread)

    /// Lists what a frame's hand-off and delivery touch: this core, its wake-up, the queue's frame slots and
    /// the sinks (see `CacheWarmer`).
    func warmCaches(_ warmer: CacheWarmer) {
        warmer.add(object: self)
        warmer.add(object: wakeup)
        warmer.add(allocation: wakeup.semaphoreAddress)
        warmer.add(allocation: state.withLock { $0.queue.videoStorage })
        sinks.withUnsafeBufferPointer { warmer.add($0.baseAddress, byteCount: $0.count * MemoryLayout<any CaptureSink>.stride) }
        for sink in sinks { warmer.add(head: sink) }
    }

    /// O(1), never waits for the delivery thread: takes the lock only for the push.
    func enqueue(_ sample: consuming CaptureSample, mixInput: Int? = nil) -> Bool {
        switch consume sample {
        case .video(let frame): enqueue(video: frame)
        case .audio(let buffer): enqueue(audio: buffer, mixInput: mixInput)
        }
    }

    /// A frame, as `enqueue(_:mixInput:)`, without wrapping it in a `CaptureSample` (the pipeline's path).
    func enqueue(video frame: consuming VideoFrame) -> Bool {
        // Moved into the queue rather than copied (a copy of a frame is retains now and releases later).
        let mayBeHeld = frame.mayBeHeld
        var pending: VideoFrame? = consume frame
        var dropped: VideoFrame?
        let accepted = pushUnlessEnded(mayBeHeld: mayBeHeld) { queue in
            if let frame = pending.take() { dropped = queue.push(video: frame) }
        }
        // A dropped or refused frame is released here, outside the lock; one at a time (a tuple of the two went
        // through the runtime's generic tuple destroy).
        _ = consume dropped
        _ = consume pending
        return accepted
    }

    /// An audio chunk, as `enqueue(video:)` does a frame.
    func enqueue(audio buffer: consuming AudioBuffer, mixInput: Int? = nil) -> Bool {
        var pending: AudioBuffer? = consume buffer
        var dropped: AudioBuffer?
        let accepted = pushUnlessEnded(mayBeHeld: true) { queue in
            if let buffer = pending.take() { dropped = queue.push(audio: buffer, mixInput: mixInput) }
        }
        _ = consume dropped
        _ = consume pending
        return accepted
    }

    /// Runs `push` on the queue under the lock, unless the queue has ended (then returns false), and wakes the
    /// delivery thread if it waits (and `samplesPerWakeup` samples wait, or the sample may not be held).
    private func pushUnlessEnded(mayBeHeld: Bool, _ push: (inout SampleQueue) -> Void) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            guard state.end == nil else { return (false, false) }
            push(&state.queue)
            return (true, state.takeWaitingConsumer(afterPushOf: mayBeHeld, samplesPerWakeup: samplesPerWakeup))
        }
        if wake { wakeup.signal() }
        return accepted
    }

    func start(_ context: SinkContext, videoIsProcessed: Bool = false, onOpened: (@Sendable () -> Void)? = nil) -> Bool {
        let (started, wake) = state.withLock { state -> (Bool, Bool) in
            guard state.context == nil, state.end == nil else { return (false, false) }
            state.context = context
            state.contextIsProcessed = videoIsProcessed
            state.onOpened = onOpened
            return (true, state.takeWaitingConsumer())
        }
        if wake { wakeup.signal() }
        return started
    }

    /// Asks the thread to end (a cancel overrides a finish still draining) and calls `completion` with the
    /// report once every sink is closed: at once if that already happened, else on the delivery thread.
    /// `time` is where the recording ended (a finish's; the first one given counts).
    func end(_ end: End, at time: UInt64? = nil, completion: @escaping @Sendable (DeliveryReport) -> Void) {
        let (report, wake) = state.withLock { state -> (DeliveryReport?, Bool) in
            if let report = state.report { return (report, false) }
            if state.end != .cancel { state.end = end }
            if state.endTime == nil { state.endTime = time }
            state.waiters.append(completion)
            return (nil, state.takeWaitingConsumer())
        }
        if wake { wakeup.signal() }
        if let report { completion(report) }
    }

    var statistics: DeliveryStatistics { state.withLock { $0.queue.statistics } }

    // MARK: Delivery thread

    func run() {
        let processor = processing.isIdentity
            ? nil : FrameProcessor(options: processing, pool: FramePool(maximumCount: poolSize))
        var fanOut = SinkFanOut(sinks: sinks, processor: processor, onEvent: onEvent)
        // The mix is made here, not on PipeWire's data threads: it waits for the slower source (holding the
        // other's chunks), converts and sums every sample, and allocates; the data threads only push.
        var mixer = audioMixing.map { AudioMixer(options: $0) }
        var lateAudioFrames = 0
        var opened = false
        // The last wait ran out its `maximumHold`: if nothing waits now, the next wait has no time limit.
        var heldInVain = false
        while true {
            var frame: VideoFrame?
            var audio: SampleQueue.AudioEntry?
            let step = state.withLock { state -> Step in
                if !opened, state.end != .cancel, state.context != nil { return .open }
                if state.end == .cancel || (state.end == .finish && !opened) {
                    state.queue.discardAll()
                    return .end(cancelled: state.end == .cancel, at: nil)
                }
                if opened, let kind = state.queue.nextKind {
                    switch kind {
                    case .video: frame = state.queue.popVideo()
                    case .audio: audio = state.queue.popAudio()
                    }
                    return .deliver
                }
                if state.end == .finish { return .end(cancelled: false, at: state.endTime) }
                state.consumerWaiting = true
                state.consumerIdle = samplesPerWakeup == 1 || heldInVain
                return .wait(idle: state.consumerIdle)
            }
            // The loop keeps only the frame path inline; opening, audio and the end are functions of their own,
            // so the code a frame runs lies on a few cache lines (bench/capture/footprint).
            switch step {
            case .open:
                open(&fanOut)
                opened = true
            case .deliver:
                heldInVain = false
                if let frame = frame.take() {
                    if !fanOut.deliver(video: frame) { noteRejected() }
                } else if let entry = audio.take() {
                    deliver(entry, to: &fanOut, mixer: &mixer, lateAudioFrames: &lateAudioFrames)
                }
            case .wait(let idle):
                if idle {
                    wakeup.wait()
                    heldInVain = false
                } else if wakeup.wait(nanoseconds: maximumHoldNanoseconds) {
                    heldInVain = false
                } else {
                    // Nobody signalled this wait; a push that took the flag in the meantime has signalled, and
                    // the next wait returns at once.
                    state.withLock { $0.consumerWaiting = false }
                    heldInVain = true
                }
            case .end(let cancelled, let time):
                finish(&fanOut, mixer: &mixer, opened: opened, cancelled: cancelled, at: time)
                return
            }
        }
    }

    /// Opens the sinks with the context `start` gave (set once, before this step is taken).
    @inline(never)
    private func open(_ fanOut: inout SinkFanOut) {
        let (context, processed, then) = state.withLock { ($0.context, $0.contextIsProcessed, $0.onOpened) }
        guard let context else { return }
        fanOut.open(context, videoIsProcessed: processed)
        then?()
    }

    /// Counts a frame the processor refused.
    @inline(never)
    private func noteRejected() {
        state.withLock { $0.queue.noteRejected() }
    }

    /// An audio chunk: straight to the sinks, or into the mix (which hands on what it has mixed) when it is one
    /// of the mix's sources; counts the mix's late frames.
    @inline(never)
    private func deliver(_ entry: SampleQueue.AudioEntry, to fanOut: inout SinkFanOut, mixer: inout AudioMixer?,
                         lateAudioFrames: inout Int) {
        guard let input = entry.mixInput, mixer != nil else {
            _ = fanOut.deliver(.audio(entry.buffer))
            return
        }
        // Mutated in place through the optional (a copy would copy its pending samples).
        for mixed in mixer?.add(entry.buffer, input: input) ?? [] { _ = fanOut.deliver(.audio(mixed)) }
        let late = mixer?.statistics.lateFrames.reduce(0, +) ?? 0
        if late != lateAudioFrames {
            lateAudioFrames = late
            state.withLock { $0.queue.noteLateAudio(frames: late) }
        }
    }

    /// Flushes the mix, tells the sinks where the recording ended, closes them and hands out the report.
    @inline(never)
    private func finish(_ fanOut: inout SinkFanOut, mixer: inout AudioMixer?, opened: Bool, cancelled: Bool,
                        at time: UInt64?) {
        // What the mix still holds (a source's last chunks, or the wait behind a silent one) is the end of the
        // recording's audio; then the sinks hear where the recording stopped.
        if opened, !cancelled, let rest = mixer?.flush() {
            for mixed in rest { _ = fanOut.deliver(.audio(mixed)) }
        }
        if let time { fanOut.ended(at: time) }
        let outcomes = fanOut.close()
        let (report, waiters) = state.withLock { state in
            let report = DeliveryReport(outcomes: outcomes, statistics: state.queue.statistics, cancelled: cancelled)
            state.report = report
            defer { state.waiters = [] }
            return (report, state.waiters)
        }
        for waiter in waiters { waiter(report) }
    }
}
