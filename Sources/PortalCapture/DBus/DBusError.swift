import Glibc

/// Everything that can go wrong in the D-Bus layer. Each case says what happened and, where someone can act,
/// how to fix it (``description``).
///
/// Not to be confused with libdbus' C struct of the same name, which this module refers to as `CDBus.DBusError`.
public enum DBusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The peer answered with an error reply (`DBUS_MESSAGE_TYPE_ERROR`): its error name (e.g.
    /// `org.freedesktop.portal.Error.InvalidArgument`) and the text of its first string argument.
    case remote(name: String, message: String)
    /// No reply arrived within the call's timeout: libdbus' own `org.freedesktop.DBus.Error.NoReply`.
    case timeout(member: String, after: Duration)
    /// The bus answered `org.freedesktop.DBus.Error.NoReply` before the timeout: the peer left the bus (or the bus
    /// refused to deliver) without replying.
    case noReply(member: String, reason: String)
    /// The connection is closed (``DBusConnection/close()``) or was lost (`org.freedesktop.DBus.Local.Disconnected`).
    case disconnected
    /// No session bus address: `DBUS_SESSION_BUS_ADDRESS` is unset and `$XDG_RUNTIME_DIR/bus` does not exist.
    case noSessionBus
    /// `dbus_connection_open_private` or `dbus_bus_register` failed, with libdbus' error name and message.
    case connectionFailed(address: String, name: String, message: String)
    /// A received message does not have the shape we expected: wrong signature, wrong type in a variant, a missing
    /// key or argument. `path` says where (`arg 1 / key 'streams' / [0] / field 1`).
    case malformed(path: DBusValuePath, reason: String)
    /// A value we were asked to send is inconsistent (an array element of the wrong type, a NUL in a string, a
    /// closed fd...). `path` says where. This is a bug in the code building the message.
    case invalidValue(path: DBusValuePath, reason: String)
    /// A name, path, signature or match rule given to this layer is not valid D-Bus syntax, or a call was misused.
    case invalidArgument(String)
    /// `org.freedesktop.DBus.RequestName` answered `DBUS_REQUEST_NAME_REPLY_EXISTS`: someone else owns the name.
    case nameTaken(String)
    /// A method call was answered twice; only the first reply was sent.
    case alreadyReplied(member: String)
    /// The task awaiting a reply was cancelled; the pending call was cancelled (`dbus_pending_call_cancel`).
    case cancelled
    /// libdbus could not allocate memory (or duplicate a file descriptor) in `function`.
    case outOfMemory(function: String)
    /// A system call failed (`dup`, `fcntl`...), with its errno.
    case system(function: String, errno: Int32)

    public var description: String {
        switch self {
        case .remote(let name, let message):
            let text = message.isEmpty ? name : "\(name): \(message)"
            return Self.hint(forRemote: name).map { "\(text) (\($0))" } ?? text
        case .timeout(let member, let after):
            return "no reply to \(member) within \(after); the service may be hung or busy, try again or raise the timeout"
        case .noReply(let member, let reason):
            return "no reply to \(member): \(reason) (the service probably exited or crashed; check that it is running)"
        case .disconnected:
            return "the D-Bus connection is closed; open a new connection (is the bus still running?)"
        case .noSessionBus:
            return "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is unset and $XDG_RUNTIME_DIR/bus does not exist; "
                + "run inside a desktop session or start one with `dbus-run-session`"
        case .connectionFailed(let address, let name, let message):
            return "cannot connect to the D-Bus bus at \(address): \(name): \(message); check that the bus is running "
                + "and the address is right"
        case .malformed(let path, let reason):
            return "\(path): \(reason) (the peer sent data this program does not understand; check its version)"
        case .invalidValue(let path, let reason):
            return "cannot send \(path): \(reason) (a bug in the code building the message)"
        case .invalidArgument(let reason):
            return "invalid D-Bus argument: \(reason)"
        case .nameTaken(let name):
            return "the bus name \(name) is owned by another process; stop it or choose another name"
        case .alreadyReplied(let member):
            return "\(member) was already answered; a method call gets exactly one reply"
        case .cancelled:
            return "the D-Bus call was cancelled"
        case .outOfMemory(let function):
            return "\(function) ran out of memory (or file descriptors); free some and retry"
        case .system(let function, let errno):
            return "\(function) failed: \(String(cString: strerror(errno))) (errno \(errno))"
        }
    }

    /// Recovery hints for well-known error names.
    private static func hint(forRemote name: String) -> String? {
        switch name {
        case "org.freedesktop.DBus.Error.ServiceUnknown":
            "the service is not running and cannot be activated; for portals, install xdg-desktop-portal and a backend"
        case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface",
             "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownProperty":
            "the service does not implement this; it may be older than expected"
        case "org.freedesktop.DBus.Error.AccessDenied", "org.freedesktop.portal.Error.NotAllowed":
            "the request was refused by policy"
        case "org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.portal.Error.InvalidArgument":
            "the service rejected the arguments; check the call against its interface version"
        default:
            nil
        }
    }

    /// This error with `component` in front of its path, for ``malformed(path:reason:)`` and
    /// ``invalidValue(path:reason:)``; other cases are returned unchanged. Containers call this as errors bubble up.
    public func prefixed(_ component: DBusValuePath.Component) -> DBusError {
        switch self {
        case .malformed(let path, let reason): .malformed(path: path.prepending(component), reason: reason)
        case .invalidValue(let path, let reason): .invalidValue(path: path.prepending(component), reason: reason)
        default: self
        }
    }
}
