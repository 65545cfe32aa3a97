/// What went wrong talking to the desktop portal. `cancelled` is the user's "no" and is never a failure.
public enum PortalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Response 1: the user declined (or dismissed) the portal's dialog.
    case cancelled
    /// Response 2: the backend ended the interaction (it failed, or the session could not start).
    case ended
    /// No Response within `seconds`; the request was closed (`org.freedesktop.portal.Request.Close`).
    case timedOut(request: String, seconds: Double)
    /// Nobody owns `org.freedesktop.portal.Desktop` on the session bus.
    case portalNotFound
    /// The frontend runs but does not offer `interface` (no backend implements it).
    case interfaceMissing(interface: String)
    /// An option needs a newer portal than the one running.
    case requiresVersion(interface: String, needed: UInt32, available: UInt32)
    /// The running portal does not offer this (a source type or cursor mode not in its Available* property).
    case unsupported(what: String, available: String)
    /// `org.freedesktop.portal.Error.InvalidArgument` (or similar) from the frontend, with its text.
    case invalidArgument(message: String)
    /// The session was closed (by the compositor, the user, or the backend) before or while in use.
    case sessionClosed
    /// The portal answered with something that does not match the spec (a wrong type, a missing key).
    case malformedReply(method: String, detail: String)
    /// Any other D-Bus failure, with the error name and message.
    case dbus(name: String, message: String)

    public var description: String {
        switch self {
        case .cancelled:
            "the request was declined in the portal's dialog"
        case .ended:
            "the portal backend ended the request; check that the compositor supports screen casting"
        case .timedOut(let request, let seconds):
            "the portal did not answer \(request) within \(seconds) s; the portal backend may be hung (try restarting xdg-desktop-portal)"
        case .portalNotFound:
            "no desktop portal on the session bus; install xdg-desktop-portal and a backend for your desktop (xdg-desktop-portal-gnome, -kde or -wlr)"
        case .interfaceMissing(let interface):
            "the desktop portal does not offer \(interface); install a portal backend that implements it for your desktop"
        case .requiresVersion(let interface, let needed, let available):
            "\(interface) version \(needed) is needed, the running portal has version \(available); update xdg-desktop-portal and its backend"
        case .unsupported(let what, let available):
            "the portal does not support \(what) (it offers \(available))"
        case .invalidArgument(let message):
            "the portal rejected an argument: \(message)"
        case .sessionClosed:
            "the screen-cast session was closed"
        case .malformedReply(let method, let detail):
            "malformed reply from the portal to \(method): \(detail); this is a portal backend bug"
        case .dbus(let name, let message):
            "D-Bus error \(name): \(message)"
        }
    }
}
