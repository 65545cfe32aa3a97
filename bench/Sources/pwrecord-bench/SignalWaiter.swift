import Dispatch
import Foundation
import Synchronization

/// Turns SIGTERM and SIGINT into something a command can wait for, so it stops cleanly when the benchmark
/// script ends it (`kill -TERM PID`). Waiting costs no wake-ups: a waiter is a continuation resumed by the
/// signal source or by a one-shot timer (`wait(upTo:)`), never a polling loop (polling every 50 ms used to
/// cost the measured process about 1 ms of CPU a second: 20 timer sources a second).
final class SignalWaiter: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `sources` is set once in init and only kept alive; `state` is a Mutex.
    private let sources: [any DispatchSourceSignal]
    private let state: Shared

    private struct State {
        var received = false
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private final class Shared: Sendable {
        let state = Mutex(State())

        func signal() {
            let waiters = state.withLock { s -> [CheckedContinuation<Bool, Never>] in
                s.received = true
                defer { s.waiters = [:] }
                return Array(s.waiters.values)
            }
            for waiter in waiters { waiter.resume(returning: true) }
        }

        /// Resumes waiter `id` with false if it still waits (its time is up).
        func expire(_ id: UInt64) {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: false)
        }
    }

    init(_ signals: [Int32] = [SIGTERM, SIGINT]) {
        let shared = Shared()
        state = shared
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { shared.signal() }
            source.resume()
            return source
        }
    }

    var signalled: Bool { state.state.withLock { $0.received } }

    /// Returns at the first signal.
    func wait() async {
        _ = await wait(deadline: nil)
    }

    /// Returns at the first signal or after `seconds`, whichever comes first; true when a signal came.
    func wait(upTo seconds: Double) async -> Bool {
        await wait(deadline: .now() + .nanoseconds(Int(max(0, seconds) * 1e9)))
    }

    private func wait(deadline: DispatchTime?) async -> Bool {
        let shared = state
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = shared.state.withLock { s -> UInt64? in
                if s.received { return nil }
                s.nextID += 1
                s.waiters[s.nextID] = continuation
                return s.nextID
            }
            guard let id else { return continuation.resume(returning: true) }
            if let deadline { DispatchQueue.global().asyncAfter(deadline: deadline) { shared.expire(id) } }
        }
    }
}
