import Dispatch
import Foundation
import Synchronization

/// A sink run apart from the others (`SinkIsolation`): the delivery thread hands it copies of the frames
/// through a bounded queue, and a thread of its own makes the sink's calls, one at a time and in order. A sink
/// that blocks then costs only its own frames (the oldest waiting one is dropped, counted in its
/// `SinkResult.droppedFrames`); the capture, which lends PipeWire's buffers to frames, never waits for it, and
/// neither do the other sinks.
///
/// The end is bounded: `beginClose()` lets the thread take what is queued and close the sink; `awaitClose()`
/// waits until `closeTimeout` after that, then abandons the sink (`SinkError.abandoned`): its thread may stay
/// blocked in the sink's code, and whatever it does later goes nowhere.
///
/// Threading: `open`, `consume`, `formatChanged`, `ended`, `beginClose` and `awaitClose` come from the delivery
/// thread; the wrapped sink is called on the sink's own thread only. Errors the sink throws there are handed
/// back by the next call from the delivery thread (or by `awaitClose`), which reports them as its own.
final class IsolatedSink: Sendable {
    let sink: any CaptureSink
    let options: SinkIsolation
    private let state: Mutex<State>
    private let wakeup = ThreadWakeup()
    /// Signalled once the sink's `close` returned.
    private let closed = DispatchSemaphore(value: 0)
    /// Storage for the copies: every frame the queue may hold, one being written, one being copied.
    private let pool: FramePool

    private struct State: ~Copyable {
        var queue: SampleQueue
        var context: SinkContext?
        var endTime: UInt64?
        var closing = false
        var deadline: ContinuousClock.Instant?
        var abandoned = false
        /// The sink's thread is about to wait (or waits) on `wakeup`; whoever clears this signals it.
        var consumerWaiting = false
        /// Errors the sink threw on its thread, not yet handed to the delivery thread.
        var unreported: [SinkError] = []
        var result: SinkResult?

        mutating func takeWaitingConsumer() -> Bool {
            defer { consumerWaiting = false }
            return consumerWaiting
        }
    }

    private enum Step {
        case open(SinkContext)
        case deliver(CaptureSample)
        case wait
        case close(endingAt: UInt64?)
    }

    init(_ sink: any CaptureSink, options: SinkIsolation) {
        self.sink = sink
        self.options = options
        state = Mutex(State(queue: SampleQueue(videoCapacity: options.videoCapacity, audioCapacity: options.audioCapacity)))
        pool = FramePool(maximumCount: options.videoCapacity + 2)
        let thread = Thread { [self] in run() }
        thread.name = "pwrecord.sink.\(sink.id)"
        thread.start()
    }

    var id: String { sink.id }

    // MARK: Delivery thread

    func open(_ context: SinkContext) {
        update { $0.context = context }
    }

    /// Queues a copy of `sample` (frames are copied: the original may hold a PipeWire buffer). Throws an error
    /// the sink threw on its thread since the last call.
    func consume(_ sample: CaptureSample) throws(SinkError) {
        try throwUnreported()
        var sample = sample
        if case .video(let frame) = sample { sample = .video(copy(frame)) }
        let dropped = state.withLock { $0.queue.push(sample) }
        withExtendedLifetime(dropped) {}   // released here, outside the lock
        wake()
    }

    /// The sink's thread announces a format change itself, before the first frame it gets in that format (the
    /// frames in between may have been dropped).
    func formatChanged() throws(SinkError) {
        try throwUnreported()
    }

    func ended(at time: UInt64) throws(SinkError) {
        try throwUnreported()
        update { $0.endTime = time }
    }

    /// Lets the sink's thread close the sink once it has taken what is queued; the close timeout runs from now.
    func beginClose() {
        let deadline = ContinuousClock.now + options.closeTimeout
        update { state in
            guard !state.closing else { return }
            state.closing = true
            state.deadline = deadline
        }
    }

    /// Waits for the sink to close, until `closeTimeout` after `beginClose()` (which it calls if nobody did).
    /// Returns what `close` returned (with the queue's drops added), the errors not yet handed back and the
    /// frames the queue dropped (the sink fell behind); past the deadline, no result and `abandoned` last.
    func awaitClose() -> (result: SinkResult?, errors: [SinkError], missed: Int) {
        beginClose()
        let deadline = state.withLock { $0.deadline! }
        let notice = ContinuousClock.now + options.noticeAfter
        var done = options.onWaiting != nil && notice < deadline ? Self.wait(closed, until: notice) : false
        if !done {
            if options.onWaiting != nil && notice < deadline { options.onWaiting?(sink.id) }
            done = Self.wait(closed, until: deadline)
        }
        return state.withLock { state in
            defer { state.unreported = [] }
            let missed = state.queue.statistics.droppedVideo
            guard done else {
                state.abandoned = true
                return (nil, state.unreported + [.abandoned(sink: sink.id, pluginPath: sink.pluginPath, after: options.closeTimeout)],
                        missed)
            }
            var result = state.result
            result?.droppedFrames += missed
            return (result, state.unreported, missed)
        }
    }

    /// The queue's counts so far.
    var statistics: DeliveryStatistics { state.withLock { $0.queue.statistics } }

    private func throwUnreported() throws(SinkError) {
        let error: SinkError? = state.withLock { $0.unreported.isEmpty ? nil : $0.unreported.removeFirst() }
        if let error { throw error }
    }

    private func update(_ change: (inout State) -> Void) {
        let wake = state.withLock { state -> Bool in
            change(&state)
            return state.takeWaitingConsumer()
        }
        if wake { wakeup.signal() }
    }

    private func wake() {
        if state.withLock({ $0.takeWaitingConsumer() }) { wakeup.signal() }
    }

    private func copy(_ frame: VideoFrame) -> VideoFrame {
        let count = frame.stride * frame.format.height
        let storage = pool.acquire(capacity: count)
        storage.bytes.copyMemory(from: frame.storage.bytes, byteCount: count)
        return VideoFrame(format: frame.format, stride: frame.stride, timestamp: frame.timestamp, sequence: frame.sequence,
                          crop: frame.crop, cursorBox: frame.cursorBox, storage: storage)
    }

    private static func wait(_ semaphore: DispatchSemaphore, until instant: ContinuousClock.Instant) -> Bool {
        let left = ContinuousClock.now.duration(to: instant)
        let nanoseconds = max(0, left / .nanoseconds(1))
        return semaphore.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, Double(Int.max / 2))))) == .success
    }

    // MARK: The sink's thread

    private func run() {
        var opened = false
        var failed = false
        var format: VideoFormat?
        while true {
            let step = state.withLock { state -> Step in
                if !opened, !state.abandoned, let context = state.context { return .open(context) }
                if state.abandoned {
                    state.queue.discardAll()
                    return .close(endingAt: nil)
                }
                if let sample = state.queue.pop() { return .deliver(sample) }
                if state.closing { return .close(endingAt: state.endTime) }
                state.consumerWaiting = true
                return .wait
            }
            switch step {
            case .open(let context):
                opened = true
                format = context.video
                failed = !call { () throws(SinkError) in try sink.open(context) }
            case .deliver(let sample):
                guard !failed else { continue }
                if case .video(let frame) = sample, frame.format != format {
                    format = frame.format
                    failed = !call { () throws(SinkError) in try sink.formatChanged(frame.format) }
                    if failed { continue }
                }
                failed = !call { () throws(SinkError) in try sink.consume(sample) }
            case .wait:
                wakeup.wait()
            case .close(let time):
                if let time, opened, !failed { _ = call { () throws(SinkError) in try sink.ended(at: time) } }
                var result: SinkResult?
                _ = call { () throws(SinkError) in result = try sink.close() }
                state.withLock { $0.result = result }
                closed.signal()
                return
            }
        }
    }

    /// Makes one call to the sink; an error is kept for the delivery thread. Returns whether it succeeded.
    private func call(_ body: () throws(SinkError) -> Void) -> Bool {
        do throws(SinkError) {
            try body()
            return true
        } catch {
            state.withLock { if !$0.abandoned { $0.unreported.append(error) } }
            return false
        }
    }
}
