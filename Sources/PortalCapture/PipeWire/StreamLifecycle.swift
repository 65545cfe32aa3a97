import CPipeWire
import Synchronization

/// The part every capture stream shares: typed events (a handler plus an `AsyncStream`), the end of stream
/// reported exactly once, and the no-frames watchdog.
final class StreamLifecycle<Event: Sendable>: @unchecked Sendable {
    // Invariant: `watchdog` is only touched with the loop lock held; the rest is immutable, a Mutex or an Atomic.
    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let handler: (@Sendable (Event) -> Void)?
    private let endEvent: @Sendable (PipeWireStreamEndCause) -> Event
    private let cause = Mutex<PipeWireStreamEndCause?>(nil)
    /// Set once `cause` is: the data thread asks on every cycle, and an atomic load costs less than a lock.
    private let ended = Atomic<Bool>(false)
    private let lastActivity = Atomic<UInt64>(0)
    private var watchdog: LoopTimer?

    init(handler: (@Sendable (Event) -> Void)?, endEvent: @escaping @Sendable (PipeWireStreamEndCause) -> Event) {
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1024))
        self.handler = handler
        self.endEvent = endEvent
    }

    /// Hands `event` to the handler and the sequence, unless the stream already ended.
    func emit(_ event: Event) {
        guard !hasEnded else { return }
        handler?(event)
        continuation.yield(event)
    }

    /// Reports the end with `cause` if it is the first; returns whether it was.
    @discardableResult
    func end(_ endCause: PipeWireStreamEndCause) -> Bool {
        let first = cause.withLock { c in
            guard c == nil else { return false }
            c = endCause
            ended.store(true, ordering: .releasing)
            return true
        }
        guard first else { return false }
        let event = endEvent(endCause)
        handler?(event)
        continuation.yield(event)
        continuation.finish()
        return true
    }

    /// Emits `.stateChanged` (made by `event`) and, unless the owner is stopping, ends the stream when the
    /// new state is `error` (with PipeWire's message) or `unconnected`.
    func follow(_ new: PipeWireStreamState, error: String?, stopping: Bool,
                event: (PipeWireStreamState) -> Event) {
        emit(event(new))
        guard !stopping else { return }
        switch new {
        case .error: end(.streamError(error ?? "unknown error"))
        case .unconnected: end(.unconnected)
        default: break
        }
    }

    var endCause: PipeWireStreamEndCause? { cause.withLock { $0 } }
    var hasEnded: Bool { ended.load(ordering: .acquiring) }

    /// Records that a buffer arrived now (cheap: one atomic store).
    func noteActivity(_ now: UInt64 = monotonicNanoseconds()) {
        lastActivity.store(now, ordering: .relaxed)
    }

    /// Arms the watchdog: ends with `.noFrames(timeout)` when no buffer arrives for `timeout`. Lock held.
    func startWatchdog(loop: UnsafeMutablePointer<pw_loop>, timeout: Duration) {
        noteActivity()
        let timeoutNs = UInt64(timeout.components.seconds) * 1_000_000_000 + UInt64(timeout.components.attoseconds / 1_000_000_000)
        let timer = LoopTimer(loop: loop) { [unowned self] in
            let idle = monotonicNanoseconds() &- self.lastActivity.load(ordering: .relaxed)
            if idle >= timeoutNs {
                self.stopWatchdog()
                self.end(.noFrames(timeout: timeout))
            }
        }
        let check = max(timeout / 8, .milliseconds(10))
        timer.schedule(after: check, every: check)
        watchdog = timer
    }

    /// Lock held.
    func stopWatchdog() {
        watchdog?.destroy()
        watchdog = nil
    }

    /// A stream's teardown on the data thread, where the loop lock must not be waited for: `handle` (nil when
    /// already gone) is destroyed on another thread (`StreamHandle.destroyElsewhere`), which stops the watchdog
    /// and runs `before` under the loop lock first; the end with `cause` is reported after.
    func end(_ cause: PipeWireStreamEndCause, destroyingElsewhere handle: StreamHandle?, core: PipeWireCore,
             before: @escaping @Sendable () -> Void = {}) {
        guard let handle else {
            end(cause)
            return
        }
        handle.destroyElsewhere(core: core, before: { [self] in
            stopWatchdog()
            before()
        }, then: { [self] in end(cause) })
    }
}
