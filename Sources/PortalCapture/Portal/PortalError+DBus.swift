extension PortalError {
    /// The portal error for a failed D-Bus call of `interface`.`method`: the frontend's error names mapped to the
    /// cases a caller can act on, everything else kept with its name.
    init(_ error: DBusError, interface: String, method: String) {
        switch error {
        case .remote(let name, let message):
            self = PortalError(remoteName: name, message: message, interface: interface)
        case .timeout(_, let after):
            self = .timedOut(request: method, seconds: after.inSeconds)
        case .noReply:
            self = .portalVanished(during: method)
        case .disconnected, .noSessionBus, .connectionFailed:
            self = .busUnavailable(reason: error.description)
        case .malformed(let path, let reason):
            self = .malformedReply(method: method, key: path.isEmpty ? "body" : path.description, reason: reason)
        case .cancelled:
            self = .cancelled
        default:
            self = .dbus(name: "local", message: error.description)
        }
    }

    private init(remoteName name: String, message: String, interface: String) {
        switch name {
        case "org.freedesktop.portal.Error.InvalidArgument", "org.freedesktop.DBus.Error.InvalidArgs":
            self = .invalidArgument(message: message)
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            self = .portalNotFound
        case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface",
             "org.freedesktop.DBus.Error.UnknownObject":
            self = .interfaceMissing(interface: interface)
        case _ where name.hasPrefix("org.freedesktop.DBus.Error.Spawn.") || name.hasPrefix("org.freedesktop.systemd1."):
            // Starting the frontend on demand failed: it exited or was killed, could not be executed, or its
            // unit is masked or missing.
            self = .portalFailedToStart(message: message)
        case "org.freedesktop.DBus.Error.AccessDenied" where message.lowercased().contains("invalid session"):
            self = .sessionClosed
        case "org.freedesktop.DBus.Error.AccessDenied", "org.freedesktop.portal.Error.NotAllowed":
            self = .notAllowed(message: message)
        default:
            self = .dbus(name: name, message: message)
        }
    }
}

extension Duration {
    /// This duration in seconds, as a `Double`.
    var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
