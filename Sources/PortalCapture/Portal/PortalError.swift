/// What went wrong talking to the desktop portal (xdg-desktop-portal). `cancelled` is the user's "no" and is never
/// a failure. Each case's ``description`` says what happened, then after "; " what to do about it.
public enum PortalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Response 1 (`org.freedesktop.portal.Request::Response` code 1): the user declined or dismissed the portal's
    /// dialog. Also thrown when the calling task was cancelled (the request is then closed).
    case cancelled
    /// Response 2: the backend ended the interaction some other way (it failed, or the session could not start).
    case ended
    /// No Response within `seconds`; the request was closed (`org.freedesktop.portal.Request.Close`).
    case timedOut(request: String, seconds: Double)
    /// Nobody owns `org.freedesktop.portal.Desktop` on the session bus.
    case portalNotFound
    /// The bus tried to start the frontend on demand and could not (`org.freedesktop.DBus.Error.Spawn.*`, or
    /// systemd refusing the unit, e.g. masked): `message` is the bus's account of it.
    case portalFailedToStart(message: String)
    /// The frontend runs but does not offer `interface` (no backend for this desktop implements it).
    case interfaceMissing(interface: String)
    /// An option needs a newer version of `interface` than the running portal's. Checked before any call.
    case requiresVersion(interface: String, needed: UInt32, available: UInt32)
    /// The running portal does not offer this (a source type or cursor mode outside its `Available*` property).
    /// Checked before any call.
    case unsupported(what: String, available: String)
    /// `org.freedesktop.portal.Error.InvalidArgument` (or `org.freedesktop.DBus.Error.InvalidArgs`) from the
    /// frontend, with its text, e.g. "Unavailable cursor mode 8".
    case invalidArgument(message: String)
    /// `org.freedesktop.portal.Error.NotAllowed` (or `AccessDenied` for something other than a closed session).
    case notAllowed(message: String)
    /// The session was closed (by the compositor, the user, the backend, or us) before or while in use; the
    /// frontend answers `org.freedesktop.DBus.Error.AccessDenied: Invalid session` for it.
    case sessionClosed
    /// The frontend left the bus while a request was pending (it crashed or was stopped).
    case portalVanished(during: String)
    /// The portal answered something that does not match the specification: a wrong type, a missing key, a junk
    /// handle. `key` says where, e.g. `key 'streams' / [0] / field 1`.
    case malformedReply(method: String, key: String, reason: String)
    /// The portal's result names a file that cannot be read (a screenshot).
    case fileUnreadable(path: String, reason: String)
    /// No session bus, or the connection to it was lost.
    case busUnavailable(reason: String)
    /// Any other D-Bus failure, with the error name and message.
    case dbus(name: String, message: String)

    public var description: String {
        switch self {
        case .cancelled:
            "the request was declined in the portal's dialog (or cancelled by the caller); ask again and choose what "
                + "to share in the dialog"
        case .ended:
            "the portal backend ended the request; check that the compositor supports screen casting and see the "
                + "backend's log (e.g. journalctl --user -u xdg-desktop-portal-gnome)"
        case .timedOut(let request, let seconds):
            "the portal did not answer \(request) within \(Self.format(seconds)) s; answer its dialog if one is open, "
                + "or restart xdg-desktop-portal and its backend (it may be hung)"
        case .portalNotFound:
            "no desktop portal on the session bus; start xdg-desktop-portal and install a portal backend for your "
                + "desktop (xdg-desktop-portal-gnome, xdg-desktop-portal-kde or xdg-desktop-portal-wlr)"
        case .portalFailedToStart(let message):
            "the desktop portal could not be started (\(message)); check `systemctl --user status "
                + "xdg-desktop-portal` and its log (`journalctl --user -u xdg-desktop-portal`), and that the "
                + "service is not masked"
        case .interfaceMissing(let interface):
            "the desktop portal does not offer \(interface); install a portal backend that implements it for your "
                + "desktop (xdg-desktop-portal-gnome, -kde or -wlr) and check XDG_CURRENT_DESKTOP"
        case .requiresVersion(let interface, let needed, let available):
            "this needs \(interface) version \(needed), the running portal has version \(available); update "
                + "xdg-desktop-portal and its backend, or do without the option"
        case .unsupported(let what, let available):
            "the portal does not support \(what) (it offers \(available)); choose something it offers"
        case .invalidArgument(let message):
            "the portal rejected an argument: \(message); change or leave out the option it names and try again"
        case .notAllowed(let message):
            "the portal refused the request: \(message); allow screen capture for this application in the desktop's "
                + "privacy settings (for a Flatpak app, its portal permissions) and try again"
        case .sessionClosed:
            "the screen-cast session is closed; start a new one"
        case .portalVanished(let during):
            "the desktop portal left the bus during \(during) (it crashed or was stopped); start xdg-desktop-portal "
                + "again and retry"
        case .malformedReply(let method, let key, let reason):
            "malformed reply from the portal to \(method) at \(key): \(reason); report it as a bug in the portal "
                + "backend, or update the backend"
        case .fileUnreadable(let path, let reason):
            "cannot read \(path) named by the portal: \(reason); check that the portal backend can write there and "
                + "this user can read the file"
        case .busUnavailable(let reason):
            "cannot talk to the session bus: \(reason); check DBUS_SESSION_BUS_ADDRESS (or $XDG_RUNTIME_DIR/bus) and "
                + "connect again"
        case .dbus(let name, let message):
            "D-Bus error \(name): \(message); see the portal's log (e.g. journalctl --user -u xdg-desktop-portal) "
                + "and retry"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
