import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a `PolicyDecision` current: re-reads the policy when its files change (inotify on the system
/// directory, `policy.d` and the user file's directory) and re-decides exactly at the next `hours` boundary.
///
/// Handled: files created, edited in place, replaced by rename (what editors do), deleted, chmod/chown, and the
/// system or user directory appearing later. A new decision is published within about 50 ms of the edit that
/// caused it (events are coalesced for 20 ms). Without any event, the decision is re-evaluated at least once a
/// minute, so a jump of the wall clock is noticed within a minute.
///
/// Threading: the watcher runs one thread of its own; `onChange` is called on it, one call at a time, never
/// while a lock is held. `decision` and `decisions()` may be used from any thread. The thread ends on `cancel()`
/// or when the watcher is released: keep a reference for as long as decisions should follow the files.
///
/// Fails closed: if the watcher itself breaks (`poll` fails), it publishes an unavailable decision with
/// `PolicyError.watchFailed` and stops. If a watch cannot be placed (inotify watch limit), it re-reads the files
/// every second instead.
public final class PolicyWatcher: Sendable {
    private let engine: PolicyWatchEngine

    /// Starts watching. The first decision is made before this returns.
    ///
    /// - Parameters:
    ///   - subject: who is recording (the decision is made for them).
    ///   - locations: where the policy lives; the system default unless testing.
    ///   - timeZone: how `hours` are read.
    ///   - clock: the current time; injectable for tests.
    ///   - onChange: called with each new decision that differs from the previous one.
    /// - Throws: `PolicyError.watchFailed` when inotify or the wake-up descriptor cannot be created.
    public init(subject: PolicySubject, locations: PolicyLocations = PolicyLocations(),
                timeZone: TimeZone = .policySystem, clock: @escaping @Sendable () -> Date = { Date() },
                onChange: (@Sendable (PolicyDecision) -> Void)? = nil) throws(PolicyError) {
        engine = try PolicyWatchEngine(subject: subject, locations: locations, timeZone: timeZone, clock: clock,
                                       onChange: onChange)
    }

    deinit { engine.stop() }

    /// The current decision.
    public var decision: PolicyDecision { engine.current.decision }

    /// The policy the current decision was made from (for `explain`).
    public var policy: Policy { engine.current.policy }

    /// The current decision, then every decision that differs from the one before. Ends on `cancel()`.
    /// Keeps the newest 16 when the reader falls behind.
    public func decisions() -> AsyncStream<PolicyDecision> { engine.subscribe() }

    /// Stops watching and ends every `decisions()` stream. Idempotent.
    public func cancel() { engine.stop() }
}
