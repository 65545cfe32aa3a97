import Foundation
import Synchronization
import PortalCapture

/// A stand-in for a desktop's notification daemon: `org.freedesktop.Notifications` at
/// `/org/freedesktop/Notifications` on the test desktop's session bus, recording every `Notify` and
/// `CloseNotification` it gets. Own it only while holding the backend lease (the bus is shared).
final class FakeNotificationService: Sendable {
    enum Mode: Sendable {
        /// Answers `Notify` with a new id, as a notification daemon does.
        case answering
        /// Answers `Notify` with `org.freedesktop.DBus.Error.Failed`.
        case failing
    }

    /// One `Notify(s app_name, u replaces_id, s app_icon, s summary, s body, as actions, a{sv} hints, i expire_timeout)`.
    struct Notification: Sendable, Equatable {
        var appName: String
        var replacesID: UInt32
        var icon: String
        var summary: String
        var body: String
        var expireTimeout: Int32
        /// The id it was answered with (0 when it failed).
        var id: UInt32
    }

    enum Call: Sendable, Equatable {
        case notify(Notification)
        /// `CloseNotification(u id)`.
        case close(UInt32)
    }

    static let busName = "org.freedesktop.Notifications"
    static let path = try! DBusObjectPath("/org/freedesktop/Notifications")   // a valid literal

    private let connection: DBusConnection
    private let log = Mutex<(calls: [Call], nextID: UInt32)>(([], 41))

    private init(connection: DBusConnection) { self.connection = connection }

    /// Exports the interface, then owns the name (so a client that sees the name finds the object).
    static func start(_ mode: Mode = .answering) async throws -> FakeNotificationService {
        let service = FakeNotificationService(connection: try DBusConnection.session())
        try service.connection.export([service.interface(mode)], at: path)
        try await service.connection.requestName(busName)
        return service
    }

    /// Gives the name back and closes the connection.
    func stop() async {
        _ = try? await connection.releaseName(Self.busName)
        connection.close()
    }

    var calls: [Call] { self.log.withLock { $0.calls } }

    var notifications: [Notification] {
        calls.compactMap { if case .notify(let n) = $0 { n } else { nil } }
    }

    var closedIDs: [UInt32] {
        calls.compactMap { if case .close(let id) = $0 { id } else { nil } }
    }

    /// Waits until the first `Notify` arrives; nil after `timeout`.
    func firstNotification(within timeout: Duration) async throws -> Notification? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let first = notifications.first { return first }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    private func interface(_ mode: Mode) -> DBusInterface {
        // The handlers keep the service alive until `stop()` closes the connection (which drops them).
        DBusInterface(Self.busName, methods: [
            .replying("Notify", in: "susssasa{sv}i", out: "u") { [self] call throws(DBusError) in
                let args = call.arguments
                var n = Notification(appName: try args.argument(0), replacesID: try args.argument(1), icon: try args.argument(2),
                                     summary: try args.argument(3), body: try args.argument(4),
                                     expireTimeout: try args.argument(7), id: 0)
                if mode == .failing {
                    self.log.withLock { $0.calls.append(.notify(n)) }
                    throw .remote(name: "org.freedesktop.DBus.Error.Failed", message: "this fake refuses notifications")
                }
                n.id = n.replacesID != 0 ? n.replacesID : self.log.withLock { l in l.nextID += 1; return l.nextID }
                self.log.withLock { $0.calls.append(.notify(n)) }
                return [.uint32(n.id)]
            },
            .replying("CloseNotification", in: "u", out: "") { [self] call throws(DBusError) in
                let id: UInt32 = try call.arguments.argument(0)
                self.log.withLock { $0.calls.append(.close(id)) }
                return []
            },
            .replying("GetCapabilities", in: "", out: "as") { _ throws(DBusError) in
                [.array(element: .string, [.string("body")])]
            },
            .replying("GetServerInformation", in: "", out: "ssss") { _ throws(DBusError) in
                [.string("fake"), .string("pwrecord tests"), .string("1"), .string("1.2")]
            },
        ])
    }
}
