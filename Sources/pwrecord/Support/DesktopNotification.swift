import PortalCapture

/// A desktop notification while recording, through `org.freedesktop.Notifications` when such a service is
/// on the session bus; nothing happens without one.
struct DesktopNotification: Sendable {
    let connection: DBusConnection
    let id: UInt32

    static let busName = "org.freedesktop.Notifications"
    static let path = try! DBusObjectPath("/org/freedesktop/Notifications")   // a valid literal

    /// `org.freedesktop.Notifications.Notify`; nil when there is no notification service or it fails.
    static func show(summary: String, body: String) -> DesktopNotificationHandle? {
        DesktopNotificationHandle(summary: summary, body: body)
    }
}

/// Shows the notification in the background and closes it later (`CloseNotification`).
final class DesktopNotificationHandle: Sendable {
    private let task: Task<DesktopNotification?, Never>

    init(summary: String, body: String) {
        task = Task {
            guard let connection = try? DBusConnection.session(),
                  (try? await connection.nameOwner(DesktopNotification.busName)) ?? nil != nil else { return nil }
            let reply = try? await connection.call(
                destination: DesktopNotification.busName, path: DesktopNotification.path,
                interface: DesktopNotification.busName, member: "Notify",
                body: [.string("pwrecord"), .uint32(0), .string("media-record"), .string(summary), .string(body),
                       .array(element: .string, []), DBusValue.vardict([:]), .int32(-1)],
                timeout: .seconds(2))
            guard case .uint32(let id)? = reply?.first else { return nil }
            return DesktopNotification(connection: connection, id: id)
        }
    }

    func close() async {
        guard let n = await task.value else { return }
        _ = try? await n.connection.call(destination: DesktopNotification.busName, path: DesktopNotification.path,
                                         interface: DesktopNotification.busName, member: "CloseNotification",
                                         body: [.uint32(n.id)], timeout: .seconds(2))
        n.connection.close()
    }
}
