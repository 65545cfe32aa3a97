import PortalCapture

/// A request told to never answer (`SetNextResponse(method, 3)`): the call is kept unanswered and an
/// `org.freedesktop.impl.portal.Request` object is exported at its `handle` until the frontend calls `Close`
/// (when the client closes the request or leaves the bus). Then the call is dropped without a reply.
struct BackendRequest: Sendable {
    static let interfaceName = "org.freedesktop.impl.portal.Request"

    let handle: DBusObjectPath
    let method: PortalMethod
    /// The unanswered call.
    let call: DBusMethodCall

    /// The Request interface: `Close()`.
    static func interface(portal: TestPortal) -> DBusInterface {
        DBusInterface(interfaceName, methods: [
            .replying("Close", in: "", out: "") { call throws(DBusError) in
                BackendLog.write("Request.Close \(call.path)")
                guard portal.dropRequest(call.path) else {
                    throw .remote(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no request at \(call.path)")
                }
                return []
            },
        ])
    }
}
