import PortalCapture

/// `org.freedesktop.impl.portal.Access`: `AccessDialog` grants (response 0) unless a test scripted
/// otherwise, and counts as a dialog shown. 1.16 exports the public Screenshot portal only because a backend
/// lists this interface.
struct AccessBackend: Sendable {
    static let interfaceName = "org.freedesktop.impl.portal.Access"
    let portal: TestPortal

    var interface: DBusInterface {
        let backend = self
        return DBusInterface(Self.interfaceName, methods: [
            .deferred("AccessDialog", in: "osssssa{sv}", out: "ua{sv}") { backend.accessDialog($0) },
        ])
    }

    /// `AccessDialog(o handle, s app_id, s parent_window, s title, s subtitle, s body, a{sv} options)`.
    func accessDialog(_ call: DBusMethodCall) {
        do {
            let handle = try call.arguments.argument(0, as: DBusObjectPath.self)
            let options = try call.arguments.argument(6, as: DBusVardict.self)
            guard portal.begin(.accessDialog, call, handle: handle, options: options) else { return }
            portal.countDialog()
            portal.respond(call, 0)
        } catch {
            portal.reject(call, error)
        }
    }
}
