import Dispatch
import Foundation
import Synchronization

/// SIGINT, SIGTERM and SIGHUP (the terminal closed, an SSH session dropped) stop a recording (finalizing the
/// file); SIGUSR1 pauses and SIGUSR2 resumes. The default actions are replaced while this is alive, so Ctrl-C
/// or a closed terminal never kills a recording half-written.
final class StopSignals: @unchecked Sendable {
    enum Signal: Sendable { case stop, pause, resume }

    /// Every signal handled, by name (as the man page's SIGNALS section lists them) and what it does.
    static let handled: [(name: String, number: Int32, meaning: Signal)] = [
        ("SIGINT", SIGINT, .stop), ("SIGTERM", SIGTERM, .stop), ("SIGHUP", SIGHUP, .stop),
        ("SIGUSR1", SIGUSR1, .pause), ("SIGUSR2", SIGUSR2, .resume),
    ]

    let signals: AsyncStream<Signal>
    private let continuation: AsyncStream<Signal>.Continuation
    private var sources: [DispatchSourceSignal] = []
    /// Whether a stop signal came, what to do at once when one comes (besides yielding it), and whether pause
    /// and resume are passed on yet (before the recording has started they mean nothing and are dropped, not
    /// kept to pause it the moment it starts).
    private struct StopState {
        var requested = false
        var action: (@Sendable () -> Void)?
        var pausesEnabled = false
    }
    private let stopState = Mutex(StopState())

    init() {
        (signals, continuation) = AsyncStream<Signal>.makeStream()
        let queue = DispatchQueue(label: "pwrecord.signals")
        for (_, number, meaning) in Self.handled {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self, continuation] in
                guard let self else { return }
                if meaning == .stop {
                    self.stopState.withLock { s -> (@Sendable () -> Void)? in
                        s.requested = true
                        return s.action
                    }?()
                } else if !self.stopState.withLock({ $0.pausesEnabled }) {
                    return
                }
                continuation.yield(meaning)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Whether a stop signal (SIGINT, SIGTERM, SIGHUP) has come.
    var stopRequested: Bool { stopState.withLock { $0.requested } }

    /// Runs `action` (on the signal queue) when a stop signal comes, at once if one came already; nil clears it.
    /// For what cannot wait for the stream to be read, e.g. giving up the consent dialog.
    func onStop(_ action: (@Sendable () -> Void)?) {
        let now = stopState.withLock { s -> Bool in
            s.action = action
            return s.requested
        }
        if now { action?() }
    }

    /// From now on SIGUSR1 and SIGUSR2 are passed on (call it once the recording runs).
    func enablePauses() { stopState.withLock { $0.pausesEnabled = true } }

    func cancel() {
        sources.forEach { $0.cancel() }
        continuation.finish()
    }
}
