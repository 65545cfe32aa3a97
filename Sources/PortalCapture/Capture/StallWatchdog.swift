import Synchronization

/// Reports once when no video frame has arrived for `timeout`: the "no frames for N seconds" end of stream.
///
/// Call `frameArrived()` for every frame (from the data thread: it is one clock read and one atomic store), or
/// `frameArrived(at:)` with a time read from the same clock.
/// `start()` counts as an arrival, so a stream that never delivers is reported `timeout` after starting.
/// When the gap reaches `timeout`, `onStall` is called once, with `.noFrames(for: timeout)`, from a
/// concurrency-pool thread; the watchdog then stops. `cancel()` stops it without a report; once `cancel()`
/// has returned, `onStall` will not be called (a call that already began may still be running).
///
/// It sleeps until the deadline the last arrival implies and re-checks, so it wakes about once per
/// `timeout` while frames flow, and reports within a few milliseconds of the deadline.
public final class StallWatchdog: Sendable {
    private enum Phase: Int {
        case idle, watching, fired, cancelled
    }

    public let timeout: Duration
    private let onStall: @Sendable (CaptureEnd) -> Void
    private let now: @Sendable () -> UInt64
    private let lastArrival = Atomic<UInt64>(0)
    private let phase = Atomic<Int>(Phase.idle.rawValue)
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// `clock` gives `CLOCK_MONOTONIC` nanoseconds; tests inject one they advance by hand.
    public init(timeout: Duration, clock: @escaping @Sendable () -> UInt64 = monotonicNanoseconds,
                onStall: @escaping @Sendable (CaptureEnd) -> Void) {
        self.timeout = timeout
        self.now = clock
        self.onStall = onStall
    }

    deinit {
        task.withLock { $0?.cancel() }
    }

    /// Begins watching; later calls do nothing.
    public func start() {
        lastArrival.store(now(), ordering: .releasing)
        guard move(from: .idle, to: .watching) else { return }
        // The task holds the watchdog only while checking, so dropping the watchdog ends it.
        let watch = Task { [weak self] in
            while let wait = self?.check() {
                do {
                    try await Task.sleep(for: .nanoseconds(Int64(clamping: wait)))
                } catch {
                    return
                }
            }
        }
        task.withLock { $0 = watch }
    }

    /// Notes a video frame's arrival. Cheap enough for PipeWire's data thread.
    public func frameArrived() {
        frameArrived(at: now())
    }

    /// Notes a video frame's arrival at `time`, read from the watchdog's clock by a caller that reads it anyway.
    public func frameArrived(at time: UInt64) {
        lastArrival.store(time, ordering: .releasing)
    }

    /// Stops watching without a report.
    public func cancel() {
        _ = move(from: .watching, to: .cancelled) || move(from: .idle, to: .cancelled)
        task.withLock { $0?.cancel() }
    }

    /// Whether `onStall` was called (or is being called).
    public var hasFired: Bool { phase.load(ordering: .acquiring) == Phase.fired.rawValue }

    /// Reports when the deadline has passed; returns how long to sleep before the next check, or nil to stop.
    private func check() -> UInt64? {
        guard phase.load(ordering: .acquiring) == Phase.watching.rawValue else { return nil }
        let limit = Self.nanoseconds(timeout)
        let silent = now() &- lastArrival.load(ordering: .acquiring)
        if silent < limit { return limit - silent }
        if move(from: .watching, to: .fired) { onStall(.noFrames(for: timeout)) }
        return nil
    }

    private func move(from old: Phase, to new: Phase) -> Bool {
        phase.compareExchange(expected: old.rawValue, desired: new.rawValue, ordering: .acquiringAndReleasing).exchanged
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        return UInt64(clamping: seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}
