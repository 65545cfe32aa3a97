import Foundation
import PortalCapture

/// The raw `org.freedesktop.portal.*` calls the Foundation tests make through the real frontend, with our
/// D-Bus layer and nothing else (the portal client proper lives in Sources/PortalCapture/Portal/). A request
/// subscribes to `org.freedesktop.portal.Request.Response` on the predicted request path before calling.
struct RawPortal: Sendable {
    static let destination = "org.freedesktop.portal.Desktop"
    static let path = DBusObjectPath(testConstant: "/org/freedesktop/portal/desktop")
    static let screenCast = "org.freedesktop.portal.ScreenCast"
    static let screenshot = "org.freedesktop.portal.Screenshot"

    let bus: DBusConnection

    /// A new connection to the test desktop's session bus.
    static func connect() throws -> RawPortal {
        RawPortal(bus: try DBusConnection.session())
    }

    /// What a request answered: `Response(u response, a{sv} results)`.
    struct Response: Sendable, CustomStringConvertible {
        var code: UInt32
        var results: DBusVardict
        var description: String { "Response(\(code), \(results))" }
    }

    /// A request made, its Response not yet seen.
    struct PendingRequest: Sendable {
        let handle: DBusObjectPath
        let subscription: DBusSignalSubscription

        /// The Response, or nil when none came within `timeout`.
        func response(within timeout: Duration = .seconds(15)) async -> Response? {
            await withTaskGroup(of: Response?.self) { group in
                group.addTask {
                    for await signal in subscription {
                        guard signal.arguments.count == 2, case .uint32(let code) = signal.arguments[0],
                              let results = try? DBusVardict(dbusValue: signal.arguments[1]) else { continue }
                        return Response(code: code, results: results)
                    }
                    return nil
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }
    }

    /// A fresh `handle_token` (valid as an object path element).
    static func token() -> String { "pwrecordtest_\(UInt32.random(in: 0...UInt32.max))" }

    /// The request path the frontend uses for `token`: `/org/freedesktop/portal/desktop/request/SENDER/TOKEN`.
    func requestPath(token: String) throws -> DBusObjectPath {
        let sender = bus.uniqueName.dropFirst().replacingOccurrences(of: ".", with: "_")
        return try DBusObjectPath("/org/freedesktop/portal/desktop/request/\(sender)/\(token)")
    }

    /// Calls `interface.member(arguments..., options)` with a `handle_token` added to `options`, after
    /// subscribing to the Response on the predicted path.
    func send(_ interface: String, _ member: String, _ arguments: [DBusValue], options: DBusVardict = [:])
        async throws -> PendingRequest {
        let token = Self.token()
        let handle = try requestPath(token: token)
        let subscription = try await bus.subscribe(DBusMatchRule(
            sender: Self.destination, path: handle, interface: "org.freedesktop.portal.Request", member: "Response"))
        var options = options
        options["handle_token"] = .string(token)
        let reply = try await bus.call(destination: Self.destination, path: Self.path, interface: interface,
                                       member: member, body: arguments + [options.dbusValue])
        let returned = try reply.argument(0, as: DBusObjectPath.self)
        guard returned == handle else { throw RawPortalError.unexpectedHandle(expected: handle, got: returned) }
        return PendingRequest(handle: handle, subscription: subscription)
    }

    /// ``send(_:_:_:options:)`` and wait for the Response.
    func request(_ interface: String, _ member: String, _ arguments: [DBusValue], options: DBusVardict = [:],
                 timeout: Duration = .seconds(15)) async throws -> Response {
        let pending = try await send(interface, member, arguments, options: options)
        guard let response = await pending.response(within: timeout) else {
            throw RawPortalError.noResponse(member: member, handle: pending.handle)
        }
        return response
    }

    /// A public property of the portal object.
    func property(_ interface: String, _ name: String) async throws -> DBusValue {
        try await bus.property(destination: Self.destination, path: Self.path, interface: interface, name: name)
    }
}
