import Foundation
import Synchronization

/// Keeps `Availability` current: the policy (files watched with inotify, hours boundaries), the portal
/// (appearing on and leaving the session bus), and PipeWire (its socket accepting connections, checked
/// every `pipewireInterval`). Calls `onChange` with the new value when it changes, and `onPolicyChange` with
/// each new policy decision (which may tighten a running recording without changing availability).
final class AvailabilityMonitor: Sendable {
    private let appID: String
    private let configuration: ScreenRecorderConfiguration
    private let state = Mutex(State())
    private let callback = Mutex<(@Sendable (Availability) -> Void)?>(nil)
    private let policyCallback = Mutex<(@Sendable (PolicyDecision) -> Void)?>(nil)
    private let pipewireInterval: Duration = .milliseconds(500)

    private struct State {
        var policy: PolicyDecision = .failedClosed([])
        var portal: String? = "not checked yet"
        var pipewire: String?
        var current = Availability(reasons: [.portal("not checked yet")])
        var watcher: PolicyWatcher?
        var tasks: [Task<Void, Never>] = []
    }

    init(appID: String, configuration: ScreenRecorderConfiguration) {
        self.appID = appID
        self.configuration = configuration
    }

    var onPolicyChange: (@Sendable (PolicyDecision) -> Void)? {
        get { policyCallback.withLock { $0 } }
        set { policyCallback.withLock { $0 = newValue } }
    }

    var onChange: (@Sendable (Availability) -> Void)? {
        get { callback.withLock { $0 } }
        set { callback.withLock { $0 = newValue } }
    }

    var current: Availability { state.withLock { $0.current } }
    var policyDecision: PolicyDecision { state.withLock { $0.policy } }

    func start() {
        // Policy: read now, then follow the watcher.
        do throws(PolicyError) {
            var subject = configuration.subject
            if subject == nil { subject = try PolicySubject.current(appID: appID) }
            guard let subject else { return }
            let watcher = try PolicyWatcher(subject: subject, locations: configuration.policy,
                                            onChange: { [weak self] decision in
                                                guard let self else { return }
                                                self.update { $0.policy = decision }
                                                self.policyCallback.withLock { $0 }?(decision)
                                            })
            state.withLock { $0.watcher = watcher; $0.policy = watcher.decision }
        } catch {
            state.withLock { $0.policy = .failedClosed([error]) }
        }
        state.withLock { $0.pipewire = Self.pipewireUnreachable(remote: configuration.pipewireRemote) }
        recompute()
        let provider = configuration.provider
        let portalChanges = provider.availabilityChanges()
        let portalTask = Task { [weak self] in
            await self?.refreshPortal()
            for await _ in portalChanges {
                guard let self else { return }
                await self.refreshPortal()
            }
        }
        let interval = pipewireInterval
        let remote = configuration.pipewireRemote
        let pipewireTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let reason = Self.pipewireUnreachable(remote: remote)
                self?.update { $0.pipewire = reason }
            }
        }
        state.withLock { $0.tasks = [portalTask, pipewireTask] }
    }

    func stop() {
        let (watcher, tasks) = state.withLock { ($0.watcher, $0.tasks) }
        watcher?.cancel()
        tasks.forEach { $0.cancel() }
    }

    /// Re-reads everything now.
    func refresh() async -> Availability {
        update { $0.pipewire = Self.pipewireUnreachable(remote: configuration.pipewireRemote) }
        await refreshPortal()
        return current
    }

    private func refreshPortal() async {
        let reason = await configuration.provider.unavailability()
        update { $0.portal = reason }
    }

    private func update(_ change: (inout State) -> Void) {
        state.withLock { change(&$0) }
        recompute()
    }

    /// Held from working out a change to handing it to `onChange` (which only queues it): the PipeWire poll,
    /// the portal task, the policy watcher and `refresh()` run on different threads, and two changes must reach
    /// the delegate in the order `current` took them, or it would end on a stale value.
    private let changeOrder = Mutex(())

    private func recompute() {
        changeOrder.withLock { _ in
            let changed = state.withLock { s -> Availability? in
                var reasons: [Availability.Reason] = []
                reasons += s.policy.reasons.map { .policy($0.description) }
                if let p = s.portal { reasons.append(.portal(p)) }
                if let p = s.pipewire { reasons.append(.pipewire(p)) }
                let next = Availability(reasons: reasons)
                guard next != s.current else { return nil }
                s.current = next
                return next
            }
            if let changed, let onChange { onChange(changed) }
        }
    }

    /// Whether PipeWire's socket accepts a connection (`$PIPEWIRE_RUNTIME_DIR` or `$XDG_RUNTIME_DIR`, then
    /// `$PIPEWIRE_REMOTE` or `pipewire-0`); nil when it does.
    static func pipewireUnreachable(remote: String?) -> String? {
        let env = ProcessInfo.processInfo.environment
        let name = remote ?? env["PIPEWIRE_REMOTE"] ?? "pipewire-0"
        let path: String
        if name.hasPrefix("/") {
            path = name
        } else {
            guard let dir = env["PIPEWIRE_RUNTIME_DIR"] ?? env["XDG_RUNTIME_DIR"] else {
                return "XDG_RUNTIME_DIR is not set, so the PipeWire socket cannot be found"
            }
            path = dir + "/" + name
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return "cannot create a socket" }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { return "PipeWire socket path too long: \(path)" }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
        return ok ? nil : "PipeWire is not running (no server at \(path)); start it with `systemctl --user start pipewire`"
    }
}
