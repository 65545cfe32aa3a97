import Foundation
import PortalCapture

/// One stream of a `Start` response: a PipeWire node id and its properties.
struct StartedStream: Sendable {
    var nodeID: UInt32
    var properties: DBusVardict

    var size: (width: Int32, height: Int32)? {
        guard let fields = try? properties["size"]?.structFields(), fields.count == 2,
              case .int32(let w) = fields[0], case .int32(let h) = fields[1] else { return nil }
        return (w, h)
    }

    var sourceType: UInt32? { try? properties.valueIfPresent("source_type", as: UInt32.self) }

    /// Reads `streams a(ua{sv})` from `Start`'s results.
    static func list(in results: DBusVardict) throws -> [StartedStream] {
        guard let value = results["streams"], case .array(_, let entries) = value else {
            throw RawPortalError.missing("streams in \(results)")
        }
        return try entries.map { entry in
            StartedStream(nodeID: try entry.field(0, as: UInt32.self), properties: try entry.field(1, as: DBusVardict.self))
        }
    }
}

/// `org.freedesktop.portal.ScreenCast` by hand: CreateSession, SelectSources, Start, OpenPipeWireRemote.
extension RawPortal {
    /// `CreateSession(a{sv} options)`; the session path comes back as `session_handle` in the results.
    func createSession() async throws -> (response: Response, session: DBusObjectPath?) {
        let response = try await request(Self.screenCast, "CreateSession", [],
                                         options: ["session_handle_token": Self.token()])
        let session = (try? response.results.valueIfPresent("session_handle", as: String.self))
            .flatMap { $0 }.flatMap { try? DBusObjectPath($0) }
        return (response, session)
    }

    /// `SelectSources(o session_handle, a{sv} options)`.
    func selectSources(_ session: DBusObjectPath, _ options: DBusVardict = [:]) async throws -> Response {
        try await request(Self.screenCast, "SelectSources", [.objectPath(session)], options: options)
    }

    /// `Start(o session_handle, s parent_window, a{sv} options)`.
    func start(_ session: DBusObjectPath) async throws -> Response {
        try await request(Self.screenCast, "Start", [.objectPath(session), .string("")])
    }

    /// `OpenPipeWireRemote(o session_handle, a{sv} options) -> h`.
    func openPipeWireRemote(_ session: DBusObjectPath) async throws -> OwnedFileDescriptor {
        let reply = try await bus.call(destination: Self.destination, path: Self.path, interface: Self.screenCast,
                                       member: "OpenPipeWireRemote",
                                       body: [.objectPath(session), DBusVardict().dbusValue])
        return try reply.argument(0, as: OwnedFileDescriptor.self)
    }

    /// `org.freedesktop.portal.Session.Close()` on the session.
    func closeSession(_ session: DBusObjectPath) async throws {
        _ = try await bus.call(destination: Self.destination, path: session, interface: "org.freedesktop.portal.Session",
                               member: "Close")
    }

    /// The whole round trip up to the streams: CreateSession, SelectSources(`options`), Start; every step
    /// must answer 0.
    func startScreenCast(_ options: DBusVardict = [:]) async throws -> (session: DBusObjectPath, start: Response, streams: [StartedStream]) {
        let (created, session) = try await createSession()
        guard created.code == 0, let session else { throw RawPortalError.missing("a session: CreateSession gave \(created)") }
        let selected = try await selectSources(session, options)
        guard selected.code == 0 else { throw RawPortalError.missing("sources: SelectSources gave \(selected)") }
        let started = try await start(session)
        guard started.code == 0 else { throw RawPortalError.missing("streams: Start gave \(started)") }
        return (session, started, try StartedStream.list(in: started.results))
    }
}
