import Foundation
import Synchronization

/// The production ``ScreenCastProvider``: the desktop portal (`org.freedesktop.portal.ScreenCast`) through
/// ``ScreenCastPortal``, with remembered consent kept per app id in a ``RestoreTokenStore``
/// (`$XDG_STATE_HOME/pwrecord/restore-tokens`) and honoured for the request's `consentMemory`.
///
/// The session bus is connected on first use (and again if the connection was lost), so making a provider never
/// fails; a missing bus shows up as ``unavailability()``.
public final class PortalScreenCastProvider: ScreenCastProvider {
    public let timeouts: PortalTimeouts
    public let tokens: RestoreTokenStore
    private let environment: [String: String]
    private let current = Mutex<ScreenCastPortal?>(nil)

    /// Uses the session bus named by `environment` (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    public init(timeouts: PortalTimeouts = .standard, tokens: RestoreTokenStore = RestoreTokenStore(),
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.timeouts = timeouts
        self.tokens = tokens
        self.environment = environment
    }

    /// Uses `connection`.
    public init(connection: DBusConnection, timeouts: PortalTimeouts = .standard,
                tokens: RestoreTokenStore = RestoreTokenStore()) {
        self.timeouts = timeouts
        self.tokens = tokens
        self.environment = [:]
        current.withLock { $0 = ScreenCastPortal(connection: connection, timeouts: timeouts) }
    }

    /// The portal client, connecting (again) when there is no live connection.
    func portal() throws(PortalError) -> ScreenCastPortal {
        if let live = current.withLock({ $0 }), live.connection.isConnected { return live }
        let made = try ScreenCastPortal(environment: environment, timeouts: timeouts)
        current.withLock { $0 = made }
        return made
    }

    public func unavailability() async -> String? {
        let portal: ScreenCastPortal
        do {
            portal = try self.portal()
        } catch {
            return error.description
        }
        switch await portal.availability() {
        case .available: return nil
        case .unavailable(let error): return error.description
        }
    }

    /// Yields when the frontend appears on or leaves the bus, and once when the watch starts (the state may have
    /// changed between asking and watching; a spurious yield only costs a re-check). Ends at once when there is no
    /// session bus.
    public func availabilityChanges() -> AsyncStream<Void> {
        guard let portal = try? portal() else { return AsyncStream { $0.finish() } }
        let changes = portal.availabilityChanges()
        return AsyncStream { continuation in
            let task = Task {
                for await _ in changes { continuation.yield() }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// ``ScreenCastPortal/start(_:appID:consent:parentWindow:)`` with the request's sources, `multiple` and cursor
    /// mode, then `OpenPipeWireRemote` and a PipeWire connection through it. The grant's node is the session's
    /// first stream (after the backend quirks are corrected, see docs/portal.md).
    public func startCast(_ request: ScreenCastRequest) async throws(RecordingError) -> any ScreenCastGrant {
        let portal: ScreenCastPortal
        let session: ScreenCastSession
        do {
            portal = try self.portal()
            session = try await portal.start(
                ScreenCastOptions().sources(request.sources).multiple(request.multiple).cursor(request.cursor),
                appID: request.appID, consent: ConsentMemory(store: tokens, maxAge: request.consentMemory))
        } catch {
            throw RecordingError(error)
        }
        guard let stream = session.streams.first else {
            await session.close()
            throw .failedToStart(reason: "the portal started no stream")
        }
        let fd: OwnedFileDescriptor
        do {
            fd = try await session.openPipeWireRemote()
        } catch {
            await session.close()
            throw RecordingError(error)
        }
        guard let raw = fd.take() else {
            await session.close()
            throw .failedToStart(reason: "the PipeWire remote from the portal was already closed")
        }
        let core: PipeWireCore
        do {
            core = try PipeWireCore(connectingTo: raw, name: "pwrecord-\(request.appID)")
        } catch {
            await session.close()
            throw .failedToStart(reason: "cannot connect to PipeWire through the portal: \(error)")
        }
        return PortalScreenCastGrant(session: session, core: core, stream: stream)
    }
}

/// A running portal screen cast as the recorder sees it.
final class PortalScreenCastGrant: ScreenCastGrant {
    let session: ScreenCastSession
    let core: PipeWireCore
    let nodeID: UInt32
    let announcedSize: (width: Int, height: Int)?

    init(session: ScreenCastSession, core: PipeWireCore, stream: PortalStream) {
        self.session = session
        self.core = core
        nodeID = stream.nodeID
        announcedSize = stream.size.map { (width: Int($0.width), height: Int($0.height)) }
    }

    /// Finishes when the session ends, for whatever reason (``SessionClosure``).
    var closed: AsyncStream<Void> {
        let events = session.closeEvents()
        return AsyncStream { continuation in
            let task = Task {
                for await _ in events {}
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func close() async {
        await session.close()
        core.close()
    }
}
