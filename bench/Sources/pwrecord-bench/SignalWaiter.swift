import Dispatch
import Foundation
import Synchronization

/// Turns SIGTERM and SIGINT into something a command can wait for, so it stops cleanly when the benchmark
/// script ends it (`kill -TERM PID`). Waiting polls a flag every 50 ms at most: 20 wake-ups a second, far
/// below what the measured work costs, and no `AsyncStream` (whose iteration ends for good once cancelled).
final class SignalWaiter: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `sources` is set once in init and only kept alive; `received` is atomic.
    private let sources: [any DispatchSourceSignal]
    private let received: Flag

    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    init(_ signals: [Int32] = [SIGTERM, SIGINT]) {
        let flag = Flag()
        received = flag
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { flag.value.store(true, ordering: .relaxed) }
            source.resume()
            return source
        }
    }

    var signalled: Bool { received.value.load(ordering: .relaxed) }

    /// Returns at the first signal.
    func wait() async {
        while !signalled { try? await Task.sleep(for: .milliseconds(50)) }
    }

    /// Returns at the first signal or after `seconds`, whichever comes first; true when a signal came.
    func wait(upTo seconds: Double) async -> Bool {
        let end = ProcessMeasures.monotonicSeconds() + seconds
        while !signalled {
            let left = end - ProcessMeasures.monotonicSeconds()
            if left <= 0 { return false }
            try? await Task.sleep(for: .milliseconds(Int64(min(left, 0.05) * 1000) + 1))
        }
        return true
    }
}
