import Dispatch
import Foundation

/// SIGINT and SIGTERM stop a recording (finalizing the file); SIGUSR1 pauses and SIGUSR2 resumes.
/// The default actions are replaced while this is alive, so Ctrl-C never kills a recording half-written.
final class StopSignals: @unchecked Sendable {
    enum Signal: Sendable { case stop, pause, resume }

    /// Every signal handled, by name (as the man page's SIGNALS section lists them) and what it does.
    static let handled: [(name: String, number: Int32, meaning: Signal)] = [
        ("SIGINT", SIGINT, .stop), ("SIGTERM", SIGTERM, .stop), ("SIGUSR1", SIGUSR1, .pause), ("SIGUSR2", SIGUSR2, .resume),
    ]

    let signals: AsyncStream<Signal>
    private let continuation: AsyncStream<Signal>.Continuation
    private var sources: [DispatchSourceSignal] = []

    init() {
        (signals, continuation) = AsyncStream<Signal>.makeStream()
        let queue = DispatchQueue(label: "pwrecord.signals")
        for (_, number, meaning) in Self.handled {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [continuation] in continuation.yield(meaning) }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
        continuation.finish()
    }
}
