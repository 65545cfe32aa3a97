import Synchronization

/// Whether a portal session is still open, and who hears about its end. The end is decided exactly once (the first
/// of: our `Close`, the portal's `org.freedesktop.portal.Session::Closed`, the frontend leaving the bus, our
/// connection closing) and delivered to every handler and stream registered before or after it.
///
/// Follows the session through a `Closed` subscription on its path and a watch on the frontend's bus name; both
/// are dropped when the session ends, which also breaks the reference cycle between them and this object.
final class PortalSessionLifecycle: Sendable {
    private struct State {
        var closure: SessionClosure?
        var handlers: [@Sendable (SessionClosure) -> Void] = []
        var continuations: [AsyncStream<SessionClosure>.Continuation] = []
        var closedSubscription: DBusSignalSubscription?
        var ownerTask: Task<Void, Never>?
    }

    private let state = Mutex(State())

    var closure: SessionClosure? { state.withLock { $0.closure } }

    /// Subscribes to `org.freedesktop.portal.Session::Closed` at `path` (replacing an earlier subscription, e.g.
    /// on the predicted path) and, the first time, starts watching the frontend's owner.
    func follow(_ connection: DBusConnection, path: DBusObjectPath) async throws(PortalError) {
        let rule = DBusMatchRule(sender: DesktopPortal.busName, path: path, interface: DesktopPortal.sessionInterface,
                                 member: "Closed")
        let subscription: DBusSignalSubscription
        do {
            subscription = try await connection.subscribe(rule, handler: { [weak self] _ in
                self?.finish(.byPortal)
            }, onEnd: { [weak self, weak connection] in
                // A subscription we cancel ourselves also ends; only a closed connection means the session is lost.
                if connection?.isConnected != true { self?.finish(.connectionLost) }
            })
        } catch {
            throw PortalError(error, interface: DesktopPortal.sessionInterface, method: "AddMatch(Closed)")
        }
        let needsWatch = state.withLock { state -> Bool in
            state.closedSubscription?.cancel()
            state.closedSubscription = subscription
            return state.ownerTask == nil
        }
        guard needsWatch else { return }
        let watch: DBusNameOwnerWatch
        do {
            watch = try await connection.watchNameOwner(DesktopPortal.busName)
        } catch {
            throw PortalError(error, interface: DesktopPortal.sessionInterface, method: "watch \(DesktopPortal.busName)")
        }
        let task = Task { [weak self] in
            var current: String?
            for await owner in watch {
                if let current, owner != current {
                    self?.finish(.portalVanished)
                    return
                }
                current = owner
            }
        }
        let alreadyClosed = state.withLock { state -> Bool in
            state.ownerTask = task
            return state.closure != nil
        }
        if alreadyClosed { task.cancel() }
    }

    /// Ends the session with `closure` unless it already ended; returns false when it had. Handlers run and streams
    /// yield on the calling thread, outside the lock.
    @discardableResult
    func finish(_ closure: SessionClosure) -> Bool {
        let taken = state.withLock { state -> (handlers: [@Sendable (SessionClosure) -> Void],
                                               continuations: [AsyncStream<SessionClosure>.Continuation],
                                               subscription: DBusSignalSubscription?, task: Task<Void, Never>?)? in
            guard state.closure == nil else { return nil }
            state.closure = closure
            defer {
                state.handlers = []
                state.continuations = []
                state.closedSubscription = nil
                state.ownerTask = nil
            }
            return (state.handlers, state.continuations, state.closedSubscription, state.ownerTask)
        }
        guard let taken else { return false }
        taken.subscription?.cancel()
        taken.task?.cancel()
        for handler in taken.handlers { handler(closure) }
        for continuation in taken.continuations {
            continuation.yield(closure)
            continuation.finish()
        }
        return true
    }

    /// Calls `handler` once when the session ends (at once if it already has).
    func onClose(_ handler: @escaping @Sendable (SessionClosure) -> Void) {
        let closed = state.withLock { state -> SessionClosure? in
            if state.closure == nil { state.handlers.append(handler) }
            return state.closure
        }
        if let closed { handler(closed) }
    }

    /// A stream that yields the end once (at once if it already happened), then finishes.
    func events() -> AsyncStream<SessionClosure> {
        let (stream, continuation) = AsyncStream<SessionClosure>.makeStream(bufferingPolicy: .unbounded)
        let closed = state.withLock { state -> SessionClosure? in
            if state.closure == nil { state.continuations.append(continuation) }
            return state.closure
        }
        if let closed {
            continuation.yield(closed)
            continuation.finish()
        }
        return stream
    }
}
