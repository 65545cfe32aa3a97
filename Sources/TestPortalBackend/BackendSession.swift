import PortalCapture

/// A screen-cast session the frontend created (`CreateSession`), exported at its `session_handle` with
/// `org.freedesktop.impl.portal.Session` until it is closed.
struct BackendSession: Sendable {
    static let interfaceName = "org.freedesktop.impl.portal.Session"

    let path: DBusObjectPath
    let appID: String
    /// 1 for the first session this backend created, and so on (in node names and logs).
    let number: UInt32
    var selection = SourceSelection()
    /// The sources from valid restore data given to `SelectSources` (then `Start` shows no dialog).
    var restoredSources: [CaptureSource]?
    var started = false
    var streams: [SessionStream] = []

    init(path: DBusObjectPath, appID: String, number: UInt32) {
        self.path = path
        self.appID = appID
        self.number = number
    }

    /// The Session interface: `Close()` (the frontend ends the session: streams stop, the object goes),
    /// signal `Closed()` (emitted by ``TestPortal/closeSession(_:emitClosed:)``), property `version u` = 1.
    static func interface(portal: TestPortal) -> DBusInterface {
        DBusInterface(interfaceName, methods: [
            .replying("Close", in: "", out: "") { call throws(DBusError) in
                BackendLog.write("Session.Close \(call.path)")
                guard portal.closeSession(call.path, emitClosed: false) else {
                    throw .remote(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no session at \(call.path)")
                }
                return []
            },
        ], properties: [.constant("version", .uint32(1))], signals: [DBusSignalDeclaration("Closed")])
    }
}
