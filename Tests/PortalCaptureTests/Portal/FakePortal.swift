import Foundation
import Glibc
import Synchronization
@testable import PortalCapture
import PortalTestSupport

/// A scriptable stand-in for the xdg-desktop-portal frontend, owning `org.freedesktop.portal.Desktop` on a private
/// dbus-daemon: for what the real frontend cannot be made to do on demand (advertise version 1 or 3, answer with a
/// malformed result or a junk handle, return a handle other than the predicted one, vanish mid-request).
///
/// Without a script each method answers like a healthy portal: CreateSession gives the session path from
/// `session_handle_token`, SelectSources `{}`, Start one monitor stream (node 42) plus a restore token when
/// `persist_mode` 1 or 2 was selected, OpenPipeWireRemote a pipe whose read end holds "P", Screenshot the `uri` set
/// with ``screenshotURI``. Calls on a closed or unknown session answer `AccessDenied: Invalid session`, as 1.16 does.
final class FakePortal: Sendable {
    struct Configuration: Sendable {
        var version: UInt32 = 4
        var sourceTypes: UInt32 = 3
        /// nil: the property is absent (version 1).
        var cursorModes: UInt32? = 7
        var screenCast = true
        var screenshot = true
    }

    /// How the next call of a method answers.
    enum Reply: Sendable {
        /// Returns the predicted handle, then `Response(code, results)`.
        case respond(UInt32, DBusVardict)
        /// Returns the handle and never answers.
        case never
        /// Answers the method call with this D-Bus error.
        case error(name: String, message: String)
        /// Returns a handle other than the predicted one and answers there, `after` later.
        case differentHandle(UInt32, DBusVardict, after: Duration)
        /// Returns the predicted handle, then a `Response` with this (malformed) body.
        case rawResponse([DBusValue])
        /// Answers the method call with this body instead of a handle.
        case rawReply([DBusValue])
        /// Never answers the method call itself (the request is made, the reply never sent).
        case hang
    }

    /// A call the fake received: method name (`Request.Close` and `Session.Close` included), its path and options.
    struct Call: Sendable {
        var method: String
        var path: DBusObjectPath
        var options: DBusVardict
    }

    private struct State {
        var scripts: [String: [Reply]] = [:]
        var calls: [Call] = []
        var sessions: [DBusObjectPath: DBusVardict] = [:]   // open sessions and their SelectSources options
        var issuedTokens = 0
        var screenshotURI: String?
    }

    let bus: PrivateBus
    let server: DBusConnection
    let configuration: Configuration
    private let state = Mutex(State())

    /// Starts a private bus and the fake on it.
    static func start(_ configuration: Configuration = Configuration()) async throws -> FakePortal {
        let bus = try PrivateBus()
        return try await FakePortal(bus: bus, configuration: configuration)
    }

    /// Starts the fake on an existing bus.
    init(bus: PrivateBus, configuration: Configuration = Configuration()) async throws {
        self.bus = bus
        self.configuration = configuration
        server = try bus.connect()
        var interfaces: [DBusInterface] = []
        if configuration.screenCast { interfaces.append(screenCastInterface()) }
        if configuration.screenshot { interfaces.append(screenshotInterface()) }
        try server.export(interfaces, at: DesktopPortal.objectPath)
        try server.exportFallback([closeInterface(DesktopPortal.requestInterface, label: "Request.Close")],
                                  under: try DBusObjectPath("/org/freedesktop/portal/desktop/request"))
        try server.exportFallback([closeInterface(DesktopPortal.sessionInterface, label: "Session.Close")],
                                  under: try DBusObjectPath("/org/freedesktop/portal/desktop/session"))
        try await server.requestName(DesktopPortal.busName)
    }

    /// A client of the fake's bus.
    func screenCast(timeouts: PortalTimeouts = PortalTimeouts(consent: .seconds(5), call: .seconds(5))) throws -> ScreenCastPortal {
        ScreenCastPortal(connection: try bus.connect(), timeouts: timeouts)
    }

    func screenshotPortal(timeouts: PortalTimeouts = PortalTimeouts(consent: .seconds(5), call: .seconds(5))) throws -> ScreenshotPortal {
        ScreenshotPortal(connection: try bus.connect(), timeouts: timeouts)
    }

    /// Queues replies for the next calls of `method`.
    func script(_ method: String, _ replies: Reply...) {
        state.withLock { $0.scripts[method, default: []].append(contentsOf: replies) }
    }

    var screenshotURI: String? {
        get { state.withLock { $0.screenshotURI } }
        set { state.withLock { $0.screenshotURI = newValue } }
    }

    var calls: [Call] { state.withLock { $0.calls } }
    func calls(_ method: String) -> [Call] { calls.filter { $0.method == method } }
    /// The calls of `method` once there are `count` of them, or those there are after `limit`. (Calls sent without
    /// waiting for a reply, such as `Request.Close`, arrive a little later.)
    func waitForCalls(_ method: String, count: Int, within limit: Duration = .seconds(5)) async -> [Call] {
        _ = await eventually(timeout: limit) { calls(method).count >= count }
        return calls(method)
    }

    /// Calls of the portal's own methods (not Request/Session.Close).
    var portalMethodCalls: [Call] { calls.filter { !$0.method.hasSuffix(".Close") } }

    /// Emits `org.freedesktop.portal.Session::Closed` for `session`, as the frontend does when the backend ends it.
    func emitClosed(_ session: DBusObjectPath) throws {
        _ = state.withLock { $0.sessions.removeValue(forKey: session) }
        try server.emitSignal(path: session, interface: DesktopPortal.sessionInterface, member: "Closed",
                              body: [DBusVardict().dbusValue])
    }

    /// Forgets `session` without any signal, as 1.16 does when a request on it answered non-zero.
    func forget(_ session: DBusObjectPath) {
        _ = state.withLock { $0.sessions.removeValue(forKey: session) }
    }

    /// The fake leaves the bus (its connection closes), as a crashed frontend does.
    func vanish() { server.close() }

    func stop() {
        server.close()
        bus.stop()
    }

    // MARK: Interfaces

    private func screenCastInterface() -> DBusInterface {
        var properties: [DBusProperty] = [.constant("version", .uint32(configuration.version)),
                                          .constant("AvailableSourceTypes", .uint32(configuration.sourceTypes))]
        if let modes = configuration.cursorModes { properties.append(.constant("AvailableCursorModes", .uint32(modes))) }
        return DBusInterface(ScreenCastPortal.interface, methods: [
            .deferred("CreateSession", in: "a{sv}") { [weak self] call in self?.handle(call) },
            .deferred("SelectSources", in: "oa{sv}") { [weak self] call in self?.handle(call) },
            .deferred("Start", in: "osa{sv}") { [weak self] call in self?.handle(call) },
            .replying("OpenPipeWireRemote", in: "oa{sv}") { [weak self] call throws(DBusError) in
                guard let self else { throw .disconnected }
                return try self.openPipeWireRemote(call)
            },
        ], properties: properties)
    }

    private func screenshotInterface() -> DBusInterface {
        DBusInterface(ScreenshotPortal.interface, methods: [
            .deferred("Screenshot", in: "sa{sv}") { [weak self] call in self?.handle(call) },
        ], properties: [.constant("version", .uint32(2))])
    }

    private func closeInterface(_ name: String, label: String) -> DBusInterface {
        DBusInterface(name, methods: [
            .replying("Close") { [weak self] call in
                self?.state.withLock { state in
                    state.calls.append(Call(method: label, path: call.path, options: DBusVardict()))
                    if label == "Session.Close" { state.sessions[call.path] = nil }
                }
                return []
            },
        ])
    }

    // MARK: Behaviour

    private func handle(_ call: DBusMethodCall) {
        let options = (try? call.arguments.argument(call.arguments.count - 1, as: DBusVardict.self)) ?? DBusVardict()
        let sessionPath = call.member == "CreateSession" || call.member == "Screenshot"
            ? nil : try? call.arguments.argument(0, as: DBusObjectPath.self)
        let reply = state.withLock { state -> Reply? in
            state.calls.append(Call(method: call.member, path: sessionPath ?? DesktopPortal.objectPath, options: options))
            return state.scripts[call.member]?.isEmpty == false ? state.scripts[call.member]!.removeFirst() : nil
        }
        let token = (try? options.value("handle_token", as: String.self)) ?? "t"
        let sender = String(call.sender.dropFirst()).replacingOccurrences(of: ".", with: "_")
        guard let handle = try? DBusObjectPath("/org/freedesktop/portal/desktop/request/\(sender)/\(token)") else {
            try? call.reply(errorName: "org.freedesktop.portal.Error.InvalidArgument", message: "bad handle_token")
            return
        }
        if let sessionPath, state.withLock({ $0.sessions[sessionPath] == nil }) {
            try? call.reply(errorName: "org.freedesktop.DBus.Error.AccessDenied", message: "Invalid session")
            return
        }
        switch reply ?? defaultReply(call, options: options, sessionPath: sessionPath, sender: sender) {
        case .respond(let code, let results):
            try? call.reply([.objectPath(handle)])
            respond(handle, to: call.sender, [.uint32(code), results.dbusValue])
        case .never:
            try? call.reply([.objectPath(handle)])
        case .error(let name, let message):
            try? call.reply(errorName: name, message: message)
        case .differentHandle(let code, let results, let after):
            let other = try! DBusObjectPath("/org/freedesktop/portal/desktop/request/\(sender)/other_\(token)")
            try? call.reply([.objectPath(other)])
            let server = self.server
            let target = call.sender
            if after == .zero {  // at once, right behind the reply, as a frontend answering without a dialog
                try? server.emitSignal(path: other, interface: DesktopPortal.requestInterface, member: "Response",
                                       body: [.uint32(code), results.dbusValue], destination: target)
                return
            }
            Task {
                try? await Task.sleep(for: after)
                try? server.emitSignal(path: other, interface: DesktopPortal.requestInterface, member: "Response",
                                       body: [.uint32(code), results.dbusValue], destination: target)
            }
        case .rawResponse(let body):
            try? call.reply([.objectPath(handle)])
            respond(handle, to: call.sender, body)
        case .rawReply(let body):
            try? call.reply(body)
        case .hang:
            break
        }
    }

    private func respond(_ handle: DBusObjectPath, to client: String, _ body: [DBusValue]) {
        try? server.emitSignal(path: handle, interface: DesktopPortal.requestInterface, member: "Response", body: body,
                               destination: client)
    }

    private func defaultReply(_ call: DBusMethodCall, options: DBusVardict, sessionPath: DBusObjectPath?,
                              sender: String) -> Reply {
        switch call.member {
        case "CreateSession":
            let token = (try? options.value("session_handle_token", as: String.self)) ?? "s"
            let path = try! DBusObjectPath("/org/freedesktop/portal/desktop/session/\(sender)/\(token)")
            state.withLock { $0.sessions[path] = DBusVardict() }
            return .respond(0, ["session_handle": path.rawValue])
        case "SelectSources":
            if let sessionPath { state.withLock { $0.sessions[sessionPath] = options } }
            return .respond(0, DBusVardict())
        case "Start":
            let selected = sessionPath.flatMap { path in state.withLock { $0.sessions[path] } } ?? DBusVardict()
            let types = (try? selected.value("types", as: UInt32.self)) ?? 1
            var results = DBusVardict(["streams": .array(element: PortalStream.dbusType, [
                .structure([.uint32(42), .vardict(["size": .structure([.int32(1920), .int32(1080)]),
                                                   "position": .structure([.int32(0), .int32(0)]),
                                                   "source_type": .uint32(types & 2 != 0 && types & 1 == 0 ? 2 : 1)])]),
            ])])
            if let persist = try? selected.value("persist_mode", as: UInt32.self), persist > 0 {
                let n = state.withLock { state -> Int in
                    state.issuedTokens += 1
                    return state.issuedTokens
                }
                results["restore_token"] = .string("fake-token-\(n)")
            }
            return .respond(0, results)
        case "Screenshot":
            guard let uri = screenshotURI else { return .respond(0, DBusVardict()) }
            return .respond(0, ["uri": uri])
        default:
            return .error(name: "org.freedesktop.DBus.Error.UnknownMethod", message: call.member)
        }
    }

    private func openPipeWireRemote(_ call: DBusMethodCall) throws(DBusError) -> [DBusValue] {
        let session = try call.arguments.argument(0, as: DBusObjectPath.self)
        let open = state.withLock { state -> Bool in
            state.calls.append(Call(method: "OpenPipeWireRemote", path: session, options: DBusVardict()))
            return state.sessions[session] != nil
        }
        guard open else { throw .remote(name: "org.freedesktop.DBus.Error.AccessDenied", message: "Invalid session") }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system(function: "pipe", errno: errno) }
        var byte = UInt8(ascii: "P")
        _ = write(ends[1], &byte, 1)
        close(ends[1])
        return [.unixFD(OwnedFileDescriptor(taking: ends[0]))]
    }
}
