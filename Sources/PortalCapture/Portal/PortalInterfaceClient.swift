import Foundation

/// A client of one `org.freedesktop.portal.*` interface on the session bus: what ``ScreenCastPortal`` and
/// ``ScreenshotPortal`` share.
public protocol PortalInterfaceClient: Sendable {
    /// The D-Bus interface name, e.g. `org.freedesktop.portal.ScreenCast`.
    static var interface: String { get }
    init(connection: DBusConnection, timeouts: PortalTimeouts)
}

extension PortalInterfaceClient {
    /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`); a failure is
    /// a ``PortalError`` naming this interface.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                timeouts: PortalTimeouts = .standard) throws(PortalError) {
        let connection: DBusConnection
        do {
            connection = try DBusConnection.session(environment: environment)
        } catch {
            throw PortalError(error, interface: Self.interface, method: "connect")
        }
        self.init(connection: connection, timeouts: timeouts)
    }
}
