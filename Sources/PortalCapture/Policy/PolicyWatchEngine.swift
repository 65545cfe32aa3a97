import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The state and thread behind `PolicyWatcher`.
final class PolicyWatchEngine: Sendable {
    struct Current: Sendable {
        var policy: Policy
        var decision: PolicyDecision
    }

    private struct State: Sendable {
        var current: Current
        var streams: [Int: AsyncStream<PolicyDecision>.Continuation] = [:]
        var nextStream = 0
        var stopped = false
    }

    let subject: PolicySubject
    let locations: PolicyLocations
    let timeZone: TimeZone
    let clock: @Sendable () -> Date
    let onChange: (@Sendable (PolicyDecision) -> Void)?
    /// The inotify descriptor (`inotify_init1`) and the pipe that wakes the thread to stop; closed in deinit,
    /// after the thread (which holds a reference) has ended.
    let inotifyFD: Int32
    let wakeReadFD: Int32
    let wakeWriteFD: Int32
    private let state: Mutex<State>

    /// How long events are coalesced after the first one, and the longest wait without any.
    static let settleMilliseconds: Int32 = 20
    static let idleMilliseconds = 60_000
    /// The longest wait before a subject's groups are read again (when they come from the group database).
    static let groupRefreshMilliseconds = 10_000

    init(subject: PolicySubject, locations: PolicyLocations, timeZone: TimeZone, clock: @escaping @Sendable () -> Date,
         onChange: (@Sendable (PolicyDecision) -> Void)?) throws(PolicyError) {
        self.subject = subject
        self.locations = locations
        self.timeZone = timeZone
        self.clock = clock
        self.onChange = onChange
        let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else { throw .watchFailed(function: "inotify_init1", errno: errno) }
        var wake: [Int32] = [-1, -1]
        // `pipe2` needs _GNU_SOURCE, which Glibc's module does not define: set close-on-exec afterwards.
        guard pipe(&wake) == 0 else {
            let error = errno
            close(inotify)
            throw .watchFailed(function: "pipe", errno: error)
        }
        for fd in wake { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        inotifyFD = inotify
        wakeReadFD = wake[0]
        wakeWriteFD = wake[1]

        var watches = PolicyWatchSet(fd: inotify, locations: locations)
        watches.arm()  // before reading, so an edit in between is not lost
        let policy = Policy.load(locations)
        let decision = policy.decision(for: subject, at: clock(), timeZone: timeZone)
        state = Mutex(State(current: Current(policy: policy, decision: decision)))

        let armed = watches
        let thread = Thread { [self] in run(armed) }
        thread.name = "pwrecord-policy-watcher"
        thread.start()
    }

    deinit {
        close(inotifyFD)
        close(wakeReadFD)
        close(wakeWriteFD)
    }

    var current: Current { state.withLock { $0.current } }

    func subscribe() -> AsyncStream<PolicyDecision> {
        let (stream, continuation) = AsyncStream.makeStream(of: PolicyDecision.self,
                                                            bufferingPolicy: .bufferingNewest(16))
        let id: Int? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.nextStream += 1
            state.streams[state.nextStream] = continuation
            continuation.yield(state.current.decision)
            return state.nextStream
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    func stop() {
        let streams: [AsyncStream<PolicyDecision>.Continuation]? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer { state.streams = [:] }
            return Array(state.streams.values)
        }
        guard let streams else { return }
        var byte: UInt8 = 1
        _ = write(wakeWriteFD, &byte, 1)  // an empty pipe always takes one byte
        streams.forEach { $0.finish() }
    }

    /// The watcher thread: wait for an event, the next boundary or the stop signal; re-read and re-decide.
    private func run(_ armed: PolicyWatchSet) {
        var watches = armed
        while true {
            let (decision, stopped) = state.withLock { ($0.current.decision, $0.stopped) }
            if stopped { return }
            var fds = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, timeout(until: decision.nextChange, degraded: watches.degraded))
            if ready < 0 && errno != EINTR {  // ENOMEM, or a bug: the decision can no longer be kept current
                fail(.watchFailed(function: "poll", errno: errno))
                return
            }
            if fds[1].revents != 0 { return }

            // A wake without an event (the hours boundary, the group refresh, the idle wait) reads the files
            // again too: whatever inotify cannot see (a bind mount, a file system without events) is caught
            // within `idleMilliseconds` at worst.
            var reload = watches.degraded || ready == 0
            if fds[0].revents != 0 && watches.drain() {
                reload = true
                // Coalesce the burst an editor's save makes (write temp, fsync, rename, chmod).
                var settle = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0)]
                while poll(&settle, 1, Self.settleMilliseconds) > 0 { _ = watches.drain() }
            }
            if reload {
                watches.arm()
                publish(policy: Policy.load(locations))
            } else {
                publish(policy: nil)
            }
        }
    }

    /// The watcher cannot go on: publish a fail-closed decision and end every stream.
    private func fail(_ error: PolicyError) {
        let decision = PolicyDecision.failedClosed([error])
        let streams: [AsyncStream<PolicyDecision>.Continuation] = state.withLock { state in
            state.stopped = true
            state.current.decision = decision
            defer { state.streams = [:] }
            return Array(state.streams.values)
        }
        streams.forEach {
            $0.yield(decision)
            $0.finish()
        }
        onChange?(decision)
    }

    private func timeout(until next: Date?, degraded: Bool) -> Int32 {
        var milliseconds = degraded ? 1_000 : (subject.groupsFromDatabase ? Self.groupRefreshMilliseconds : Self.idleMilliseconds)
        if let next {
            let until = next.timeIntervalSince(clock()) * 1_000
            milliseconds = min(milliseconds, max(0, Int(until.rounded(.up)) + 1))
        }
        return Int32(milliseconds)
    }

    /// Decides with `policy` (or the current one) at the current time; tells everyone when it changed.
    private func publish(policy: Policy?) {
        let changed: PolicyDecision? = state.withLock { state in
            if state.stopped { return nil }
            if let policy { state.current.policy = policy }
            // Groups are read again each time: a user added to (or removed from) a group is covered from the
            // next decision on, within `groupRefreshMilliseconds` even if nothing else changes.
            let decision: PolicyDecision
            do throws(PolicyError) {
                decision = state.current.policy.decision(for: try subject.refreshingGroups(), at: clock(), timeZone: timeZone)
            } catch {
                decision = .failedClosed([error])
            }
            guard decision != state.current.decision else { return nil }
            state.current.decision = decision
            state.streams.values.forEach { $0.yield(decision) }
            return decision
        }
        if let changed { onChange?(changed) }
    }
}
