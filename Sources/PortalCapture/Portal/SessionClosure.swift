/// Why a portal session ended. Reported once per session (``ScreenCastSession/closeEvents()``,
/// ``ScreenCastSession/onClose(_:)``), whatever else arrives afterwards.
public enum SessionClosure: Sendable, Equatable, CustomStringConvertible {
    /// ``ScreenCastSession/close()`` was called (`org.freedesktop.portal.Session.Close`).
    case byClient
    /// The portal closed it: `org.freedesktop.portal.Session::Closed` (the user stopped sharing, the compositor or
    /// the backend ended it, or the frontend did after a request on the session answered non-zero).
    case byPortal
    /// The frontend left the session bus (crashed or stopped); every session it held is gone.
    case portalVanished
    /// This process's D-Bus connection closed.
    case connectionLost

    public var description: String {
        switch self {
        case .byClient: "closed by this application"
        case .byPortal: "closed by the portal (sharing was stopped, or a request on the session was declined or failed)"
        case .portalVanished: "the desktop portal left the session bus"
        case .connectionLost: "the D-Bus connection closed"
        }
    }
}
