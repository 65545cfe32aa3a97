/// The xdg-desktop-portal frontend as a client sees it: its bus name, its object, the shared `Request` and
/// `Session` interfaces, and the object paths it gives requests and sessions.
public enum DesktopPortal {
    /// `org.freedesktop.portal.Desktop`: the frontend's well-known name.
    public static let busName = "org.freedesktop.portal.Desktop"
    /// `/org/freedesktop/portal/desktop`: the object implementing every portal interface.
    public static let objectPath = DBusObjectPath(unchecked: "/org/freedesktop/portal/desktop")
    /// `org.freedesktop.portal.Request`: `Response` signal, `Close` method.
    public static let requestInterface = "org.freedesktop.portal.Request"
    /// `org.freedesktop.portal.Session`: `Closed` signal, `Close` method.
    public static let sessionInterface = "org.freedesktop.portal.Session"

    /// `/org/freedesktop/portal/desktop/request`: every request object lies below it.
    public static let requestNamespace = DBusObjectPath(unchecked: "/org/freedesktop/portal/desktop/request")

    /// The object path the frontend gives a request made with `handle_token` `token` by the connection
    /// `uniqueName`: `/org/freedesktop/portal/desktop/request/SENDER/TOKEN`, SENDER being the unique name without
    /// its leading `:` and with `.` replaced by `_` (`:1.42` → `1_42`). Subscribing to `Response` there *before*
    /// calling closes the race with a fast answer. A frontend may still answer with another path (older ones did,
    /// and on a clash 1.16 appends an element), so callers follow the returned handle too.
    public static func requestPath(uniqueName: String, token: HandleToken) -> DBusObjectPath? {
        path("/org/freedesktop/portal/desktop/request", uniqueName: uniqueName, token: token)
    }

    /// The object path of a session made with `session_handle_token` `token`:
    /// `/org/freedesktop/portal/desktop/session/SENDER/TOKEN`.
    public static func sessionPath(uniqueName: String, token: HandleToken) -> DBusObjectPath? {
        path("/org/freedesktop/portal/desktop/session", uniqueName: uniqueName, token: token)
    }

    /// `nil` when `uniqueName` is not a unique bus name (`:` followed by dot-separated `[A-Za-z0-9_-]` elements).
    private static func path(_ prefix: String, uniqueName: String, token: HandleToken) -> DBusObjectPath? {
        guard uniqueName.hasPrefix(":"), uniqueName.count > 1 else { return nil }
        let sender = String(uniqueName.dropFirst()).replacingDots()
        return try? DBusObjectPath("\(prefix)/\(sender)/\(token.value)")
    }
}

private extension String {
    func replacingDots() -> String {
        String(map { $0 == "." ? "_" : $0 })
    }
}
