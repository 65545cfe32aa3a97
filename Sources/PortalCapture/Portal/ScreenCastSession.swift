import Synchronization

/// A screen-cast session of `org.freedesktop.portal.ScreenCast`, at the object path ``handle`` (an
/// `org.freedesktop.portal.Session`). Made by ``ScreenCastPortal/createSession(capabilities:)`` (then
/// ``selectSources(_:)`` and ``start(parentWindow:)``) or, all in one, by
/// ``ScreenCastPortal/start(_:appID:consent:parentWindow:)``.
///
/// After ``start(parentWindow:)``: ``streams`` are the PipeWire nodes to capture, ``openPipeWireRemote()`` the fd to
/// reach them. The session ends once (``closure``, ``closeEvents()``, ``onClose(_:)``): by ``close()``, by the portal
/// (`Session::Closed`), or when the frontend leaves the bus. The frontend (1.16) closes a session by itself when a
/// request on it answered non-zero, and sends `Closed` for it (measured, docs/portal.md): the closure is then
/// ``SessionClosure/byPortal`` and later calls throw ``PortalError/sessionClosed``. A session a backend ends without
/// its own `Closed` ends unheard: the frontend answers later calls `AccessDenied: Invalid session` (also
/// ``PortalError/sessionClosed``), and a running PipeWire stream ends. Releasing an open session closes it
/// (`Session.Close`, sent without waiting).
///
/// Thread safety: `Sendable`. Close handlers run on the D-Bus connection's queue (or the caller's thread when the
/// session is already closed): keep them short.
public final class ScreenCastSession: Sendable, CustomStringConvertible {
    /// The session's object path, e.g. `/org/freedesktop/portal/desktop/session/1_42/pwrecord_…`.
    public let handle: DBusObjectPath
    /// What the portal could do when the session was made (options were checked against it).
    public let capabilities: ScreenCastCapabilities
    let connection: DBusConnection
    let timeouts: PortalTimeouts
    private let lifecycle: PortalSessionLifecycle
    private let state = Mutex(State())

    private struct State {
        var selected: ScreenCastOptions?
        var started: ScreenCastStartResult?
        var consent = ConsentReport()
    }

    init(handle: DBusObjectPath, capabilities: ScreenCastCapabilities, connection: DBusConnection,
         timeouts: PortalTimeouts, lifecycle: PortalSessionLifecycle) {
        self.handle = handle
        self.capabilities = capabilities
        self.connection = connection
        self.timeouts = timeouts
        self.lifecycle = lifecycle
    }

    deinit {
        if lifecycle.finish(.byClient) {
            try? connection.send(destination: DesktopPortal.busName, path: handle,
                                 interface: DesktopPortal.sessionInterface, member: "Close")
        }
    }

    // MARK: State

    /// The streams `Start` returned (backend quirks corrected, see docs/portal.md); empty before ``start(parentWindow:)``.
    public var streams: [PortalStream] { state.withLock { $0.started?.streams ?? [] } }
    /// How many streams the backend reported; more than ``streams`` when it sent several for one source (KDE).
    public var reportedStreamCount: Int { state.withLock { $0.started?.reportedStreamCount ?? 0 } }
    /// The `restore_token` `Start` returned (version 4, persistence asked for and granted).
    public var restoreToken: String? { state.withLock { $0.started?.restoreToken } }
    /// The options ``selectSources(_:)`` sent.
    public var selectedOptions: ScreenCastOptions? { state.withLock { $0.selected } }
    /// What happened to remembered consent when ``ScreenCastPortal/start(_:appID:consent:parentWindow:)`` made this
    /// session.
    public var consent: ConsentReport { state.withLock { $0.consent } }
    /// Why the session ended; nil while open.
    public var closure: SessionClosure? { lifecycle.closure }
    public var isClosed: Bool { closure != nil }

    func setConsent(_ report: ConsentReport) { state.withLock { $0.consent = report } }

    // MARK: Calls

    /// `org.freedesktop.portal.ScreenCast.SelectSources(o session_handle, a{sv} options)`. The options are checked
    /// against ``capabilities`` first (``ScreenCastOptions/encoded(for:)``): an option the portal cannot take throws
    /// before any call. Waits up to the consent timeout.
    public func selectSources(_ options: ScreenCastOptions) async throws(PortalError) {
        let dict = try options.encoded(for: capabilities)
        try requireOpen()
        let request = PortalRequest(connection: connection, interface: ScreenCastPortal.interface,
                                    method: "SelectSources", timeout: timeouts.consent)
        _ = try await request.perform([.objectPath(handle)], options: dict)
        state.withLock { $0.selected = options }
    }

    /// `org.freedesktop.portal.ScreenCast.Start(o session_handle, s parent_window, a{sv} options)`: the portal's
    /// dialog (or a restored choice), then the streams. `parentWindow` is `""` or an identifier like `x11:1234` /
    /// `wayland:HANDLE`. Waits up to the consent timeout.
    @discardableResult
    public func start(parentWindow: String = "") async throws(PortalError) -> [PortalStream] {
        try requireOpen()
        let selected = state.withLock { $0.selected } ?? ScreenCastOptions()
        let request = PortalRequest(connection: connection, interface: ScreenCastPortal.interface, method: "Start",
                                    timeout: timeouts.consent)
        let results = try await request.perform([.objectPath(handle), .string(parentWindow)], options: DBusVardict())
        let started = try ScreenCastStartResult(results: results, requested: selected)
        state.withLock { $0.started = started }
        return started.streams
    }

    /// `org.freedesktop.portal.ScreenCast.OpenPipeWireRemote(o session_handle, a{sv} options) -> h`: a connection to
    /// PipeWire that sees only this session's nodes, for `pw_context_connect_fd` (hand it over with
    /// ``OwnedFileDescriptor/take()``). Call after ``start(parentWindow:)``.
    public func openPipeWireRemote() async throws(PortalError) -> OwnedFileDescriptor {
        try requireOpen()
        let method = "OpenPipeWireRemote"
        let reply: [DBusValue]
        do {
            reply = try await connection.call(destination: DesktopPortal.busName, path: DesktopPortal.objectPath,
                                              interface: ScreenCastPortal.interface, member: method,
                                              body: [.objectPath(handle), DBusVardict().dbusValue],
                                              timeout: timeouts.call)
        } catch {
            throw PortalError(error, interface: ScreenCastPortal.interface, method: method)
        }
        do {
            try reply.requireSignature("h")
            return try reply.argument(0, as: OwnedFileDescriptor.self)
        } catch {
            throw PortalError.malformed(error, method: method, at: "fd")
        }
    }

    /// Ends the session: `org.freedesktop.portal.Session.Close`. Idempotent; closing a session the portal already
    /// closed does nothing more (its `AccessDenied` answer is expected and ignored).
    public func close() async {
        guard lifecycle.finish(.byClient) else { return }
        // A cancelled task (a start given up, say) would cancel the call before it is sent: send it without
        // waiting for the reply then, so the portal's session does not outlive the caller's interest.
        if Task.isCancelled {
            try? connection.send(destination: DesktopPortal.busName, path: handle,
                                 interface: DesktopPortal.sessionInterface, member: "Close")
            return
        }
        _ = try? await connection.call(destination: DesktopPortal.busName, path: handle,
                                       interface: DesktopPortal.sessionInterface, member: "Close",
                                       timeout: timeouts.call)
    }

    // MARK: The end

    /// A stream that yields why the session ended, once, then finishes (at once when already closed). Each call
    /// makes a new stream.
    public func closeEvents() -> AsyncStream<SessionClosure> { lifecycle.events() }

    /// Calls `handler` once when the session ends (at once when already closed).
    public func onClose(_ handler: @escaping @Sendable (SessionClosure) -> Void) { lifecycle.onClose(handler) }

    private func requireOpen() throws(PortalError) {
        if isClosed { throw .sessionClosed }
    }

    public var description: String {
        "ScreenCastSession \(handle) (\(closure.map { "\($0)" } ?? "open"), \(streams.count) stream(s))"
    }
}
