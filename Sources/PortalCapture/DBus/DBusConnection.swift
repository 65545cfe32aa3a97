import Foundation

/// A private connection to a D-Bus message bus (libdbus `dbus_connection_open_private` + `dbus_bus_register`),
/// pumped by Dispatch sources on a serial queue, never by a polling thread.
///
/// Client side: ``call(destination:path:interface:member:body:timeout:)``, ``send(destination:path:interface:member:body:)``,
/// ``subscribe(_:)``. Server side (`DBusConnection+Server.swift`): ``requestName(_:flags:)``, ``export(_:at:)``,
/// ``exportFallback(_:under:)``, ``emitSignal(path:interface:member:body:destination:)``.
///
/// Thread safety: `Sendable`. All libdbus work happens on the connection's private serial queue, where signal
/// handlers and method handlers also run; the public methods may be called from any thread or task. ``close()``
/// (also run by `deinit`) releases everything: pending calls fail with ``DBusError/disconnected`` and
/// subscriptions end.
public final class DBusConnection: Sendable {
    /// The bus itself: `org.freedesktop.DBus` at `/org/freedesktop/DBus`.
    public static let busName = "org.freedesktop.DBus"
    public static let busInterface = "org.freedesktop.DBus"
    public static let busPath = DBusObjectPath(unchecked: "/org/freedesktop/DBus")
    /// libdbus' default reply timeout, 25 s.
    public static let defaultTimeout: Duration = .seconds(25)

    let engine: DBusConnectionEngine

    /// The unique name the bus gave this connection (`:1.42`).
    public var uniqueName: String { engine.uniqueName }
    /// The address connected to.
    public var address: String { engine.address }
    /// False once closed or disconnected (`org.freedesktop.DBus.Local.Disconnected`).
    public var isConnected: Bool { !engine.closed.load(ordering: .acquiring) }

    /// Connects to the bus at `address` (e.g. `unix:path=/run/user/1000/bus`). Blocks until the bus answered
    /// `Hello`. Throws ``DBusError/connectionFailed(address:name:message:)``.
    public init(address: String) throws(DBusError) {
        engine = try DBusConnectionEngine(address: address)
        engine.start()
    }

    /// Connects to the session bus: `DBUS_SESSION_BUS_ADDRESS`, else `unix:path=$XDG_RUNTIME_DIR/bus` when that
    /// socket exists. Throws ``DBusError/noSessionBus`` when neither is there.
    public static func session(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(DBusError) -> DBusConnection {
        try DBusConnection(address: sessionBusAddress(environment: environment))
    }

    /// The address ``session(environment:)`` would use.
    public static func sessionBusAddress(environment: [String: String]) throws(DBusError) -> String {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            var info = stat()
            if stat(runtime + "/bus", &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK {
                return "unix:path=\(runtime)/bus"
            }
        }
        throw .noSessionBus
    }

    deinit { engine.close() }

    /// Closes the connection (`dbus_connection_close`) and releases everything; idempotent and safe from any
    /// thread, including a handler running on the connection's queue.
    public func close() { engine.close() }

    // MARK: Calls

    /// Calls a method and returns the reply's body. The D-Bus call is `destination` `path` `interface.member`
    /// with `body`, sent with `dbus_connection_send_with_reply`; the reply is awaited without blocking any thread.
    ///
    /// Throws ``DBusError/remote(name:message:)`` for an error reply (e.g.
    /// `org.freedesktop.portal.Error.InvalidArgument`), ``DBusError/timeout(member:after:)`` when `timeout` passes,
    /// ``DBusError/noReply(member:reason:)`` when the peer leaves without answering, ``DBusError/cancelled`` when
    /// the task is cancelled, ``DBusError/disconnected``, or ``DBusError/invalidValue(path:reason:)`` /
    /// ``DBusError/invalidArgument(_:)`` for a body or name that cannot be sent. A `timeout` of 24 days or more waits
    /// forever (`DBUS_TIMEOUT_INFINITE`).
    public func call(destination: String?, path: DBusObjectPath, interface: String?, member: String,
                     body: [DBusValue] = [], timeout: Duration = DBusConnection.defaultTimeout)
        async throws(DBusError) -> [DBusValue] {
        let message = try DBusMessage.methodCall(destination: destination, path: path, interface: interface,
                                                 member: member)
        try message.append(body)
        let reply = try await engine.call(message, member: "\(interface.map { $0 + "." } ?? "")\(member)",
                                          timeout: timeout)
        return try reply.arguments()
    }

    /// Sends a method call without waiting for (or wanting) a reply: `NO_REPLY_EXPECTED` is set
    /// (`dbus_message_set_no_reply`) and the message is queued with `dbus_connection_send`. Never blocks.
    public func send(destination: String?, path: DBusObjectPath, interface: String?, member: String,
                     body: [DBusValue] = []) throws(DBusError) {
        let message = try DBusMessage.methodCall(destination: destination, path: path, interface: interface,
                                                 member: member)
        try message.append(body)
        message.setNoReply()
        try engine.send(message)
    }

    /// `org.freedesktop.DBus.Peer.Ping` to `destination`: a round trip through the bus and the peer.
    public func ping(_ destination: String, timeout: Duration = DBusConnection.defaultTimeout) async throws(DBusError) {
        _ = try await call(destination: destination, path: .root, interface: "org.freedesktop.DBus.Peer",
                           member: "Ping", timeout: timeout)
    }
}
